package gitexec

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
)

// The index a commit is made from usually names the commit's tree already: "git commit"
// updates the index's cache-tree extension (and writes its trees) before prepare-commit-msg
// runs, so the staged changes are that tree against HEAD's, a diff of trees that reads only
// the directories that changed. Reading the root's entry needs a walk over the index entries
// (the extensions follow them), but no process, and no hash of the whole file as git does on
// every read. An index this code does not fully understand, or whose root entry is invalid,
// leaves the question to "git diff-index".

// indexFile is a mapped index file: its header, and its TREE extension when parseIndex walked
// it as far as its extensions.
type indexFile struct {
	data    []byte // the file (mapped)
	release func()
	rawLen  int
	version uint32
	count   int    // entries, from the header
	ext     []byte // the TREE extension; nil when there is none or it was not read
}

// indexTree returns the root tree recorded in the index at path, when its cache-tree
// extension holds a valid root entry, and the number of entries in the index.
func indexTree(path string, hexLen int) (OID, int, bool) {
	ix, ok := openIndex(path, hexLen/2)
	if !ok {
		return "", 0, false
	}
	defer ix.release()
	tree, ok := rootOfCacheTree(ix.ext, ix.rawLen)
	return tree, ix.count, ok
}

// openIndex maps and walks the index at path; the caller releases it.
func openIndex(path string, rawLen int) (*indexFile, bool) {
	data, release, err := mapFile(path)
	if err != nil {
		return nil, false
	}
	ix, ok := parseIndex(data, rawLen)
	if !ok {
		release()
		return nil, false
	}
	ix.release = release
	return ix, true
}

// parseIndexTree finds the cache-tree root of an index file (gitformat-index(5)) whose ids
// are rawLen bytes long.
func parseIndexTree(data []byte, rawLen int) (OID, bool) {
	ix, ok := parseIndex(data, rawLen)
	if !ok {
		return "", false
	}
	return rootOfCacheTree(ix.ext, rawLen)
}

// parseIndex walks an index's entries to its extensions and finds its TREE extension. A split
// index, whose entries are only part of the story, is refused.
func parseIndex(data []byte, rawLen int) (*indexFile, bool) {
	ix, ok := indexHeader(data, rawLen)
	if !ok {
		return nil, false
	}
	version := ix.version
	end := len(data) - rawLen // the trailing checksum
	pos := 12
	for range ix.count {
		next, _, _, _, ok := indexEntryAt(data[:end], pos, version, rawLen)
		if !ok {
			return nil, false
		}
		pos = next
	}
	for pos+8 <= end {
		sig := string(data[pos : pos+4])
		size := int(binary.BigEndian.Uint32(data[pos+4 : pos+8]))
		body := pos + 8
		if size < 0 || size > end-body {
			return nil, false
		}
		switch sig {
		case "TREE":
			ix.ext = data[body : body+size]
		case "link":
			return nil, false
		}
		pos = body + size
	}
	return ix, true
}

// indexHeader reads an index's header: signature, a version this code reads (2 to 4) and the
// number of entries.
func indexHeader(data []byte, rawLen int) (*indexFile, bool) {
	if len(data) < 12+rawLen || string(data[:4]) != "DIRC" {
		return nil, false
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, false
	}
	return &indexFile{data: data, release: func() {}, rawLen: rawLen, version: version, count: int(binary.BigEndian.Uint32(data[8:12]))}, true
}

// indexEntryAt returns where the index entry at pos ends and where its path lies (version 4:
// the part of it written there, to follow the previous path less strip bytes).
func indexEntryAt(data []byte, pos int, version uint32, rawLen int) (next, name, nameEnd, strip int, ok bool) {
	flagsAt := pos + 40 + rawLen // ctime, mtime, dev, ino, mode, uid, gid, size: 40 bytes
	if flagsAt+2 > len(data) {
		return 0, 0, 0, 0, false
	}
	flags := binary.BigEndian.Uint16(data[flagsAt:])
	name = flagsAt + 2
	if flags&0x4000 != 0 { // extended flags follow (version 3 and later)
		if version < 3 {
			return 0, 0, 0, 0, false
		}
		name += 2
	}
	if version == 4 {
		// A varint of the bytes taken from the previous path, then the rest of the path and
		// its NUL; no padding.
		if strip, name, ok = readIndexVarint(data, name); !ok {
			return 0, 0, 0, 0, false
		}
		nul := bytes.IndexByte(data[name:], 0)
		if nul < 0 {
			return 0, 0, 0, 0, false
		}
		return name + nul + 1, name, name + nul, strip, true
	}
	nameLen := int(flags & 0xfff)
	if nameLen == 0xfff { // too long for the field: it ends at its NUL
		nul := bytes.IndexByte(data[min(name, len(data)):], 0)
		if nul < 0 {
			return 0, 0, 0, 0, false
		}
		nameLen = nul
	}
	// The path is followed by 1 to 8 NULs, padding the entry to a multiple of 8 bytes.
	size := (name - pos + nameLen + 8) &^ 7
	if pos+size > len(data) || name+nameLen > len(data) {
		return 0, 0, 0, 0, false
	}
	return pos + size, name, name + nameLen, 0, true
}

