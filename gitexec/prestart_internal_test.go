package gitexec

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// internalRepo is an empty repository with one commit, opened, for the package's own tests.
func internalRepo(t *testing.T) (*Repo, OID) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, who := range []string{"AUTHOR", "COMMITTER"} { // commits made twice are the same
		t.Setenv("GIT_"+who+"_NAME", "t")
		t.Setenv("GIT_"+who+"_EMAIL", "t@e")
		t.Setenv("GIT_"+who+"_DATE", "1700000000 +0000")
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", dir},
		{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "c"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	head, ok := r.HeadAtOpen()
	if !ok {
		t.Fatal("no HEAD")
	}
	return r, head
}

// A ref transaction goes to the update-ref started ahead, once; one started and never given a
// transaction ends at Close having changed nothing.
func TestPrestartedRefUpdate(t *testing.T) {
	r, head := internalRepo(t)
	ctx := context.Background()
	r.PrestartWrites()
	if err := r.UpdateRefs(ctx, []RefUpdate{{Name: "refs/heads/a", New: head}}); err != nil {
		t.Fatal(err)
	}
	if r.ahead.has(updateRefArgs) {
		t.Errorf("the started process was not taken: %+v", r.ahead.slots)
	}
	// A second transaction starts its own process.
	if err := r.UpdateRefs(ctx, []RefUpdate{{Name: "refs/heads/b", New: head}}); err != nil {
		t.Fatal(err)
	}
	r2, err := Open(ctx, r.TopLevel)
	if err != nil {
		t.Fatal(err)
	}
	r2.PrestartWrites()
	slot := r2.ahead.slots[argsKey(updateRefArgs)]
	if slot == nil {
		t.Fatal("no process was started ahead")
	}
	<-slot.ready
	if slot.p == nil {
		t.Fatal("the process started ahead failed")
	}
	if err := r2.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", r.TopLevel, "for-each-ref", "--format=%(refname)").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(out)); strings.Join(got, " ") != "refs/heads/a refs/heads/b refs/heads/main" {
		t.Errorf("refs = %v", got)
	}
}

// The object cache answers reads of trees and commits by id and by lasting names, never keeps
// blobs, and never answers a name that can move.
func TestObjectCache(t *testing.T) {
	r, head := internalRepo(t)
	defer r.Close()
	ctx := context.Background()
	if _, err := r.CommitMessage(ctx, string(head)); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.objects.get(string(head)); !ok {
		t.Error("a commit read by id is not kept")
	}
	if _, _, ok, err := r.readTree(ctx, string(head)+"^{tree}"); err != nil || !ok {
		t.Fatalf("read tree: %v %v", ok, err)
	}
	if _, ok := r.objects.get(string(head) + "^{tree}"); !ok {
		t.Error("a tree read by a lasting name is not kept under it")
	}
	if _, _, ok, err := r.readTree(ctx, "HEAD"); err != nil || !ok {
		t.Fatalf("read tree: %v %v", ok, err)
	}
	if _, ok := r.objects.get("HEAD"); ok {
		t.Error("HEAD, a name that moves, is kept")
	}
	blob, err := r.HashBlobs(ctx, [][]byte{[]byte("x\n")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.ReadBlob(ctx, string(blob[0])); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.objects.get(string(blob[0])); ok {
		t.Error("a blob is kept")
	}
	for _, tc := range []struct {
		rev  string
		want bool
	}{
		{string(head), false}, // ids are kept under the object's own id, not as a name
		{string(head) + ":a/b", true},
		{string(head) + "^{tree}", true},
		{string(head) + "~1", false},
		{"main:a", false},
		{strings.ToUpper(string(head)) + ":a", false},
	} {
		if got := lastingName(40, tc.rev); got != tc.want {
			t.Errorf("lastingName(%q) = %v, want %v", tc.rev, got, tc.want)
		}
	}
}

// BuildCommit starts commit-tree ahead, under the tree it computed, and the commit is the one
// CommitTree writes; a tree equal to unless makes no commit and leaves no process behind.
func TestBuildCommitStartsCommitTreeAhead(t *testing.T) {
	r, head := internalRepo(t)
	defer r.Close()
	ctx := context.Background()
	blob, err := r.HashBlobs(ctx, [][]byte{[]byte("x\n")})
	if err != nil {
		t.Fatal(err)
	}
	changes := []TreeChange{{Path: "a/b.txt", Mode: "100644", OID: blob[0]}}
	base, err := r.CommitTreeOID(ctx, string(head))
	if err != nil {
		t.Fatal(err)
	}
	tree, commit, err := r.BuildCommit(ctx, base, changes, []OID{head}, "m\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ahead.slots) != 0 {
		t.Errorf("a process started ahead was left: %v", r.ahead.slots)
	}
	want, err := r.CommitTree(ctx, tree, []OID{head}, "m\n")
	if err != nil || want != commit {
		t.Errorf("commit = %s, CommitTree gives %s (%v)", commit, want, err)
	}
	msg, err := r.CommitMessage(ctx, string(commit))
	if err != nil || msg != "m\n" {
		t.Errorf("message = %q (%v)", msg, err)
	}
	again, none, err := r.BuildCommit(ctx, base, changes, []OID{head}, "m\n", tree)
	if err != nil || again != tree || none != "" {
		t.Errorf("BuildCommit unless its own tree = %s %q %v, want %s and no commit", again, none, err, tree)
	}
	if len(r.ahead.slots) != 0 {
		t.Errorf("a process started ahead was left: %v", r.ahead.slots)
	}
}

// Objects written while unpack-objects is started ahead go through it: blobs of every size (a
// stored deflate block holds 64 KiB at most) read back as written, under the ids computed.
func TestPrestartedObjectWriter(t *testing.T) {
	r, _ := internalRepo(t)
	defer r.Close()
	ctx := context.Background()
	var contents [][]byte
	for i := range 10 {
		contents = append(contents, []byte(strings.Repeat("x", i)+"\n"))
	}
	contents = append(contents, []byte(strings.Repeat("big ", 50000)))
	r.PrestartWrites()
	slot := r.ahead.slots[argsKey(unpackArgs)]
	if slot == nil {
		t.Fatal("no object writer started ahead")
	}
	<-slot.ready
	oids, err := r.writeBlobs(ctx, contents)
	if err != nil {
		t.Fatal(err)
	}
	if r.ahead.has(unpackArgs) {
		t.Error("the object writer started ahead was not used")
	}
	for i, c := range contents {
		if want := r.objectID("blob", c); oids[i] != want {
			t.Errorf("blob %d: %s, want %s", i, oids[i], want)
		}
		got, ok, err := r.ReadBlob(ctx, string(oids[i]))
		if err != nil || !ok || string(got) != string(c) {
			t.Errorf("blob %d reads back %d bytes, %v %v", i, len(got), ok, err)
		}
	}
}
