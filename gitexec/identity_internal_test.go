package gitexec

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// identityRepo is a repository with one commit whose identity comes from its configuration
// only: the identity and date variables are unset, HOME is empty and the system file is
// ignored. It returns the directory, a git runner, the commit and the identity file's path.
func identityRepo(t *testing.T) (string, func(stdin string, args ...string) string, string, string) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, name := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
		"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "EMAIL", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"} {
		t.Setenv(name, "")
		os.Unsetenv(name)
	}
	dir := t.TempDir()
	run := gitRunner(t, dir)
	run("", "init", "-q", "-b", "main")
	run("", "config", "user.name", "Ann Config")
	run("", "config", "user.email", "ann@config")
	run("", "commit", "-q", "--allow-empty", "-m", "c")
	return dir, run, run("", "rev-parse", "HEAD"), filepath.Join(dir, ".git", "identity")
}

// commitWithCache opens dir, caches the identity at path and writes one commit of head's tree
// on head; it returns the commit and whether commit-tree ran.
func commitWithCache(t *testing.T, dir, path, head string) (OID, bool) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	defer os.Unsetenv("GIT_TRACE2_EVENT")
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.CacheIdentity(path)
	tree, err := r.CommitTreeOID(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	id, err := r.CommitTree(ctx, tree, []OID{OID(head)}, "record\n")
	if err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(trace)
	return id, bytes.Contains(log, []byte(`"commit-tree"`))
}

