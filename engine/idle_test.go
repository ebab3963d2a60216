package engine

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec/gittest"
)

func TestGitHookIdle(t *testing.T) {
	en := testRepo(t)
	dir := en.Repo.TopLevel
	gittest.Identity(t)
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	if !GitHookIdle(dir) {
		t.Fatal("a repository without sessions is not idle")
	}
	gittest.Git(t, dir, "pack-refs", "--all") // HEAD's branch from packed-refs
	if !GitHookIdle(dir) {
		t.Fatal("a repository without sessions, its branch packed, is not idle")
	}

	write := func(s session.State) {
		t.Helper()
		if err := en.Store.WriteSnapshot(s); err != nil {
			t.Fatal(err)
		}
	}
	root, _ := filepath.EvalSymlinks(dir)
	ended := time.Unix(1, 0)
	write(session.State{SessionID: "other", WorktreePath: "/elsewhere", Phase: session.PhaseActive})
	if !GitHookIdle(dir) {
		t.Fatal("a session of another worktree made this one busy")
	}
	write(session.State{SessionID: "old", WorktreePath: root, Phase: session.PhaseEnded, EndedAt: &ended, BaseCommit: "0123"})
	if !GitHookIdle(dir) {
		t.Fatal("an ended session without work made the hook busy")
	}
	write(session.State{SessionID: "old", WorktreePath: root, Phase: session.PhaseEnded, BaseCommit: head, LastCheckpointID: "0123456789ab"})
	if GitHookIdle(dir) {
		t.Fatal("an ended session based on HEAD (amend restores its trailer) was skipped")
	}
	write(session.State{SessionID: "old", WorktreePath: root, Phase: session.PhaseEnded, BaseCommit: "0123", FilesTouched: []string{"a"}})
	if GitHookIdle(dir) {
		t.Fatal("an ended session with uncondensed files was skipped")
	}
	write(session.State{SessionID: "old", WorktreePath: root, Phase: session.PhaseIdle, BaseCommit: "0123"})
	if GitHookIdle(dir) {
		t.Fatal("a live session was skipped")
	}
}

// In a linked worktree the sessions are the common directory's, and HEAD the worktree's.
func TestGitHookIdleLinkedWorktree(t *testing.T) {
	en := testRepo(t)
	dir := en.Repo.TopLevel
	gittest.Identity(t)
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	gittest.Git(t, wt, "commit", "-q", "--allow-empty", "-m", "two")
	head := gittest.Git(t, wt, "rev-parse", "HEAD")
	if !GitHookIdle(wt) {
		t.Fatal("a linked worktree of a repository without sessions is not idle")
	}
	root, _ := filepath.EvalSymlinks(wt)
	ended := time.Unix(1, 0)
	if err := en.Store.WriteSnapshot(session.State{SessionID: "old", WorktreePath: root, Phase: session.PhaseEnded, EndedAt: &ended, BaseCommit: "0123"}); err != nil {
		t.Fatal(err)
	}
	if !GitHookIdle(wt) {
		t.Fatal("an ended session without work made the linked worktree busy")
	}
	if err := en.Store.WriteSnapshot(session.State{SessionID: "old", WorktreePath: root, Phase: session.PhaseEnded, BaseCommit: head, LastCheckpointID: "0123456789ab"}); err != nil {
		t.Fatal(err)
	}
	if GitHookIdle(wt) {
		t.Fatal("a session based on the linked worktree's HEAD was skipped")
	}
}

// BenchmarkGitHookIdle100Ended is the no-work check of a commit hook in a repository with 100
// ended sessions (issue: 100 old sessions must add less than 5 ms to a commit).
func BenchmarkGitHookIdle100Ended(b *testing.B) {
	dir := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	if out, err := exec.Command("git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "--allow-empty", "-m", "x").CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	st := session.NewStore(filepath.Join(dir, ".git"))
	ended := time.Unix(1, 0)
	for i := 0; i < 100; i++ {
		s := session.State{SessionID: "old-" + strings.Repeat("x", 3) + string(rune('a'+i%26)) + strings.Repeat("y", i%7) + string(rune('0'+i/26)),
			WorktreePath: dir, Phase: session.PhaseEnded, EndedAt: &ended, BaseCommit: "0123", FilesTouched: nil,
			TranscriptPath: "/home/u/.claude/projects/x/" + strings.Repeat("z", 36) + ".jsonl", FirstPrompt: strings.Repeat("p", 100)}
		if err := st.WriteSnapshot(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !GitHookIdle(dir) {
			b.Fatal("not idle")
		}
	}
}
