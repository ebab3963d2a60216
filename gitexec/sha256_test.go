package gitexec_test

import (
	"context"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

// The same plumbing works with 64-digit ids in a SHA-256 repository.
func TestSHA256Repository(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q", "--object-format=sha256", "-b", "main")
	c1 := commitFiles(t, dir, map[string]string{"a/b": "b", "c": "c"}, "one")
	r := open(t, dir)
	ctx := context.Background()

	blobs, err := r.HashBlobs(ctx, [][]byte{[]byte("new\n")})
	if err != nil || len(blobs[0]) != 64 {
		t.Fatalf("HashBlobs = %v, %v", blobs, err)
	}
	if want := gitIn(t, dir, nil, "new\n", "hash-object", "--stdin"); string(blobs[0]) != want {
		t.Errorf("HashBlobs = %s, git hash-object = %s", blobs[0], want)
	}
	entries, ok, err := r.ReadTree(ctx, "HEAD")
	if err != nil || !ok || len(entries) != 2 || string(entries[0].OID) != git(t, dir, "rev-parse", "HEAD:a") {
		t.Errorf("ReadTree = %v, %v, %v", entries, ok, err)
	}
	tree, err := r.BuildTree(ctx, c1, []gitexec.TreeChange{{Path: "a/new", Mode: "100644", OID: blobs[0]}, {Path: "c", Delete: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "ls-tree", "-r", "--name-only", string(tree)); got != "a/b\na/new" {
		t.Errorf("new tree lists %q", got)
	}
	c2, err := r.CommitTree(ctx, tree, []gitexec.OID{c1}, "two")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: "refs/heads/main", New: c2, Old: c1}}); err != nil {
		t.Fatal(err)
	}
	diff, err := r.DiffTree(ctx, string(c1), "main")
	if err != nil || len(diff) != 2 || diff[0].Path != "a/new" || diff[1].Status != 'D' {
		t.Errorf("DiffTree = %+v, %v", diff, err)
	}
	if empty, err := r.EmptyTree(ctx); err != nil || len(empty) != 64 {
		t.Errorf("EmptyTree = %s, %v", empty, err)
	}
	if staged, err := r.StagedChanges(ctx); err != nil || len(staged) != 2 {
		t.Errorf("StagedChanges against the moved HEAD = %+v, %v", staged, err)
	}
}
