package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Maintenance commands racing hooks, made deterministic: the world's git is a wrapper that
// holds one git command (the first that matches once armed) until the test releases it, and
// marks when another command of interest has run meanwhile.

// raceGit replaces the world's git wrapper. Once <root>/race-armed exists, the first command
// matching the armed kind is held after it ran ("update-ref": one that creates or moves a
// shadow branch) or before it runs ("list <dir>": a listing of entire's branches in the
// repository at dir; "revparse": a rev-parse of a commit, as explain --commit resolves its
// argument) until
// <root>/race-release exists; <root>/race-held says it is held. While one is held, each
// listing of entire's branches by another process touches <root>/race-listed when done.
func raceGit(w *stressWorld, realGit string) {
	root := w.root
	q := func(name string) string { return stressQuote(filepath.Join(root, name)) }
	script := `#!/bin/sh
armed=` + q("race-armed") + ` claim=` + q("race-claim") + ` held=` + q("race-held") + `
release=` + q("race-release") + ` listed=` + q("race-listed") + `
hold() { touch "$held"; n=0; while [ ! -e "$release" ] && [ $n -lt 1500 ]; do sleep 0.02; n=$((n+1)); done; }
listing=
case " $* " in *" for-each-ref "*" refs/heads/entire/ "*) listing=1 ;; esac
kind=$(cat "$armed" 2>/dev/null)
# "templog": held before the log of a shadow branch's temporary checkpoints runs.
case "$kind" in templog)
	case " $* " in *" log -z --format=%H%x00%P%x00%aI"*) mkdir "$claim" 2>/dev/null && hold ;; esac ;;
esac
case "$kind" in list" "*)
	case " $* " in *" -C ${kind#list } "*)
		if [ -n "$listing" ] && mkdir "$claim" 2>/dev/null; then hold; fi ;;
	esac ;;
esac
case "$kind" in revparse)
	case " $* " in *" rev-parse "*"^{commit} "*) mkdir "$claim" 2>/dev/null && hold ;; esac ;;
esac
case " $* " in *" update-ref "*)
	if [ "$kind" = update-ref ]; then
		in=$(mktemp) || exit 1
		cat > "$in"
		` + stressQuote(realGit) + ` "$@" < "$in"
		rc=$?
		if [ $rc = 0 ] && grep -aqE '(create|update) refs/heads/entire/[0-9a-f]{7}-' "$in" && mkdir "$claim" 2>/dev/null; then hold; fi
		rm -f "$in"
		exit $rc
	fi ;;
esac
# "metaref": held before an update-ref that moves the record's branch (a condensation journaled,
# its checkpoint not written yet).
if [ "$kind" = metaref ]; then case " $* " in *" update-ref "*)
	in=$(mktemp) || exit 1
	cat > "$in"
	if grep -aq 'refs/heads/entire/checkpoints/v1' "$in" && mkdir "$claim" 2>/dev/null; then hold; fi
	` + stressQuote(realGit) + ` "$@" < "$in"
	rc=$?
	rm -f "$in"
	exit $rc ;;
esac; fi
if [ -n "$listing" ] && [ -e "$held" ] && [ ! -e "$release" ]; then
	out=$(mktemp) || exit 1
	` + stressQuote(realGit) + ` "$@" > "$out"
	rc=$?
	cat "$out"
	rm -f "$out"
	touch "$listed"
	exit $rc
fi
exec ` + stressQuote(realGit) + ` "$@"
`
	if err := os.WriteFile(filepath.Join(root, "bin", "git"), []byte(script), 0o755); err != nil {
		w.t.Fatal(err)
	}
}

