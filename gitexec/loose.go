package gitexec

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Objects a hook reads first were most often just written by git as loose files: the commit
// post-commit runs for, the trees that commit changed, the record's last checkpoint. Read
// from their files they need no cat-file round trip, and the hook's first reads do not wait
// for cat-file to start (a few milliseconds). Packed objects are read from the packs
// (packread.go). Anything else (a large blob, an object in no pack listed at the first read,
// a name that is not a plain id) goes to cat-file, which gives the same bytes: an object's
// content is fixed by its id, except where a replacement ref (git replace) stands in for it,
// and then every read goes to cat-file.

// maxLooseRead is the largest object read from its loose file; a larger one (a transcript
// chunk) goes through cat-file, whose inflate is faster.
const maxLooseRead = 256 << 10

// looseState is whether loose objects may be read from their files, decided once per Repo.
type looseState struct {
	once sync.Once
	ok   bool
}

// looseAllowed reports whether cat-file would answer a plain object id with the object itself:
// no replacement refs (git replace) can stand in for it.
func (r *Repo) looseAllowed() bool {
	r.loose.once.Do(func() { r.loose.ok = noReplaceRefs(r.CommonDir) })
	return r.loose.ok
}

// noReplaceRefs reports whether the repository in commonDir certainly has no replacement refs:
// the files backend holds none under refs/replace/, loose or packed. (GIT_NO_REPLACE_OBJECTS
// and GIT_REPLACE_REF_BASE never reach cat-file, like every variable git keeps to one
// repository, so they do not count here either.)
func noReplaceRefs(commonDir string) bool {
	if _, err := os.Stat(filepath.Join(commonDir, "reftable")); !errors.Is(err, os.ErrNotExist) {
		return false // refs this code does not read from files
	}
	entries, err := os.ReadDir(filepath.Join(commonDir, "refs", "replace"))
	if err != nil && !errors.Is(err, os.ErrNotExist) || len(entries) > 0 {
		return false
	}
	packed, err := os.ReadFile(filepath.Join(commonDir, "packed-refs"))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	return !bytes.Contains(packed, []byte(" refs/replace/"))
}

// readLooseRev answers rev from loose files and packs (and the trees and commits already
// read) when it is an object id, alone or followed by "^{tree}" or ":<path>": found reports
// whether rev names an object, and sure=false, when the files cannot tell (a large blob, an
// object in no file read here, another kind of name), sends rev to cat-file.
func (r *Repo) readLooseRev(rev string) (obj object, found, sure bool) {
	if len(rev) < r.hexLen || !r.isFullID(rev[:r.hexLen]) || !r.looseAllowed() {
		return object{}, false, false
	}
	rest := rev[r.hexLen:]
	path, hasPath := strings.CutPrefix(rest, ":")
	if rest != "" && rest != "^{tree}" && !hasPath {
		return object{}, false, false
	}
	obj, ok := r.knownObject(rev[:r.hexLen])
	if !ok {
		return object{}, false, false
	}
	if rest == "" {
		return obj, true, true
	}
	if obj, ok = r.looseTreeOf(obj); !ok {
		return object{}, false, false
	}
	if !hasPath || path == "" {
		return obj, true, true // "<id>:" is the root tree, as "<id>^{tree}"
	}
	parts := strings.Split(path, "/")
	for i, name := range parts {
		if name == "" || name == "." || name == ".." {
			return object{}, false, false // git normalizes these; let it
		}
		entries, err := r.parsedTree(obj)
		if err != nil {
			return object{}, false, false
		}
		e, ok := findEntry(entries, name)
		if !ok || (i < len(parts)-1 && e.Type != "tree") {
			return object{}, false, true // git finds no such path either
		}
		if e.Type != "tree" && e.Type != "blob" {
			return object{}, false, false // a submodule's commit: not in this repository
		}
		if obj, ok = r.knownObject(string(e.OID)); !ok {
			return object{}, false, false
		}
	}
	return obj, true, true
}