// readIndexVarint decodes git's offset varint (varint.c) at data[pos:]: seven bits a byte,
// the high bit set while more follow, each continuation adding one.
func readIndexVarint(data []byte, pos int) (val, next int, ok bool) {
	if pos >= len(data) {
		return 0, 0, false
	}
	c := data[pos]
	pos++
	v := uint64(c & 127)
	for c&128 != 0 {
		v++
		if v >= 1<<40 || pos >= len(data) {
			return 0, 0, false
		}
		c = data[pos]
		pos++
		v = v<<7 + uint64(c&127)
	}
	return int(v), pos, true
}

// indexFileEntry is a file as the index stages it.
type indexFileEntry struct {
	mode string // as a tree writes it
	id   OID
}

// lookup finds paths (sorted, without repeats) among the index's entries, reading them in
// order only as far as the last: the files staged at those paths (an absent path has none).
// ok=false when the index cannot tell what a commit would take: a path in conflict (a stage
// other than 0), only intended to be added, of a mode no tree holds, or (a sparse index) inside
// a directory folded into one entry, or an index that does not read as one.
func (ix *indexFile) lookup(paths []string) (map[string]indexFileEntry, bool) {
	out := make(map[string]indexFileEntry, len(paths))
	end := len(ix.data) - ix.rawLen
	pos, j := 12, 0
	var path []byte // the entry's path; version 4 builds it from the previous one
	matched := false
	for range ix.count {
		if j == len(paths) {
			break
		}
		next, name, nameEnd, strip, ok := indexEntryAt(ix.data[:end], pos, ix.version, ix.rawLen)
		if !ok || strip > len(path) {
			return nil, false
		}
		if ix.version == 4 {
			path = append(path[:len(path)-strip], ix.data[name:nameEnd]...)
		} else {
			path = ix.data[name:nameEnd]
		}
		at := pos
		pos = next
		for j < len(paths) && paths[j] < string(path) {
			j, matched = j+1, false
		}
		if j == len(paths) {
			break
		}
		if binary.BigEndian.Uint32(ix.data[at+24:])&0o170000 == 0o040000 { // only in a sparse index
			// A folded directory ("dir/"): what it holds is not listed. The path asked for next
			// is not before it; unless it lies inside, it and the rest sort after all it holds.
			if bytes.HasPrefix([]byte(paths[j]), path) {
				return nil, false
			}
			continue
		}
		if paths[j] != string(path) {
			continue
		}
		if matched { // a second entry for the path: the stages of a conflict
			return nil, false
		}
		matched = true
		e, ok := ix.fileEntry(at)
		if !ok {
			return nil, false
		}
		out[paths[j]] = e
	}
	return out, true
}

// fileEntry reads the entry at pos as a file a commit takes; ok=false when it cannot.
func (ix *indexFile) fileEntry(pos int) (indexFileEntry, bool) {
	flags := binary.BigEndian.Uint16(ix.data[pos+40+ix.rawLen:])
	if flags&0x3000 != 0 { // a stage other than 0: a conflict
		return indexFileEntry{}, false
	}
	if flags&0x4000 != 0 && binary.BigEndian.Uint16(ix.data[pos+42+ix.rawLen:])&0x2000 != 0 {
		return indexFileEntry{}, false // intent-to-add
	}
	id := OID(hex.EncodeToString(ix.data[pos+40 : pos+40+ix.rawLen]))
	switch m := binary.BigEndian.Uint32(ix.data[pos+24:]); m & 0o170000 {
	case 0o100000:
		if m&0o111 != 0 {
			return indexFileEntry{"100755", id}, true
		}
		return indexFileEntry{"100644", id}, true
	case 0o120000:
		return indexFileEntry{"120000", id}, true
	case 0o160000:
		return indexFileEntry{"160000", id}, true
	}
	return indexFileEntry{}, false
}

