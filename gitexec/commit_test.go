package gitexec_test

import (
	"context"
	"strings"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

func TestCommitTreeRoundTrip(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	c2 := commitFiles(t, dir, map[string]string{"f": "2"}, "two")
	r := open(t, dir)
	ctx := context.Background()
	tree := gitexec.OID(git(t, dir, "rev-parse", "HEAD^{tree}"))
	msg := "\n  subject with spaces  \n\n# not a comment\nbody\n\n\n"
	c, err := r.CommitTree(ctx, tree, []gitexec.OID{c2, c1}, msg)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.CommitMessage(ctx, string(c)); err != nil || got != msg {
		t.Errorf("CommitMessage = %q, %v; want %q", got, err, msg)
	}
	if got, err := r.CommitParents(ctx, string(c)); err != nil || len(got) != 2 || got[0] != c2 || got[1] != c1 {
		t.Errorf("CommitParents = %v, %v; want [%s %s]", got, err, c2, c1)
	}
	if got, err := r.CommitParents(ctx, string(c1)); err != nil || len(got) != 0 {
		t.Errorf("CommitParents(root) = %v, %v; want none", got, err)
	}
	raw := git(t, dir, "cat-file", "commit", string(c))
	if want := "author " + testName + " <" + testEmail + "> " + testDate; !strings.Contains(raw, want) {
		t.Errorf("commit lacks %q:\n%s", want, raw)
	}
	if git(t, dir, "rev-parse", string(c)+"^{tree}") != string(tree) {
		t.Error("commit has the wrong tree")
	}
	// Fixed identity and dates make the commit reproducible.
	again, err := r.CommitTree(ctx, tree, []gitexec.OID{c2, c1}, msg)
	if err != nil || again != c {
		t.Errorf("second CommitTree = %s, %v; want %s", again, err, c)
	}
	if _, err := r.CommitMessage(ctx, "0123456789012345678901234567890123456789"); err == nil {
		t.Error("CommitMessage of a missing commit: want an error")
	}
}

func TestCommitTreeDateFromEnvironment(t *testing.T) {
	dir := newRepo(t)
	t.Setenv("GIT_AUTHOR_DATE", "1600000000 +0200")
	t.Setenv("GIT_COMMITTER_DATE", "1600000001 -0100")
	r := open(t, dir)
	tree, err := r.EmptyTree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.CommitTree(context.Background(), tree, nil, "m")
	if err != nil {
		t.Fatal(err)
	}
	raw := git(t, dir, "cat-file", "commit", string(c))
	if !strings.Contains(raw, "> 1600000000 +0200\n") || !strings.Contains(raw, "> 1600000001 -0100\n") {
		t.Errorf("dates not honoured:\n%s", raw)
	}
}

func TestCommitTreeWithoutIdentity(t *testing.T) {
	dir := newRepo(t)
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		unsetenv(t, k)
	}
	// Without this git may guess an identity from the host.
	git(t, dir, "config", "user.useConfigOnly", "true")
	r := open(t, dir)
	ctx := context.Background()
	tree, err := r.EmptyTree(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, []byte("m"), "commit-tree", string(tree)); err == nil {
		t.Fatal("plain commit-tree succeeded: the test does not remove the identity")
	}
	c, err := r.CommitTree(ctx, tree, nil, "m")
	if err != nil {
		t.Fatal(err)
	}
	raw := git(t, dir, "cat-file", "commit", string(c))
	for _, want := range []string{"author Unknown <unknown@local> ", "committer Unknown <unknown@local> "} {
		if !strings.Contains(raw, want) {
			t.Errorf("commit lacks %q:\n%s", want, raw)
		}
	}

	// A configured name is kept; only the missing email is filled in.
	git(t, dir, "config", "user.name", "Configured Name")
	if c, err = r.CommitTree(ctx, tree, nil, "m"); err != nil {
		t.Fatal(err)
	}
	raw = git(t, dir, "cat-file", "commit", string(c))
	if !strings.Contains(raw, "author Configured Name <unknown@local> ") {
		t.Errorf("configured name lost:\n%s", raw)
	}
}

// git refuses a NUL byte in a commit message, and a prompt (a shadow commit's subject) can hold
// one: it becomes U+FFFD, whether git or this package writes the commit.
func TestCommitMessageWithNULByte(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	r := open(t, dir)
	ctx := context.Background()
	tree := gitexec.OID(git(t, dir, "rev-parse", "HEAD^{tree}"))
	want := "fix \uFFFDthis\n\nEntire-Session: s\n"
	var commits []gitexec.OID
	for range 2 { // the first by git commit-tree, the next with the identity learnt from it
		c, err := r.CommitTree(ctx, tree, nil, "fix \x00this\n\nEntire-Session: s\n")
		if err != nil {
			t.Fatal(err)
		}
		commits = append(commits, c)
	}
	blob, err := r.HashBlobs(ctx, [][]byte{[]byte("2")})
	if err != nil {
		t.Fatal(err)
	}
	_, c, err := r.BuildCommit(ctx, tree, []gitexec.TreeChange{{Path: "g", Mode: "100644", OID: blob[0]}}, commits[:1], "b\x00\x00", "")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range append(commits, c) {
		got, err := r.CommitMessage(ctx, string(c))
		if i == 2 {
			want = "b\uFFFD\uFFFD"
		}
		if err != nil || got != want {
			t.Errorf("commit %d: message %q, %v; want %q", i, got, err, want)
		}
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}
