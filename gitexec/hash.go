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
	"runtime"
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
		out, err := r.git(ctx, call{stdin: bytes.NewReader(in.Bytes()), writesOnly: true}, hashFilesArgs...)
		// A file that shrank while git read it (an agent still writing) fails the whole
		// batch; read again, the files are read as they are then.
		for try := 1; try < maxHashTries && err != nil && stderrHas(err, "short read"); try++ {
			out, err = r.git(ctx, call{stdin: bytes.NewReader(in.Bytes()), writesOnly: true}, hashFilesArgs...)
		}
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

// maxHashTries bounds the runs of HashFiles' hash-object when files change under it.
const maxHashTries = 3

// hashFilesArgs write files named on stdin as blobs, through their clean filters.
var hashFilesArgs = []string{"hash-object", "-w", "--stdin-paths"}

// PrestartFileHashes starts, in the background, the process that HashFiles will give the
// worktree's changed files to: git starts up while the caller finds them (git status).
func (r *Repo) PrestartFileHashes() {
	r.ahead.start(r, hashFilesArgs, 0)
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
// exactly as given (no filters), and returns their ids in order, with one
// git process however many there are (writeObjects).
//
// Blobs given to DeferBlobs before are written by the same process.
func (r *Repo) HashBlobs(ctx context.Context, contents [][]byte) ([]OID, error) {
	early := r.takeDeferred()
	oids, err := r.writeBlobs(ctx, append(early, contents...))
	if err != nil {
		return nil, err
	}
	return oids[len(early):], nil
}

// DeferBlobs returns the ids contents will have as blobs and queues their writing: the next
// HashBlobs, BuildTree or BuildCommit writes them in the same process as its own objects, and
// commit-tree has them written beside it (it checks only its tree). Any other git process (a
// ref update first), an object read that misses and may lead to them, or Close waits until
// they are written, so git never looks for one before it exists.
func (r *Repo) DeferBlobs(contents [][]byte) []OID {
	oids := make([]OID, len(contents))
	for i, c := range contents {
		oids[i] = r.objectID("blob", c)
	}
	r.deferred.mu.Lock()
	r.deferred.blobs = append(r.deferred.blobs, contents...)
	r.deferred.oids = append(r.deferred.oids, oids...)
	r.deferred.mu.Unlock()
	return oids
}

// objectID is the id git gives an object of type typ and content data in this repository.
func (r *Repo) objectID(typ string, data []byte) OID {
	var h hash.Hash = sha1.New()
	if r.hexLen == 64 {
		h = sha256.New()
	}
	fmt.Fprintf(h, "%s %d\x00", typ, len(data))
	h.Write(data)
	return OID(hex.EncodeToString(h.Sum(nil)))
}

// deferredBlobs are the blobs DeferBlobs queued and not yet written.
type deferredBlobs struct {
	mu    sync.Mutex
	blobs [][]byte
	oids  []OID
	// writing is the write started beside a process that reads no blob, until waited for.
	writing *blobWrite
}

// mayReachDeferred reports whether a revision that git could not find may lead to a deferred
// blob: it starts with a deferred blob's id. Trees that name them are written with them, and
// anything else was there before them and cannot name them.
func (r *Repo) mayReachDeferred(rev string) bool {
	r.deferred.mu.Lock()
	defer r.deferred.mu.Unlock()
	if r.deferred.writing != nil {
		return true // a write under way may hold it
	}
	for _, id := range r.deferred.oids {
		if strings.HasPrefix(rev, string(id)) {
			return true
		}
	}
	return false
}

// takeDeferred empties the queue of deferred blobs and returns their contents.
func (r *Repo) takeDeferred() [][]byte {
	r.deferred.mu.Lock()
	defer r.deferred.mu.Unlock()
	blobs := r.deferred.blobs
	r.deferred.blobs, r.deferred.oids = nil, nil
	return blobs
}

// flushDeferred writes the deferred blobs, if any, and waits for a write started beside an
// earlier process: when it returns, every blob DeferBlobs named exists.
func (r *Repo) flushDeferred(ctx context.Context) error {
	for {
		r.deferred.mu.Lock()
		job := r.deferred.writing
		r.deferred.writing = nil
		queued := len(r.deferred.blobs) > 0
		r.deferred.mu.Unlock()
		switch {
		case job != nil:
			<-job.done
			if job.err != nil {
				return job.err
			}
		case queued:
			r.startFlush(ctx)
		default:
			return nil
		}
	}
}

// startFlush starts writing the deferred blobs in the background, unless a write is already
// under way (flushDeferred then writes what was deferred since).
func (r *Repo) startFlush(ctx context.Context) {
	r.deferred.mu.Lock()
	defer r.deferred.mu.Unlock()
	if len(r.deferred.blobs) == 0 {
		return
	}
	if prev := r.deferred.writing; prev != nil {
		select {
		case <-prev.done:
			if prev.err != nil {
				return // keep the failure for flushDeferred to report
			}
		default:
			return
		}
	}
	blobs := r.deferred.blobs
	r.deferred.blobs, r.deferred.oids = nil, nil
	job := &blobWrite{done: make(chan struct{})}
	r.deferred.writing = job
	go func() {
		defer close(job.done)
		if _, err := r.writeBlobs(context.WithoutCancel(ctx), blobs); err != nil {
			job.err = fmt.Errorf("write deferred blobs: %w", err)
		}
	}()
}

// blobWrite is a write of deferred blobs under way.
type blobWrite struct {
	done chan struct{}
	err  error // set before done closes
}

// Blobs too many bytes for one pack (maxPacked) go to hash-object. Where the system names a
// process's open files /dev/fd/N, it reads a small one from a pipe the child inherits: no
// temporary file is created, written and removed for it, which costs about as much as the
// object itself on a slow file system. A large one (over maxPipeBlob) goes through a temporary
// file, which git maps instead of reading it through a pipe into a growing buffer (a 20 MB
// chunk: 10-15% faster than through a pipe), and so do blobs past maxPipeBlobs (two
// descriptors each).
var pipeBlobs = runtime.GOOS == "linux" || runtime.GOOS == "darwin" || runtime.GOOS == "freebsd"

const (
	maxPipeBlobs = 256
	maxPipeBlob  = 1 << 20
)

// maxPipeBlobSize is maxPipeBlob, a variable for the benchmark.
var maxPipeBlobSize = maxPipeBlob

// hashEach runs one "git args..." (hash-object --stdin-paths) over every object of contents,
// each read from an inherited pipe or a temporary file, and returns its output.
func (r *Repo) hashEach(ctx context.Context, args []string, contents [][]byte) ([]byte, error) {
	var pipes []*os.File // read ends, for the child
	var writes []*os.File
	var pending [][]byte // what each write end carries
	defer func() {
		for _, f := range append(pipes, writes...) {
			f.Close()
		}
	}()
	var dir string
	var in bytes.Buffer
	for i, c := range contents {
		if pipeBlobs && len(c) <= maxPipeBlobSize && len(pipes) < maxPipeBlobs {
			rd, wr, err := os.Pipe()
			if err != nil {
				return nil, classify(err)
			}
			fmt.Fprintf(&in, "/dev/fd/%d\n", 3+len(pipes)) // ExtraFiles[k] is descriptor 3+k in the child
			pipes, writes, pending = append(pipes, rd), append(writes, wr), append(pending, c)
			continue
		}
		if dir == "" {
			var err error
			if dir, err = os.MkdirTemp(r.GitDir, "entire-blobs-"); err != nil {
				return nil, classify(err)
			}
			defer os.RemoveAll(dir)
		}
		p := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(p, c, 0o600); err != nil {
			return nil, classify(err)
		}
		in.WriteString(quoteStdinPath(p))
		in.WriteByte('\n')
	}
	var wg sync.WaitGroup
	started := func() {
		for _, f := range pipes {
			f.Close() // the child has them; a writer must see it go if it dies
		}
		pipes = nil
		for k, c := range pending {
			wg.Add(1)
			go func(w *os.File, c []byte) {
				defer wg.Done()
				w.Write(c) // a failure shows as hash-object's own error
				w.Close()
			}(writes[k], c)
		}
		writes = nil
	}
	out, err := r.git(ctx, call{stdin: &in, writesOnly: true, files: pipes, started: started}, args...)
	wg.Wait()
	return out, err
}

// writeBlobsArgs write blobs as they are (no filters), named on stdin.
var writeBlobsArgs = []string{"hash-object", "-w", "--no-filters", "--stdin-paths"}

// writeBlobs is HashBlobs without the deferred blobs.
func (r *Repo) writeBlobs(ctx context.Context, contents [][]byte) ([]OID, error) {
	oids, err := r.writeObjects(ctx, blobObjects(contents))
	if err != nil {
		return nil, fmt.Errorf("hash blobs: %w", err)
	}
	return oids, nil
}

// hashObjects writes contents as blobs with one hash-object, each read from an inherited pipe
// or a temporary file, and returns git's ids in order. (fast-import would also take them in
// one process, but it delta-compresses into a pack that git then unpacks: much slower for
// large transcripts.)
func (r *Repo) hashObjects(ctx context.Context, contents [][]byte) ([]OID, error) {
	out, err := r.hashEach(ctx, writeBlobsArgs, contents)
	if err != nil {
		return nil, err
	}
	oids := make([]OID, len(contents))
	at := make([]int, len(contents))
	for i := range at {
		at[i] = i
	}
	if err := r.fillOIDs(oids, at, out); err != nil {
		return nil, err
	}
	return oids, nil
}
