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

// ResolveRef in a repository opened from its files reads loose and packed refs without git and
// agrees with git: present, packed, missing, and a name that is a directory of refs.
func TestResolveRefFromFilesMatchesGit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.Identity(t)
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	gittest.Git(t, dir, "branch", "entire/packed")
	gittest.Git(t, dir, "pack-refs", "--all")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	gittest.Git(t, dir, "branch", "entire/loose")
	path := os.Getenv("PATH")
	os.Setenv("PATH", t.TempDir()) // no git to run: the files must do
	files, err := gitexec.Open(ctx, dir)
	if err != nil {
		os.Setenv("PATH", path)
		t.Fatal(err)
	}
	defer files.Close()
	type answer struct {
		oid gitexec.OID
		ok  bool
	}
	var got []answer
	refs := []gitexec.RefName{"refs/heads/main", "refs/heads/entire/packed", "refs/heads/entire/loose", "refs/heads/entire/missing", "refs/heads/entire"}
	for _, ref := range refs {
		oid, ok, err := files.ResolveRef(ctx, ref)
		if err != nil && ref != "refs/heads/entire" {
			t.Errorf("%s from files: %v", ref, err)
		}
		got = append(got, answer{oid, ok})
	}
	os.Setenv("PATH", path)
	t.Setenv("GIT_CEILING_DIRECTORIES", "/nonexistent") // forces the rev-parse path
	viaGit, err := gitexec.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer viaGit.Close()
	for i, ref := range refs {
		oid, ok, err := viaGit.ResolveRef(ctx, ref)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if i == len(refs)-1 {
			// A directory of refs: the files cannot say; the fallback asked git (PATH was empty
			// then, so an error), never a wrong answer.
			if got[i].ok {
				t.Errorf("%s from files = %+v, want no answer", ref, got[i])
			}
			continue
		}
		if got[i] != (answer{oid, ok}) {
			t.Errorf("%s: files say %+v, git says %s %v", ref, got[i], oid, ok)
		}
	}
	if !got[0].ok || !got[1].ok || !got[2].ok || got[3].ok {
		t.Errorf("answers = %+v", got)
	}
}
