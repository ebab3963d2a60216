package gitexec_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirerec/entire/gitexec"
	"github.com/entirerec/entire/gitexec/gittest"
)

// Opening a main worktree from its files gives what rev-parse gives: the same directories and
// the same HEAD, on a branch with loose or packed refs, detached, and unborn.
func TestOpenFromFilesMatchesGit(t *testing.T) {
	ctx := context.Background()
	check := func(name, dir string) {
		t.Helper()
		path := os.Getenv("PATH")
		os.Setenv("PATH", t.TempDir()) // no git to run: the files must do
		got, err := gitexec.Open(ctx, dir)
		os.Setenv("PATH", path)
		if err != nil {
			t.Fatalf("%s, from files: %v", name, err)
		}
		defer got.Close()
		t.Setenv("GIT_CEILING_DIRECTORIES", "/nonexistent") // forces the rev-parse path
		want, err := gitexec.Open(ctx, dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer want.Close()
		os.Unsetenv("GIT_CEILING_DIRECTORIES")
		if got.TopLevel != want.TopLevel || got.GitDir != want.GitDir || got.CommonDir != want.CommonDir {
			t.Errorf("%s: files give %s %s %s, git gives %s %s %s", name, got.TopLevel, got.GitDir, got.CommonDir, want.TopLevel, want.GitDir, want.CommonDir)
		}
		gh, gok := got.HeadAtOpen()
		wh, wok := want.HeadAtOpen()
		if gh != wh || gok != wok {
			t.Errorf("%s: HEAD from files %s %v, from git %s %v", name, gh, gok, wh, wok)
		}
	}
	unborn := t.TempDir()
	gittest.Git(t, unborn, "init", "-q", "-b", "main")
	check("unborn", unborn)

	repo := gittest.Repo(t)
	dir := repo.TopLevel
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "a")
	gittest.Git(t, dir, "commit", "-q", "-m", "a")
	check("loose ref", dir)
	gittest.Git(t, dir, "pack-refs", "--all")
	check("packed ref", dir)
	gittest.Git(t, dir, "checkout", "-q", "--detach")
	check("detached", dir)
}
