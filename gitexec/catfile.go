package gitexec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// object is one object read through cat-file.
type object struct {
	oid  OID
	typ  string // "blob", "tree", "commit" or "tag"
	data []byte
}

// readObject asks the long-lived "git cat-file --batch" for rev; ok=false
// when it does not name an object. A miss that may lead to a deferred blob
// (DeferBlobs) writes the deferred blobs and asks again.
func (r *Repo) readObject(ctx context.Context, rev string) (object, bool, error) {
	obj, ok, err := r.readObjectOnce(ctx, rev)
	if err != nil || ok || !r.mayReachDeferred(rev) {
		return obj, ok, err
	}
	if err := r.flushDeferred(ctx); err != nil {
		return object{}, false, fmt.Errorf("read object %s: %w", rev, err)
	}
	return r.readObjectOnce(ctx, rev)
}

// readObjectOnce is one cat-file request.
func (r *Repo) readObjectOnce(ctx context.Context, rev string) (object, bool, error) {
	objs, found, err := r.readObjectsOnce(ctx, []string{rev})
	if err != nil {
		return object{}, false, err
	}
	return objs[0], found[0], nil
}

// maxPipelined and maxPipelinedBytes bound the requests written before their answers are
// read: the requests stay well within a pipe's buffer, so cat-file, blocked on a full stdout
// while the answers wait to be read, never leaves a request unread that the writer waits on.
const (
	maxPipelined      = 256
	maxPipelinedBytes = 16 << 10
)

// pipelineChunks splits revs into runs that respect maxPipelined and maxPipelinedBytes (a
// single longer name is a run of its own).
func pipelineChunks(revs []string) [][]string {
	var chunks [][]string
	start, size := 0, 0
	for i, rev := range revs {
		if i > start && (i-start == maxPipelined || size+len(rev)+1 > maxPipelinedBytes) {
			chunks = append(chunks, revs[start:i])
			start, size = i, 0
		}
		size += len(rev) + 1
	}
	if start < len(revs) {
		chunks = append(chunks, revs[start:])
	}
	return chunks
}

// readObjectsOnce asks cat-file for every rev in one round trip per maxPipelined requests:
// all of them are written, then all answers read in order.
func (r *Repo) readObjectsOnce(ctx context.Context, revs []string) ([]object, []bool, error) {
	for _, rev := range revs {
		if rev == "" || strings.ContainsAny(rev, "\x00\n") {
			return nil, nil, fmt.Errorf("read object: invalid revision %q", rev)
		}
	}
	objs := make([]object, len(revs))
	found := make([]bool, len(revs))
	sure := make([]bool, len(revs)) // answered by the cache or the loose files
	loose := !r.cat.isClosed()
	local := func(i int) {
		if obj, ok := r.objects.get(revs[i]); ok {
			objs[i], found[i], sure[i] = obj, true, true
			return
		}
		if loose {
			if obj, ok, known := r.readLooseRev(revs[i]); known {
				objs[i], found[i], sure[i] = obj, ok, true
				if ok {
					r.objects.put(r.hexLen, revs[i], obj)
				}
			}
		}
	}
	eachParallel(len(revs), local)
	ask := make([]string, 0, len(revs)) // what the cache and the loose files do not hold
	at := make([]int, 0, len(revs))
	for i, rev := range revs {
		if !sure[i] {
			ask, at = append(ask, rev), append(at, i)
		}
	}
	got, gotFound, err := r.askObjects(ctx, ask)
	if err != nil {
		return nil, nil, err
	}
	for k, i := range at {
		objs[i], found[i] = got[k], gotFound[k]
		if gotFound[k] {
			r.objects.put(r.hexLen, ask[k], got[k])
		}
	}
	return objs, found, nil
}

// minParallelReads is the batch from which readObjectsOnce reads loose files on every
// processor: opening, inflating and parsing a tree of a hundred entries takes about 0.1 ms,
// and a hook that reads a level of a hundred changed directories would otherwise leave the
// second processor idle while git waits for it.
const minParallelReads = 16