// rootOfCacheTree reads the first entry of a TREE extension, the root's: an empty path, NUL,
// its entry count (-1 when invalid), a space, its subtree count, a newline, then its tree id
// when valid.
func rootOfCacheTree(ext []byte, rawLen int) (OID, bool) {
	if len(ext) == 0 || ext[0] != 0 {
		return "", false
	}
	ext = ext[1:]
	sp := bytes.IndexByte(ext, ' ')
	nl := bytes.IndexByte(ext, '\n')
	if sp < 0 || nl < sp {
		return "", false
	}
	entries, err := strconv.Atoi(string(ext[:sp]))
	if err != nil || entries < 0 {
		return "", false
	}
	id := ext[nl+1:]
	if len(id) < rawLen {
		return "", false
	}
	return OID(hex.EncodeToString(id[:rawLen])), true
}

// stagedIndexPath is the index the staged changes are read from: the hook's, or the work
// tree's own.
func (r *Repo) stagedIndexPath() string {
	if r.HookIndex != "" {
		return r.HookIndex
	}
	return filepath.Join(r.GitDir, "index")
}

// stagedEntries is the index of the staged changes with its entries, opened at the first path
// lookup and kept until Close.
type stagedEntries struct {
	mu     sync.Mutex
	opened bool
	ix     *indexFile // nil when it could not be read
}

// stagedIndex returns the index of the staged changes with its entries; nil when it cannot be
// read.
func (r *Repo) stagedIndex() *indexFile {
	t := &r.staged
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.opened {
		t.opened = true
		t.ix = r.openIndexEntries(r.stagedIndexPath())
	}
	return t.ix
}

// openIndexEntries maps the index at path for lookups of its entries, which read only as far
// as they need: the walk to its extensions is left out. The one extension that changes what
// the entries mean is a split index's link to the shared index holding the rest of them, and
// that shared index is a file beside the index or in the git directory. Only where there is
// one is the index walked to its extensions, and used if it has no link (git keeps a shared
// index for a while after the split is turned off). nil when it cannot be used.
func (r *Repo) openIndexEntries(path string) *indexFile {
	shared := false
	for _, dir := range []string{filepath.Dir(path), r.GitDir, r.CommonDir} {
		found, err := filepath.Glob(filepath.Join(dir, "sharedindex.*"))
		if err != nil {
			return nil
		}
		shared = shared || len(found) > 0
	}
	data, release, err := mapFile(path)
	if err != nil {
		return nil
	}
	rawLen := r.hexLen / 2
	ix, ok := indexHeader(data, rawLen)
	if ok && shared {
		_, ok = parseIndex(data, rawLen) // refuses a link
	}
	if !ok {
		release()
		return nil
	}
	ix.release = release
	return ix
}

// close releases the index's mapping.
func (t *stagedEntries) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ix != nil {
		t.ix.release()
		t.ix = nil
	}
}

// StagedPaths is StagedChanges for paths only: what the next commit would change of those files,
// from the index's entries and HEAD's tree, reading only the directories on those paths. The
// entries are sorted by path. ok=false when the index cannot tell (it could not be read, it is
// split or sparse, or one of the paths is in conflict or only intended to be added):
// StagedChanges answers then.
func (r *Repo) StagedPaths(ctx context.Context, paths []string) (changes []DiffEntry, ok bool, err error) {
	ix := r.stagedIndex()
	if ix == nil {
		return nil, false, nil
	}
	sorted := slices.Clone(paths)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	staged, ok := ix.lookup(sorted)
	if !ok {
		return nil, false, nil
	}
	head, born, err := r.currentHead(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("read staged changes: %w", err)
	}
	committed := map[string]TreeEntry{}
	if born {
		if committed, err = r.PathEntries(ctx, string(head), paths); err != nil {
			return nil, false, fmt.Errorf("read staged changes: %w", err)
		}
	}
	for _, p := range sorted {
		var was, is side
		if old, had := committed[p]; had && old.Type != "tree" { // a directory there: the file is new
			was = side{canonMode(old.Mode), old.OID}
		}
		if now, has := staged[p]; has {
			is = side{now.mode, now.id}
		}
		if was != is {
			changes = append(changes, r.change(p, was, is))
		}
	}
	return changes, true, nil
}
