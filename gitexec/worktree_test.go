package gitexec_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/gitexec"
)

func TestLsTreeListsFilesRecursivelyAndByPath(t *testing.T) {
	dir := newRepo(t)
	c := commitFiles(t, dir, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n", "d/e/c.txt": "c\n"}, "init")
	r := open(t, dir)
	ctx := context.Background()
	all, err := r.LsTree(ctx, string(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range all {
		paths = append(paths, f.Path)
		if f.Mode != "100644" || len(f.OID) != 40 {
			t.Errorf("%s: mode %s oid %s", f.Path, f.Mode, f.OID)
		}
	}
	if diff := cmp.Diff([]string{"a.txt", "d/b.txt", "d/e/c.txt"}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	some, err := r.LsTree(ctx, string(c), []string{"d/b.txt", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	if len(some) != 1 || some[0].Path != "d/b.txt" {
		t.Errorf("LsTree with paths = %+v, want only d/b.txt", some)
	}
}

func TestDiffWorktreeAndCheckoutFiles(t *testing.T) {
	dir := newRepo(t)
	first := commitFiles(t, dir, map[string]string{"keep.txt": "k\n", "mod.txt": "one\n", "gone.txt": "g\n"}, "first")
	writeFile(t, dir, "mod.txt", "two\n")
	os.Remove(filepath.Join(dir, "gone.txt"))
	writeFile(t, dir, "new.txt", "n\n")
	git(t, dir, "add", "new.txt")
	r := open(t, dir)
	ctx := context.Background()
	diff, err := r.DiffWorktree(ctx, string(first))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]byte{}
	for _, d := range diff {
		got[d.Path] = d.Status
	}
	want := map[string]byte{"mod.txt": 'M', "gone.txt": 'D', "new.txt": 'A'}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("DiffWorktree (-want +got):\n%s", d)
	}
	indexBefore := git(t, dir, "ls-files", "-s")
	if err := r.CheckoutFiles(ctx, string(first), []string{"mod.txt", "gone.txt"}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"mod.txt": "one\n", "gone.txt": "g\n", "new.txt": "n\n"} {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || string(data) != want {
			t.Errorf("%s = %q, %v; want %q", p, data, err, want)
		}
	}
	if after := git(t, dir, "ls-files", "-s"); after != indexBefore {
		t.Errorf("CheckoutFiles changed the index:\n%s\nwant\n%s", after, indexBefore)
	}
}

func TestLogRawListsEveryVersionOfAPath(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"f": "1\n", "other": "x\n"}, "one")
	commitFiles(t, dir, map[string]string{"f": "2\n"}, "two")
	head := commitFiles(t, dir, map[string]string{"f": "3\n"}, "three")
	r := open(t, dir)
	ctx := context.Background()
	entries, err := r.LogRaw(ctx, []string{string(head)}, []string{"f"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.Path != "f" {
			t.Errorf("unexpected path %q", e.Path)
		}
		data, _, err := r.ReadBlob(ctx, string(e.NewOID))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	sort.Strings(got)
	if d := cmp.Diff([]string{"1\n", "2\n", "3\n"}, got); d != "" {
		t.Errorf("versions (-want +got):\n%s", d)
	}
}

func TestResetWriteTreeReadTreeIndex(t *testing.T) {
	dir := newRepo(t)
	first := commitFiles(t, dir, map[string]string{"a": "1\n"}, "one")
	second := commitFiles(t, dir, map[string]string{"a": "2\n"}, "two")
	writeFile(t, dir, "b", "staged\n")
	git(t, dir, "add", "b")
	r := open(t, dir)
	ctx := context.Background()
	index, ok, err := r.WriteTree(ctx)
	if err != nil || !ok {
		t.Fatalf("WriteTree = %v, %v", ok, err)
	}
	if err := r.Reset(ctx, gitexec.ResetHard, first); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a")); string(data) != "1\n" {
		t.Errorf("after hard reset a = %q", data)
	}
	if err := r.Reset(ctx, gitexec.ResetSoft, second); err != nil {
		t.Fatal(err)
	}
	if err := r.ReadTreeIndex(ctx, string(index)); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "write-tree"); got != string(index) {
		t.Errorf("index tree = %s, want %s", got, index)
	}
	if got := git(t, dir, "rev-parse", "HEAD"); got != string(second) {
		t.Errorf("HEAD = %s, want %s", got, second)
	}
	if err := r.Reset(ctx, "--merge", second); err == nil {
		t.Error("Reset accepted an unknown mode")
	}
	ids, err := r.RevList(ctx, "HEAD", 1)
	if err != nil || len(ids) != 1 || ids[0] != second {
		t.Errorf("RevList = %v, %v", ids, err)
	}
}

// TestRestoreIndexEntries: the entries IndexEntries read come back exactly after ResetPaths
// changed them: staged versions (one of a name with pathspec magic), a staged new file, and a
// path the index did not have.
func TestRestoreIndexEntries(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"a": "1\n", "[x]": "x\n"}, "one")
	writeFile(t, dir, "a", "staged\n")
	writeFile(t, dir, "n", "new\n")
	git(t, dir, "add", "a", "n")
	next := commitFiles(t, dir, map[string]string{"a": "2\n", "m": "m\n"}, "two")
	git(t, dir, "reset", "-q", "--soft", "HEAD~1")
	git(t, dir, "rm", "-q", "--cached", "m")
	writeFile(t, dir, "a", "staged\n")
	writeFile(t, dir, "[x]", "x staged\n")
	git(t, dir, "add", "a", "n", ":(literal)[x]")
	before := git(t, dir, "ls-files", "-s")
	r := open(t, dir)
	ctx := context.Background()
	paths := []string{"[x]", "a", "m", "n"}
	entries, err := r.IndexEntries(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ResetPaths(ctx, next, paths); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "ls-files", "-s"); got == before {
		t.Fatalf("ResetPaths changed nothing:\n%s", got)
	}
	if err := r.RestoreIndexEntries(ctx, paths, entries); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "ls-files", "-s"); got != before {
		t.Errorf("index after restore:\n%s\nwant:\n%s", got, before)
	}
}

