package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The fault suite plays one Claude Code session (two turns, each committed by the user) and
// injects one fault into one step: a crash (the process killed) at an effect boundary of Stop,
// prepare-commit-msg or post-commit, a failing git command at each git step of Stop and of the
// commit's hooks, or a ref lock held by another process. Then the session goes on without
// faults, and the record must be whole: every trailer names a checkpoint with one slot for the
// session, every prompt is recorded, the linked commits' files are in their checkpoints, no
// work is left pending, no shadow branch or lock file is left, and the journal replays to the
// snapshot.

// faultCrashSteps are the crash points (engine.crashPoint) and the step each belongs to.
var faultCrashSteps = []struct{ step, at string }{
	{"stop", "journaled:turn_ended"},
	{"stop", "shadow:written"},
	{"commit", "journaled:commit_prepared"},
	{"commit", "journaled:git_committed"},
	{"commit", "condense:metadata-written"},
	{"commit", "delete-shadow:deleted"},
}

// faultPlumbing are the git commands the wrapper counts and can fail: everything entire runs.
const faultPlumbing = "rev-parse update-ref commit-tree hash-object unpack-objects cat-file for-each-ref diff-tree diff-index " +
	"status ls-tree ls-files read-tree write-tree update-index symbolic-ref config show log rev-list merge-base"

type faultCase struct {
	name   string
	step   string   // "stop" (turn 0's prompt and stop) or "commit" (the commit of turn 0)
	env    []string // added to that step's environment
	gitAt  int      // fail the gitAt-th git command of the step (0: only count them)
	count  *int     // where a counting run reports the number of git commands of the step
	lock   string   // a ref whose lock file is held during that step
	linked bool     // whether the first commit must carry a trailer
}

var faultTally struct{ cases atomic.Int64 } // sessions that recovered whole

func TestFaults(t *testing.T) {
	bin, realGit := sessionTools(t, "fault suite: plays a session per injected fault")
	var cases []faultCase
	for _, c := range faultCrashSteps {
		cases = append(cases, faultCase{name: "crash/" + c.at, step: c.step, env: []string{"ENTIRE_TEST_CRASH_AT=" + c.at},
			linked: c.at != "journaled:commit_prepared"})
	}
	cases = append(cases,
		faultCase{name: "lock/metadata-branch", step: "commit", lock: "refs/heads/entire/checkpoints/v1", linked: true},
		faultCase{name: "lock/shadow-branch", step: "stop", lock: "shadow", linked: true})
	// Count the git steps of each faulted step in a clean run, then fail each in turn.
	for _, step := range []string{"stop", "commit"} {
		n := 0
		probe := faultCase{name: "probe", step: step, count: &n, linked: true}
		t.Run("probe-"+step, func(t *testing.T) { playFaultCase(t, bin, realGit, probe) })
		if n == 0 {
			t.Fatalf("%s: the wrapper counted no git command", step)
		}
		for k := 1; k <= n; k++ {
			cases = append(cases, faultCase{name: fmt.Sprintf("git/%s/%d-of-%d", step, k, n), step: step,
				gitAt: k, linked: step != "commit"})
		}
	}
	t.Run("faults", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				playFaultCase(t, bin, realGit, c)
				if !t.Failed() {
					faultTally.cases.Add(1)
				}
			})
		}
	})
	t.Logf("fault suite: %d faults injected, %d sessions recovered whole", len(cases), faultTally.cases.Load())
}

