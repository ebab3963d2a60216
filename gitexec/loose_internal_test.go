package gitexec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// looseRepo is a repository whose objects are all loose: a file, a large file, a commit and
// an annotated tag. It returns the repository's directory and a function running git in it.
func looseRepo(t *testing.T) (string, func(stdin string, args ...string) string) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	run := gitRunner(t, dir)
	run("", "init", "-q", "-b", "main")
	run("", "config", "user.name", "t")
	run("", "config", "user.email", "t@example.com")
	for name, content := range map[string]string{"a.txt": "hello\n", "d/e/f.txt": "deep\n", "big.bin": strings.Repeat("0123456789abcdef", maxLooseRead/8)} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("", "add", "-A")
	run("", "commit", "-q", "-m", "one")
	run("", "tag", "-a", "-m", "a tag", "v1")
	return dir, run
}

// Objects read from their loose files are what cat-file gives for the same names: a blob, a
// tree, a commit, a tag, and a commit peeled to its tree. A blob over maxLooseRead and a
// name that is not a plain id go to cat-file.
func TestLooseReadsMatchCatFile(t *testing.T) {
	dir, run := looseRepo(t)
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	commit := run("", "rev-parse", "HEAD")
	revs := []string{run("", "rev-parse", "HEAD:a.txt"), run("", "rev-parse", "HEAD^{tree}"), commit,
		run("", "rev-parse", "v1"), commit + "^{tree}", commit + ":a.txt", commit + ":", commit + ":d/e/f.txt"}
	want, found, err := r.askObjects(context.Background(), revs)
	if err != nil {
		t.Fatal(err)
	}
	for i, rev := range revs {
		got, ok, sure := r.readLooseRev(rev)
		if !sure || !ok || !found[i] || got.oid != want[i].oid || got.typ != want[i].typ || !bytes.Equal(got.data, want[i].data) {
			t.Errorf("%s: loose %s %s (%v, %v), cat-file %s %s", rev, got.typ, got.oid, ok, sure, want[i].typ, want[i].oid)
		}
	}
	for _, rev := range []string{commit + ":nothing", commit + ":a.txt/below", commit + ":d/nothing"} {
		if _, ok, sure := r.readLooseRev(rev); ok || !sure {
			t.Errorf("%s: found %v, sure %v; want a sure miss", rev, ok, sure)
		}
		if _, found, err := r.askObjects(context.Background(), []string{rev}); err != nil || found[0] {
			t.Errorf("cat-file %s: found %v, %v", rev, found[0], err)
		}
	}
	for _, rev := range []string{run("", "rev-parse", "HEAD:big.bin"), commit + ":big.bin", commit + ":./a.txt", "HEAD", commit[:12], run("", "rev-parse", "v1") + "^{tree}"} {
		if _, _, sure := r.readLooseRev(rev); sure {
			t.Errorf("%s was answered from loose files", rev)
		}
	}
	run("", "repack", "-adq")
	run("", "prune-packed")
	r, err = Open(context.Background(), dir) // a cache that holds nothing
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if obj, ok, sure := r.readLooseRev(commit + ":d/e/f.txt"); !sure || !ok || string(obj.data) != "deep\n" {
		t.Errorf("a path through packed trees: %q %v %v", obj.data, ok, sure)
	}
	if _, _, sure := r.readLooseRev(commit + ":big.bin"); sure {
		t.Error("a packed blob over the limit was read from its pack")
	}
}

// A batch large enough to be read on every processor gives, in order, what reading each name
// alone gives: loose and packed objects, paths, names repeated, and names of nothing.
func TestReadObjectsBatchMatchesSingleReads(t *testing.T) {
	dir, run := looseRepo(t)
	files := map[string]string{}
	for i := range 3 * minParallelReads {
		files[fmt.Sprintf("p%02d/f.txt", i)] = fmt.Sprintf("packed %d\n", i)
	}
	writeFiles(t, dir, files)
	run("", "add", "-A")
	run("", "commit", "-q", "-m", "packed")
	packed := run("", "rev-parse", "HEAD")
	run("", "repack", "-adq")
	run("", "prune-packed")
	for name := range files {
		files[name] = "loose " + name + "\n"
	}
	writeFiles(t, dir, files)
	run("", "commit", "-q", "-a", "-m", "loose")
	loose := run("", "rev-parse", "HEAD")
	var revs []string
	for i := range 3 * minParallelReads {
		for _, c := range []string{packed, loose} {
			revs = append(revs, run("", "rev-parse", fmt.Sprintf("%s:p%02d", c, i)), fmt.Sprintf("%s:p%02d/f.txt", c, i))
		}
		revs = append(revs, fmt.Sprintf("%s:p%02d/missing", loose, i))
	}
	revs = append(revs, revs[:minParallelReads]...)
	ctx := context.Background()
	alone, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	batch, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer batch.Close()
	objs, found, err := batch.readObjectsOnce(ctx, revs)
	if err != nil {
		t.Fatal(err)
	}
	for i, rev := range revs {
		want, wantFound, err := alone.readObjectsOnce(ctx, []string{rev})
		if err != nil {
			t.Fatal(err)
		}
		if found[i] != wantFound[0] || objs[i].oid != want[0].oid || objs[i].typ != want[0].typ || !bytes.Equal(objs[i].data, want[0].data) {
			t.Errorf("%s: batch gave %s %s (%v), alone %s %s (%v)", rev, objs[i].typ, objs[i].oid, found[i], want[0].typ, want[0].oid, wantFound[0])
		}
	}
}

// A loose object is read without cat-file: with cat-file unable to start, a plain id still
// reads, and a path does not.
func TestLooseReadsWithoutCatFile(t *testing.T) {
	dir, run := looseRepo(t)
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.cat = batchProc{args: []string{"no-such-command"}}
	commit := run("", "rev-parse", "HEAD")
	if objs, found, err := r.readObjectsOnce(context.Background(), []string{commit, commit + "^{tree}"}); err != nil || !found[0] || !found[1] || objs[1].typ != "tree" {
		t.Fatalf("loose commit and its tree without cat-file: %v %v", found, err)
	}
	if objs, found, err := r.readObjectsOnce(context.Background(), []string{commit + ":d/e/f.txt"}); err != nil || !found[0] || string(objs[0].data) != "deep\n" {
		t.Errorf("a path through loose trees without cat-file: %v %v", found, err)
	}
	if _, _, err := r.readObjectsOnce(context.Background(), []string{"HEAD:a.txt"}); err == nil {
		t.Error("a name that is not an id was read without cat-file")
	}
}

// Where a replacement ref (git replace) stands in for an object, cat-file answers with the
// replacement, and so must every read: no object is read from its loose file.
func TestLooseReadsHonorReplaceRefs(t *testing.T) {
	dir, run := looseRepo(t)
	orig := run("", "rev-parse", "HEAD:a.txt")
	repl := run("replaced\n", "hash-object", "-w", "--stdin")
	run("", "replace", orig, repl)
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	objs, found, err := r.readObjectsOnce(context.Background(), []string{orig})
	if err != nil || !found[0] || string(objs[0].data) != "replaced\n" {
		t.Errorf("read %s = %q, %v, %v; want the replacement", orig, objs[0].data, found, err)
	}
}
