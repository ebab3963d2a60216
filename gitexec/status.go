package gitexec

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// StatusEntry is one line of "git status --porcelain=v1": X is the index
// status and Y the work-tree status ('?' in both for untracked files).
type StatusEntry struct {
	Path string // relative to TopLevel, with "/" separators
	X, Y byte
}

// Untracked reports whether the path is untracked.
func (e StatusEntry) Untracked() bool { return e.X == '?' }

// Deleted reports whether the path is deleted in the work tree or the index.
func (e StatusEntry) Deleted() bool { return e.X == 'D' || e.Y == 'D' }

// Status lists changed, staged and untracked (not ignored) files, every
// untracked file named individually and renames shown as delete plus add.
// Paths are relative to TopLevel whatever the process's working directory.
func (r *Repo) Status(ctx context.Context) ([]StatusEntry, error) {
	out, err := r.git(ctx, call{}, "status", "--porcelain=v1", "-z", "-uall", "--no-renames")
	if err != nil {
		return nil, fmt.Errorf("read status: %w", err)
	}
	var entries []StatusEntry
	for _, rec := range splitNUL(out) {
		if len(rec) < 4 || rec[2] != ' ' {
			return nil, fmt.Errorf("read status: unexpected record %q", rec)
		}
		entries = append(entries, StatusEntry{X: rec[0], Y: rec[1], Path: string(rec[3:])})
	}
	return entries, nil
}

// DiffEntry is one changed file of "git diff-tree --raw". The absent side of
// an addition or deletion has mode "000000" and a zero OID (see OID.IsZero).
type DiffEntry struct {
	Path             string // relative to the root, with "/" separators
	OldMode, NewMode string
	OldOID, NewOID   OID
	Status           byte // 'A', 'M', 'D' or 'T' (type change)
}

// DiffTree lists the files that differ between the tree-ishes a and b
// ("git diff-tree -r --raw --no-renames a b"); a == "" means the empty tree,
// so a root commit shows all its files as added.
func (r *Repo) DiffTree(ctx context.Context, a, b string) ([]DiffEntry, error) {
	if a == "" {
		a = string(r.emptyTree())
	}
	if err := checkRev(a); err != nil {
		return nil, fmt.Errorf("diff trees: %w", err)
	}
	if err := checkRev(b); err != nil {
		return nil, fmt.Errorf("diff trees: %w", err)
	}
	out, err := r.git(ctx, call{}, "diff-tree", "-r", "-z", "--raw", "--no-renames", a, b)
	if err != nil {
		return nil, fmt.Errorf("diff trees %s %s: %w", a, b, err)
	}
	return r.parseRawDiff(out)
}

// StagedChanges lists what the next commit would change relative to HEAD
// ("git diff-index --cached HEAD", or against the empty tree on an unborn
// branch). When HookIndex is set it reads that index, so a hook running
// inside "git commit -a" or "git commit <paths>" sees the commit's contents.
func (r *Repo) StagedChanges(ctx context.Context) ([]DiffEntry, error) {
	base := "HEAD"
	if _, ok := r.HeadAtOpen(); !ok {
		// Unborn when opened (or HEAD could not be read then): ask, and diff against the
		// empty tree when there is still no HEAD.
		if _, ok, err := r.Head(ctx); err != nil {
			return nil, fmt.Errorf("read staged changes: %w", err)
		} else if !ok {
			base = string(r.emptyTree())
		}
	}
	c := call{}
	if r.HookIndex != "" {
		c.env = []string{"GIT_INDEX_FILE=" + r.HookIndex}
	}
	out, err := r.git(ctx, c, "diff-index", "--cached", "-r", "-z", "--raw", "--no-renames", base)
	if err != nil {
		return nil, fmt.Errorf("read staged changes: %w", err)
	}
	return r.parseRawDiff(out)
}

// parseRawDiff parses -z --raw output without renames:
// ":<old mode> <new mode> <old oid> <new oid> <status>\0<path>\0".
func (r *Repo) parseRawDiff(out []byte) ([]DiffEntry, error) {
	recs := splitNUL(out)
	if len(recs)%2 != 0 {
		return nil, fmt.Errorf("parse raw diff: odd number of fields")
	}
	var entries []DiffEntry
	for i := 0; i < len(recs); i += 2 {
		head, ok := bytes.CutPrefix(recs[i], []byte(":"))
		f := strings.Fields(string(head))
		if !ok || len(f) != 5 || f[4] == "" {
			return nil, fmt.Errorf("parse raw diff: unexpected record %q", recs[i])
		}
		oldID, err1 := r.parseOIDLen(f[2])
		newID, err2 := r.parseOIDLen(f[3])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("parse raw diff: unexpected record %q", recs[i])
		}
		entries = append(entries, DiffEntry{
			Path: string(recs[i+1]), OldMode: f[0], NewMode: f[1],
			OldOID: oldID, NewOID: newID, Status: f[4][0],
		})
	}
	return entries, nil
}

// splitNUL splits NUL-terminated records.
func splitNUL(out []byte) [][]byte {
	out = bytes.TrimSuffix(out, []byte{0})
	if len(out) == 0 {
		return nil
	}
	return bytes.Split(out, []byte{0})
}

// checkRev rejects revisions git would misread as options or that cannot be
// sent on one line.
func checkRev(rev string) error {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
		return fmt.Errorf("invalid revision %q", rev)
	}
	return nil
}