// faultArm makes the world's git wrapper count entire's git commands from now on and fail the
// at-th (never when at is 0); disarm returns how many it counted.
func faultArm(w *stressWorld, at int) (disarm func() int) {
	armed, count := filepath.Join(w.root, "fault-armed"), filepath.Join(w.root, "fault-count")
	if err := os.WriteFile(armed, []byte(strconv.Itoa(at)), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return func() int {
		os.Remove(armed)
		data, _ := os.ReadFile(count)
		os.Remove(count)
		n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		return n
	}
}

// sessionTools skips a session-playing test in -short mode (why says what it plays) and
// returns the entire binary and the real git.
func sessionTools(t *testing.T, why string) (bin, realGit string) {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	return stressBinary(t), realGit
}

// sessionWorld is a hermetic repository with entire enabled and an agent session to play in
// it through the real binary, for tests of one session; its git is the fault suite's wrapper,
// unarmed unless a test arms it.
func sessionWorld(t *testing.T, bin, realGit, id string, timeout time.Duration) (*stressWorld, *stressAgent, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	w := &stressWorld{t: t, ctx: ctx, bin: bin, root: root, home: filepath.Join(root, "home")}
	repo := faultSetup(w, realGit)
	w.trees = []*stressTree{{dir: repo, branch: "main"}} // for dumpLogs
	a := &stressAgent{w: w, id: id, dir: repo, wrote: map[string]bool{},
		transcript: filepath.Join(w.home, ".claude", "projects", "fault", id+".jsonl")}
	return w, a, repo
}

// playFaultCase plays the session with c's fault and checks the record.
func playFaultCase(t *testing.T, bin, realGit string, c faultCase) {
	w, a, repo := sessionWorld(t, bin, realGit, "fault-session", 2*time.Minute)
	defer func() {
		if t.Failed() {
			w.dumpLogs()
		}
	}()
	base := w.env
	faulty := func(step string, fn func() error) {
		t.Helper()
		if c.step == step {
			w.env = append(append([]string(nil), base...), c.env...)
			defer func() { w.env = base }()
			if c.gitAt > 0 || c.count != nil {
				disarm := faultArm(w, c.gitAt)
				defer func() {
					if n := disarm(); c.count != nil {
						*c.count = n
					}
				}()
			}
			if c.lock != "" {
				lock := faultLockPath(w, repo, c.lock)
				if err := os.WriteFile(lock, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(lock)
			}
		}
		if err := fn(); err != nil && c.step != step {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.hook("session-start", map[string]any{"source": "startup"}))
	faulty("stop", func() error { return a.turn(0) })
	faulty("commit", func() error { return faultCommit(w, repo, "turn 0") })
	must(a.turn(1)) // the next hook finds what the fault left
	must(faultCommit(w, repo, "turn 1"))
	must(a.hook("session-end", map[string]any{"reason": "exit"}))
	faultVerify(w, repo, a, c)
}

// faultSetup makes the world's repository with entire enabled, and a PATH whose git counts
// entire's git commands while armed (faultArm) and fails the one it was armed for.
func faultSetup(w *stressWorld, realGit string) string {
	t := w.t
	bindir := filepath.Join(w.root, "bin")
	for _, d := range []string{bindir, filepath.Join(w.home, ".claude", "projects", "fault")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wrapper := `#!/bin/sh
sub=
skip=
for a in "$@"; do
	if [ -n "$skip" ]; then skip=; continue; fi
	case "$a" in -C|-c) skip=1 ;; -*) ;; *) sub=$a; break ;; esac
done
armed=` + stressQuote(filepath.Join(w.root, "fault-armed")) + `
count=` + stressQuote(filepath.Join(w.root, "fault-count")) + `
if [ -f "$armed" ]; then
	case " ` + faultPlumbing + ` " in *" $sub "*)
		# Hooks start git commands concurrently: the count is taken under a lock (mkdir is
		# atomic), or two commands could read the same count and both fail. A lock left by a
		# wrapper killed while holding it (a writer started ahead and never used) is broken.
		spins=0
		until mkdir "$count.lock" 2>/dev/null; do
			spins=$((spins + 1))
			if [ "$spins" -gt 200 ]; then rmdir "$count.lock" 2>/dev/null; spins=0; fi
			sleep 0.005
		done
		n=$(( $(cat "$count" 2>/dev/null || echo 0) + 1 ))
		echo "$n" > "$count"
		rmdir "$count.lock"
		if [ "$n" = "$(cat "$armed")" ]; then echo "fatal: injected failure of git $sub" >&2; exit 128; fi
	;; esac
fi
exec ` + stressQuote(realGit) + ` "$@"
`
	if err := os.WriteFile(filepath.Join(bindir, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	// Git puts its exec path first on its hooks' PATH: give it one whose git is the wrapper.
	execPath := faultExecPath(w, realGit, filepath.Join(bindir, "git"))
	if err := os.Symlink(w.bin, filepath.Join(bindir, "entire")); err != nil {
		t.Fatal(err)
	}
	w.hermeticEnv(bindir, "Fault", "GIT_EXEC_PATH="+execPath)
	repo := filepath.Join(w.root, "repo")
	w.enabledRepo(repo, "faults\n")
	w.common = filepath.Join(repo, ".git")
	return repo
}

// faultExecPath is a copy of git's exec path (symlinks) in which git is the wrapper.
func faultExecPath(w *stressWorld, realGit, wrapper string) string {
	out, err := exec.Command(realGit, "--exec-path").Output()
	if err != nil {
		w.t.Fatal(err)
	}
	real := strings.TrimSpace(string(out))
	dir := filepath.Join(w.root, "git-core")
	entries, err := os.ReadDir(real)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	for _, e := range entries {
		target := filepath.Join(real, e.Name())
		if e.Name() == "git" {
			target = wrapper
		}
		if err := os.Symlink(target, filepath.Join(dir, e.Name())); err != nil {
			w.t.Fatal(err)
		}
	}
	return dir
}

// faultLockPath is the lock file of ref ("shadow": the shadow branch the session writes to).
func faultLockPath(w *stressWorld, repo, ref string) string {
	if ref == "shadow" {
		head := strings.TrimSpace(w.mustGit(repo, "rev-parse", "HEAD"))
		// The main worktree's ID is "": the suffix is sha256("")[:6].
		ref = "refs/heads/entire/" + head[:7] + "-e3b0c4"
	}
	p := filepath.Join(w.common, filepath.FromSlash(ref)+".lock")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	return p
}

func faultCommit(w *stressWorld, repo, msg string) error {
	if _, err := w.git(repo, "add", "-A", "s0"); err != nil {
		return err
	}
	_, err := w.git(repo, "commit", "-q", "-m", msg)
	return err
}

// faultVerify checks the record after the session.
func faultVerify(w *stressWorld, repo string, a *stressAgent, c faultCase) {
	t := w.t
	log := w.mustGit(repo, "log", "--format=%H", "-n", "2")
	commits := strings.Fields(log)
	if len(commits) != 2 {
		t.Fatalf("want the two commits of the session, got %q", log)
	}
	prompts := map[string]bool{}
	for i, commit := range commits { // newest first: turn 1, then turn 0
		id := stressTrailer(w.mustGit(repo, "show", "-s", "--format=%B", commit))
		if id == "" {
			if i == 0 || c.linked {
				t.Errorf("commit %d (%s) has no Entire-Checkpoint trailer", 1-i, commit[:7])
			}
			continue
		}
		slots, ok := w.checkpoint(repo, id)
		if !ok {
			continue
		}
		if len(slots) != 1 || slots[0].SessionID != a.id {
			t.Errorf("checkpoint %s: want one slot for %s, got %+v", id, a.id, slots)
			continue
		}
		changed := strings.Fields(w.mustGit(repo, "diff-tree", "--no-commit-id", "--name-only", "-r", commit))
		if !stressSubset(changed, slots[0].FilesTouched) {
			t.Errorf("checkpoint %s lists files %v; the commit changed %v", id, slots[0].FilesTouched, changed)
		}
		text, err := w.git(repo, "show", stressMetaBranch+":"+id[:2]+"/"+id[2:]+"/0/prompt.txt")
		if err != nil {
			t.Errorf("checkpoint %s has no prompt.txt: %v", id, err)
		}
		for _, p := range []string{"Turn 0 of", "Turn 1 of"} {
			if strings.Contains(text, p) {
				prompts[p] = true
			}
		}
	}
	for _, p := range []string{"Turn 0 of", "Turn 1 of"} {
		if !prompts[p] {
			t.Errorf("prompt %q is in no checkpoint", p)
		}
	}
	if out := w.mustGit(repo, "for-each-ref", "--format=%(refname)", "refs/heads/entire/"); strings.TrimSpace(out) != "refs/heads/"+stressMetaBranch {
		t.Errorf("branches left besides the record, with nothing uncommitted:\n%s", out)
	}
	var state struct {
		Phase    string `json:"phase"`
		Recorder struct {
			Pending        []json.RawMessage `json:"pending"`
			ShadowToDelete json.RawMessage   `json:"shadow_to_delete"`
			PreparedID     string            `json:"prepared_id"`
		} `json:"recorder"`
	}
	out, err := w.output(repo, w.bin, "replay", "--state-only", a.id)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := os.ReadFile(filepath.Join(w.common, "entire-sessions", a.id+".json"))
	if err != nil || string(snap) != out {
		t.Errorf("replayed state differs from the snapshot (%v):\n%s\n---\n%s", err, snap, out)
	}
	if err := json.Unmarshal([]byte(out), &state); err != nil {
		t.Fatal(err)
	}
	if len(state.Recorder.Pending) > 0 || len(state.Recorder.ShadowToDelete) > 0 || state.Recorder.PreparedID != "" {
		t.Errorf("work left pending: %s", out)
	}
	if state.Phase != "ended" {
		t.Errorf("phase %q after session-end", state.Phase)
	}
	if out, err := w.output(repo, w.bin, "doctor"); err != nil {
		t.Errorf("entire doctor finds the record damaged: %v\n%s", err, out)
	}
	w.checkLocks()
}
