package gitexec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// This file holds what a rewind needs: listing a tree recursively, comparing a tree with the
// work tree, checking files out of a tree through a temporary index, the history of paths,
// and moving HEAD and the index.

// TreeFile is one non-directory entry of a recursive tree listing.
type TreeFile struct {
	Path string // relative to the root, with "/" separators
	Mode string // "100644", "100755", "120000" or "160000"
	OID  OID
}

// LsTree lists every file of treeish recursively ("git ls-tree -r -z --full-tree"), only those
// under paths when paths is not empty (matched literally).
func (r *Repo) LsTree(ctx context.Context, treeish string, paths []string) ([]TreeFile, error) {
	if err := checkRev(treeish); err != nil {
		return nil, fmt.Errorf("list tree: %w", err)
	}
	args := append([]string{"ls-tree", "-r", "-z", "--full-tree", treeish, "--"}, literal(paths)...)
	out, err := r.git(ctx, call{}, args...)
	if err != nil {
		return nil, fmt.Errorf("list tree %s: %w", treeish, err)
	}
	var files []TreeFile
	for _, rec := range splitNUL(out) {
		head, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(head))
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("list tree %s: unexpected record %q", treeish, rec)
		}
		oid, err := r.parseOIDLen(f[2])
		if err != nil {
			return nil, fmt.Errorf("list tree %s: %w", treeish, err)
		}
		files = append(files, TreeFile{Path: string(path), Mode: f[0], OID: oid})
	}
	return files, nil
}

// DiffWorktree lists the files whose work-tree state differs from treeish, as "git diff
// <treeish>" sees them (files the index does not track count as absent; unchanged files with a
// stale index entry are not listed). The work-tree side's OID is zero: read the file.
func (r *Repo) DiffWorktree(ctx context.Context, treeish string) ([]DiffEntry, error) {
	if err := checkRev(treeish); err != nil {
		return nil, fmt.Errorf("diff work tree: %w", err)
	}
	out, err := r.git(ctx, call{}, "diff", "--raw", "-z", "--no-renames", "--no-abbrev",
		"--no-ext-diff", "--ignore-submodules", treeish, "--")
	if err != nil {
		return nil, fmt.Errorf("diff work tree against %s: %w", treeish, err)
	}
	return r.parseRawDiff(out)
}

// CheckoutFiles writes paths into the work tree as they are in treeish, overwriting what is
// there and creating directories, without touching the index or HEAD: treeish is read into a
// temporary index and "git checkout-index -f -z --stdin" writes the paths from it.
func (r *Repo) CheckoutFiles(ctx context.Context, treeish string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if err := checkRev(treeish); err != nil {
		return fmt.Errorf("check out files: %w", err)
	}
	dir, err := os.MkdirTemp("", "entire-index-")
	if err != nil {
		return fmt.Errorf("check out files: %w", err)
	}
	defer os.RemoveAll(dir)
	c := call{env: []string{"GIT_INDEX_FILE=" + filepath.Join(dir, "index")}}
	if _, err := r.git(ctx, c, "read-tree", treeish); err != nil {
		return fmt.Errorf("check out files from %s: %w", treeish, err)
	}
	var in bytes.Buffer
	for _, p := range paths {
		if p == "" || strings.ContainsRune(p, 0) {
			return fmt.Errorf("check out files: invalid path %q", p)
		}
		in.WriteString(p)
		in.WriteByte(0)
	}
	c.stdin = &in
	if _, err := r.git(ctx, c, "checkout-index", "-f", "-z", "--stdin"); err != nil {
		return fmt.Errorf("check out files from %s: %w", treeish, err)
	}
	return nil
}

