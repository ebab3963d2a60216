package gitexec_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

// HooksDir is where git runs the hooks from, as `git rev-parse --git-path hooks` says: without
// a process when no configuration file can set core.hooksPath (the main and a linked
// worktree), and from git wherever a file, an include or the worktree's own file can.
func TestHooksDir(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"a.txt": "a\n"}, "init")
	linked := filepath.Join(t.TempDir(), "linked")
	git(t, dir, "worktree", "add", "-q", linked)
	home := os.Getenv("HOME") // hermetic: GIT_CONFIG_GLOBAL is its .gitconfig
	path := os.Getenv("PATH")
	want := func(wt string) string {
		t.Helper()
		return filepath.Clean(git(t, wt, "rev-parse", "--path-format=absolute", "--git-path", "hooks"))
	}
	// Without git on PATH the answer must come from the files alone.
	for _, wt := range []string{dir, linked} {
		r := open(t, wt)
		t.Setenv("PATH", "")
		got, err := r.HooksDir(ctx)
		t.Setenv("PATH", path)
		if err != nil {
			t.Fatalf("%s: HooksDir without starting git: %v", wt, err)
		}
		if w := want(wt); got != w {
			t.Errorf("%s: HooksDir %q, git says %q", wt, got, w)
		}
	}
	ask := func(what, wt string) {
		t.Helper()
		got, err := open(t, wt).HooksDir(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if w := want(wt); got != w {
			t.Errorf("%s: HooksDir %q, git says %q", what, got, w)
		}
	}
	git(t, dir, "config", "core.hooksPath", "local-hooks")
	ask("local core.hooksPath", dir)
	ask("local core.hooksPath, linked worktree", linked)
	git(t, dir, "config", "--unset", "core.hooksPath")
	writeFile(t, home, ".gitconfig", "[core]\n\thooksPath = /elsewhere/hooks\n")
	ask("global core.hooksPath", dir)
	writeFile(t, home, "other", "[core]\n\thooksPath = /included/hooks\n")
	writeFile(t, home, ".gitconfig", "[include]\n\tpath = other\n")
	ask("included core.hooksPath", dir)
	writeFile(t, home, ".gitconfig", "")
	git(t, dir, "config", "extensions.worktreeConfig", "true")
	git(t, linked, "config", "--worktree", "core.hooksPath", "/worktree/hooks")
	ask("the worktree's own core.hooksPath", linked)
	git(t, linked, "config", "--worktree", "--unset", "core.hooksPath")
}

// A git built with another prefix than /usr keeps its system file in <prefix>/etc/gitconfig,
// which HooksDir does not read as git would: a core.hooksPath there (found from the git that
// PATH names) is left to git to resolve.
func TestHooksDirOtherPrefix(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	prefix := t.TempDir()
	mark := filepath.Join(prefix, "started")
	writeFile(t, prefix, "bin/git", "#!/bin/sh\necho started >> '"+mark+"'\nexec '"+real+"' \"$@\"\n")
	if err := os.Chmod(filepath.Join(prefix, "bin", "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(prefix, "bin"))
	unsetenv(t, "GIT_CONFIG_NOSYSTEM")
	t.Setenv("GIT_CONFIG_SYSTEM", "")
	if err := os.Unsetenv("GIT_CONFIG_SYSTEM"); err != nil {
		t.Fatal(err)
	}
	started := func() bool {
		_, err := os.Stat(mark)
		return err == nil
	}
	r := open(t, dir)
	os.Remove(mark) // Open may have asked git
	if _, err := r.HooksDir(ctx); err != nil {
		t.Fatal(err)
	}
	if started() {
		t.Fatal("HooksDir started git with no configuration that can set core.hooksPath")
	}
	writeFile(t, prefix, "etc/gitconfig", "[core]\n\thooksPath = /system/hooks\n")
	if _, err := open(t, dir).HooksDir(ctx); err != nil {
		t.Fatal(err)
	}
	if !started() {
		t.Error("HooksDir answered from the files with a core.hooksPath in <prefix>/etc/gitconfig")
	}
}
