package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirerec/entire/engine/session"
)

// LocateGit finds a worktree's git directory and common directory from its root without
// starting git, the way git hooks are run (cwd = worktree root). ok=false when dir has no
// .git entry; callers then ask git.
func LocateGit(dir string) (gitDir, commonDir string, ok bool) {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err != nil:
		return "", "", false
	case fi.IsDir():
		gitDir = dotgit
	default:
		data, err := os.ReadFile(dotgit)
		p, found := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
		if err != nil || !found {
			return "", "", false
		}
		gitDir = strings.TrimSpace(p)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(dir, gitDir)
		}
	}
	commonDir = gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		commonDir = filepath.Clean(c)
	}
	return gitDir, commonDir, true
}

// readHead resolves HEAD from the files of a git directory: a detached ID, a loose ref or a
// packed ref. "" when it cannot tell (the caller then treats the hook as not idle).
func readHead(gitDir, commonDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(data))
	ref, isRef := strings.CutPrefix(head, "ref: ")
	if !isRef {
		return head
	}
	for _, dir := range []string{gitDir, commonDir} {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(data))
		}
	}
	packed, err := os.ReadFile(filepath.Join(commonDir, "packed-refs"))
	if err != nil {
		return ""
	}
	for _, line := range bytes.Split(packed, []byte{'\n'}) {
		if oid, name, ok := strings.Cut(string(line), " "); ok && name == ref {
			return oid
		}
	}
	return ""
}

// GitHookIdle reports, without starting git, that a commit hook in the worktree at dir has
// nothing to do: every session recorded for this worktree has ended, holds no uncondensed
// work, and is not based on HEAD (which an amend would restore the trailer from). A
// repository without sessions costs its commits one directory read.
func GitHookIdle(dir string) bool {
	gitDir, commonDir, ok := LocateGit(dir)
	if !ok {
		return false
	}
	entries, err := os.ReadDir(filepath.Join(commonDir, "entire-sessions"))
	if os.IsNotExist(err) {
		return true
	}
	if err != nil {
		return false
	}
	if len(entries) == 0 {
		return true
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	head := readHead(gitDir, commonDir)
	if head == "" {
		return false
	}
	live, err := session.NewStore(commonDir).ListWhere(func(b session.Brief) bool { return b.Live(root, head) })
	return err == nil && len(live) == 0
}
