package gitexec

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/adler32"
	"sync"
)

// Objects whose content is computed here (a checkpoint's blobs, trees, and in post-commit the
// record's commit: AdoptIdentity) are written by one "git unpack-objects", whatever their types: each git process costs a hook about 4 ms of
// processor time (loading, reading config), a large part of a commit's on a small machine, and
// hash-object takes one type per process. The pack handed to it is not compressed (its
// deflate streams are stored blocks): unpack-objects inflates it at the speed of a copy and
// deflates each object into its loose file, as hash-object would. It writes no object the
// repository has already, and checks the pack's trailing checksum.

// packObject is one object of a pack: its type and content.
type packObject struct {
	typ  string // "blob", "tree", "commit" or "tag"
	data []byte
}

// packTypes are the pack's type numbers.
var packTypes = map[string]byte{"commit": 1, "tree": 2, "blob": 3, "tag": 4}

// unpackArgs write the objects of a pack given on stdin as loose objects.
var unpackArgs = []string{"unpack-objects", "-q"}

// maxStored is the most a deflate stored block holds.
const maxStored = 65535

// packStream is a version 2 pack of objs, undeltified, with this repository's checksum.
func (r *Repo) packStream(objs []packObject) []byte {
	size := 12 + len(objs)*24 + r.hexLen/2
	for _, o := range objs {
		size += len(o.data) + 5*(len(o.data)/maxStored+1)
	}
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString("PACK")
	binary.Write(&b, binary.BigEndian, uint32(2))
	binary.Write(&b, binary.BigEndian, uint32(len(objs)))
	for _, o := range objs {
		writePackHeader(&b, packTypes[o.typ], len(o.data))
		writeStored(&b, o.data)
	}
	var h hash.Hash = sha1.New()
	if r.hexLen == 64 {
		h = sha256.New()
	}
	h.Write(b.Bytes())
	return h.Sum(b.Bytes())
}

// writePackHeader writes an entry's type and size: the type and the low 4 bits of the size in
// the first byte, then 7 bits a byte, the high bit saying another byte follows.
func writePackHeader(b *bytes.Buffer, typ byte, n int) {
	c := typ<<4 | byte(n&15)
	n >>= 4
	for n > 0 {
		b.WriteByte(c | 0x80)
		c = byte(n & 0x7f)
		n >>= 7
	}
	b.WriteByte(c)
}

// writeStored writes data as a zlib stream of stored (uncompressed) deflate blocks.
func writeStored(b *bytes.Buffer, data []byte) {
	b.Write([]byte{0x78, 0x01})
	rest := data
	for {
		n := min(len(rest), maxStored)
		final := byte(0)
		if n == len(rest) {
			final = 1
		}
		b.WriteByte(final) // BFINAL, BTYPE 00
		var lens [4]byte
		binary.LittleEndian.PutUint16(lens[0:], uint16(n))
		binary.LittleEndian.PutUint16(lens[2:], ^uint16(n))
		b.Write(lens[:])
		b.Write(rest[:n])
		rest = rest[n:]
		if final == 1 {
			break
		}
	}
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], adler32.Checksum(data))
	b.Write(sum[:])
}

// maxPacked is how many bytes of blobs one pack carries at most. Past it the blobs (the
// chunks of a long transcript seen for the first time) go to hash-object, beside: per byte,
// unpack-objects costs more (it hashes the pack as well as each object: a 20 MB blob takes
// it about 1.6 times as long), and a pack this size costs it about as much as a process.
const maxPacked = 2 << 20

// writeObjects writes objs and returns their ids, computed here, in order: trees, commits and
// (up to maxPacked bytes of them) blobs with one unpack-objects, the one started ahead when
// there is one; more blobs than that with one hash-object, beside it.
func (r *Repo) writeObjects(ctx context.Context, objs []packObject) ([]OID, error) {
	oids := make([]OID, len(objs))
	size := 0
	for i, o := range objs {
		oids[i] = r.objectID(o.typ, o.data)
		if o.typ == "blob" {
			size += len(o.data)
		}
	}
	var packed []packObject
	var large [][]byte
	var largeAt []int
	for i, o := range objs {
		if o.typ == "blob" && size > maxPacked {
			large, largeAt = append(large, o.data), append(largeAt, i)
		} else {
			packed = append(packed, o)
		}
	}
	var wg sync.WaitGroup
	var hashed []OID
	var hashErr error
	if len(large) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hashed, hashErr = r.hashObjects(ctx, large)
		}()
	}
	var err error
	if len(packed) > 0 {
		_, err = r.git(ctx, call{stdin: bytes.NewReader(r.packStream(packed)), writesOnly: true}, unpackArgs...)
	}
	wg.Wait()
	if err = errors.Join(err, hashErr); err != nil {
		return nil, err
	}
	for k, i := range largeAt {
		if hashed[k] != oids[i] {
			return nil, fmt.Errorf("git wrote blob %d as %s, computed %s", i, hashed[k], oids[i])
		}
	}
	return oids, nil
}

// blobObjects are contents as blobs of a pack.
func blobObjects(contents [][]byte) []packObject {
	objs := make([]packObject, len(contents))
	for i, c := range contents {
		objs[i] = packObject{"blob", c}
	}
	return objs
}
