package gitexec

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"testing"
)

// rawTree is the body of a tree of n files, each with a different blob id, plus one
// subdirectory, a symbolic link and a submodule.
func rawTree(n int) []byte {
	var b bytes.Buffer
	entry := func(mode, name string) {
		id := sha1.Sum([]byte(name))
		fmt.Fprintf(&b, "%s %s\x00", mode, name)
		b.Write(id[:])
	}
	entry("40000", "dir")
	for i := range n {
		entry("100644", fmt.Sprintf("file%03d.go", i))
	}
	entry("120000", "link")
	entry("160000", "sub")
	return b.Bytes()
}

// parseTree reads every entry: modes as ls-tree prints them, types, hex ids and names.
func TestParseTree(t *testing.T) {
	data := rawTree(3)
	got, err := parseTree(data, 20)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ mode, typ, name string }{
		{"040000", "tree", "dir"}, {"100644", "blob", "file000.go"}, {"100644", "blob", "file001.go"},
		{"100644", "blob", "file002.go"}, {"120000", "blob", "link"}, {"160000", "commit", "sub"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		id := sha1.Sum([]byte(w.name))
		if e := got[i]; e.Mode != w.mode || e.Type != w.typ || e.Name != w.name || e.OID != OID(fmt.Sprintf("%x", id)) {
			t.Errorf("entry %d = %+v, want %s %s %s %x", i, e, w.mode, w.typ, w.name, id)
		}
	}
	for _, bad := range [][]byte{
		[]byte("100644 name"),                          // no NUL
		[]byte("100644 name\x00short"),                 // id cut short
		[]byte(" name\x00" + string(make([]byte, 20))), // no mode
	} {
		if _, err := parseTree(bad, 20); err == nil {
			t.Errorf("parseTree(%q) accepted a malformed tree", bad)
		}
	}
}

// A tree of 100 files, the size of a directory in the benchmark's repositories: a diff walk
// parses one per changed directory and side.
func BenchmarkParseTree100(b *testing.B) {
	data := rawTree(100)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseTree(data, 20); err != nil {
			b.Fatal(err)
		}
	}
}