// knownObject is object id from the cache of objects read, or from its loose file or a pack.
func (r *Repo) knownObject(id string) (object, bool) {
	if obj, ok := r.objects.get(id); ok {
		return obj, true
	}
	obj, ok := r.readLoose(id)
	if !ok {
		obj, ok = r.readPacked(id)
	}
	if ok {
		r.objects.put(r.hexLen, id, obj)
	}
	return obj, ok
}

// looseTreeOf peels a tree or a commit to its tree, from known objects only.
func (r *Repo) looseTreeOf(obj object) (object, bool) {
	switch obj.typ {
	case "tree":
		return obj, true
	case "commit":
		tree := headerField(obj.data, "tree")
		if !r.isFullID(tree) {
			return object{}, false
		}
		return r.knownObject(tree)
	}
	return object{}, false // a tag: cat-file peels it
}

// isFullID reports whether s is a full lowercase hex object id of this repository.
func (r *Repo) isFullID(s string) bool { return isLowerHexID(s, r.hexLen) }

// looseReaders keeps the inflate state (a 32 KiB window and Huffman tables) and the read buffer
// of loose reads for the next one: a hook reads up to hundreds of trees, and a new zlib reader
// for each allocated about 60 KB, most of it fresh memory the kernel had to fault in.
var looseReaders sync.Pool // of *looseReader

type looseReader struct {
	buf *bufio.Reader
	zr  io.ReadCloser // a zlib.Resetter; nil until the first good stream
}

// inflater returns a pooled reader of the zlib stream in src, to be put back in looseReaders;
// ok=false when the stream's header is bad.
func inflater(src io.Reader) (lr *looseReader, ok bool) {
	lr, _ = looseReaders.Get().(*looseReader)
	if lr == nil {
		lr = &looseReader{buf: bufio.NewReaderSize(src, 8<<10)}
	} else {
		lr.buf.Reset(src)
	}
	var err error
	if lr.zr == nil {
		lr.zr, err = zlib.NewReader(lr.buf)
	} else {
		err = lr.zr.(zlib.Resetter).Reset(lr.buf, nil)
	}
	if err != nil {
		lr.zr = nil // a reader whose Reset failed is not reused
		looseReaders.Put(lr)
		return nil, false
	}
	return lr, true
}

// readLoose reads object id from its loose file: "<type> <size>\0<content>", deflated.
func (r *Repo) readLoose(id string) (object, bool) {
	f, err := os.Open(filepath.Join(r.CommonDir, "objects", id[:2], id[2:]))
	if err != nil {
		return object{}, false
	}
	defer f.Close()
	lr, ok := inflater(f)
	if !ok {
		return object{}, false
	}
	defer looseReaders.Put(lr)
	zr := lr.zr
	var head [64]byte
	n, err := io.ReadFull(zr, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return object{}, false
	}
	nul := bytes.IndexByte(head[:n], 0)
	if nul < 0 {
		return object{}, false
	}
	typ, sizeText, ok := strings.Cut(string(head[:nul]), " ")
	size, perr := strconv.Atoi(sizeText)
	if !ok || perr != nil || size < 0 || size > maxLooseRead ||
		(typ != "blob" && typ != "tree" && typ != "commit" && typ != "tag") {
		return object{}, false
	}
	data := make([]byte, size)
	got := copy(data, head[nul+1:n])
	if got < size {
		if _, err := io.ReadFull(zr, data[got:]); err != nil {
			return object{}, false
		}
	} else if n-nul-1 > size {
		return object{}, false // more content than the header says
	}
	// The end of the stream checks zlib's checksum; anything after the content is damage.
	if extra, err := zr.Read(head[:1]); extra != 0 || !errors.Is(err, io.EOF) {
		return object{}, false
	}
	return object{oid: OID(id), typ: typ, data: data}, true
}
