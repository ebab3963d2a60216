package gitexec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirerec/entire/gitexec"
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
	contents := [][]byte{[]byte("a\r\nb\r\n"), {}, []byte("no newline"), []byte("\x00bin\n\n")}
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
		if want := gitIn(t, dir, nil, string(c), "hash-object", "--stdin"); string(got[i]) != want {
			t.Errorf("blob %d: HashBlobs = %s, git hash-object = %s", i, got[i], want)
		}
		back, ok, err := r.ReadBlob(ctx, string(got[i]))
		if err != nil || !ok || string(back) != string(c) {
			t.Errorf("blob %d: read back %q, %v, %v", i, back, ok, err)
		}
	}
}

// More blobs than transfer.unpackLimit (100) make fast-import keep a pack.
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
