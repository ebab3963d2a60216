package gitexec_test

import (
	"context"
	"os"
	"testing"
)

// CommentString reads the prefix as git does: the repository's file over the global one, an
// include and configuration from git's command line (which a hook inherits) through git.
func TestCommentString(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	home := os.Getenv("HOME") // hermetic: GIT_CONFIG_GLOBAL is its .gitconfig
	path := os.Getenv("PATH")
	// fromFiles asks with git out of reach: the answer must come from the files alone.
	fromFiles := func() string {
		t.Helper()
		r := open(t, dir)
		t.Setenv("PATH", "")
		defer t.Setenv("PATH", path)
		v, err := r.CommentString(ctx)
		if err != nil {
			t.Fatalf("CommentString without starting git: %v", err)
		}
		return v
	}
	if got := fromFiles(); got != "#" {
		t.Errorf("unset: %q, want #", got)
	}
	writeFile(t, home, ".gitconfig", "[core]\n\tcommentChar = \"%\"\n")
	if got := fromFiles(); got != "%" {
		t.Errorf("global: %q, want %%", got)
	}
	git(t, dir, "config", "core.commentChar", ";")
	if got := fromFiles(); got != ";" {
		t.Errorf("local over global: %q, want ;", got)
	}
	git(t, dir, "config", "core.commentChar", "auto")
	if got := fromFiles(); got != "auto" {
		t.Errorf("auto: %q", got)
	}

	ask := func() string {
		t.Helper()
		v, err := open(t, dir).CommentString(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	git(t, dir, "config", "--unset", "core.commentChar")
	writeFile(t, home, "other", "[core]\n\tcommentChar = \"!\"\n")
	writeFile(t, home, ".gitconfig", "[include]\n\tpath = other\n")
	if got := ask(); got != "!" {
		t.Errorf("included: %q, want !", got)
	}
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.commentchar'='@'")
	if got := ask(); got != "@" {
		t.Errorf("git -c: %q, want @", got)
	}
	t.Setenv("GIT_CONFIG_PARAMETERS", "'user.name'='X'")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.commentChar")
	t.Setenv("GIT_CONFIG_VALUE_0", "&")
	if got := ask(); got != "&" {
		t.Errorf("GIT_CONFIG_COUNT: %q, want &", got)
	}
}
