package gitexec

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Objects git keeps in packs (everything a clone fetched, everything gc packed) are read here
// from the pack files, as loose objects are from theirs (loose.go): a hook that reads a tree
// or a file of a commit it did not just write (the session's base for the attribution, the
// shadow branch's tree) then starts no cat-file, a git process that costs a hook about 4 ms of
// processor time. The formats are git's documented ones (gitformat-pack): a version 2 index
// (a fan-out table, the sorted object names, their offsets) beside each pack, and in the pack
// each object deflated whole or as a delta against another object of the same pack (by
// offset) or of the repository (by name).
//
// Every object read is hashed and must have the name it was asked for; anything this code
// does not read (an index of another version, a delta chain deeper than git writes, an object
// over maxLooseRead, a pack that changed under it, an object in no pack it listed) is
// reported as not found, and the caller asks cat-file, which gives the same bytes.

// maxDeltaDepth bounds a delta chain; git's default is 50 and its maximum 4095.
const maxDeltaDepth = 256

// maxDeltaBase is the largest object a delta chain may pass through here.
const maxDeltaBase = 4 << 20

// maxBaseCache bounds the bytes of delta bases kept: trees of one directory in successive
// commits are deltas against each other, and a hook reads several of them.
const maxBaseCache = 8 << 20

// Pack object types.
const (
	packCommit   = 1
	packTree     = 2
	packBlob     = 3
	packTag      = 4
	packOfsDelta = 6
	packRefDelta = 7
)

var packTypeNames = [...]string{packCommit: "commit", packTree: "tree", packBlob: "blob", packTag: "tag"}

// packSet is the packs of a repository, listed at the first packed read.
type packSet struct {
	once   sync.Once
	mu     sync.RWMutex // read while an index mapping is used; Close takes it to unmap
	closed bool
	packs  []*packFile

	cacheMu    sync.Mutex
	bases      map[baseKey]packed
	cacheBytes int
}

// packFile is one pack and its mapped index.
type packFile struct {
	path    string // the .pack file
	idx     []byte
	release func()
	count   int
	hashLen int

	open sync.Once
	f    *os.File // nil when the pack could not be opened
	size int64
}

type baseKey struct {
	p   *packFile
	off int64
}

// packed is an object read from a pack: its type number and content.
type packed struct {
	typ  byte
	data []byte
}

// readPacked reads object id from the repository's packs.
func (r *Repo) readPacked(id string) (object, bool) {
	raw, err := hex.DecodeString(id)
	if err != nil || len(raw) != r.hexLen/2 {
		return object{}, false
	}
	s := &r.packs
	s.once.Do(func() { s.load(r.CommonDir, len(raw)) })
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return object{}, false
	}
	p, off, ok := s.find(raw)
	if !ok {
		return object{}, false
	}
	obj, kept := s.cached(p, off)
	if kept {
		obj.data = bytes.Clone(obj.data) // the caller may own it (a blob)
	} else if obj, ok = s.readAt(p, off, 0, maxLooseRead); !ok {
		return object{}, false
	}
	if len(obj.data) > maxLooseRead || obj.typ > packTag {
		return object{}, false
	}
	typ := packTypeNames[obj.typ]
	if r.objectID(typ, obj.data) != OID(id) {
		return object{}, false // not what the index promised: let git read it
	}
	return object{oid: OID(id), typ: typ, data: obj.data}, true
}

// load lists the packs in commonDir whose index this code reads.
func (s *packSet) load(commonDir string, hashLen int) {
	dir := filepath.Join(commonDir, "objects", "pack")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		base, ok := strings.CutSuffix(name, ".idx")
		if !ok || !strings.HasPrefix(name, "pack-") {
			continue
		}
		data, release, err := mapFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		p := &packFile{path: filepath.Join(dir, base+".pack"), idx: data, release: release, hashLen: hashLen}
		if !p.checkIndex() {
			release()
			continue
		}
		s.packs = append(s.packs, p)
	}
}