// LogRaw lists every version of paths that the commits reachable from revs introduced ("git log
// --raw --root" limited to paths, matched literally), newest first; NewOID is the version.
func (r *Repo) LogRaw(ctx context.Context, revs []string, paths []string) ([]DiffEntry, error) {
	if len(revs) == 0 || len(paths) == 0 {
		return nil, nil
	}
	args := []string{"log", "--format=", "--raw", "-z", "--no-abbrev", "--no-renames", "--root"}
	for _, rev := range revs {
		if err := checkRev(rev); err != nil {
			return nil, fmt.Errorf("log paths: %w", err)
		}
		args = append(args, rev)
	}
	out, err := r.git(ctx, call{}, append(append(args, "--"), literal(paths)...)...)
	if err != nil {
		return nil, fmt.Errorf("log paths: %w", err)
	}
	return r.parseRawDiff(out)
}

// RevList lists up to max commits reachable from rev, newest first ("git rev-list").
func (r *Repo) RevList(ctx context.Context, rev string, max int) ([]OID, error) {
	if err := checkRev(rev); err != nil {
		return nil, fmt.Errorf("list commits: %w", err)
	}
	out, err := r.git(ctx, call{}, "rev-list", "--max-count="+strconv.Itoa(max), rev, "--")
	if err != nil {
		return nil, fmt.Errorf("list commits of %s: %w", rev, err)
	}
	var ids []OID
	for _, l := range strings.Fields(string(out)) {
		id, err := r.parseOIDLen(l)
		if err != nil {
			return nil, fmt.Errorf("list commits of %s: %w", rev, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// ResetMode is how far "git reset" goes.
type ResetMode string

// The modes Reset accepts.
const (
	ResetSoft  ResetMode = "--soft"  // move HEAD only
	ResetMixed ResetMode = "--mixed" // and the index
	ResetHard  ResetMode = "--hard"  // and the work tree
)

// Reset moves HEAD (the current branch) to commit ("git reset -q <mode> <commit> --").
func (r *Repo) Reset(ctx context.Context, mode ResetMode, commit OID) error {
	switch mode {
	case ResetSoft, ResetMixed, ResetHard:
	default:
		return fmt.Errorf("reset: unknown mode %q", mode)
	}
	if _, err := r.parseOIDLen(string(commit)); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	if _, err := r.git(ctx, call{}, "reset", "-q", string(mode), string(commit), "--"); err != nil {
		return fmt.Errorf("reset %s %s: %w", mode, commit.Short(7), err)
	}
	return nil
}

// ResetPaths sets the index entries of paths (files) to commit's, removing those commit lacks,
// and leaves HEAD, the work tree and every other entry alone, as "git reset -q <commit> --
// <paths>" does (each path matched literally: "pages/[id].tsx" names that file, not
// pages/i.tsx). It does not run git reset, which reads the index before it takes the index's
// lock and writes what it read back: an entry another process wrote in between (another
// session's auto-commit syncing its files, the user's git add) was lost, so the user's next
// commit reverted a file an agent had just committed. update-index takes the lock first and
// reads the index under it. The entries' stat data is then refreshed, as reset's is.
func (r *Repo) ResetPaths(ctx context.Context, commit OID, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if _, err := r.parseOIDLen(string(commit)); err != nil {
		return fmt.Errorf("reset paths: %w", err)
	}
	files, err := r.commitFiles(ctx, commit, paths)
	if err != nil {
		return fmt.Errorf("reset paths to %s: %w", commit.Short(7), err)
	}
	var in bytes.Buffer
	zero := strings.Repeat("0", r.hexLen)
	for _, p := range paths {
		in.WriteString("0 " + zero + "\t" + p + "\x00")
	}
	for _, f := range files {
		in.WriteString(f.Mode + " " + string(f.OID) + "\t" + f.Path + "\x00")
	}
	if _, err := r.gitIndexWrite(ctx, in.Bytes(), "update-index", "-z", "--index-info"); err != nil {
		return fmt.Errorf("reset paths to %s: %w", commit.Short(7), err)
	}
	// The entries written carry no stat data, so plumbing such as "git diff-index HEAD" would
	// show those files as changed until something refreshes the index. A refresh that fails
	// (the index busy beyond the wait) leaves entries that are right, only slower to compare,
	// and git status refreshes them.
	_, _ = r.gitIndexWrite(ctx, nil, "update-index", "-q", "--unmerged", "--refresh")
	return nil
}

// commitFiles are the entries of commit's tree at paths, without a git process when the
// running cat-file has them; a path that is a directory there gives the files under it.
func (r *Repo) commitFiles(ctx context.Context, commit OID, paths []string) ([]TreeFile, error) {
	entries, err := r.PathEntries(ctx, string(commit), paths)
	if err != nil {
		return nil, err
	}
	var files []TreeFile
	for _, p := range paths {
		e, ok := entries[p]
		if !ok {
			continue
		}
		if e.Type == "tree" {
			return r.LsTree(ctx, string(commit), paths)
		}
		files = append(files, TreeFile{Path: p, Mode: e.Mode, OID: e.OID})
	}
	return files, nil
}

// indexLockWait is how long a write of the index waits for another process's index.lock (a
// git status refreshing the index, another hook's index write), as update-ref waits for a
// ref's lock (refLockTimeoutMS); git itself fails at once.
const indexLockWait = 800 * time.Millisecond

// gitIndexWrite runs a git command that writes the index, again while another process holds
// the index's lock, for indexLockWait at most.
func (r *Repo) gitIndexWrite(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	deadline := time.Now().Add(indexLockWait)
	for delay := 10 * time.Millisecond; ; delay *= 2 {
		c := call{}
		if stdin != nil {
			c.stdin = bytes.NewReader(stdin)
		}
		out, err := r.git(ctx, c, args...)
		if err == nil || !stderrHas(err, "index.lock': File exists") || time.Now().Add(delay).After(deadline) {
			return out, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// IndexEntries are the index's entries of paths, as "git ls-files -s -z" writes them (matched
// literally), for RestoreIndexEntries.
func (r *Repo) IndexEntries(ctx context.Context, paths []string) ([]byte, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	out, err := r.git(ctx, call{}, append([]string{"ls-files", "-s", "-z", "--"}, literal(paths)...)...)
	if err != nil {
		return nil, fmt.Errorf("read index entries: %w", err)
	}
	return out, nil
}

// RestoreIndexEntries puts the index entries of paths back to entries, which IndexEntries read
// ("git update-index --index-info"): each path's entries are removed, then entries are added
// again, conflict stages included; a path entries lacks stays out of the index.
func (r *Repo) RestoreIndexEntries(ctx context.Context, paths []string, entries []byte) error {
	if len(paths) == 0 {
		return nil
	}
	var in bytes.Buffer
	zero := strings.Repeat("0", r.hexLen)
	for _, p := range paths {
		in.WriteString("0 " + zero + "\t" + p + "\x00")
	}
	in.Write(entries)
	if _, err := r.gitIndexWrite(ctx, in.Bytes(), "update-index", "-z", "--index-info"); err != nil {
		return fmt.Errorf("restore index entries: %w", err)
	}
	return nil
}

// WriteTree writes the index as a tree ("git write-tree"); ok=false when the index has
// unmerged entries and so is no tree.
func (r *Repo) WriteTree(ctx context.Context) (OID, bool, error) {
	out, err := r.git(ctx, call{}, "write-tree")
	if err != nil {
		if stderrHas(err, "unmerged", "not able to write tree") {
			return "", false, nil
		}
		return "", false, fmt.Errorf("write index tree: %w", err)
	}
	oid, err := r.parseOIDLen(strings.TrimSpace(string(out)))
	if err != nil {
		return "", false, fmt.Errorf("write index tree: %w", err)
	}
	return oid, true, nil
}

// ReadTreeIndex replaces the index with treeish ("git read-tree"), leaving the work tree alone.
func (r *Repo) ReadTreeIndex(ctx context.Context, treeish string) error {
	if err := checkRev(treeish); err != nil {
		return fmt.Errorf("read tree into index: %w", err)
	}
	if _, err := r.git(ctx, call{}, "read-tree", treeish); err != nil {
		return fmt.Errorf("read tree %s into index: %w", treeish, err)
	}
	return nil
}

// literal turns paths into literal pathspecs, so that no character in a file name is magic.
func literal(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = ":(literal)" + p
	}
	return out
}
