package gitexec_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/entirerec/entire/gitexec"
)

// newBare makes an empty bare repository and returns its path.
func newBare(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "remote.git")
	git(t, filepath.Dir(dir), "init", "-q", "--bare", "-b", "main", dir)
	return dir
}

// writeHook installs an executable hook script in dir (a hooks directory).
func writeHook(t *testing.T, dir, name, script string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestPushAndFetch(t *testing.T) {
	ctx := context.Background()
	bare := newBare(t)
	a := newRepo(t)
	tip := commitFiles(t, a, map[string]string{"f": "1"}, "one")
	git(t, a, "branch", "side")
	if err := open(t, a).Push(ctx, bare, []string{"side"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := git(t, bare, "rev-parse", "refs/heads/side"); got != string(tip) {
		t.Fatalf("remote side = %s, want %s", got, tip)
	}

	b := newRepo(t)
	git(t, b, "remote", "add", "origin", bare)
	rb := open(t, b)
	err := rb.Fetch(ctx, "origin", []string{"+refs/heads/side:refs/remotes/origin/side"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := rb.ResolveRef(ctx, "refs/remotes/origin/side")
	if err != nil || !ok || got != tip {
		t.Fatalf("tracking ref = %s, %v, %v; want %s", got, ok, err, tip)
	}
}

func TestPushRejectedIsTyped(t *testing.T) {
	ctx := context.Background()
	bare := newBare(t)
	a := newRepo(t)
	first := commitFiles(t, a, map[string]string{"f": "a"}, "from a")
	git(t, a, "push", "-q", bare, "main")

	b := newRepo(t)
	commitFiles(t, b, map[string]string{"f": "b"}, "from b")
	err := open(t, b).Push(ctx, bare, []string{"main"}, time.Minute)
	if !errors.Is(err, gitexec.ErrPushRejected) {
		t.Fatalf("push of a diverged branch: %v, want ErrPushRejected", err)
	}
	if got := git(t, bare, "rev-parse", "main"); got != string(first) {
		t.Fatalf("remote main moved to %s", got)
	}
}

// raceHook is a pre-receive hook that, the first time it runs, pushes other's HEAD to the
// remote's ref first: another push landing while this one is under way, between the remote's
// advertisement and its ref update, which then finds the ref no longer where the push expected.
func raceHook(flag, other, bare, ref string) string {
	return "if mkdir '" + flag + "' 2>/dev/null; then\n" +
		// The nested push must not inherit this receive-pack's quarantine and repository.
		"  for v in $(env | sed -n 's/^\\(GIT_[A-Z_]*\\)=.*/\\1/p'); do\n" +
		"    case $v in GIT_CONFIG*|GIT_AUTHOR_*|GIT_COMMITTER_*) ;; *) unset $v ;; esac\n" +
		"  done\n" +
		"  git -C '" + other + "' push -q '" + bare + "' HEAD:" + ref + " || exit 1\n" +
		"fi"
}

func TestPushRaceLostOnTheRemoteIsRejected(t *testing.T) {
	for _, tc := range []struct {
		name   string
		exists bool // the ref is on the remote before both pushes (else both create it)
	}{{"update", true}, {"create", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			bare := newBare(t)
			seed := newRepo(t)
			commitFiles(t, seed, map[string]string{"f": "seed"}, "seed")
			if tc.exists {
				git(t, seed, "push", "-q", bare, "HEAD:refs/heads/meta")
			}
			a, b := newRepo(t), newRepo(t)
			for _, d := range []string{a, b} {
				git(t, d, "fetch", "-q", seed, "main")
				git(t, d, "reset", "-q", "--hard", "FETCH_HEAD")
			}
			commitFiles(t, a, map[string]string{"f": "a"}, "from a")
			other := commitFiles(t, b, map[string]string{"f": "b"}, "from b")
			writeHook(t, filepath.Join(bare, "hooks"), "pre-receive",
				raceHook(filepath.Join(t.TempDir(), "raced"), b, bare, "refs/heads/meta"))

			err := open(t, a).Push(ctx, bare, []string{"HEAD:refs/heads/meta"}, time.Minute)
			if !errors.Is(err, gitexec.ErrPushRejected) {
				t.Fatalf("push that lost the race on the remote: %v, want ErrPushRejected", err)
			}
			if got := git(t, bare, "rev-parse", "meta"); got != string(other) {
				t.Fatalf("remote meta = %s, want the other push's %s", got, other)
			}
		})
	}
}

func TestPushRemoteHookRefusalIsNotRejected(t *testing.T) {
	bare := newBare(t)
	writeHook(t, filepath.Join(bare, "hooks"), "pre-receive", "echo no >&2; exit 1")
	a := newRepo(t)
	commitFiles(t, a, map[string]string{"f": "a"}, "one")
	err := open(t, a).Push(context.Background(), bare, []string{"main"}, time.Minute)
	if err == nil || errors.Is(err, gitexec.ErrPushRejected) {
		t.Fatalf("push refused by a remote hook: %v, want a plain failure", err)
	}
	var ge *gitexec.Error
	if !errors.As(err, &ge) {
		t.Fatalf("error %v is not a *gitexec.Error", err)
	}
}

func TestPushSkipsLocalPrePushHook(t *testing.T) {
	bare := newBare(t)
	a := newRepo(t)
	commitFiles(t, a, map[string]string{"f": "a"}, "one")
	marker := filepath.Join(t.TempDir(), "hook-ran")
	writeHook(t, filepath.Join(a, ".git", "hooks"), "pre-push", "touch '"+marker+"'; exit 1")
	if err := open(t, a).Push(context.Background(), bare, []string{"main"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("Push ran the pre-push hook")
	}
}

func TestPushTimeout(t *testing.T) {
	bare := newBare(t)
	a := newRepo(t)
	commitFiles(t, a, map[string]string{"f": "a"}, "one")
	err := open(t, a).Push(context.Background(), bare, []string{"main"}, time.Nanosecond)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("push with an expired time limit: %v", err)
	}
}

func TestFetchMissingRef(t *testing.T) {
	bare := newBare(t)
	a := newRepo(t)
	err := open(t, a).Fetch(context.Background(), bare, []string{"+refs/heads/nope:refs/remotes/x/nope"}, time.Minute)
	if !errors.Is(err, gitexec.ErrRemoteRefMissing) {
		t.Fatalf("fetch of a missing ref: %v, want ErrRemoteRefMissing", err)
	}
}

func TestFetchToFetchHead(t *testing.T) {
	ctx := context.Background()
	bare := newBare(t)
	a := newRepo(t)
	tip := commitFiles(t, a, map[string]string{"f": "a"}, "one")
	git(t, a, "push", "-q", bare, "main")
	b := newRepo(t)
	rb := open(t, b)
	if err := rb.Fetch(ctx, bare, []string{"refs/heads/main"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	got, ok, err := rb.ResolveRef(ctx, "FETCH_HEAD")
	if err != nil || !ok || got != tip {
		t.Fatalf("FETCH_HEAD = %s, %v, %v; want %s", got, ok, err, tip)
	}
}

func TestRemoteArgsRejectOptions(t *testing.T) {
	r := open(t, newRepo(t))
	ctx := context.Background()
	for _, c := range []struct {
		remote string
		specs  []string
	}{{"", []string{"main"}}, {"--upload-pack=x", []string{"main"}}, {"origin", nil}, {"origin", []string{"--all"}}} {
		if err := r.Push(ctx, c.remote, c.specs, time.Minute); err == nil {
			t.Errorf("Push(%q, %q) succeeded", c.remote, c.specs)
		}
		if err := r.Fetch(ctx, c.remote, c.specs, time.Minute); err == nil {
			t.Errorf("Fetch(%q, %q) succeeded", c.remote, c.specs)
		}
	}
}

func TestIsAncestor(t *testing.T) {
	dir := newRepo(t)
	one := commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	two := commitFiles(t, dir, map[string]string{"f": "2"}, "two")
	git(t, dir, "checkout", "-q", "-b", "side", string(one))
	side := commitFiles(t, dir, map[string]string{"g": "1"}, "side")
	r := open(t, dir)
	for _, c := range []struct {
		a, b gitexec.OID
		want bool
	}{{one, two, true}, {two, one, false}, {two, two, true}, {two, side, false}, {one, side, true}} {
		got, err := r.IsAncestor(context.Background(), c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("IsAncestor(%s, %s) = %v, %v; want %v", c.a.Short(7), c.b.Short(7), got, err, c.want)
		}
	}
	if _, err := r.IsAncestor(context.Background(), "nope", two); err == nil {
		t.Error("IsAncestor accepted a malformed id")
	}
}

func TestMergeBase(t *testing.T) {
	dir := newRepo(t)
	one := commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	two := commitFiles(t, dir, map[string]string{"f": "2"}, "two")
	git(t, dir, "checkout", "-q", "-b", "side", string(one))
	side := commitFiles(t, dir, map[string]string{"g": "1"}, "side")
	git(t, dir, "checkout", "-q", "--orphan", "alone")
	alone := commitFiles(t, dir, map[string]string{"h": "1"}, "alone")
	r := open(t, dir)
	ctx := context.Background()
	for _, c := range []struct {
		a, b, want gitexec.OID
	}{{two, side, one}, {side, two, one}, {one, two, one}, {two, two, two}, {two, alone, ""}} {
		got, ok, err := r.MergeBase(ctx, c.a, c.b)
		if err != nil || got != c.want || ok != (c.want != "") {
			t.Errorf("MergeBase(%s, %s) = %s, %v, %v; want %s", c.a.Short(7), c.b.Short(7), got, ok, err, c.want)
		}
	}
	if _, _, err := r.MergeBase(ctx, "nope", two); err == nil {
		t.Error("MergeBase accepted a malformed id")
	}
}

func TestRemoteConfigured(t *testing.T) {
	dir := newRepo(t)
	git(t, dir, "remote", "add", "origin", "../remote.git")
	r := open(t, dir)
	for remote, want := range map[string]bool{"origin": true, "upstream": false, "../remote.git": false,
		"https://example.com/x.git": false, "": false} {
		got, err := r.RemoteConfigured(context.Background(), remote)
		if err != nil || got != want {
			t.Errorf("RemoteConfigured(%q) = %v, %v; want %v", remote, got, err, want)
		}
	}
}

// RemoteTracking finds a branch's copy under every remote, loose or packed (a loose ref wins
// over its packed copy), and Remotes lists the configured remotes.
func TestRemoteTrackingAndRemotes(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	one := commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	two := commitFiles(t, dir, map[string]string{"f": "2"}, "two")
	git(t, dir, "remote", "add", "gh", "../gh.git")
	git(t, dir, "remote", "add", "upstream", "../up.git")
	git(t, dir, "update-ref", "refs/remotes/gh/entire/checkpoints/v1", string(one))
	git(t, dir, "update-ref", "refs/remotes/up/stream/entire/checkpoints/v1", string(one))
	git(t, dir, "update-ref", "refs/remotes/upstream/other", string(one))
	git(t, dir, "pack-refs", "--all")
	git(t, dir, "update-ref", "refs/remotes/gh/entire/checkpoints/v1", string(two))
	git(t, dir, "update-ref", "refs/remotes/upstream/entire/checkpoints/v1", string(two))
	check := func(how string) {
		got, err := open(t, dir).RemoteTracking(ctx, "entire/checkpoints/v1")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]gitexec.OID{"gh": two, "upstream": two, "up/stream": one}
		if len(got) != len(want) {
			t.Fatalf("%s: RemoteTracking = %v, want %v", how, got, want)
		}
		for r, oid := range want {
			if got[r] != oid {
				t.Errorf("%s: RemoteTracking[%s] = %s, want %s", how, r, got[r], oid)
			}
		}
	}
	check("refs read from their files")
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir)) // opened by git: refs listed by git
	check("refs listed by git")
	names, err := open(t, dir).Remotes(ctx)
	if err != nil || len(names) != 2 || names[0] != "gh" || names[1] != "upstream" {
		t.Fatalf("Remotes = %v, %v; want [gh upstream]", names, err)
	}
	if names, err := open(t, newRepo(t)).Remotes(ctx); err != nil || len(names) != 0 {
		t.Fatalf("Remotes of a repository without one = %v, %v", names, err)
	}
}