// sameAsCommitTree checks that commit is what git commit-tree writes for its tree, parents and
// message at its time.
func sameAsCommitTree(t *testing.T, run func(stdin string, args ...string) string, dir string, commit OID) {
	t.Helper()
	body := run("", "cat-file", "commit", string(commit))
	var args []string
	var when string
	for _, line := range strings.Split(body, "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			args = append(args, val)
		case "parent":
			args = append(args, "-p", val)
		case "committer":
			_, when, _ = cutIdentTime(val)
		}
	}
	cmd := exec.Command("git", append([]string{"-C", dir, "commit-tree"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=@"+when, "GIT_COMMITTER_DATE=@"+when)
	cmd.Stdin = strings.NewReader("record\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); string(commit) != want {
		t.Errorf("commit %s:\n%s\ncommit-tree at the same time gives %s:\n%s", commit, body, want, run("", "cat-file", "commit", want))
	}
}

// The first commit learns the identity from commit-tree; the next process writes its commits
// without commit-tree, and they are the commits commit-tree writes. A change to any
// configuration file git reads, included ones too, sends the next commit to commit-tree again.
func TestCachedIdentityIsCommitTrees(t *testing.T) {
	dir, run, head, path := identityRepo(t)
	if _, ran := commitWithCache(t, dir, path, head); !ran {
		t.Fatal("the first commit did not run commit-tree")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("nothing learned: %v", err)
	}
	c, ran := commitWithCache(t, dir, path, head)
	if ran {
		t.Error("commit-tree ran with a current identity file")
	}
	sameAsCommitTree(t, run, dir, c)

	run("", "config", "user.name", "Bo Renamed")
	c, ran = commitWithCache(t, dir, path, head)
	if !ran || !strings.Contains(run("", "cat-file", "commit", string(c)), "author Bo Renamed <ann@config>") {
		t.Errorf("after a config change: commit-tree ran %v, commit:\n%s", ran, run("", "cat-file", "commit", string(c)))
	}
	if c, ran = commitWithCache(t, dir, path, head); ran {
		t.Error("commit-tree ran again after learning the new name")
	}
	sameAsCommitTree(t, run, dir, c)

	inc := filepath.Join(t.TempDir(), "identity.inc")
	if err := os.WriteFile(inc, []byte("[user]\n\temail = cy@included\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("", "config", "include.path", inc)
	commitWithCache(t, dir, path, head)
	if c, ran = commitWithCache(t, dir, path, head); ran || !strings.Contains(run("", "cat-file", "commit", string(c)), "<cy@included>") {
		t.Errorf("with an include: commit-tree ran %v, commit:\n%s", ran, run("", "cat-file", "commit", string(c)))
	}
	if err := os.WriteFile(inc, []byte("[user]\n\temail = di@changed.example\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, ran = commitWithCache(t, dir, path, head); !ran || !strings.Contains(run("", "cat-file", "commit", string(c)), "<di@changed.example>") {
		t.Errorf("after the included file changed: commit-tree ran %v, commit:\n%s", ran, run("", "cat-file", "commit", string(c)))
	}
}

// What the cache cannot follow keeps commit-tree: a date in the environment, and an include
// that depends on the branch.
func TestCachedIdentityNotUsed(t *testing.T) {
	dir, run, head, path := identityRepo(t)
	commitWithCache(t, dir, path, head)
	t.Setenv("GIT_COMMITTER_DATE", "@1700000000 +0000")
	c, ran := commitWithCache(t, dir, path, head)
	if !ran || !strings.Contains(run("", "cat-file", "commit", string(c)), "1700000000 +0000") {
		t.Errorf("with GIT_COMMITTER_DATE: commit-tree ran %v", ran)
	}
	os.Unsetenv("GIT_COMMITTER_DATE")

	inc := filepath.Join(t.TempDir(), "branch.inc")
	if err := os.WriteFile(inc, []byte("[user]\n\tname = On Main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("", "config", "includeIf.onbranch:main.path", inc)
	for i := range 2 {
		c, ran := commitWithCache(t, dir, path, head)
		if !ran || !strings.Contains(run("", "cat-file", "commit", string(c)), "author On Main <") {
			t.Errorf("with a branch include, commit %d: commit-tree ran %v", i, ran)
		}
	}
}

// Where git has no identity, the first commit takes the fallback's and learns it: later
// processes write the same identity without running commit-tree (and failing) again, until a
// configuration file changes.
func TestCachedIdentityLearnsFallback(t *testing.T) {
	dir, run, head, path := identityRepo(t)
	run("", "config", "--unset", "user.name")
	run("", "config", "--unset", "user.email")
	run("", "config", "user.useConfigOnly", "true")
	c, ran := commitWithCache(t, dir, path, head)
	if !ran {
		t.Fatal("the first commit did not run commit-tree")
	}
	want := "author " + fallbackName + " <" + fallbackEmail + ">"
	if body := run("", "cat-file", "commit", string(c)); !strings.Contains(body, want) {
		t.Fatalf("first commit without an identity:\n%s\nwant %q", body, want)
	}
	c, ran = commitWithCache(t, dir, path, head)
	if ran {
		t.Error("commit-tree ran again with the fallback identity learned")
	}
	if body := run("", "cat-file", "commit", string(c)); !strings.Contains(body, want) {
		t.Errorf("second commit without an identity:\n%s\nwant %q", body, want)
	}
	run("", "config", "user.name", "Ann Config")
	run("", "config", "user.email", "ann@config")
	c, ran = commitWithCache(t, dir, path, head)
	if !ran || !strings.Contains(run("", "cat-file", "commit", string(c)), "author Ann Config <ann@config>") {
		t.Errorf("after an identity was configured: commit-tree ran %v, commit:\n%s", ran, run("", "cat-file", "commit", string(c)))
	}
}

// A configuration file may include one that does not exist yet: the learned identity (the
// fallback's here) holds only until that file is created, for it may set the identity.
func TestCachedIdentityFollowsMissingInclude(t *testing.T) {
	dir, run, head, path := identityRepo(t)
	run("", "config", "--unset", "user.name")
	run("", "config", "--unset", "user.email")
	home := os.Getenv("HOME")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[include]\n\tpath = ~/.gitconfig.id\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("", "config", "include.path", "../local.id") // relative to .git/config
	want := "author " + fallbackName + " <" + fallbackEmail + ">"
	c, _ := commitWithCache(t, dir, path, head)
	if body := run("", "cat-file", "commit", string(c)); !strings.Contains(body, want) {
		t.Fatalf("first commit without an identity:\n%s\nwant %q", body, want)
	}
	if _, ran := commitWithCache(t, dir, path, head); ran {
		t.Fatal("commit-tree ran again with the fallback identity learned")
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig.id"), []byte("[user]\n\tname = Dee Included\n\temail = dee@included\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, ran := commitWithCache(t, dir, path, head)
	if !ran || !strings.Contains(run("", "cat-file", "commit", string(c)), "author Dee Included <dee@included>") {
		t.Errorf("after the included file was created: commit-tree ran %v, commit:\n%s", ran, run("", "cat-file", "commit", string(c)))
	}
	if err := os.WriteFile(filepath.Join(dir, "local.id"), []byte("[user]\n\temail = eve@local\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, ran = commitWithCache(t, dir, path, head)
	if !ran || !strings.Contains(run("", "cat-file", "commit", string(c)), "author Dee Included <eve@local>") {
		t.Errorf("after the repository's included file was created: commit-tree ran %v, commit:\n%s", ran, run("", "cat-file", "commit", string(c)))
	}
}

// A system configuration file where a git built with another prefix keeps it (<prefix>/etc/
// gitconfig of the git on PATH), created after the identity was learned, is followed by the
// key as HooksDir follows it: the next commit asks commit-tree again.
func TestCachedIdentityFollowsOtherSystemFile(t *testing.T) {
	dir, _, head, path := identityRepo(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	prefix := t.TempDir()
	if err := os.MkdirAll(filepath.Join(prefix, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prefix, "bin", "git"), []byte("#!/bin/sh\nexec '"+real+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(prefix, "bin"))
	os.Unsetenv("GIT_CONFIG_NOSYSTEM")
	commitWithCache(t, dir, path, head)
	if _, ran := commitWithCache(t, dir, path, head); ran {
		t.Fatal("commit-tree ran with a current identity file")
	}
	if err := os.MkdirAll(filepath.Join(prefix, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prefix, "etc", "gitconfig"), []byte("[user]\n\tname = Sys Admin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ran := commitWithCache(t, dir, path, head); !ran {
		t.Error("commit-tree did not run after <prefix>/etc/gitconfig appeared")
	}
}