// raceWait waits until the wrapper created name.
func raceWait(w *stressWorld, name string) {
	w.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(w.root, name)); err == nil {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("the git wrapper never created %s", name)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func raceTouch(w *stressWorld, name, content string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.root, name), []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// raceStart starts a process with the world's environment; wait returns its output.
func raceStart(w *stressWorld, dir, name string, args ...string) (wait func() (string, error)) {
	w.t.Helper()
	c := exec.CommandContext(w.ctx, name, args...)
	c.Dir, c.Env = dir, w.env
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		w.t.Fatal(err)
	}
	return func() (string, error) {
		err := c.Wait()
		return out.String(), err
	}
}

// raceWorld is a repository with a session "race-session" and the git wrapper that holds a
// hook at the step a test arms (raceGit); the logs are printed when the test fails.
func raceWorld(t *testing.T, purpose string) (string, *stressWorld, *stressAgent, string) {
	t.Helper()
	bin, realGit := sessionTools(t, purpose)
	w, a, repo := sessionWorld(t, bin, realGit, "race-session", 2*time.Minute)
	t.Cleanup(func() {
		if t.Failed() {
			w.dumpLogs()
		}
	})
	raceGit(w, realGit)
	return bin, w, a, repo
}

// raceTurn is raceWorld with the session started and one turn played (it writes s0/file0.txt
// and s0/notes.txt).
func raceTurn(t *testing.T, purpose string) (string, *stressWorld, *stressAgent, string) {
	t.Helper()
	bin, w, a, repo := raceWorld(t, purpose)
	if err := a.hook("session-start", map[string]any{"source": "startup"}); err != nil {
		t.Fatal(err)
	}
	if err := a.turn(0); err != nil {
		t.Fatal(err)
	}
	return bin, w, a, repo
}