// checkIndex validates a version 2 index's header and size, and sets count.
func (p *packFile) checkIndex() bool {
	d := p.idx
	if len(d) < 8+256*4 || !bytes.Equal(d[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(d[4:8]) != 2 {
		return false
	}
	n := int(binary.BigEndian.Uint32(d[8+255*4:]))
	p.count = n
	return len(d) >= 8+256*4+n*(p.hashLen+8)+2*p.hashLen
}

// close unmaps every index and closes every pack; reads after it find nothing.
func (s *packSet) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	for _, p := range s.packs {
		p.release()
		if p.f != nil {
			p.f.Close()
		}
	}
	s.packs = nil
	s.bases = nil
}

// find returns the pack and offset of the object named raw.
func (s *packSet) find(raw []byte) (*packFile, int64, bool) {
	for _, p := range s.packs {
		if off, ok := p.offsetOf(raw); ok {
			return p, off, true
		}
	}
	return nil, 0, false
}

// offsetOf looks raw up in the index: the fan-out table bounds a binary search of the names.
func (p *packFile) offsetOf(raw []byte) (int64, bool) {
	d := p.idx
	const fanout = 8
	lo := 0
	if raw[0] > 0 {
		lo = int(binary.BigEndian.Uint32(d[fanout+4*(int(raw[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(d[fanout+4*int(raw[0]):]))
	if hi > p.count || lo > hi {
		return 0, false
	}
	names := fanout + 256*4
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		at := names + mid*p.hashLen
		switch c := bytes.Compare(d[at:at+p.hashLen], raw); {
		case c == 0:
			return p.offsetAt(mid)
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// offsetAt is the pack offset of the i-th object: 31 bits, or an index into the table of
// 64-bit offsets when the top bit is set.
func (p *packFile) offsetAt(i int) (int64, bool) {
	d := p.idx
	offsets := 8 + 256*4 + p.count*(p.hashLen+4)
	o := binary.BigEndian.Uint32(d[offsets+4*i:])
	if o&0x80000000 == 0 {
		return int64(o), true
	}
	at := offsets + 4*p.count + 8*int(o&0x7fffffff)
	if at+8 > len(d)-2*p.hashLen {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(d[at:])), true
}

// file opens the pack at its first use and checks its header.
func (p *packFile) file() (*os.File, bool) {
	p.open.Do(func() {
		f, err := os.Open(p.path)
		if err != nil {
			return
		}
		var head [12]byte
		fi, err := f.Stat()
		if err != nil || fi.Size() < 12+int64(p.hashLen) {
			f.Close()
			return
		}
		if _, err := f.ReadAt(head[:], 0); err != nil || string(head[:4]) != "PACK" ||
			binary.BigEndian.Uint32(head[4:8]) != 2 && binary.BigEndian.Uint32(head[4:8]) != 3 ||
			int(binary.BigEndian.Uint32(head[8:])) != p.count {
			f.Close()
			return
		}
		p.f, p.size = f, fi.Size()
	})
	return p.f, p.f != nil
}

// read returns the object named raw, resolving deltas; depth counts the deltas above it.
func (s *packSet) read(raw []byte, depth int) (packed, bool) {
	p, off, ok := s.find(raw)
	if !ok {
		return packed{}, false
	}
	return s.readAt(p, off, depth, maxDeltaBase)
}

// readAt returns the object at off in p, resolving deltas, when it is at most limit bytes: an
// object too large is known from its header (or its delta's) before it is inflated.
func (s *packSet) readAt(p *packFile, off int64, depth int, limit int) (packed, bool) {
	if depth > maxDeltaDepth {
		return packed{}, false
	}
	if obj, ok := s.cached(p, off); ok {
		return obj, true
	}
	f, ok := p.file()
	if !ok || off < 12 || off >= p.size-int64(p.hashLen) {
		return packed{}, false
	}
	var head [16 + 64]byte
	n, err := f.ReadAt(head[:], off)
	if err != nil && !errors.Is(err, io.EOF) {
		return packed{}, false
	}
	h := head[:n]
	typ, size, used, ok := entryHeader(h)
	if !ok || size > maxDeltaBase || typ <= packTag && size > int64(limit) {
		return packed{}, false
	}
	h = h[used:]
	var base packed
	switch typ {
	case packCommit, packTree, packBlob, packTag:
	case packOfsDelta:
		rel, used, ok := ofsDeltaOffset(h)
		if !ok || rel > off {
			return packed{}, false
		}
		h = h[used:]
		if base, ok = s.readAt(p, off-rel, depth+1, maxDeltaBase); !ok {
			return packed{}, false
		}
		s.keep(p, off-rel, base)
	case packRefDelta:
		if len(h) < p.hashLen {
			return packed{}, false
		}
		if base, ok = s.read(h[:p.hashLen], depth+1); !ok {
			return packed{}, false
		}
		h = h[p.hashLen:]
	default:
		return packed{}, false
	}
	start := off + int64(n-len(h))
	data, ok := inflateAt(f, start, p.size-start, int(size))
	if !ok {
		return packed{}, false
	}
	if typ == packOfsDelta || typ == packRefDelta {
		if data, ok = applyDelta(base.data, data, limit); !ok {
			return packed{}, false
		}
		typ = base.typ
	}
	return packed{typ: typ, data: data}, true
}

// entryHeader parses an object's type and inflated size: 3 bits of type and 4 of size, then
// 7 bits of size a byte, low bits first, while the top bit is set.
func entryHeader(h []byte) (typ byte, size int64, used int, ok bool) {
	if len(h) == 0 {
		return 0, 0, 0, false
	}
	c := h[0]
	typ = (c >> 4) & 7
	size = int64(c & 15)
	shift := 4
	used = 1
	for c&0x80 != 0 {
		if used >= len(h) || shift > 56 {
			return 0, 0, 0, false
		}
		c = h[used]
		used++
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	return typ, size, used, true
}

// ofsDeltaOffset parses how far before its delta a base starts: 7 bits a byte, high bits
// first, each continuation adding one (so that every length has its own range).
func ofsDeltaOffset(h []byte) (rel int64, used int, ok bool) {
	if len(h) == 0 {
		return 0, 0, false
	}
	c := h[0]
	rel = int64(c & 0x7f)
	used = 1
	for c&0x80 != 0 {
		if used >= len(h) || rel > 1<<48 {
			return 0, 0, false
		}
		c = h[used]
		used++
		rel = (rel+1)<<7 | int64(c&0x7f)
	}
	return rel, used, true
}

// inflateAt inflates the zlib stream at off, which must hold exactly size bytes.
func inflateAt(f *os.File, off, limit int64, size int) ([]byte, bool) {
	lr, ok := inflater(io.NewSectionReader(f, off, limit))
	if !ok {
		return nil, false
	}
	defer looseReaders.Put(lr)
	data := make([]byte, size)
	if _, err := io.ReadFull(lr.zr, data); err != nil {
		return nil, false
	}
	var one [1]byte
	if extra, err := lr.zr.Read(one[:]); extra != 0 || !errors.Is(err, io.EOF) {
		return nil, false // more than the header says, or a bad checksum
	}
	return data, true
}

// applyDelta rebuilds an object of at most limit bytes from its base and a delta: the two
// sizes, then instructions that copy a range of the base or insert the bytes that follow them.
func applyDelta(base, delta []byte, limit int) ([]byte, bool) {
	srcSize, delta, ok := deltaSize(delta)
	if !ok || srcSize != uint64(len(base)) {
		return nil, false
	}
	dstSize, delta, ok := deltaSize(delta)
	if !ok || dstSize > uint64(limit) {
		return nil, false
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			off, rest, ok1 := copyField(op, 0, 4, delta)
			n, rest, ok2 := copyField(op, 4, 3, rest)
			if !ok1 || !ok2 {
				return nil, false
			}
			delta = rest
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || uint64(len(out))+n > dstSize {
				return nil, false
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			n := int(op)
			if n > len(delta) || uint64(len(out)+n) > dstSize {
				return nil, false
			}
			out = append(out, delta[:n]...)
			delta = delta[n:]
		default:
			return nil, false // reserved
		}
	}
	return out, uint64(len(out)) == dstSize
}

// copyField reads the field of a copy instruction whose bytes op's bits first..first+n-1
// say are present (low byte first); absent bytes are zero.
func copyField(op byte, first, n int, delta []byte) (uint64, []byte, bool) {
	var v uint64
	for i := range n {
		if op&(1<<(first+i)) != 0 {
			if len(delta) == 0 {
				return 0, nil, false
			}
			v |= uint64(delta[0]) << (8 * i)
			delta = delta[1:]
		}
	}
	return v, delta, true
}

// deltaSize parses one of a delta's two sizes: 7 bits a byte, low bits first.
func deltaSize(d []byte) (uint64, []byte, bool) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		if len(d) == 0 {
			return 0, nil, false
		}
		c := d[0]
		d = d[1:]
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, d, true
		}
	}
	return 0, nil, false
}

// cached returns a delta base kept by keep.
func (s *packSet) cached(p *packFile, off int64) (packed, bool) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	obj, ok := s.bases[baseKey{p, off}]
	return obj, ok
}

// keep remembers a delta base, within maxBaseCache. Its bytes are never written to: a delta
// copies out of them.
func (s *packSet) keep(p *packFile, off int64, obj packed) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if s.cacheBytes+len(obj.data) > maxBaseCache {
		return
	}
	if s.bases == nil {
		s.bases = map[baseKey]packed{}
	}
	if _, dup := s.bases[baseKey{p, off}]; !dup {
		s.bases[baseKey{p, off}] = obj
		s.cacheBytes += len(obj.data)
	}
}
