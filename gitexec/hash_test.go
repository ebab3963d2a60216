package gitexec_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/entirerec/entire/gitexec"
	"github.com/entirerec/entire/gitexec/gittest"
)

func TestHashFilesMatchesGitAdd(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, ".gitattributes", "*.txt text eol=lf\n")
	files := map[string]string{
		"plain":            "hello\n",
		"crlf.txt":         "one\r\ntwo\r\n",
		"sub/dir/deep.bin": "\x00\x01binary",
		`"quoted name`:     "quoted",
		"with space":       "",
	}
	for p, c := range files {
		writeFile(t, dir, p, c)
	}
	if err := os.Symlink("sub/dir/deep.bin", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	paths := []string{"plain", "crlf.txt", "sub/dir/deep.bin", "link", `"quoted name`, "with space"}
	r := open(t, filepath.Join(dir, "sub"))
	got, err := r.HashFiles(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-A")
	for i, p := range paths {
		want := git(t, dir, "rev-parse", ":"+p)
		if string(got[i]) != want {
			t.Errorf("HashFiles(%q) = %s, git add stored %s", p, got[i], want)
		}
	}
	if _, err := r.HashFiles(context.Background(), []string{"does-not-exist"}); err == nil {
		t.Error("HashFiles of a missing file: want an error")
	}
}

func TestHashBlobsExact(t *testing.T) {
	dir := newRepo(t)
	// Filters would change these if they applied.
	git(t, dir, "config", "core.autocrlf", "true")
	writeFile(t, dir, ".gitattributes", "* text\n")
	big := bytes.Repeat([]byte("more than a pipe holds\n"), 1<<16)
	contents := [][]byte{[]byte("a\r\nb\r\n"), {}, big, []byte("no newline"), []byte("\x00bin\n\n")}
	r := open(t, dir)
	ctx := context.Background()
	got, err := r.HashBlobs(ctx, contents)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(contents) {
		t.Fatalf("HashBlobs returned %d ids for %d blobs", len(got), len(contents))
	}
	for i, c := range contents {
		if want := gitIn(t, dir, nil, string(c), "hash-object", "--no-filters", "--stdin"); string(got[i]) != want {
			t.Errorf("blob %d: HashBlobs = %s, git hash-object = %s", i, got[i], want)
		}
		back, ok, err := r.ReadBlob(ctx, string(got[i]))
		if err != nil || !ok || string(back) != string(c) {
			t.Errorf("blob %d: read back %q, %v, %v", i, back, ok, err)
		}
	}
}

// More blobs than one hash-object takes through pipes go through temporary files.
func TestHashBlobsMany(t *testing.T) {
	r := open(t, newRepo(t))
	ctx := context.Background()
	contents := make([][]byte, 250)
	for i := range contents {
		contents[i] = []byte(fmt.Sprintf("blob number %d\n", i))
	}
	got, err := r.HashBlobs(ctx, contents)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[gitexec.OID]bool{}
	for i, oid := range got {
		back, ok, err := r.ReadBlob(ctx, string(oid))
		if err != nil || !ok || string(back) != string(contents[i]) {
			t.Fatalf("blob %d (%s): read back %q, %v, %v", i, oid, back, ok, err)
		}
		seen[oid] = true
	}
	if len(seen) != len(contents) {
		t.Errorf("%d distinct ids for %d distinct blobs", len(seen), len(contents))
	}
	if got, err := r.HashBlobs(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("HashBlobs(nil) = %v, %v", got, err)
	}
}

// Deferred blobs get git's ids and exist before anything can name them: written by the next
// HashBlobs, before another git process or object read, or at Close.
func TestDeferBlobs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		after func(r *gitexec.Repo, oids []gitexec.OID) error
	}{
		{"next HashBlobs", func(r *gitexec.Repo, _ []gitexec.OID) error {
			_, err := r.HashBlobs(ctx, [][]byte{[]byte("other")})
			return err
		}},
		{"read through a tree", func(r *gitexec.Repo, oids []gitexec.OID) error {
			tree, err := r.BuildTree(ctx, "", []gitexec.TreeChange{{Path: "d/x", Mode: "100644", OID: oids[0]}})
			if err != nil {
				return err
			}
			data, ok, err := r.ReadBlob(ctx, string(tree)+":d/x")
			if err == nil && (!ok || string(data) != "deferred one\n") {
				err = fmt.Errorf("read back %q, %v", data, ok)
			}
			return err
		}},
		{"git process", func(r *gitexec.Repo, _ []gitexec.OID) error {
			_, err := r.Run(ctx, nil, "rev-parse", "HEAD")
			return err
		}},
		{"close", func(r *gitexec.Repo, _ []gitexec.OID) error { return r.Close() }},
		// commit-tree starts their write beside it; blobs deferred meanwhile and the
		// earlier ones all exist once the ref that makes them reachable has moved.
		{"commit-tree, more deferred, then update-ref", func(r *gitexec.Repo, oids []gitexec.OID) error {
			commit, err := commitOf(ctx, r, oids[0])
			if err != nil {
				return err
			}
			late := r.DeferBlobs([][]byte{[]byte("deferred while the first write ran\n")})
			if err := r.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: "refs/heads/meta", New: commit}}); err != nil {
				return err
			}
			if !gitOK(r.TopLevel, "cat-file", "-e", string(late[0])) {
				return fmt.Errorf("the blob deferred during the write is missing")
			}
			return nil
		}},
		{"commit-tree, then a read through its tree", func(r *gitexec.Repo, oids []gitexec.OID) error {
			commit, err := commitOf(ctx, r, oids[0])
			if err != nil {
				return err
			}
			data, ok, err := r.ReadBlob(ctx, string(commit)+":d/x")
			if err == nil && (!ok || string(data) != "deferred one\n") {
				err = fmt.Errorf("read back %q, %v", data, ok)
			}
			if err != nil {
				return err
			}
			// A read that found its blob need not wait for the others, still being
			// written beside; closing the repository does.
			return r.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := gittest.Repo(t)
			gittest.Commit(t, repo, "refs/heads/main", "", "init", map[string]string{"a": "a"})
			contents := [][]byte{[]byte("deferred one\n"), {}, []byte("deferred\x00two")}
			oids := repo.DeferBlobs(contents)
			for i, c := range contents {
				want := gitStdin(t, repo.TopLevel, c, "hash-object", "--stdin")
				if string(oids[i]) != want {
					t.Errorf("blob %d: id %s, git says %s", i, oids[i], want)
				}
				if gitOK(repo.TopLevel, "cat-file", "-e", string(oids[i])) {
					t.Errorf("blob %d exists before it was due", i)
				}
			}
			if err := tc.after(repo, oids); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(tc.name, "read through") {
				// A read waits for the blobs it finds missing; the rest may still be in
				// flight beside it (it found the first), and Close waits for them.
				if err := repo.Close(); err != nil {
					t.Fatal(err)
				}
			}
			for i, oid := range oids {
				if !gitOK(repo.TopLevel, "cat-file", "-e", string(oid)) {
					t.Errorf("blob %d (%s) was not written", i, oid)
				}
			}
		})
	}
}