// TestCleanRacesHook: `entire clean --force` runs while a hook of a live session has written
// the session's new shadow branch (HEAD moved under the session, which follows it) and not yet
// journaled that the session is on it. Clean must not take that branch for an orphan: the
// session's checkpoints would be gone.
func TestCleanRacesHook(t *testing.T) {
	bin, w, a, repo := raceTurn(t, "plays a session while entire clean runs")
	// The user commits a file of their own: HEAD moves without a link, and the session's next
	// hook moves its work onto the new HEAD's shadow branch.
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("the user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.mustGit(repo, "commit", "-q", "-a", "-m", "the user's change")
	head := strings.TrimSpace(w.mustGit(repo, "rev-parse", "HEAD"))
	moved := "entire/" + head[:7] + "-e3b0c4"

	raceTouch(w, "race-armed", "update-ref")
	turn := make(chan error, 1)
	go func() { turn <- a.turn(1) }()
	raceWait(w, "race-held") // the session's new branch is written; its hook holds the session
	clean := raceStart(w, repo, bin, "clean", "--force")
	raceWait(w, "race-listed") // clean listed the shadow branches
	raceTouch(w, "race-release", "")
	if err := <-turn; err != nil {
		t.Fatal(err)
	}
	out, err := clean()
	if err != nil {
		t.Fatalf("entire clean --force: %v\n%s", err, out)
	}
	os.Remove(filepath.Join(w.root, "race-armed"))

	if strings.Contains(out, moved) {
		t.Errorf("clean took the live session's branch %s for an orphan:\n%s", moved, out)
	}
	if _, err := w.git(repo, "rev-parse", "-q", "--verify", "refs/heads/"+moved); err != nil {
		t.Fatalf("the session's branch %s is gone after clean:\n%s", moved, out)
	}
	// The session's checkpoints are still rewind points.
	list, err := w.output(repo, bin, "rewind", "--list")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(list, "Turn 1 of") {
		t.Errorf("rewind --list lost the session's last turn:\n%s", list)
	}
}

// TestDoctorRacesHook: `entire doctor --force` finds a session stuck (active, quiet for over
// an hour, no work: to be discarded), and before it acts the session comes back: a turn writes
// a file and its checkpoint. Doctor must leave the session alone; discarding it deleted the
// turn's checkpoint and the session, and the commit of its work was not linked.
func TestDoctorRacesHook(t *testing.T) {
	bin, w, a, repo := raceWorld(t, "plays a session while entire doctor runs")
	// The session as a state file the reference left: active, last heard of long ago.
	head := strings.TrimSpace(w.mustGit(repo, "rev-parse", "HEAD"))
	state := `{"session_id": "race-session", "base_commit": "` + head + `", "worktree_path": "` + repo + `",
		"started_at": "2020-01-01T00:00:00Z", "phase": "active", "last_interaction_time": "2020-01-01T00:05:00Z",
		"checkpoint_count": 0, "agent_type": "Claude Code", "transcript_path": "` + a.transcript + `"}`
	dir := filepath.Join(w.common, "entire-sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, a.id+".json"), []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _ := w.output(repo, bin, "doctor"); !strings.Contains(out, "--force would discard it") {
		t.Fatalf("doctor does not find the session stuck:\n%s", out)
	}

	raceTouch(w, "race-armed", "list "+repo)
	doctor := raceStart(w, repo, bin, "doctor", "--force")
	raceWait(w, "race-held") // doctor read the states and lists the shadow branches
	if err := a.turn(0); err != nil {
		t.Fatal(err)
	}
	raceTouch(w, "race-release", "")
	out, _ := doctor() // exits 1 while anything is left to fix; what it did is checked below
	os.Remove(filepath.Join(w.root, "race-armed"))
	if strings.Contains(out, "Deleted") || strings.Contains(out, "Discarded") {
		t.Errorf("doctor discarded the session that came back:\n%s", out)
	}
	if !strings.Contains(out, "Left session race-session alone") {
		t.Errorf("doctor does not say it left the session alone:\n%s", out)
	}
	w.mustGit(repo, "add", "-A", "s0")
	w.mustGit(repo, "commit", "-q", "-m", "the turn's work")
	id := stressTrailer(w.mustGit(repo, "show", "-s", "--format=%B", "HEAD"))
	if id == "" {
		t.Fatalf("the commit of the turn's work has no trailer; doctor said:\n%s", out)
	}
	if slots, ok := w.checkpoint(repo, id); ok && (len(slots) != 1 || slots[0].SessionID != a.id) {
		t.Errorf("checkpoint %s: %+v", id, slots)
	}
}

// TestExplainRacesCommit: `entire explain --commit HEAD` opens the repository (and finishes
// pending work) before a commit is made, and resolves HEAD after it, before the commit's
// post-commit wrote the checkpoint (here it never does, as when it is killed). explain said
// "checkpoint not found" for a commit whose checkpoint the next command would write.
func TestExplainRacesCommit(t *testing.T) {
	bin, w, a, repo := raceTurn(t, "plays a session while entire explain runs")
	raceTouch(w, "race-armed", "revparse")
	explain := raceStart(w, repo, bin, "explain", "--commit", "HEAD")
	raceWait(w, "race-held") // explain is about to resolve HEAD
	hook := filepath.Join(w.common, "hooks", "post-commit")
	if err := os.Rename(hook, hook+".off"); err != nil {
		t.Fatal(err)
	}
	w.mustGit(repo, "add", "-A", "s0")
	w.mustGit(repo, "commit", "-q", "-m", "the turn's work")
	if err := os.Rename(hook+".off", hook); err != nil {
		t.Fatal(err)
	}
	id := stressTrailer(w.mustGit(repo, "show", "-s", "--format=%B", "HEAD"))
	if id == "" {
		t.Fatal("the commit of the turn's work has no trailer")
	}
	raceTouch(w, "race-release", "")
	out, err := explain()
	os.Remove(filepath.Join(w.root, "race-armed"))
	if err != nil || !strings.Contains(out, "Checkpoint: "+id) {
		t.Fatalf("entire explain --commit HEAD: %v\n%s", err, out)
	}
	if slots, ok := w.checkpoint(repo, id); !ok || len(slots) != 1 || slots[0].SessionID != a.id {
		t.Errorf("checkpoint %s: %+v", id, slots)
	}
}
