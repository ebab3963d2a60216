package gitexec_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

func TestOpenFromSubdirectory(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a/b/file.txt", "x")
	r := open(t, filepath.Join(dir, "a", "b"))
	want := filepath.Join(dir, ".git")
	if r.TopLevel != dir || r.GitDir != want || r.CommonDir != want {
		t.Errorf("Open = {%q %q %q}, want {%q %q %q}", r.TopLevel, r.GitDir, r.CommonDir, dir, want, want)
	}
	if id := r.WorktreeID(); id != "" {
		t.Errorf("WorktreeID = %q, want \"\"", id)
	}
}

func TestOpenLinkedWorktree(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	wt := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-wt")
	t.Cleanup(func() { os.RemoveAll(wt) })
	git(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	writeFile(t, wt, "sub/x", "x")

	r := open(t, filepath.Join(wt, "sub"))
	if r.TopLevel != wt {
		t.Errorf("TopLevel = %q, want %q", r.TopLevel, wt)
	}
	if want := filepath.Join(dir, ".git"); r.CommonDir != want {
		t.Errorf("CommonDir = %q, want %q", r.CommonDir, want)
	}
	if want := filepath.Join(dir, ".git", "worktrees", filepath.Base(wt)); r.GitDir != want {
		t.Errorf("GitDir = %q, want %q", r.GitDir, want)
	}
	if id := r.WorktreeID(); id != filepath.Base(wt) {
		t.Errorf("WorktreeID = %q, want %q", id, filepath.Base(wt))
	}
	if b, ok, err := r.HeadBranch(context.Background()); err != nil || !ok || b != "side" {
		t.Errorf("HeadBranch = %q, %v, %v; want side", b, ok, err)
	}
	side := git(t, wt, "rev-parse", "HEAD")
	mainTip := git(t, dir, "rev-parse", "main")
	git(t, wt, "update-ref", "refs/bisect/bad", side) // a ref of the worktree's own

	// From its root, as hooks run, a linked worktree opens from its files alone (git cannot
	// even start here), with GIT_DIR set as git sets it for hooks or not, to the same answer.
	for _, gitDirEnv := range []string{"", r.GitDir} {
		t.Setenv("GIT_DIR", gitDirEnv)
		path := os.Getenv("PATH")
		t.Setenv("PATH", t.TempDir())
		fr, err := gitexec.Open(context.Background(), wt)
		if err != nil {
			t.Fatalf("GIT_DIR=%q: Open from the root without git: %v", gitDirEnv, err)
		}
		if fr.TopLevel != r.TopLevel || fr.GitDir != r.GitDir || fr.CommonDir != r.CommonDir || fr.WorktreeID() != r.WorktreeID() {
			t.Errorf("GIT_DIR=%q: from files {%q %q %q}, from git {%q %q %q}", gitDirEnv, fr.TopLevel, fr.GitDir, fr.CommonDir, r.TopLevel, r.GitDir, r.CommonDir)
		}
		if head, ok := fr.HeadAtOpen(); !ok || string(head) != side {
			t.Errorf("GIT_DIR=%q: HeadAtOpen = %s, %v; want %s", gitDirEnv, head, ok, side)
		}
		for ref, want := range map[string]string{"refs/heads/side": side, "refs/heads/main": mainTip, "refs/bisect/bad": side} {
			if got, ok, err := fr.ResolveRef(context.Background(), gitexec.RefName(ref)); err != nil || !ok || string(got) != want {
				t.Errorf("GIT_DIR=%q: ResolveRef(%s) = %s, %v, %v; want %s", gitDirEnv, ref, got, ok, err, want)
			}
		}
		fr.Close()
		t.Setenv("PATH", path)
	}

	// A worktree whose git directory does not lead back to it (copied, or moved by hand) is
	// left to git.
	copied := filepath.Join(t.TempDir(), "copy")
	if err := os.MkdirAll(copied, 0o755); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(wt, ".git")); err != nil {
		t.Fatal(err)
	} else {
		writeFile(t, copied, ".git", string(data))
	}
	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir())
	if c, err := gitexec.Open(context.Background(), copied); err == nil {
		c.Close()
		t.Error("a copied worktree opened from its files")
	}
	t.Setenv("PATH", path)
}

func TestOpenNotRepository(t *testing.T) {
	hermetic(t)
	outside := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(outside))
	bare := filepath.Join(t.TempDir(), "bare.git")
	git(t, outside, "init", "-q", "--bare", bare)
	dotgit := filepath.Join(newRepo(t), ".git")

	for name, dir := range map[string]string{"plain dir": outside, "bare": bare, "inside .git": dotgit} {
		_, err := gitexec.Open(context.Background(), dir)
		if !errors.Is(err, gitexec.ErrNotRepository) {
			t.Errorf("%s: Open error = %v, want ErrNotRepository", name, err)
		}
	}
	_, err := gitexec.Open(context.Background(), filepath.Join(outside, "missing"))
	if err == nil || errors.Is(err, gitexec.ErrNotRepository) {
		t.Errorf("missing dir: Open error = %v, want a plain error", err)
	}
}

// A hook's GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE, relative to a
// directory we are not in, must not confuse any call.
func TestHookEnvironmentIgnored(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	t.Setenv("GIT_DIR", ".git")
	t.Setenv("GIT_WORK_TREE", ".")
	t.Setenv("GIT_OBJECT_DIRECTORY", "nowhere")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'user.name'='Injected'")
	r := open(t, ".")
	if r.TopLevel != dir {
		t.Fatalf("TopLevel = %q, want %q", r.TopLevel, dir)
	}
	out, err := r.Run(context.Background(), nil, "var", "GIT_AUTHOR_IDENT")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), testName+" ") {
		t.Errorf("ident = %q: GIT_CONFIG_PARAMETERS leaked", out)
	}
	if _, ok, err := r.Head(context.Background()); err != nil || !ok {
		t.Errorf("Head = %v, %v", ok, err)
	}
}