// commitOf commits a tree holding blob at d/x.
func commitOf(ctx context.Context, r *gitexec.Repo, blob gitexec.OID) (gitexec.OID, error) {
	tree, err := r.BuildTree(ctx, "", []gitexec.TreeChange{{Path: "d/x", Mode: "100644", OID: blob}})
	if err != nil {
		return "", err
	}
	return r.CommitTree(ctx, tree, nil, "meta\n")
}

// gitStdin runs git with stdin and returns its trimmed output.
func gitStdin(t *testing.T, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// gitOK reports whether git succeeds.
func gitOK(dir string, args ...string) bool {
	return exec.Command("git", append([]string{"-C", dir}, args...)...).Run() == nil
}

// A file that shrinks while hash-object reads it fails the batch ("short read"); HashFiles
// runs it again (three runs in all) and gets the files as they are then. A git that keeps
// failing is reported.
func TestHashFilesRetriesShortReads(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := newRepo(t)
	writeFile(t, dir, "f.txt", "settled\n")
	bin := t.TempDir()
	failures := filepath.Join(bin, "failures")
	script := "#!/bin/sh\n" +
		"for a in \"$@\"; do if [ \"$a\" = hash-object ]; then\n" +
		"  n=$(cat " + failures + ")\n" +
		"  if [ \"$n\" -gt 0 ]; then echo $((n - 1)) > " + failures + "; cat >/dev/null\n" +
		"    echo 'error: short read while indexing f.txt' >&2; exit 128; fi; fi; done\n" +
		"exec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	want := git(t, dir, "hash-object", "f.txt")
	for _, tc := range []struct {
		failures int
		ok       bool
	}{{1, true}, {2, true}, {3, false}} { // three runs at most
		if err := os.WriteFile(failures, []byte(strconv.Itoa(tc.failures)), 0o644); err != nil {
			t.Fatal(err)
		}
		r := open(t, dir)
		oids, err := r.HashFiles(context.Background(), []string{"f.txt"})
		r.Close()
		if tc.ok && (err != nil || string(oids[0]) != want) {
			t.Errorf("%d short reads: %v %v, want %s", tc.failures, oids, err, want)
		}
		if !tc.ok && err == nil {
			t.Errorf("%d short reads: no error", tc.failures)
		}
	}
}