// eachParallel calls fn(i) for every i below n, spread over the processors when n is at least
// minParallelReads. Calls for different i must not conflict.
func eachParallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if n < minParallelReads || workers < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// askObjects is readObjectsOnce without the cache.
func (r *Repo) askObjects(ctx context.Context, revs []string) ([]object, []bool, error) {
	objs := make([]object, len(revs))
	found := make([]bool, len(revs))
	start := 0
	for _, chunk := range pipelineChunks(revs) {
		bad := -1 // an ambiguous name
		err := r.cat.do(ctx, r, func(w *bufio.Writer, rd *bufio.Reader) error {
			for _, rev := range chunk {
				if _, err := w.WriteString(rev + "\n"); err != nil {
					return err
				}
			}
			if err := w.Flush(); err != nil {
				return err
			}
			for i := range chunk {
				obj, ok, ambiguous, err := readAnswer(rd)
				if err != nil {
					return err
				}
				if ambiguous && bad < 0 {
					bad = i
				}
				objs[start+i], found[start+i] = obj, ok
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("read object %s: %w", chunk[0], err)
		}
		if bad >= 0 {
			return nil, nil, fmt.Errorf("read object %s: ambiguous", chunk[bad])
		}
		start += len(chunk)
	}
	return objs, found, nil
}

// objectCache keeps the trees, commits and tags this process read, by id and by any name that
// cannot change ("<id>:<path>", "<id>^{tree}"): objects never change, and a hook reads the same
// commits and trees several times (the new commit's message and parents, the record's tip).
// Blobs are not kept: callers own the bytes ReadBlob returns.
type objectCache struct {
	mu    sync.Mutex
	byKey map[string]object
	bytes int
	// trees are trees parsed into entries, by id: a hook walks the same trees several times
	// (the diff of the new commit, then path lookups in it and its parent, then the base of
	// a tree it builds), and parsing costs about what reading does. Shared: never changed.
	trees map[OID][]TreeEntry
}

// maxCachedTrees bounds the parsed trees kept.
const maxCachedTrees = 4096

// tree returns the parsed entries of tree id, if kept.
func (c *objectCache) tree(id OID) ([]TreeEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	es, ok := c.trees[id]
	return es, ok
}

// putTree keeps the parsed entries of tree id.
func (c *objectCache) putTree(id OID, entries []TreeEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trees == nil {
		c.trees = map[OID][]TreeEntry{}
	}
	if len(c.trees) < maxCachedTrees {
		c.trees[id] = entries
	}
}

// maxCachedBytes bounds the cache; maxCachedObject is the largest object it keeps.
const (
	maxCachedBytes  = 8 << 20
	maxCachedObject = 256 << 10
)

func (c *objectCache) get(rev string) (object, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	obj, ok := c.byKey[rev]
	return obj, ok
}

// put keeps obj, read as rev, under its id and under rev when rev names it for good.
func (c *objectCache) put(hexLen int, rev string, obj object) {
	if obj.typ == "blob" || len(obj.data) > maxCachedObject || len(obj.oid) != hexLen {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+len(obj.data) > maxCachedBytes {
		return
	}
	if c.byKey == nil {
		c.byKey = map[string]object{}
	}
	if _, dup := c.byKey[string(obj.oid)]; !dup {
		c.bytes += len(obj.data)
	}
	c.byKey[string(obj.oid)] = obj
	if rev != string(obj.oid) && lastingName(hexLen, rev) {
		c.byKey[rev] = obj
	}
}

// lastingName reports whether rev names the same object forever: a full object id followed by
// a path or a peel.
func lastingName(hexLen int, rev string) bool {
	if len(rev) <= hexLen || (rev[hexLen] != ':' && !strings.HasPrefix(rev[hexLen:], "^{")) {
		return false
	}
	return isLowerHexID(rev[:hexLen], hexLen)
}

// isLowerHexID reports whether s is an object id of hexLen lowercase hex digits, as git
// prints ids and names loose object files.
func isLowerHexID(s string, hexLen int) bool {
	if len(s) != hexLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// readAnswer reads one cat-file --batch answer.
func readAnswer(rd *bufio.Reader) (obj object, found, ambiguous bool, err error) {
	header, err := rd.ReadString('\n')
	if err != nil {
		return object{}, false, false, err
	}
	header = strings.TrimSuffix(header, "\n")
	switch {
	case strings.HasSuffix(header, " missing"):
		return object{}, false, false, nil
	case strings.HasSuffix(header, " ambiguous"):
		return object{}, false, true, nil
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return object{}, false, false, fmt.Errorf("%w %q", errProtocol, header)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return object{}, false, false, fmt.Errorf("%w %q", errProtocol, header)
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(rd, data); err != nil {
		return object{}, false, false, err
	}
	if data[size] != '\n' {
		return object{}, false, false, fmt.Errorf("%w: object %s not followed by a newline", errProtocol, f[0])
	}
	return object{oid: OID(f[0]), typ: f[1], data: data[:size]}, true, false, nil
}

// ReadBlobs returns the contents of the blobs named by oids, read in one round trip; a missing
// one has no entry. An id that is not a blob is an error.
func (r *Repo) ReadBlobs(ctx context.Context, oids []OID) (map[OID][]byte, error) {
	revs := make([]string, len(oids))
	for i, o := range oids {
		revs[i] = string(o)
	}
	objs, found, err := r.readObjectsOnce(ctx, revs)
	if err != nil {
		return nil, err
	}
	out := make(map[OID][]byte, len(oids))
	for i, obj := range objs {
		if !found[i] {
			if r.mayReachDeferred(revs[i]) {
				data, ok, err := r.ReadBlob(ctx, revs[i]) // writes the deferred blobs first
				if err != nil {
					return nil, err
				}
				if ok {
					out[oids[i]] = data
				}
			}
			continue
		}
		if obj.typ != "blob" {
			return nil, fmt.Errorf("read blob %s: it is a %s", revs[i], obj.typ)
		}
		out[oids[i]] = obj.data
	}
	return out, nil
}

// ReadBlob returns the contents of a blob named by rev ("<oid>",
// "<commit>:<path>", ...); ok=false when rev names nothing.
func (r *Repo) ReadBlob(ctx context.Context, rev string) ([]byte, bool, error) {
	obj, ok, err := r.readObject(ctx, rev)
	if err != nil || !ok {
		return nil, ok, err
	}
	if obj.typ != "blob" {
		return nil, false, fmt.Errorf("read blob %s: is a %s", rev, obj.typ)
	}
	return obj.data, true, nil
}

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Mode string // six octal digits as git ls-tree prints them: "100644", "040000", ...
	Type string // "blob", "tree" or "commit" (a submodule)
	OID  OID
	Name string // one path component
}

// readTreesOnce reads trees by id in one round trip and parses them; an id that names no tree
// has found=false and no entries.
func (r *Repo) readTreesOnce(ctx context.Context, ids []string) ([][]TreeEntry, []bool, error) {
	objs, found, err := r.readObjectsOnce(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	trees := make([][]TreeEntry, len(ids))
	errs := make([]error, len(ids))
	eachParallel(len(objs), func(i int) {
		if found[i] = found[i] && objs[i].typ == "tree"; found[i] {
			trees[i], errs[i] = r.parsedTree(objs[i])
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return trees, found, nil
}

// ReadTree returns the entries of one tree level named by treeish (a commit,
// "<commit>:<dir>", a tree id, a tag); ok=false when treeish names nothing. The entries are
// the caller's.
func (r *Repo) ReadTree(ctx context.Context, treeish string) ([]TreeEntry, bool, error) {
	_, entries, ok, err := r.readTree(ctx, treeish)
	return slices.Clone(entries), ok, err
}

// readTree is ReadTree that also returns the id of the tree it read; the entries are shared
// (parsedTree).
func (r *Repo) readTree(ctx context.Context, treeish string) (OID, []TreeEntry, bool, error) {
	if es, ok := r.objects.tree(OID(treeish)); ok && len(treeish) == r.hexLen {
		return OID(treeish), es, true, nil
	}
	obj, ok, err := r.readObject(ctx, treeish)
	if err != nil || !ok {
		return "", nil, ok, err
	}
	obj, err = r.peel(ctx, obj, "tree")
	if err != nil {
		return "", nil, false, fmt.Errorf("read tree %s: %w", treeish, err)
	}
	entries, err := r.parsedTree(obj)
	if err != nil {
		return "", nil, false, err
	}
	return obj.oid, entries, true, nil
}

// peel follows tags (and, for want "tree", a commit's tree) until it reaches
// an object of type want.
func (r *Repo) peel(ctx context.Context, obj object, want string) (object, error) {
	for range 16 {
		if obj.typ == want {
			return obj, nil
		}
		var next string
		switch {
		case obj.typ == "tag":
			next = headerField(obj.data, "object")
		case obj.typ == "commit" && want == "tree":
			next = headerField(obj.data, "tree")
		default:
			return object{}, fmt.Errorf("%s %s is not a %s", obj.typ, obj.oid, want)
		}
		if next == "" {
			return object{}, fmt.Errorf("%s %s has no %s", obj.typ, obj.oid, want)
		}
		o, ok, err := r.readObject(ctx, next)
		if err != nil {
			return object{}, err
		}
		if !ok {
			return object{}, fmt.Errorf("%s %s points to missing object %q", obj.typ, obj.oid, next)
		}
		obj = o
	}
	return object{}, fmt.Errorf("object %s: too many tags to peel", obj.oid)
}

// headerField returns the value of the first header line "<key> <value>" of
// a commit or tag.
func headerField(data []byte, key string) string {
	if vals := headerFields(data, key); len(vals) > 0 {
		return vals[0]
	}
	return ""
}

// headerFields returns the values of all header lines "<key> <value>" of a
// commit or tag, in order.
func headerFields(data []byte, key string) []string {
	header, _, _ := bytes.Cut(data, []byte("\n\n"))
	var vals []string
	for _, line := range strings.Split(string(header), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			vals = append(vals, v)
		}
	}
	return vals
}

// parseTree parses the binary tree format: for each entry
// "<octal mode> <name>\0" followed by the raw object id.
func parseTree(data []byte, rawLen int) ([]TreeEntry, error) {
	// First find the entries, then make three strings for the whole tree (names, hex ids)
	// and slice every entry's fields out of them: a few allocations per tree, not per entry.
	type span struct{ sp, nul int }
	spans := make([]span, 0, len(data)/(rawLen+16)+1) // about one per entry of a source tree
	for at := 0; at < len(data); {
		sp := bytes.IndexByte(data[at:], ' ')
		nul := bytes.IndexByte(data[at:], 0)
		if sp <= 0 || nul < sp || len(data)-at < nul+1+rawLen {
			return nil, fmt.Errorf("malformed tree entry")
		}
		spans = append(spans, span{at + sp, at + nul})
		at += nul + 1 + rawLen
	}
	text := string(data)
	ids := make([]byte, len(spans)*2*rawLen)
	entries := make([]TreeEntry, len(spans))
	start := 0
	for i, e := range spans {
		hex.Encode(ids[i*2*rawLen:], data[e.nul+1:e.nul+1+rawLen])
		entries[i] = TreeEntry{Mode: treeMode(text[start:e.sp]), Name: text[e.sp+1 : e.nul]}
		entries[i].Type = modeType(entries[i].Mode)
		start = e.nul + 1 + rawLen
	}
	hexIDs := string(ids)
	for i := range entries {
		entries[i].OID = OID(hexIDs[i*2*rawLen : (i+1)*2*rawLen])
	}
	return entries, nil
}

// treeMode is a tree entry's mode as git ls-tree prints it: six digits, without allocating
// for the modes git writes.
func treeMode(mode string) string {
	switch mode {
	case "100644", "100755", "120000", "160000":
		return mode
	case "40000":
		return modeTree
	}
	if len(mode) < 6 {
		return strings.Repeat("0", 6-len(mode)) + mode
	}
	return mode
}

// modeType returns the object type a tree entry mode implies.
func modeType(mode string) string {
	switch mode {
	case modeTree:
		return "tree"
	case "160000":
		return "commit"
	}
	return "blob"
}

// modeTree is the mode of a subdirectory entry.
const modeTree = "040000"

// CommitMessage returns the raw message of the commit rev names: everything
// after the header, byte for byte.
func (r *Repo) CommitMessage(ctx context.Context, rev string) (string, error) {
	obj, err := r.readCommit(ctx, rev)
	if err != nil {
		return "", err
	}
	_, msg, _ := bytes.Cut(obj.data, []byte("\n\n"))
	return string(msg), nil
}

// CommitParents returns the parents of the commit rev names, in order.
func (r *Repo) CommitParents(ctx context.Context, rev string) ([]OID, error) {
	obj, err := r.readCommit(ctx, rev)
	if err != nil {
		return nil, err
	}
	var parents []OID
	for _, p := range headerFields(obj.data, "parent") {
		id, err := r.parseOIDLen(p)
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", rev, err)
		}
		parents = append(parents, id)
	}
	return parents, nil
}

// readCommit reads the commit rev names, peeling tags.
func (r *Repo) readCommit(ctx context.Context, rev string) (object, error) {
	obj, ok, err := r.readObject(ctx, rev)
	if err != nil {
		return object{}, fmt.Errorf("read commit: %w", err)
	}
	if !ok {
		return object{}, fmt.Errorf("read commit %s: no such object", rev)
	}
	if obj, err = r.peel(ctx, obj, "commit"); err != nil {
		return object{}, fmt.Errorf("read commit %s: %w", rev, err)
	}
	return obj, nil
}

// CommitTreeOID returns the tree of a commit, read through the long-lived cat-file process.
func (r *Repo) CommitTreeOID(ctx context.Context, rev string) (OID, error) {
	obj, err := r.readCommit(ctx, rev)
	if err != nil {
		return "", err
	}
	trees := headerFields(obj.data, "tree")
	if len(trees) != 1 {
		return "", fmt.Errorf("read commit %s: no tree header", rev)
	}
	return r.parseOIDLen(trees[0])
}

// PathOIDs returns the object IDs of paths in a tree-ish (absent paths are left out), reading
// the directories on those paths through the long-lived cat-file process: no new process,
// and each directory is read once.
func (r *Repo) PathOIDs(ctx context.Context, rev string, paths []string) (map[string]OID, error) {
	entries, err := r.PathEntries(ctx, rev, paths)
	if err != nil {
		return nil, err
	}
	out := make(map[string]OID, len(entries))
	for p, e := range entries {
		out[p] = e.OID
	}
	return out, nil
}

// PathEntries is PathOIDs with each path's whole tree entry (mode and type too); an entry's
// Name is its last path component.
//
// It walks down from rev's root tree by tree ids, one round trip per directory depth for the
// trees the cache does not hold: git resolves each "<rev>:<dir>" from the commit down, so
// naming a hundred directories that way reads their ancestors a hundred times, while the walk
// reads each tree once and reuses those DiffTree just read.
func (r *Repo) PathEntries(ctx context.Context, rev string, paths []string) (map[string]TreeEntry, error) {
	out := make(map[string]TreeEntry, len(paths))
	name := rev
	if _, err := r.parseOIDLen(rev); err == nil {
		name = rev + "^{tree}" // one round trip for a commit, and the name DiffTree read it by
	}
	root, ok, err := r.readObject(ctx, name)
	if err != nil || !ok || root.typ == "blob" {
		return out, err
	}
	if root, err = r.peel(ctx, root, "tree"); err != nil {
		return nil, fmt.Errorf("read tree %s: %w", rev, err)
	}
	levels := map[string][]TreeEntry{}
	if levels[""], err = r.parsedTree(root); err != nil {
		return nil, err
	}
	for _, depth := range dirsByDepth(paths) {
		var want, wantDirs []string
		for _, dir := range depth {
			parent, name := splitDir(dir)
			e, ok := findEntry(levels[parent], name)
			if !ok || e.Type != "tree" {
				continue
			}
			if es, ok := r.objects.tree(e.OID); ok {
				levels[dir] = es // parsed already (by a diff, or an earlier lookup)
				continue
			}
			want, wantDirs = append(want, string(e.OID)), append(wantDirs, dir)
		}
		objs, found, err := r.readObjectsOnce(ctx, want)
		if err != nil {
			return nil, err
		}
		for i, obj := range objs {
			if !found[i] && r.mayReachDeferred(want[i]) {
				if obj, found[i], err = r.readObject(ctx, want[i]); err != nil {
					return nil, err
				}
			}
			if !found[i] || obj.typ != "tree" {
				continue // a missing tree has no entries, as git would find none
			}
			if levels[wantDirs[i]], err = r.parsedTree(obj); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range paths {
		dir, name := splitDir(p)
		if e, ok := findEntry(levels[dir], name); ok {
			out[p] = e
		}
	}
	return out, nil
}

// parsedTree parses a tree object into its entries, once per tree for the Repo's life. The
// entries are shared: callers only read them.
func (r *Repo) parsedTree(obj object) ([]TreeEntry, error) {
	if es, ok := r.objects.tree(obj.oid); ok {
		return es, nil
	}
	es, err := parseTree(obj.data, r.hexLen/2)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", obj.oid, err)
	}
	if len(obj.oid) == r.hexLen {
		r.objects.putTree(obj.oid, es)
	}
	return es, nil
}

// findEntry finds name in one tree level by binary search in git's order (compareSortKeys):
// first as a file, a link or a submodule, then as a directory.
func findEntry(entries []TreeEntry, name string) (TreeEntry, bool) {
	if strings.Contains(name, "/") {
		return TreeEntry{}, false // not one path component
	}
	for _, probe := range []TreeEntry{{Name: name, Type: "blob"}, {Name: name, Type: "tree"}} {
		i := sort.Search(len(entries), func(i int) bool { return compareSortKeys(&entries[i], &probe) >= 0 })
		if i < len(entries) && compareSortKeys(&entries[i], &probe) == 0 {
			return entries[i], true
		}
	}
	return TreeEntry{}, false
}

// dirsByDepth returns the directories holding paths and all their ancestors, except the root,
// grouped by depth, shallowest first.
func dirsByDepth(paths []string) [][]string {
	var byDepth [][]string
	seen := map[string]bool{"": true}
	for _, p := range paths {
		for dir, _ := splitDir(p); !seen[dir]; dir, _ = splitDir(dir) {
			seen[dir] = true
			d := strings.Count(dir, "/")
			for len(byDepth) <= d {
				byDepth = append(byDepth, nil)
			}
			byDepth[d] = append(byDepth[d], dir)
		}
	}
	return byDepth
}

// splitDir splits a path at its last "/" ("" for a top-level name).
func splitDir(p string) (dir, name string) {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}
