package gitexec_test

import (
	"context"
	"errors"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

func TestCheckoutSwitchesAndTracks(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"a.txt": "a\n"}, "init")
	git(t, dir, "branch", "feature")
	git(t, dir, "remote", "add", "origin", "https://example.invalid/repo.git")
	git(t, dir, "update-ref", "refs/remotes/origin/topic", "HEAD")
	r := open(t, dir)

	if err := r.Checkout(ctx, "feature", ""); err != nil {
		t.Fatal(err)
	}
	if b, _, _ := r.HeadBranch(ctx); b != "feature" {
		t.Fatalf("HEAD on %q, want feature", b)
	}
	if err := r.Checkout(ctx, "topic", "refs/remotes/origin/topic"); err != nil {
		t.Fatal(err)
	}
	if b, _, _ := r.HeadBranch(ctx); b != "topic" {
		t.Fatalf("HEAD on %q, want topic", b)
	}
	if got := git(t, dir, "config", "branch.topic.merge"); got != "refs/heads/topic" {
		t.Fatalf("branch.topic.merge = %q", got)
	}
}

func TestCheckoutRefusals(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"a.txt": "a\n"}, "init")
	r := open(t, dir)
	for _, name := range []string{"", "-b", "missing"} {
		err := r.Checkout(ctx, name, "")
		if err == nil {
			t.Fatalf("Checkout(%q) succeeded", name)
		}
		var ge *gitexec.Error
		if name == "missing" && !errors.As(err, &ge) {
			t.Fatalf("Checkout(missing) = %v, want a *gitexec.Error", err)
		}
	}
	if err := r.Checkout(ctx, "x", "origin/x"); err == nil {
		t.Fatal("Checkout with a short track name succeeded")
	}
}
