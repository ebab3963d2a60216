package gitexec_test

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"
	"sync"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

func TestReadBlobAndTree(t *testing.T) {
	dir := newRepo(t)
	c := commitFiles(t, dir, map[string]string{"a.txt": "A", "d/e/f.txt": "F", "d/g": "G"}, "one")
	git(t, dir, "tag", "-a", "-m", "tag", "v1")
	r := open(t, dir)
	ctx := context.Background()

	for rev, want := range map[string]string{
		"HEAD:a.txt":                         "A",
		"v1:d/e/f.txt":                       "F",
		git(t, dir, "rev-parse", "HEAD:d/g"): "G",
	} {
		if b, ok, err := r.ReadBlob(ctx, rev); err != nil || !ok || string(b) != want {
			t.Errorf("ReadBlob(%s) = %q, %v, %v; want %q", rev, b, ok, err, want)
		}
	}
	for _, rev := range []string{"HEAD:nope", "0123456789012345678901234567890123456789", "no-such-branch"} {
		if b, ok, err := r.ReadBlob(ctx, rev); err != nil || ok {
			t.Errorf("ReadBlob(%s) = %q, %v, %v; want not ok", rev, b, ok, err)
		}
	}
	if _, _, err := r.ReadBlob(ctx, "HEAD:d"); err == nil {
		t.Error("ReadBlob of a tree: want an error")
	}

	dTree := gitexec.OID(git(t, dir, "rev-parse", "HEAD:d"))
	wantD := []gitexec.TreeEntry{
		{Mode: "040000", Type: "tree", OID: gitexec.OID(git(t, dir, "rev-parse", "HEAD:d/e")), Name: "e"},
		{Mode: "100644", Type: "blob", OID: gitexec.OID(git(t, dir, "rev-parse", "HEAD:d/g")), Name: "g"},
	}
	for _, treeish := range []string{"HEAD:d", string(dTree), string(c) + ":d"} {
		got, ok, err := r.ReadTree(ctx, treeish)
		if err != nil || !ok || len(got) != 2 || got[0] != wantD[0] || got[1] != wantD[1] {
			t.Errorf("ReadTree(%s) = %v, %v, %v; want %v", treeish, got, ok, err, wantD)
		}
	}
	for _, treeish := range []string{string(c), "v1"} {
		got, ok, err := r.ReadTree(ctx, treeish)
		if err != nil || !ok || len(got) != 2 || got[0].Name != "a.txt" || got[1].Name != "d" {
			t.Errorf("ReadTree(%s) = %v, %v, %v", treeish, got, ok, err)
		}
	}
	if got, ok, err := r.ReadTree(ctx, "HEAD:missing"); err != nil || ok {
		t.Errorf("ReadTree(HEAD:missing) = %v, %v, %v; want not ok", got, ok, err)
	}
}

// The long-lived cat-file must see objects and ref moves made after it
// started.
func TestReadBlobSeesLaterWrites(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	r := open(t, dir)
	ctx := context.Background()
	if b, _, err := r.ReadBlob(ctx, "main:f"); err != nil || string(b) != "1" {
		t.Fatalf("ReadBlob = %q, %v", b, err)
	}
	commitFiles(t, dir, map[string]string{"f": "2"}, "two")
	if b, _, err := r.ReadBlob(ctx, "main:f"); err != nil || string(b) != "2" {
		t.Errorf("ReadBlob after commit = %q, %v; want 2", b, err)
	}
}

func TestReadBlobConcurrent(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"a": "A", "b": "B"}, "one")
	r := open(t, dir)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name, want := "a", "A"
			if i%2 == 1 {
				name, want = "b", "B"
			}
			for range 20 {
				if b, ok, err := r.ReadBlob(context.Background(), "HEAD:"+name); err != nil || !ok || string(b) != want {
					t.Errorf("ReadBlob(%s) = %q, %v, %v", name, b, ok, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// ReadBlobs reads many blobs in pipelined round trips (more than one chunk here, some of them
// large, one missing), and refuses an id that is not a blob; the reader stays usable.
func TestReadBlobsPipelined(t *testing.T) {
	r := open(t, newRepo(t))
	ctx := context.Background()
	contents := make([][]byte, 600)
	for i := range contents {
		contents[i] = []byte(fmt.Sprintf("blob %d\n", i))
		if i%100 == 7 {
			contents[i] = bytes.Repeat(contents[i], 20000) // answers larger than a pipe holds
		}
	}
	oids, err := r.HashBlobs(ctx, contents)
	if err != nil {
		t.Fatal(err)
	}
	missing := gitexec.OID("0123456789012345678901234567890123456789")
	got, err := r.ReadBlobs(ctx, append(slices.Clone(oids), missing))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(contents) {
		t.Errorf("%d blobs read, want %d (the missing one has no entry)", len(got), len(contents))
	}
	for i, oid := range oids {
		if !bytes.Equal(got[oid], contents[i]) {
			t.Fatalf("blob %d read back as %q", i, got[oid][:min(len(got[oid]), 40)])
		}
	}
	tree, err := r.BuildTree(ctx, "", []gitexec.TreeChange{{Path: "x", Mode: "100644", OID: oids[0]}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadBlobs(ctx, []gitexec.OID{oids[1], tree}); err == nil {
		t.Error("ReadBlobs of a tree: want an error")
	}
	if b, ok, err := r.ReadBlob(ctx, string(oids[2])); err != nil || !ok || !bytes.Equal(b, contents[2]) {
		t.Errorf("a read after: %q, %v, %v", b, ok, err)
	}
}

// PathEntries reads every directory of the paths in one round trip, from a commit, a tag or a
// tree, and leaves out what is absent, including a path below a file.
func TestPathEntries(t *testing.T) {
	dir := newRepo(t)
	c := commitFiles(t, dir, map[string]string{"top": "T", "a/x": "X", "a/b/y": "Y", "c/z": "Z"}, "one")
	git(t, dir, "tag", "-a", "-m", "tag", "v1")
	r := open(t, dir)
	ctx := context.Background()
	paths := []string{"top", "a/x", "a/b/y", "a/b", "c/z", "missing", "a/nope", "nodir/f", "top/below"}
	tree := git(t, dir, "rev-parse", "HEAD^{tree}")
	for _, rev := range []string{string(c), "v1", tree} {
		got, err := r.PathEntries(ctx, rev, paths)
		if err != nil {
			t.Fatalf("%s: %v", rev, err)
		}
		if len(got) != 5 {
			t.Errorf("%s: %d entries, want 5: %v", rev, len(got), got)
		}
		for _, p := range []string{"top", "a/x", "a/b/y", "a/b", "c/z"} {
			want := git(t, dir, "rev-parse", "HEAD:"+p)
			if e := got[p]; string(e.OID) != want || e.Name != path.Base(p) {
				t.Errorf("%s: %s = %+v, want id %s", rev, p, e, want)
			}
		}
		if got["a/b"].Type != "tree" || got["a/b"].Mode != "040000" || got["top"].Type != "blob" {
			t.Errorf("%s: types %+v %+v", rev, got["a/b"], got["top"])
		}
	}
}
