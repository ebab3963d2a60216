package gitexec

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Every kind of object written through a pack gets the id git gives it and reads back as
// written: an empty blob, one spanning several stored deflate blocks, a tree naming them and a
// commit of that tree. git fsck finds nothing wrong with them.
func TestWriteObjectsMatchesGit(t *testing.T) {
	r, head := internalRepo(t)
	defer r.Close()
	ctx := context.Background()
	run := gitRunner(t, r.TopLevel)
	small, empty := []byte("small\n"), []byte{}
	multi := bytes.Repeat([]byte("0123456789abcdef"), 3*maxStored/16+7) // 3 blocks and a part
	tree, err := treeBody([]TreeEntry{
		{Mode: "100644", Name: "small", OID: r.objectID("blob", small)},
		{Mode: "100644", Name: "empty", OID: r.objectID("blob", empty)},
		{Mode: "100755", Name: "multi", OID: r.objectID("blob", multi)},
	})
	if err != nil {
		t.Fatal(err)
	}
	commit := []byte("tree " + string(r.objectID("tree", tree)) + "\nparent " + string(head) +
		"\nauthor a <a@e> 1700000000 +0100\ncommitter c <c@e> 1700000001 -0030\n\nm\n")
	objs := []packObject{{"blob", small}, {"blob", empty}, {"blob", multi}, {"tree", tree}, {"commit", commit}}
	oids, err := r.writeObjects(ctx, objs)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range objs {
		if want := run(string(o.data), "hash-object", "-t", o.typ, "--stdin"); string(oids[i]) != want {
			t.Errorf("%s %d: id %s, git hash-object gives %s", o.typ, i, oids[i], want)
		}
		typ := run("", "cat-file", "-t", string(oids[i]))
		content := exec.Command("git", "-C", r.TopLevel, "cat-file", typ, string(oids[i]))
		got, err := content.Output()
		if typ != o.typ || err != nil || !bytes.Equal(got, o.data) {
			t.Errorf("%s %d reads back as a %s of %d bytes (%v), want %d bytes", o.typ, i, typ, len(got), err, len(o.data))
		}
	}
	fsckClean(t, r.TopLevel)
}

// Blobs over maxPacked bytes in all go to hash-object, beside the unpack-objects that writes
// the trees; under it, everything goes in the pack.
func TestWriteObjectsLargeBlobsBeside(t *testing.T) {
	r, _ := internalRepo(t)
	r.Close()
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	r, err := Open(context.Background(), r.TopLevel)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	tree, err := treeBody([]TreeEntry{{Mode: "100644", Name: "f", OID: r.objectID("blob", []byte("f\n"))}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		sizes []int
		hash  bool
	}{
		{"small", []int{100, 4000}, false},
		{"large", []int{100, maxPacked}, true},
	} {
		if err := os.WriteFile(trace, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		objs := []packObject{{"tree", tree}}
		for k, n := range tc.sizes {
			objs = append(objs, packObject{"blob", bytes.Repeat([]byte{byte('a' + k)}, n)})
		}
		oids, err := r.writeObjects(ctx, objs)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, o := range objs[1:] {
			got, ok, err := r.ReadBlob(ctx, string(oids[i+1]))
			if err != nil || !ok || !bytes.Equal(got, o.data) {
				t.Errorf("%s: blob %d reads back %d bytes, %v %v", tc.name, i, len(got), ok, err)
			}
		}
		log, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(log, []byte(`"unpack-objects"`)) {
			t.Errorf("%s: no unpack-objects ran", tc.name)
		}
		if got := bytes.Contains(log, []byte(`"hash-object"`)); got != tc.hash {
			t.Errorf("%s: hash-object ran: %v, want %v", tc.name, got, tc.hash)
		}
	}
}

// In a hook of git commit (its author exported), AdoptIdentity takes the new commit's author
// and committer, and the commits written after are those commit-tree writes in that
// environment, through one pack; outside such a hook, or for a commit with an encoding header,
// it adopts nothing and commit-tree writes them.
func TestAdoptIdentity(t *testing.T) {
	r, head := internalRepo(t)
	r.Close()
	dir := r.TopLevel
	hookEnv := map[string]string{
		"GIT_AUTHOR_NAME": "Ann Author", "GIT_AUTHOR_EMAIL": "ann@e", "GIT_AUTHOR_DATE": "@1700000000 +0100",
		"GIT_COMMITTER_NAME": "Cy Committer", "GIT_COMMITTER_EMAIL": "cy@e", "GIT_COMMITTER_DATE": "@1700000050 -0200",
	}
	for k, v := range hookEnv {
		t.Setenv(k, v)
	}
	run := gitRunner(t, dir)
	tree := run("", "rev-parse", string(head)+"^{tree}")
	commit := OID(run("user commit\n", "commit-tree", "-p", string(head), tree))
	odd := []byte("tree " + tree + "\nauthor Ann Author <ann@e> 1700000000 +0100\ncommitter Cy Committer <cy@e> 1700000050 -0200\nencoding ISO-8859-1\n\nm\n")
	oddID := OID(run(string(odd), "hash-object", "-w", "-t", "commit", "--stdin"))
	ctx := context.Background()

	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.AdoptIdentity(ctx, oddID) {
		t.Error("adopted the identity of a commit with an encoding header")
	}
	if !r.AdoptIdentity(ctx, commit) {
		t.Fatal("AdoptIdentity in a hook's environment = false")
	}
	want := OID(run("record\n", "commit-tree", "-p", string(commit), tree))
	got, err := r.CommitTree(ctx, OID(tree), []OID{commit}, "record\n")
	if err != nil || got != want {
		t.Errorf("CommitTree = %s %v, commit-tree gives %s", got, err, want)
	}
	blob := r.DeferBlobs([][]byte{[]byte("x\n")})
	changes := []TreeChange{{Path: "d/x", Mode: "100644", OID: blob[0]}}
	newTree, built, err := r.BuildCommit(ctx, OID(tree), changes, []OID{commit}, "built\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := OID(run("built\n", "commit-tree", "-p", string(commit), string(newTree))); built != want {
		t.Errorf("BuildCommit = %s, commit-tree gives %s", built, want)
	}
	// A NUL byte, which commit-tree refuses, is written as U+FFFD here too.
	if got, err := r.CommitTree(ctx, OID(tree), []OID{commit}, "nul\x00\n"); err != nil || got != OID(run("nul\uFFFD\n", "commit-tree", "-p", string(commit), tree)) {
		t.Errorf("CommitTree of a message with a NUL byte = %s %v", got, err)
	}
	fsckClean(t, dir)

	t.Setenv("GIT_AUTHOR_NAME", "Someone Else") // not the commit's author: not git commit's hook
	other, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if other.AdoptIdentity(ctx, commit) {
		t.Error("adopted an identity the environment does not name")
	}
}

// fsckClean fails the test when git fsck --strict finds anything wrong in dir's objects.
func fsckClean(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling").CombinedOutput(); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}