// TestResetPathsSetsEntries: the entries of the paths are the commit's afterwards (a path the
// commit lacks leaves the index, a name with pathspec magic is taken literally), every other
// entry is as it was, and the entries written are fresh (git diff-files does not list them).
func TestResetPathsSetsEntries(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"a": "1\n", "[x]": "x\n", "x": "plain\n", "gone": "g\n"}, "one")
	git(t, dir, "rm", "-q", "gone")
	next := commitFiles(t, dir, map[string]string{"a": "2\n", "[x]": "x2\n", "d/n": "n\n"}, "two")
	git(t, dir, "reset", "-q", "--soft", "HEAD~1")
	git(t, dir, "read-tree", "HEAD") // the first commit's index: "gone" is back
	writeFile(t, dir, "s", "staged\n")
	git(t, dir, "add", "s")
	r := open(t, dir)
	paths := []string{"a", "[x]", "d/n", "gone"}
	if err := r.ResetPaths(context.Background(), next, paths); err != nil {
		t.Fatal(err)
	}
	want := strings.Split(git(t, dir, "ls-files", "-s", "--", "s", "x"), "\n")
	for _, l := range strings.Split(git(t, dir, "ls-tree", "-r", string(next), "--", "a", "[x]", "d/n", "gone"), "\n") {
		f := strings.Fields(l) // mode, type, oid and path
		want = append(want, f[0]+" "+f[2]+" 0\t"+f[3])
	}
	sort.Strings(want)
	got := strings.Split(git(t, dir, "ls-files", "-s"), "\n")
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("index entries (-want +got):\n%s", diff)
	}
	if out := git(t, dir, "diff-files", "--name-only"); out != "" {
		t.Errorf("entries left stale after ResetPaths:\n%s", out)
	}
}
