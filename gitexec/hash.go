package gitexec

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// HashFiles writes work-tree files (paths relative to TopLevel, "/"
// separated) to the object database as blobs, the way "git add" would
// (clean filters and line-ending conversion apply), and returns their ids in
// the order of paths. Regular files go through one
// "git hash-object -w --stdin-paths". Symbolic links are stored as their
// target, as git does; hash-object would follow them, so they go through
// HashBlobs (one more process when there are any).
func (r *Repo) HashFiles(ctx context.Context, paths []string) ([]OID, error) {
	oids := make([]OID, len(paths))
	var files, links []int
	var linkTargets [][]byte
	var in bytes.Buffer
	for i, p := range paths {
		if p == "" || strings.ContainsRune(p, 0) || filepath.IsAbs(p) {
			return nil, fmt.Errorf("hash files: invalid path %q", p)
		}
		full := filepath.Join(r.TopLevel, filepath.FromSlash(p))
		fi, err := os.Lstat(full)
		if err != nil {
			return nil, fmt.Errorf("hash files: %w", err)
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(full)
			if err != nil {
				return nil, fmt.Errorf("hash files: %w", err)
			}
			links = append(links, i)
			linkTargets = append(linkTargets, []byte(filepath.ToSlash(target)))
		case fi.Mode().IsRegular():
			files = append(files, i)
			in.WriteString(quoteStdinPath(p))
			in.WriteByte('\n')
		default:
			return nil, fmt.Errorf("hash files: %s is not a regular file or symbolic link", p)
		}
	}
	if len(files) > 0 {
		out, err := r.git(ctx, call{stdin: &in, writesOnly: true}, "hash-object", "-w", "--stdin-paths")
		if err != nil {
			return nil, fmt.Errorf("hash files: %w", err)
		}
		if err := r.fillOIDs(oids, files, out); err != nil {
			return nil, fmt.Errorf("hash files: %w", err)
		}
	}
	if len(links) > 0 {
		ids, err := r.HashBlobs(ctx, linkTargets)
		if err != nil {
			return nil, fmt.Errorf("hash files: %w", err)
		}
		for k, i := range links {
			oids[i] = ids[k]
		}
	}
	return oids, nil
}

