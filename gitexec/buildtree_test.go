package gitexec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

// file is a work-tree file for the BuildTree tests: content and mode
// ("" means 100644; for 120000 the content is the link target).
type file struct {
	content, mode string
}

// materialize writes files into dir.
func materialize(t *testing.T, dir string, files map[string]file) {
	t.Helper()
	for p, f := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch f.mode {
		case "120000":
			err = os.Symlink(f.content, full)
		case "100755":
			err = os.WriteFile(full, []byte(f.content), 0o755)
		default:
			err = os.WriteFile(full, []byte(f.content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// oracleTree returns the tree git builds for files through a real index
// ("git add -A" then "git write-tree") in a fresh repository.
func oracleTree(t *testing.T, files map[string]file) gitexec.OID {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	materialize(t, dir, files)
	git(t, dir, "add", "-A")
	return gitexec.OID(git(t, dir, "write-tree"))
}

// change is a BuildTree change given by content; nil means delete.
type change struct {
	path string
	f    *file
}

func set(p, content string) change        { return change{p, &file{content: content}} }
func setMode(p, content, m string) change { return change{p, &file{content, m}} }
func del(p string) change                 { return change{path: p} }

func TestBuildTreeMatchesWriteTree(t *testing.T) {
	cases := []struct {
		name    string
		base    map[string]file // nil: BuildTree from ""
		changes []change
		want    map[string]file
	}{
		{"add nested new file", map[string]file{"a/x": {content: "x"}},
			[]change{set("n/e/w/file.txt", "new")},
			map[string]file{"a/x": {content: "x"}, "n/e/w/file.txt": {content: "new"}}},
		{"modify", map[string]file{"a/b/c": {content: "old"}, "a/d": {content: "d"}},
			[]change{set("a/b/c", "new")},
			map[string]file{"a/b/c": {content: "new"}, "a/d": {content: "d"}}},
		{"delete last file of a dir", map[string]file{"a/b/c": {content: "c"}, "top": {content: "t"}},
			[]change{del("a/b/c")},
			map[string]file{"top": {content: "t"}}},
		{"delete one of two", map[string]file{"a/b/c": {content: "c"}, "a/b/d": {content: "d"}},
			[]change{del("a/b/c")},
			map[string]file{"a/b/d": {content: "d"}}},
		{"file to dir", map[string]file{"a": {content: "file"}, "z": {content: "z"}},
			[]change{del("a"), set("a/b", "in dir")},
			map[string]file{"a/b": {content: "in dir"}, "z": {content: "z"}}},
		{"file to dir by adding below", map[string]file{"a": {content: "file"}},
			[]change{set("a/b/c", "deep")},
			map[string]file{"a/b/c": {content: "deep"}}},
		{"dir to file", map[string]file{"a/b": {content: "b"}, "a/c": {content: "c"}},
			[]change{set("a", "now a file"), del("a/b")},
			map[string]file{"a": {content: "now a file"}}},
		{"delete a directory", map[string]file{"d/1": {content: "1"}, "d/e/2": {content: "2"}, "k": {content: "k"}},
			[]change{del("d")},
			map[string]file{"k": {content: "k"}}},
		{"from the empty tree", nil,
			[]change{set("x", "x"), set("y/z", "z")},
			map[string]file{"x": {content: "x"}, "y/z": {content: "z"}}},
		{"modes", map[string]file{"bin/run": {content: "#!/bin/sh\n"}},
			[]change{setMode("bin/run", "#!/bin/sh\n", "100755"), setMode("lnk", "bin/run", "120000")},
			map[string]file{"bin/run": {"#!/bin/sh\n", "100755"}, "lnk": {"bin/run", "120000"}}},
		{"git sort order", map[string]file{"a-b": {content: "1"}, "a.b": {content: "2"}, "a0": {content: "3"}},
			[]change{set("a/c", "4")},
			map[string]file{"a-b": {content: "1"}, "a.b": {content: "2"}, "a0": {content: "3"}, "a/c": {content: "4"}}},
		{"delete everything", map[string]file{"a/b": {content: "b"}, "c": {content: "c"}},
			[]change{del("a"), del("c")},
			map[string]file{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := buildTree(t, tc.base, tc.changes)
			if want := oracleTree(t, tc.want); got != want {
				t.Errorf("BuildTree = %s, git write-tree = %s", got, want)
			}
		})
	}
}

// buildTree commits base in a fresh repository, applies changes with
// BuildTree, checks the repository with fsck and returns the new tree.
func buildTree(t *testing.T, base map[string]file, changes []change) gitexec.OID {
	t.Helper()
	dir := newRepo(t)
	var baseTree gitexec.OID
	if base != nil {
		materialize(t, dir, base)
		git(t, dir, "add", "-A")
		baseTree = gitexec.OID(git(t, dir, "write-tree"))
	}
	r := open(t, dir)
	ctx := context.Background()
	var contents [][]byte
	for _, c := range changes {
		if c.f != nil {
			contents = append(contents, []byte(c.f.content))
		}
	}
	oids, err := r.HashBlobs(ctx, contents)
	if err != nil {
		t.Fatal(err)
	}
	var tcs []gitexec.TreeChange
	for _, c := range changes {
		if c.f == nil {
			tcs = append(tcs, gitexec.TreeChange{Path: c.path, Delete: true})
			continue
		}
		mode := c.f.mode
		if mode == "" {
			mode = "100644"
		}
		tcs = append(tcs, gitexec.TreeChange{Path: c.path, Mode: mode, OID: oids[0]})
		oids = oids[1:]
	}
	got, err := r.BuildTree(ctx, baseTree, tcs)
	if err != nil {
		t.Fatal(err)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling", "--no-progress")
	if git(t, dir, "cat-file", "-t", string(got)) != "tree" {
		t.Errorf("%s is not a tree", got)
	}
	return got
}

func TestBuildTreeNoOpKeepsBase(t *testing.T) {
	dir := newRepo(t)
	c := commitFiles(t, dir, map[string]string{"a/b": "file b", "k": "k"}, "one")
	base := gitexec.OID(git(t, dir, "rev-parse", "HEAD^{tree}"))
	r := open(t, dir)
	changes := []gitexec.TreeChange{
		{Path: "missing", Delete: true},
		{Path: "a/missing/deeper", Delete: true},
		{Path: "a/b/below-a-file", Delete: true},
		{Path: "k", Mode: "100644", OID: gitexec.OID(git(t, dir, "rev-parse", "HEAD:k"))},
	}
	for _, b := range []gitexec.OID{base, c} { // a commit is peeled to its tree
		got, err := r.BuildTree(context.Background(), b, changes)
		if err != nil || got != base {
			t.Errorf("BuildTree(%s) = %s, %v; want the base tree %s", b, got, err, base)
		}
	}
	empty, err := r.BuildTree(context.Background(), "", nil)
	if err != nil || empty != gitexec.OID(git(t, dir, "hash-object", "-t", "tree", os.DevNull)) {
		t.Errorf("BuildTree(\"\", nil) = %s, %v; want the empty tree", empty, err)
	}
}

func TestBuildTreeRejectsBadChanges(t *testing.T) {
	dir := newRepo(t)
	r := open(t, dir)
	ctx := context.Background()
	blobs, err := r.HashBlobs(ctx, [][]byte{[]byte("x")})
	if err != nil {
		t.Fatal(err)
	}
	b := blobs[0]
	bad := map[string][]gitexec.TreeChange{
		"empty path":      {{Path: "", Mode: "100644", OID: b}},
		"absolute":        {{Path: "/a", Mode: "100644", OID: b}},
		"double slash":    {{Path: "a//b", Mode: "100644", OID: b}},
		"dot dot":         {{Path: "a/../b", Mode: "100644", OID: b}},
		"dot git":         {{Path: ".git/config", Mode: "100644", OID: b}},
		"trailing slash":  {{Path: "a/", Mode: "100644", OID: b}},
		"bad mode":        {{Path: "a", Mode: "100664", OID: b}},
		"short oid":       {{Path: "a", Mode: "100644", OID: b[:10]}},
		"same path twice": {{Path: "a", Mode: "100644", OID: b}, {Path: "a", Delete: true}},
		"file and dir":    {{Path: "a", Mode: "100644", OID: b}, {Path: "a/b", Mode: "100644", OID: b}},
	}
	for name, changes := range bad {
		if got, err := r.BuildTree(ctx, "", changes); err == nil {
			t.Errorf("%s: BuildTree = %s, want an error", name, got)
		}
	}
	if _, err := r.BuildTree(ctx, "0123456789012345678901234567890123456789", nil); err == nil {
		t.Error("missing base: want an error")
	}
}

// Submodule entries point to commits this repository does not have; trees
// holding them must still be rewritten.
func TestBuildTreeKeepsSubmodule(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"lib/readme": "r"}, "one")
	foreign := "0123456789abcdef0123456789abcdef01234567"
	git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+foreign+",lib/sub")
	base := gitexec.OID(git(t, dir, "write-tree"))
	r := open(t, dir)
	ctx := context.Background()
	blobs, err := r.HashBlobs(ctx, [][]byte{[]byte("new")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.BuildTree(ctx, base, []gitexec.TreeChange{{Path: "lib/new", Mode: "100644", OID: blobs[0]}})
	if err != nil {
		t.Fatal(err)
	}
	if ls := git(t, dir, "ls-tree", string(got)+":lib", "sub"); ls != "160000 commit "+foreign+"\tsub" {
		t.Errorf("ls-tree lib/sub = %q", ls)
	}
	if git(t, dir, "rev-parse", string(got)+":lib/new") != string(blobs[0]) {
		t.Error("lib/new missing")
	}
}

// BuildTree builds over blobs another process wrote just before, one or
// many; the trees' writer does not look for the objects they name.
func TestBuildTreeSeesObjectsWrittenLater(t *testing.T) {
	r := open(t, newRepo(t))
	ctx := context.Background()
	for _, n := range []int{1, 150} {
		contents := make([][]byte, n)
		for i := range contents {
			contents[i] = []byte(fmt.Sprintf("%d-%d", n, i))
		}
		ids, err := r.HashBlobs(ctx, contents)
		if err != nil {
			t.Fatal(err)
		}
		var changes []gitexec.TreeChange
		for i, id := range ids {
			changes = append(changes, gitexec.TreeChange{Path: fmt.Sprintf("d/f%d", i), Mode: "100644", OID: id})
		}
		tree, err := r.BuildTree(ctx, "", changes)
		if err != nil {
			t.Fatalf("%d blobs: %v", n, err)
		}
		if entries, ok, err := r.ReadTree(ctx, string(tree)+":d"); err != nil || !ok || len(entries) != n {
			t.Errorf("%d blobs: tree has %d entries, %v, %v", n, len(entries), ok, err)
		}
	}
}
