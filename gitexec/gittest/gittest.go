// Package gittest makes hermetic git repositories for tests: a fixed identity and date, no
// system or user configuration, and commits built with plumbing.
package gittest

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

// Repo is a hermetic empty repository on branch main, closed when the test ends.
func Repo(t testing.TB) *gitexec.Repo {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		t.Setenv("GIT_"+who+"_NAME", "Test User")
		t.Setenv("GIT_"+who+"_EMAIL", "user@example.com")
		t.Setenv("GIT_"+who+"_DATE", "2026-01-02T03:04:05Z")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "-b", "main", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	repo, err := gitexec.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	return repo
}

// Commit commits files (path -> content) on top of parent and points ref at the commit.
func Commit(t testing.TB, repo *gitexec.Repo, ref string, parent gitexec.OID, msg string, files map[string]string) gitexec.OID {
	t.Helper()
	return CommitOn(t, repo, ref, parent, parent, msg, files)
}

// CommitOn is Commit with the files laid over base's tree instead of parent's (a shadow
// checkpoint is HEAD's tree plus the agent's files, its parent the previous checkpoint).
func CommitOn(t testing.TB, repo *gitexec.Repo, ref string, base, parent gitexec.OID, msg string, files map[string]string) gitexec.OID {
	t.Helper()
	ctx := context.Background()
	var paths []string
	var contents [][]byte
	for p, c := range files {
		paths = append(paths, p)
		contents = append(contents, []byte(c))
	}
	oids, err := repo.HashBlobs(ctx, contents)
	if err != nil {
		t.Fatal(err)
	}
	var changes []gitexec.TreeChange
	for i, p := range paths {
		changes = append(changes, gitexec.TreeChange{Path: p, Mode: "100644", OID: oids[i]})
	}
	tree, err := repo.BuildTree(ctx, base, changes)
	if err != nil {
		t.Fatal(err)
	}
	var parents []gitexec.OID
	if parent != "" {
		parents = []gitexec.OID{parent}
	}
	commit, err := repo.CommitTree(ctx, tree, parents, msg)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: gitexec.RefName(ref), New: commit, Old: parent}}); err != nil {
		t.Fatal(err)
	}
	return commit
}

// Git runs git in dir for a test's setup and returns its trimmed output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Identity gives the test's git commits a fixed author and committer.
func Identity(t testing.TB) {
	t.Helper()
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "t")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "t@x")
	}
}
