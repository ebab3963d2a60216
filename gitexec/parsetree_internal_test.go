package gitexec

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"slices"
	"strings"
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

// findEntry finds every name of a level in git's order, where a directory sorts as its name
// followed by "/" (after "a-b" and "a.c", before "a0"), and nothing else.
func TestFindEntry(t *testing.T) {
	level := []TreeEntry{
		{Name: "a-b", Type: "blob"}, {Name: "a.c", Type: "blob"}, {Name: "a", Type: "tree"},
		{Name: "a0", Type: "blob"}, {Name: "b", Type: "commit"}, {Name: "bb", Type: "tree"},
		{Name: "c", Type: "blob"},
	}
	if !slices.IsSortedFunc(level, func(x, y TreeEntry) int { return strings.Compare(sortKey(x), sortKey(y)) }) {
		t.Fatal("the test's level is not in git's order")
	}
	for _, want := range level {
		if got, ok := findEntry(level, want.Name); !ok || got != want {
			t.Errorf("findEntry(%q) = %+v, %v; want %+v", want.Name, got, ok, want)
		}
	}
	for _, missing := range []string{"", "a-", "a/", "a1", "b0", "bb/", "d"} {
		if got, ok := findEntry(level, missing); ok {
			t.Errorf("findEntry(%q) = %+v, want nothing", missing, got)
		}
	}
	for _, x := range level {
		for _, y := range append(level, TreeEntry{Name: x.Name, Type: "blob"}, TreeEntry{Name: x.Name, Type: "tree"}) {
			want := strings.Compare(sortKey(x), sortKey(y))
			if got := compareSortKeys(&x, &y); got != want {
				t.Errorf("compareSortKeys(%+v, %+v) = %d, want %d", x, y, got, want)
			}
		}
	}
}

// sortKey is an entry's name as git orders tree entries: a tree's with a trailing "/".
func sortKey(e TreeEntry) string {
	if e.Type == "tree" {
		return e.Name + "/"
	}
	return e.Name
}