// quoteStdinPath C-quotes a path for a --stdin-paths line when git would
// otherwise misread it: git unquotes lines starting with a double quote, and
// a newline would split the line.
func quoteStdinPath(p string) string {
	if !strings.HasPrefix(p, `"`) && !strings.ContainsAny(p, "\n\r") {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// fillOIDs parses one object id per line of out into oids at the positions
// listed in at.
func (r *Repo) fillOIDs(oids []OID, at []int, out []byte) error {
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(at) {
		return fmt.Errorf("want %d object ids, git printed %d lines", len(at), len(lines))
	}
	for k, i := range at {
		id, err := r.parseOIDLen(lines[k])
		if err != nil {
			return err
		}
		oids[i] = id
	}
	return nil
}

// HashBlobs writes each of contents to the object database as a blob,
// exactly as given (no filters), and returns their ids in order. All blobs go
// through one "git fast-import" (a stream of blob commands, then one get-mark
// per blob), however many there are; git stores small batches as loose
// objects and larger ones as a pack.
//
// Blobs given to DeferBlobs before are written by the same process.
func (r *Repo) HashBlobs(ctx context.Context, contents [][]byte) ([]OID, error) {
	early, want := r.takeDeferred()
	if len(early) == 0 {
		return r.writeBlobs(ctx, contents)
	}
	oids, err := r.writeBlobs(ctx, append(early, contents...))
	if err != nil {
		return nil, err
	}
	if err := checkDeferred(oids, want); err != nil {
		return nil, err
	}
	return oids[len(early):], nil
}

// DeferBlobs returns the ids contents will have as blobs and queues their writing: the next
// HashBlobs writes them in its own process; any other git process, an object read that misses
// and may lead to them, or Close writes them first, so git never looks for one before it exists (tree writes need not
// wait: mktree runs with --missing). A writer that would
// otherwise start hash-object twice in a row starts it once.
func (r *Repo) DeferBlobs(contents [][]byte) []OID {
	oids := make([]OID, len(contents))
	for i, c := range contents {
		var h hash.Hash = sha1.New()
		if r.hexLen == 64 {
			h = sha256.New()
		}
		fmt.Fprintf(h, "blob %d\x00", len(c))
		h.Write(c)
		oids[i] = OID(hex.EncodeToString(h.Sum(nil)))
	}
	r.deferred.mu.Lock()
	r.deferred.blobs = append(r.deferred.blobs, contents...)
	r.deferred.oids = append(r.deferred.oids, oids...)
	r.deferred.mu.Unlock()
	return oids
}

// deferredBlobs are the blobs DeferBlobs queued and not yet written.
type deferredBlobs struct {
	mu    sync.Mutex
	blobs [][]byte
	oids  []OID
	trees []OID // written while they waited (see mayReachDeferred)
}

// noteTree records a tree written while blobs are deferred: it may contain them.
func (r *Repo) noteTree(oid OID) {
	r.deferred.mu.Lock()
	defer r.deferred.mu.Unlock()
	if len(r.deferred.blobs) > 0 {
		r.deferred.trees = append(r.deferred.trees, oid)
	}
}

// mayReachDeferred reports whether a revision that git could not find may lead to a deferred
// blob: it starts with a deferred blob's id or with a tree written since they were deferred.
// Anything else was there before them and cannot name them.
func (r *Repo) mayReachDeferred(rev string) bool {
	r.deferred.mu.Lock()
	defer r.deferred.mu.Unlock()
	for _, ids := range [][]OID{r.deferred.oids, r.deferred.trees} {
		for _, id := range ids {
			if strings.HasPrefix(rev, string(id)) {
				return true
			}
		}
	}
	return false
}

// takeDeferred empties the queue of deferred blobs and returns it.
func (r *Repo) takeDeferred() ([][]byte, []OID) {
	r.deferred.mu.Lock()
	defer r.deferred.mu.Unlock()
	blobs, oids := r.deferred.blobs, r.deferred.oids
	r.deferred.blobs, r.deferred.oids, r.deferred.trees = nil, nil, nil
	return blobs, oids
}

// flushDeferred writes the deferred blobs, if any.
func (r *Repo) flushDeferred(ctx context.Context) error {
	blobs, want := r.takeDeferred()
	if len(blobs) == 0 {
		return nil
	}
	oids, err := r.writeBlobs(ctx, blobs)
	if err != nil {
		return fmt.Errorf("write deferred blobs: %w", err)
	}
	return checkDeferred(oids, want)
}

// checkDeferred compares the ids git gave the deferred blobs (the first of oids) with those
// DeferBlobs computed.
func checkDeferred(oids, want []OID) error {
	for i, w := range want {
		if oids[i] != w {
			return fmt.Errorf("deferred blob %d: git wrote %s, expected %s", i, oids[i], w)
		}
	}
	return nil
}

// writeBlobs is HashBlobs without the deferred blobs.
func (r *Repo) writeBlobs(ctx context.Context, contents [][]byte) ([]OID, error) {
	if len(contents) == 0 {
		return []OID{}, nil
	}
	if len(contents) == 1 {
		out, err := r.git(ctx, call{stdin: bytes.NewReader(contents[0])}, "hash-object", "-w", "--no-filters", "--stdin")
		if err != nil {
			return nil, fmt.Errorf("hash blobs: %w", err)
		}
		oids := make([]OID, 1)
		return oids, r.fillOIDs(oids, []int{0}, out)
	}
	// Several blobs: one hash-object over temporary files. (fast-import would also take them
	// in one process, but it delta-compresses into a pack that git then unpacks: much slower
	// for large transcripts.)
	dir, err := os.MkdirTemp(r.GitDir, "entire-blobs-")
	if err != nil {
		return nil, fmt.Errorf("hash blobs: %w", classify(err))
	}
	defer os.RemoveAll(dir)
	var in bytes.Buffer
	for i, c := range contents {
		p := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(p, c, 0o600); err != nil {
			return nil, fmt.Errorf("hash blobs: %w", classify(err))
		}
		in.WriteString(quoteStdinPath(p))
		in.WriteByte('\n')
	}
	out, err := r.git(ctx, call{stdin: &in}, "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return nil, fmt.Errorf("hash blobs: %w", err)
	}
	oids := make([]OID, len(contents))
	at := make([]int, len(contents))
	for i := range at {
		at[i] = i
	}
	if err := r.fillOIDs(oids, at, out); err != nil {
		return nil, fmt.Errorf("hash blobs: %w", err)
	}
	return oids, nil
}
