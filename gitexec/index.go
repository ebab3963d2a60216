package gitexec

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"path/filepath"
	"strconv"
)

// The index a commit is made from usually names the commit's tree already: "git commit"
// updates the index's cache-tree extension (and writes its trees) before prepare-commit-msg
// runs, so the staged changes are that tree against HEAD's, a diff of trees that reads only
// the directories that changed. Reading the root's entry needs a walk over the index entries
// (the extensions follow them), but no process, and no hash of the whole file as git does on
// every read. An index this code does not fully understand, or whose root entry is invalid,
// leaves the question to "git diff-index".

// indexTree returns the root tree recorded in the index at path, when its cache-tree
// extension holds a valid root entry, and the number of entries in the index.
func indexTree(path string, hexLen int) (OID, int, bool) {
	data, release, err := mapFile(path)
	if err != nil {
		return "", 0, false
	}
	defer release()
	tree, ok := parseIndexTree(data, hexLen/2) // the id is copied out as hex
	if !ok {
		return "", 0, false
	}
	return tree, int(binary.BigEndian.Uint32(data[8:12])), true
}

// parseIndexTree finds the cache-tree root of an index file (gitformat-index(5)) whose ids
// are rawLen bytes long.
func parseIndexTree(data []byte, rawLen int) (OID, bool) {
	if len(data) < 12+rawLen || string(data[:4]) != "DIRC" {
		return "", false
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return "", false
	}
	count := binary.BigEndian.Uint32(data[8:12])
	end := len(data) - rawLen // the trailing checksum
	pos := 12
	for range count {
		next, ok := skipIndexEntry(data[:end], pos, version, rawLen)
		if !ok {
			return "", false
		}
		pos = next
	}
	for pos+8 <= end {
		sig := string(data[pos : pos+4])
		size := int(binary.BigEndian.Uint32(data[pos+4 : pos+8]))
		body := pos + 8
		if size < 0 || size > end-body {
			return "", false
		}
		switch sig {
		case "TREE":
			return rootOfCacheTree(data[body:body+size], rawLen)
		case "link":
			return "", false // a split index: its entries are only part of the story
		}
		pos = body + size
	}
	return "", false
}

// skipIndexEntry returns where the index entry at pos ends.
func skipIndexEntry(data []byte, pos int, version uint32, rawLen int) (int, bool) {
	flagsAt := pos + 40 + rawLen // ctime, mtime, dev, ino, mode, uid, gid, size: 40 bytes
	if flagsAt+2 > len(data) {
		return 0, false
	}
	flags := binary.BigEndian.Uint16(data[flagsAt:])
	name := flagsAt + 2
	if flags&0x4000 != 0 { // extended flags follow (version 3 and later)
		if version < 3 {
			return 0, false
		}
		name += 2
	}
	if version == 4 {
		// A varint of the bytes taken from the previous path, then the rest of the path and
		// its NUL; no padding.
		for name < len(data) && data[name]&0x80 != 0 {
			name++
		}
		name++
		nul := bytes.IndexByte(data[min(name, len(data)):], 0)
		if nul < 0 {
			return 0, false
		}
		return name + nul + 1, true
	}
	nameLen := int(flags & 0xfff)
	if nameLen == 0xfff { // too long for the field: it ends at its NUL
		nul := bytes.IndexByte(data[min(name, len(data)):], 0)
		if nul < 0 {
			return 0, false
		}
		nameLen = nul
	}
	// The path is followed by 1 to 8 NULs, padding the entry to a multiple of 8 bytes.
	size := (name - pos + nameLen + 8) &^ 7
	if pos+size > len(data) {
		return 0, false
	}
	return pos + size, true
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
