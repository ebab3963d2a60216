package gitexec

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// After DiffTree of a commit against its parent, looking up the changed paths in either commit
// needs no further cat-file request: the diff read every tree on those paths, a level at a time,
// and PathEntries walks down by the same ids. The diff spreads over more directories than one
// level's read would hold back (a hundred), as an agent's edits across a repository do.
func TestPathEntriesAfterDiffTreeReadNothing(t *testing.T) {
	r, blobs := oldAndNew(t)
	defer r.Close()
	ctx := context.Background()
	same := TreeChange{Path: "same/kept.go", Mode: "100644", OID: blobs[0]}
	before, after := []TreeChange{same}, []TreeChange{same}
	var paths []string
	for i := range 100 {
		p := fmt.Sprintf("src/m%d/p%02d/f.go", i/50, i)
		paths = append(paths, p)
		before = append(before, TreeChange{Path: p, Mode: "100644", OID: blobs[0]})
		after = append(after, TreeChange{Path: p, Mode: "100644", OID: blobs[1]})
	}
	_, parent, err := r.BuildCommit(ctx, "", before, nil, "parent\n", "")
	if err != nil {
		t.Fatal(err)
	}
	_, commit, err := r.BuildCommit(ctx, "", after, []OID{parent}, "commit\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if r, err = Open(ctx, r.TopLevel); err != nil { // nothing read yet
		t.Fatal(err)
	}
	defer r.Close()
	diff, err := r.DiffTree(ctx, string(parent), string(commit))
	if err != nil || len(diff) != len(paths) {
		t.Fatalf("DiffTree: %d entries, %v", len(diff), err)
	}
	if err := r.cat.close(); err != nil { // from here on, a request fails
		t.Fatal(err)
	}
	for rev, want := range map[OID]OID{parent: blobs[0], commit: blobs[1]} {
		got, err := r.PathEntries(ctx, string(rev), paths)
		if err != nil {
			t.Fatalf("PathEntries(%s) asked cat-file: %v", rev, err)
		}
		for _, p := range paths {
			if got[p].OID != want {
				t.Fatalf("PathEntries(%s)[%s] = %+v, want %s", rev, p, got[p], want)
			}
		}
	}
	// Each tree is parsed once: the lookups keep what they parsed, by tree id.
	got, err := r.PathEntries(ctx, string(commit), []string{"src/m0"})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := r.objects.tree(got["src/m0"].OID); !ok || len(m) != 50 {
		t.Errorf("the parsed src/m0 of the commit is not kept: %d entries, %v", len(m), ok)
	}
	if _, err := r.PathEntries(ctx, string(commit), []string{same.Path}); !errors.Is(err, ErrClosed) {
		t.Errorf("a directory the diff did not read: %v, want the closed cat-file's error", err)
	}
}

// BuildTree's read-ahead leaves every base tree on the changed paths in the cache of parsed
// trees, so building the new trees asks cat-file for nothing more; a tree off those paths
// still needs a request.
func TestBuildTreeAfterPrefetchReadsNothing(t *testing.T) {
	r, blobs := oldAndNew(t)
	defer r.Close()
	ctx := context.Background()
	before := []TreeChange{{Path: "same/kept.go", Mode: "100644", OID: blobs[0]}}
	var changes []TreeChange
	for i := range 40 {
		p := fmt.Sprintf("src/m%d/p%02d/f.go", i/20, i)
		before = append(before, TreeChange{Path: p, Mode: "100644", OID: blobs[0]})
		changes = append(changes, TreeChange{Path: p, Mode: "100644", OID: blobs[1]})
	}
	base, err := r.BuildTree(ctx, "", before)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = Open(ctx, r.TopLevel); err != nil { // nothing read yet
		t.Fatal(err)
	}
	defer r.Close()
	_, entries, ok, err := r.readTree(ctx, string(base))
	if err != nil || !ok {
		t.Fatalf("read base: %v, %v", ok, err)
	}
	root, err := r.changeTree(changes)
	if err != nil {
		t.Fatal(err)
	}
	b := &treeBuild{r: r}
	if err := b.prefetch(ctx, entries, root); err != nil {
		t.Fatal(err)
	}
	if err := r.cat.close(); err != nil { // from here on, a request fails
		t.Fatal(err)
	}
	if _, _, err := b.dir(ctx, base, entries, root); err != nil {
		t.Fatalf("building over the read-ahead trees asked cat-file: %v", err)
	}
	off, err := r.changeTree([]TreeChange{{Path: "same/new.go", Mode: "100644", OID: blobs[1]}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := (&treeBuild{r: r}).dir(ctx, base, entries, off); !errors.Is(err, ErrClosed) {
		t.Errorf("a directory the read-ahead did not read: %v, want the closed cat-file's error", err)
	}
}

// oldAndNew is a repository holding two blobs, an old and a new content of a file.
func oldAndNew(t *testing.T) (*Repo, []OID) {
	t.Helper()
	r, _ := internalRepo(t)
	blobs, err := r.HashBlobs(context.Background(), [][]byte{[]byte("old\n"), []byte("new\n")})
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	return r, blobs
}