// The child environment is an allowlist plus GIT_OPTIONAL_LOCKS=0 and LC_ALL=C.
func TestChildEnvironment(t *testing.T) {
	dir := newRepo(t)
	git(t, dir, "config", "alias.printenv", "!env")
	t.Setenv("GIT_INDEX_FILE", ".git/other-index")
	t.Setenv("GIT_WORK_TREE", "/nowhere")
	t.Setenv("GIT_COMMON_DIR", "/nowhere")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'user.name'='Injected'")
	t.Setenv("ENTIRE_UNRELATED", "1")
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	r := open(t, dir)
	out, err := r.Run(context.Background(), nil, "printenv")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	for _, k := range []string{"GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_DIR",
		"GIT_CONFIG_PARAMETERS", "ENTIRE_UNRELATED"} {
		if v, ok := env[k]; ok {
			t.Errorf("child sees %s=%q", k, v)
		}
	}
	for k, want := range map[string]string{"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C",
		"HOME": os.Getenv("HOME"), "GIT_AUTHOR_NAME": testName} {
		if env[k] != want {
			t.Errorf("child sees %s=%q, want %q", k, env[k], want)
		}
	}
}

func TestRunError(t *testing.T) {
	r := open(t, newRepo(t))
	_, err := r.Run(context.Background(), nil, "rev-parse", "--verify", "no-such-rev")
	var e *gitexec.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	if e.ExitCode != 128 || !strings.Contains(e.Stderr, "fatal:") {
		t.Errorf("Error = %+v", e)
	}
	if want := "git rev-parse --verify no-such-rev: exit 128: fatal: Needed a single revision"; e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	out, err := r.Run(context.Background(), []byte("hello"), "hash-object", "--stdin")
	if err != nil || len(strings.TrimSpace(string(out))) != 40 {
		t.Errorf("Run with stdin = %q, %v", out, err)
	}
}

func TestCanceledContext(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	r := open(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := r.Head(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Head error = %v, want context.Canceled", err)
	}
	if _, _, err := r.ReadBlob(ctx, "HEAD:f"); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadBlob error = %v, want context.Canceled", err)
	}
	if b, ok, err := r.ReadBlob(context.Background(), "HEAD:f"); err != nil || !ok || string(b) != "1" {
		t.Errorf("ReadBlob after cancel = %q, %v, %v", b, ok, err)
	}
}

func TestCloseTwice(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	r, err := gitexec.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.ReadBlob(context.Background(), "HEAD:f"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.EmptyTree(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("first Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, _, err := r.ReadBlob(context.Background(), "HEAD:f"); !errors.Is(err, gitexec.ErrClosed) {
		t.Errorf("ReadBlob after Close = %v, want ErrClosed", err)
	}
}

func TestConfigGet(t *testing.T) {
	dir := newRepo(t)
	git(t, dir, "config", "entire.multi", "one")
	git(t, dir, "config", "--add", "entire.multi", "two")
	r := open(t, dir)
	ctx := context.Background()
	if v, ok, err := r.ConfigGet(ctx, "entire.multi"); err != nil || !ok || v != "two" {
		t.Errorf("ConfigGet(entire.multi) = %q, %v, %v; want two", v, ok, err)
	}
	if v, ok, err := r.ConfigGet(ctx, "entire.missing"); err != nil || ok {
		t.Errorf("ConfigGet(entire.missing) = %q, %v, %v; want not ok", v, ok, err)
	}
	if _, _, err := r.ConfigGet(ctx, "nosection"); err == nil {
		t.Error("ConfigGet(nosection): want an error for an invalid key")
	}
}

func TestGitPathHooks(t *testing.T) {
	dir := newRepo(t)
	r := open(t, filepath.Join(dir))
	ctx := context.Background()
	if p, err := r.GitPath(ctx, "hooks"); err != nil || p != filepath.Join(dir, ".git", "hooks") {
		t.Errorf("GitPath(hooks) = %q, %v", p, err)
	}
	git(t, dir, "config", "core.hooksPath", "my-hooks")
	if p, err := r.GitPath(ctx, "hooks"); err != nil || p != filepath.Join(dir, "my-hooks") {
		t.Errorf("GitPath(hooks) with core.hooksPath = %q, %v", p, err)
	}
}

func TestSequencerInProgress(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"f": "base"}, "base")
	git(t, dir, "checkout", "-q", "-b", "other")
	pick := commitFiles(t, dir, map[string]string{"f": "other"}, "other")
	git(t, dir, "checkout", "-q", "main")
	commitFiles(t, dir, map[string]string{"f": "main"}, "main")
	r := open(t, dir)
	if r.SequencerInProgress() {
		t.Fatal("SequencerInProgress before cherry-pick")
	}
	if _, err := r.Run(context.Background(), nil, "cherry-pick", string(pick)); err == nil {
		t.Fatal("cherry-pick unexpectedly succeeded")
	}
	if !r.SequencerInProgress() {
		t.Error("SequencerInProgress = false during a conflicted cherry-pick")
	}
	git(t, dir, "cherry-pick", "--abort")
	if r.SequencerInProgress() {
		t.Error("SequencerInProgress after abort")
	}
	for _, name := range []string{"rebase-merge", "rebase-apply", "REVERT_HEAD"} {
		p := filepath.Join(r.GitDir, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if !r.SequencerInProgress() {
			t.Errorf("SequencerInProgress = false with %s", name)
		}
		os.Remove(p)
	}
}
