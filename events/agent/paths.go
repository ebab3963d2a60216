package agent

import (
	"path/filepath"
	"strings"
)

// RepoRelative makes a path from the transcript or a payload relative to the
// repository root, the form stored everywhere (entire-format.md §0): forward
// slashes, no leading "./". repoRoot must be absolute, as
// git rev-parse --show-toplevel prints it. p is absolute or relative to cwd
// (cwd itself, if relative or empty, is taken relative to repoRoot). It
// returns false when p is empty, outside the repository, the root itself, or
// under the infrastructure directories .entire/ or .git/.
//
// The comparison is lexical first. When that puts p outside the root, it is
// retried after resolving symlinks in the root and in the longest existing
// prefix of p, so /tmp/r/a.go matches a root reported as /private/tmp/r (or
// the reverse) and deleted files still resolve.
func RepoRelative(repoRoot, cwd, p string) (string, bool) {
	if repoRoot == "" || p == "" {
		return "", false
	}
	root := filepath.Clean(repoRoot)
	abs := p
	if !filepath.IsAbs(abs) {
		base := cwd
		if base == "" {
			base = root
		} else if !filepath.IsAbs(base) {
			base = filepath.Join(root, base)
		}
		abs = filepath.Join(base, abs)
	}
	abs = filepath.Clean(abs)

	rel, inside := relInside(root, abs)
	if !inside {
		realRoot, realAbs := resolveExisting(root), resolveExisting(abs)
		for _, pair := range [][2]string{{root, realAbs}, {realRoot, abs}, {realRoot, realAbs}} {
			if rel, inside = relInside(pair[0], pair[1]); inside {
				break
			}
		}
	}
	if !inside || rel == "." {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	first, _, _ := strings.Cut(rel, "/")
	if first == ".entire" || first == ".git" {
		return "", false
	}
	return rel, true
}

// relInside returns p relative to root and whether p is root or below it.
func relInside(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// resolveExisting resolves symlinks in the longest existing prefix of the
// clean absolute path p and appends the rest unchanged. It returns p when
// nothing resolves.
func resolveExisting(p string) string {
	rest := ""
	for dir := p; ; {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if rest == "" {
				return real
			}
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
