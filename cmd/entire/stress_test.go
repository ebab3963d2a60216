package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The stress test's shape: -stress.sessions agents in the main worktree and stressSideSessions in
// a linked worktree, each playing stressTurns turns, while one committer per worktree commits the
// files of finished turns. stressRounds fresh repositories per test run.
const (
	stressRounds       = 3
	stressSideSessions = 2
	stressTurns        = 4
	stressMetaBranch   = "entire/checkpoints/v1"
)

// stressSessions is the number of sessions in the main worktree; more sessions mean more
// writers racing for its shadow branch.
var stressSessions = flag.Int("stress.sessions", 6, "sessions in the main worktree of TestStressConcurrentHooks")

// TestStressConcurrentHooks runs real hook processes concurrently: Claude Code sessions in two
// worktrees of one repository, all on the same base commit and therefore the same shadow
// branch per worktree, while committers commit finished work (git's hooks racing the agents'
// stop hooks on the shadow and metadata branches). Afterwards every journal must replay to
// its snapshot, every prompt and stop must be recorded, every linked commit must have its
// checkpoint, and no session's file may be silently lost.
func TestStressConcurrentHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test: spawns hundreds of processes")
	}
	bin := stressBinary(t)
	for round := 1; round <= stressRounds; round++ {
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) { stressRound(t, bin, false) })
	}
}

// stressBinary is the entire command: the copy of this test binary that testscript.Main put
// on PATH (TestMain), or else one built for the test.
func stressBinary(t *testing.T) string {
	if p, err := exec.LookPath("entire"); err == nil && strings.Contains(p, "testscript-main") {
		return p
	}
	p := filepath.Join(t.TempDir(), "entire")
	if out, err := exec.Command("go", "build", "-o", p, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return p
}

// stressWorld is one round's hermetic repository, its worktrees and the processes' environment.
type stressWorld struct {
	t        *testing.T
	ctx      context.Context
	bin      string
	root     string
	home     string
	env      []string
	failures string // git hooks that exited non-zero, recorded by the PATH wrapper
	faults   bool   // inject faults: killed post-commits and a metadata ref lock held by others
	common   string // the git common dir
	base     string // the commit every session starts on
	trees    []*stressTree
}

// stressTree is a worktree, its branch, its sessions and what its committer did.
type stressTree struct {
	dir, branch string
	agents      []*stressAgent
	commits     int
}

// stressAgent plays one Claude Code session.
type stressAgent struct {
	w          *stressWorld
	id, dir    string
	idx        int // files live under s<idx>/
	transcript string
	lines      int
	wrote      map[string]bool // every file the session wrote, repo-relative

	mu      sync.Mutex // guards inTurn and pending; the committer holds it while staging
	inTurn  bool       // the session is between user-prompt-submit and the end of stop
	pending []string   // files of finished turns not staged yet
}

func stressRound(t *testing.T, bin string, faults bool) {
	start := time.Now()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := &stressWorld{t: t, ctx: ctx, bin: bin, root: root, home: filepath.Join(root, "home"),
		failures: filepath.Join(root, "hook-failures.log"), faults: faults}
	w.setup()
	defer func() {
		if t.Failed() {
			w.dumpLogs()
		}
	}()

	var hookErrs []error
	var errMu sync.Mutex
	report := func(err error) {
		errMu.Lock()
		hookErrs = append(hookErrs, err)
		errMu.Unlock()
	}
	var all sync.WaitGroup
	for _, tr := range w.trees {
		var agents sync.WaitGroup
		for _, a := range tr.agents {
			agents.Go(func() {
				if err := a.play(); err != nil {
					report(err)
				}
			})
		}
		done := make(chan struct{})
		all.Go(func() { agents.Wait(); close(done) })
		all.Go(func() {
			if err := w.commitLoop(tr, done); err != nil {
				report(err)
			}
		})
	}
	stopLocks := make(chan struct{})
	var locks sync.WaitGroup
	if faults {
		locks.Go(func() { w.holdMetadataLock(stopLocks) })
	}
	all.Wait()
	close(stopLocks)
	locks.Wait()
	for _, err := range hookErrs {
		t.Error(err)
	}
	if data, err := os.ReadFile(w.failures); err == nil && !faults {
		t.Errorf("git hooks exited non-zero:\n%s", data)
	} else if faults {
		t.Logf("hooks killed by the injected faults: %d", bytes.Count(data, []byte("exit ")))
	}
	if faults {
		// What the faults left pending is finished by the next entire command in its worktree
		// (a condensation reads the worktree's files, so each worktree finishes its own).
		for _, tr := range w.trees {
			if out, err := w.output(tr.dir, w.bin, "status"); err != nil {
				t.Errorf("entire status: %v\n%s", err, out)
			}
		}
	}
	w.verify(time.Since(start))
}

// TestStressWithFaults is a stress round in which every second commit's post-commit is killed
// after writing its checkpoint and before journaling it, and another process keeps taking the
// metadata branch's ref lock for a while (as a fetch or gc would): the record must still end
// whole, and entire doctor must find nothing wrong.
func TestStressWithFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test: spawns hundreds of processes")
	}
	stressRound(t, stressBinary(t), true)
}

// holdMetadataLock takes the metadata branch's ref lock for 300 ms every second until stop.
func (w *stressWorld) holdMetadataLock(stop <-chan struct{}) {
	lock := filepath.Join(w.common, "refs", "heads", "entire", "checkpoints", "v1.lock")
	for {
		select {
		case <-stop:
			return
		case <-time.After(700 * time.Millisecond):
		}
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			continue // git holds it right now
		}
		f.Close()
		time.Sleep(300 * time.Millisecond)
		os.Remove(lock)
	}
}

// setup creates the repository with a first commit, enables entire, commits what enable wrote
// and adds a linked worktree.
func (w *stressWorld) setup() {
	t := w.t
	bindir := filepath.Join(w.root, "bin")
	for _, d := range []string{w.home, bindir, filepath.Join(w.home, ".claude", "projects", "stress")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Git's hooks find entire on PATH and hide its exit status (|| true); the wrapper records it.
	wrapper := fmt.Sprintf("#!/bin/sh\nerr=$(mktemp %[1]s) || exit 1\n%[2]s \"$@\" 2>\"$err\"\nrc=$?\ncat \"$err\" >&2\n"+
		"if [ $rc -ne 0 ]; then { echo \"exit $rc: entire $*\"; cat \"$err\"; } >>%[3]s; fi\nrm -f \"$err\"\nexit $rc\n",
		stressQuote(filepath.Join(w.root, "hookerr.XXXXXX")), stressQuote(w.bin), stressQuote(w.failures))
	if err := os.WriteFile(filepath.Join(bindir, "entire"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	w.hermeticEnv(bindir, "Stress")

	repo, side := filepath.Join(w.root, "repo"), filepath.Join(w.root, "side")
	w.enabledRepo(repo, "stress\n")
	w.base = strings.TrimSpace(w.mustGit(repo, "rev-parse", "HEAD"))
	w.mustGit(repo, "worktree", "add", "-q", "-b", "side", side)
	w.common = filepath.Join(repo, ".git")
	idx := 0
	for _, wt := range []struct {
		dir, branch string
		n           int
	}{{repo, "main", *stressSessions}, {side, "side", stressSideSessions}} {
		tr := &stressTree{dir: wt.dir, branch: wt.branch}
		for j := range wt.n {
			id := fmt.Sprintf("stress-%s-%d", wt.branch, j)
			tr.agents = append(tr.agents, &stressAgent{w: w, id: id, dir: wt.dir, idx: idx, wrote: map[string]bool{},
				transcript: filepath.Join(w.home, ".claude", "projects", "stress", id+".jsonl")})
			idx++
		}
		w.trees = append(w.trees, tr)
	}
}

// hermeticEnv sets the world's environment: this process's without git's, entire's and the
// home variables, with its own HOME, bindir first on PATH, fixed identities for who, and extra.
func (w *stressWorld) hermeticEnv(bindir, who string, extra ...string) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "ENTIRE_") || k == "HOME" || k == "PATH" || k == "XDG_CONFIG_HOME" || k == "GORACE" {
			continue
		}
		w.env = append(w.env, kv)
	}
	email := strings.ToLower(who) + "@example.com"
	w.env = append(w.env, "HOME="+w.home, "PATH="+bindir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "ENTIRE_TEST_TTY=0", "TZ=UTC",
		"GIT_AUTHOR_NAME="+who+" User", "GIT_AUTHOR_EMAIL="+email,
		"GIT_COMMITTER_NAME="+who+" User", "GIT_COMMITTER_EMAIL="+email,
		// Under -race the hook processes are race-enabled copies of this binary; without this each
		// would sleep a second at exit.
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	w.env = append(w.env, extra...)
}

// enabledRepo creates a repository at dir with a first commit, enables entire and commits what
// enable wrote.
func (w *stressWorld) enabledRepo(dir, readme string) {
	t := w.t
	w.mustGit(w.root, "init", "-q", "-b", "main", dir)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	w.mustGit(dir, "add", "README.md")
	w.mustGit(dir, "commit", "-q", "-m", "init")
	if out, err := w.cmd(dir, nil, w.bin, "enable"); err != nil || !strings.Contains(out, "Ready.") {
		t.Fatalf("entire enable: %v\n%s", err, out)
	}
	w.mustGit(dir, "add", "-A")
	w.mustGit(dir, "commit", "-q", "-m", "enable entire")
}

// cmdEnv is cmd without stdin and with extra environment variables.
func (w *stressWorld) cmdEnv(dir string, extra []string, name string, args ...string) (string, error) {
	c := exec.CommandContext(w.ctx, name, args...)
	c.Dir, c.Env = dir, append(append([]string(nil), w.env...), extra...)
	out, err := c.CombinedOutput()
	if err != nil {
		err = fmt.Errorf("%s %s (in %s): %w\n%s", filepath.Base(name), strings.Join(args, " "), dir, err, out)
	}
	return string(out), err
}

// cmd runs a process in dir with the round's environment and returns its combined output.
func (w *stressWorld) cmd(dir string, stdin []byte, name string, args ...string) (string, error) {
	c := exec.CommandContext(w.ctx, name, args...)
	c.Dir, c.Env = dir, w.env
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	if err != nil {
		err = fmt.Errorf("%s %s (in %s): %w\n%s", filepath.Base(name), strings.Join(args, " "), dir, err, out.String())
	}
	return out.String(), err
}

// output runs a process and returns its stdout alone; stderr goes into the error.
func (w *stressWorld) output(dir, name string, args ...string) (string, error) {
	c := exec.CommandContext(w.ctx, name, args...)
	c.Dir, c.Env = dir, w.env
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

func (w *stressWorld) git(dir string, args ...string) (string, error) {
	return w.output(dir, "git", args...)
}

func (w *stressWorld) mustGit(dir string, args ...string) string {
	w.t.Helper()
	out, err := w.git(dir, args...)
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

// play runs the session: session-start, then stressTurns turns with a short pause between.
func (a *stressAgent) play() error {
	if err := a.hook("session-start", map[string]any{"source": "startup"}); err != nil {
		return err
	}
	for turn := range stressTurns {
		if err := a.turn(turn); err != nil {
			return err
		}
		time.Sleep(time.Duration(20+rand.IntN(60)) * time.Millisecond)
	}
	return nil
}

// turn is one prompt: the agent writes s<i>/file<t>.txt, edits it, appends to s<i>/notes.txt
// (created in turn 0, modified in every later turn), says it is done, and the turn stops.
func (a *stressAgent) turn(n int) error {
	a.setTurn(true, nil)
	prompt := fmt.Sprintf("Turn %d of %s: write s%d/file%d.txt", n, a.id, a.idx, n)
	if err := a.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}}); err != nil {
		return err
	}
	if err := a.hook("user-prompt-submit", map[string]any{"prompt": prompt}); err != nil {
		return err
	}
	file, notes := fmt.Sprintf("s%d/file%d.txt", a.idx, n), fmt.Sprintf("s%d/notes.txt", a.idx)
	edits := []struct {
		tool, path, text string
	}{
		{"Write", file, fmt.Sprintf("%s turn %d\n", a.id, n)},
		{"Edit", file, "edited in the same turn\n"},
		{"Edit", notes, fmt.Sprintf("note of turn %d\n", n)},
	}
	if n == 0 {
		edits[2].tool = "Write"
	}
	for _, e := range edits {
		if err := a.edit(e.tool, e.path, e.text); err != nil {
			return err
		}
	}
	say := fmt.Sprintf("Turn %d of %s done.", n, a.id)
	if err := a.line(a.assistantLine(map[string]any{"type": "text", "text": say})); err != nil {
		return err
	}
	if err := a.hook("stop", map[string]any{"last_assistant_message": say}); err != nil {
		return err
	}
	a.setTurn(false, []string{file, notes})
	return nil
}

// setTurn marks the start or end of a turn; a finished turn's files become pending.
func (a *stressAgent) setTurn(in bool, finished []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inTurn = in
	a.pending = append(a.pending, finished...)
}

// stage runs `git add` on the session's pending files that are final: a finished turn's own
// file never changes again, notes.txt only while no turn is running.
func (a *stressAgent) stage(dir string) ([]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var take, keep []string
	for _, f := range a.pending {
		if a.inTurn && strings.HasSuffix(f, "/notes.txt") {
			keep = append(keep, f)
		} else if !slices.Contains(take, f) {
			take = append(take, f)
		}
	}
	if len(take) == 0 {
		return nil, nil
	}
	a.pending = keep
	_, err := a.w.git(dir, append([]string{"add", "-A", "--"}, take...)...)
	return take, err
}

// edit changes a file as Claude Code's Write or Edit tool would and records the tool call.
func (a *stressAgent) edit(tool, rel, text string) error {
	path := filepath.Join(a.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	content := text
	if tool == "Edit" {
		old, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		content = string(old) + text
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return err
	}
	a.wrote[rel] = true
	id := fmt.Sprintf("toolu_%s_%d", a.id, a.lines+1)
	use := a.assistantLine(map[string]any{"type": "tool_use", "id": id, "name": tool,
		"input": map[string]any{"file_path": path, "content": content}})
	if err := a.line(use); err != nil {
		return err
	}
	return a.line(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}})
}

func (a *stressAgent) assistantLine(block map[string]any) map[string]any {
	return map[string]any{"type": "assistant", "message": map[string]any{
		"id": fmt.Sprintf("msg_%s_%d", a.id, a.lines+1), "role": "assistant", "content": []any{block},
		"usage": map[string]int{"input_tokens": 10, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 20},
	}}
}

// line appends one transcript line the way Claude Code does.
func (a *stressAgent) line(l map[string]any) error {
	a.lines++
	l["uuid"] = fmt.Sprintf("%s-line-%d", a.id, a.lines)
	l["sessionId"] = a.id
	l["timestamp"] = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(a.transcript, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	return errors.Join(err, f.Close())
}

// hook calls `entire hooks claude-code <verb>` with Claude Code's payload on stdin.
func (a *stressAgent) hook(verb string, extra map[string]any) error {
	payload := map[string]any{"session_id": a.id, "transcript_path": a.transcript, "cwd": a.dir}
	for k, v := range extra {
		payload[k] = v
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	_, err = a.w.cmd(a.dir, data, a.w.bin, "hooks", "claude-code", verb)
	return err
}

// commitLoop commits, every 50-150 ms until the agents are done, the files of finished turns
// (several sessions' at once), with git's hooks, racing the sessions' hooks.
func (w *stressWorld) commitLoop(tr *stressTree, done <-chan struct{}) error {
	for n := 1; ; n++ {
		select {
		case <-done:
			return nil
		case <-time.After(time.Duration(50+rand.IntN(100)) * time.Millisecond):
		}
		var staged []string
		for _, a := range tr.agents {
			files, err := a.stage(tr.dir)
			if err != nil {
				return err
			}
			staged = append(staged, files...)
		}
		if len(staged) == 0 {
			continue
		}
		var extra []string
		if w.faults && n%2 == 0 {
			// post-commit dies after writing the checkpoint, before journaling it.
			extra = []string{"ENTIRE_TEST_CRASH_AT=condense:metadata-written"}
		}
		if _, err := w.cmdEnv(tr.dir, extra, "git", "commit", "-q", "-m", fmt.Sprintf("stress commit %d on %s", n, tr.branch)); err != nil {
			return err
		}
		tr.commits++
	}
}

func stressQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// dumpLogs prints the hook logs of every worktree.
func (w *stressWorld) dumpLogs() {
	for _, tr := range w.trees {
		data, err := os.ReadFile(filepath.Join(tr.dir, ".entire", "logs", "entire.log"))
		w.t.Logf("--- %s/.entire/logs/entire.log (%v):\n%s", tr.dir, err, data)
	}
}

// checkLogs fails on logged errors that mean a lost race: a ref moved too often, a lock, or a
// corrupt journal.
func (w *stressWorld) checkLogs() {
	for _, tr := range w.trees {
		data, err := os.ReadFile(filepath.Join(tr.dir, ".entire", "logs", "entire.log"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.t.Error(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if !strings.Contains(l, `"level":"ERROR"`) {
				continue
			}
			low := strings.ToLower(l)
			if strings.Contains(low, "ref moved") || strings.Contains(low, "lock") || strings.Contains(low, "corrupt") {
				w.t.Errorf("%s: concurrency error logged: %s", tr.branch, l)
			}
		}
	}
}

// checkLocks fails on lock files git or entire left behind.
func (w *stressWorld) checkLocks() {
	err := filepath.WalkDir(w.common, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// Every *.lock is a git or journal lock someone failed to remove.
		if strings.HasSuffix(p, ".lock") || strings.HasSuffix(p, ".json.tmp") {
			w.t.Errorf("left behind: %s", p)
		}
		return nil
	})
	if err != nil {
		w.t.Error(err)
	}
}

// stressJournal is what one session's journal records.
type stressJournal struct {
	events    int
	counts    map[string]int
	condensed []stressCondensed
	failures  []string        // effect_failed events and failed finalizations
	prepared  map[string]bool // checkpoint IDs prepare-commit-msg linked the session to
}

// stressCondensed is the data of a checkpoint_condensed event.
type stressCondensed struct {
	CheckpointID string   `json:"checkpoint_id"`
	UserCommit   string   `json:"user_commit"`
	Slot         int      `json:"slot"`
	Files        []string `json:"files"`
	Provisional  bool     `json:"provisional"`
}

// stressState is the part of a session snapshot the test reads.
type stressState struct {
	Phase        string   `json:"phase"`
	FilesTouched []string `json:"files_touched"`
}

// stressSlot is one slot of a committed checkpoint.
type stressSlot struct {
	SessionID    string   `json:"session_id"`
	FilesTouched []string `json:"files_touched"`
}

// stressTally is what verify saw, for the summary and for the cross-checks.
type stressTally struct {
	journals     map[string]stressJournal
	states       map[string]stressState
	owner        map[string]*stressAgent // "s<idx>" -> the session writing under it
	trailers     map[string]string       // checkpoint ID -> commit
	written      map[string][]stressSlot // checkpoint ID -> its slots on the metadata branch
	commits      int
	slots        int
	provisional  int
	committed    int // session files whose last version is committed
	pending      int // session files still uncommitted, held in files_touched
	eventsByType map[string]int
}

// verify checks every session, commit and checkpoint of the round, and logs a summary.
func (w *stressWorld) verify(elapsed time.Duration) {
	v := &stressTally{journals: map[string]stressJournal{}, states: map[string]stressState{}, owner: map[string]*stressAgent{},
		trailers: map[string]string{}, written: map[string][]stressSlot{}, eventsByType: map[string]int{}}
	events := 0
	// No entire command runs first: every linked commit's checkpoint exists when git commit
	// returns.
	for _, tr := range w.trees {
		for _, a := range tr.agents {
			v.owner[fmt.Sprintf("s%d", a.idx)] = a
			v.journals[a.id] = w.readJournal(a)
			v.states[a.id] = w.replay(a)
			events += v.journals[a.id].events
			for typ, n := range v.journals[a.id].counts {
				v.eventsByType[typ] += n
			}
		}
	}
	for _, tr := range w.trees {
		committed := map[string]bool{}
		for _, c := range strings.Fields(w.mustGit(tr.dir, "rev-list", "--reverse", w.base+".."+tr.branch)) {
			v.commits++
			files := strings.Fields(w.mustGit(tr.dir, "diff-tree", "-r", "--no-commit-id", "--name-only", c))
			for _, f := range files {
				committed[f] = true
			}
			w.checkCommit(v, tr, c, files)
		}
		w.checkFiles(v, tr, committed)
		if tr.commits == 0 {
			w.t.Errorf("%s: the committer made no commit; the round raced nothing", tr.branch)
		}
	}
	for _, sid := range stressKeys(v.journals) {
		for _, ev := range v.journals[sid].condensed {
			slots := v.written[ev.CheckpointID]
			switch {
			case v.trailers[ev.CheckpointID] != ev.UserCommit:
				w.t.Errorf("session %s condensed into %s for commit %.12s, but that commit has no such trailer (checkpoint's commit: %.12s)", sid, ev.CheckpointID, ev.UserCommit, v.trailers[ev.CheckpointID])
			case ev.Slot < 0 || ev.Slot >= len(slots) || slots[ev.Slot].SessionID != sid:
				w.t.Errorf("session %s condensed into %s slot %d, but the checkpoint on %s does not have it there: a lost write", sid, ev.CheckpointID, ev.Slot, stressMetaBranch)
			}
		}
	}
	w.checkLogs()
	w.checkLocks()
	// Last, doctor's own check of the invariant (after the checks above: it finishes pending work).
	if len(w.trees) > 0 {
		if out, err := w.output(w.trees[0].dir, w.bin, "doctor"); err != nil {
			w.t.Errorf("entire doctor finds the record damaged: %v\n%s", err, out)
		}
	}
	var byType []string
	for _, typ := range stressKeys(v.eventsByType) {
		byType = append(byType, fmt.Sprintf("%s=%d", typ, v.eventsByType[typ]))
	}
	w.t.Logf("%d sessions, %d journal events (%s); %d commits (%d linked), %d checkpoints with %d slots (%d provisional); files: %d committed, %d pending in files_touched; %v",
		len(v.journals), events, strings.Join(byType, " "), v.commits, len(v.trailers), len(v.written), v.slots, v.provisional, v.committed, v.pending, elapsed.Round(time.Millisecond))
}

// checkCommit checks one commit: sessions' files need a trailer; the trailer needs its
// checkpoint, whose slots are distinct sessions that condensed into this commit, include
// every session whose files the commit holds, and list those files.
func (w *stressWorld) checkCommit(v *stressTally, tr *stressTree, c string, files []string) {
	t := w.t
	own := map[string][]string{} // session -> its files in the commit
	for _, f := range files {
		if prefix, _, ok := strings.Cut(f, "/"); ok && v.owner[prefix] != nil {
			own[v.owner[prefix].id] = append(own[v.owner[prefix].id], f)
		}
	}
	id := stressTrailer(w.mustGit(tr.dir, "log", "-1", "--format=%B", c))
	switch {
	case id == "" && len(own) > 0:
		t.Errorf("commit %.12s has files of sessions %v but no Entire-Checkpoint trailer", c, stressKeys(own))
		return
	case id == "":
		return
	case !stressCheckpointID.MatchString(id):
		t.Errorf("commit %.12s has a malformed trailer %q", c, id)
		return
	}
	if prev, dup := v.trailers[id]; dup {
		t.Errorf("checkpoint %s is the trailer of commits %.12s and %.12s", id, prev, c)
	}
	v.trailers[id] = c
	cp, ok := w.checkpoint(tr.dir, id)
	if !ok {
		return
	}
	v.written[id] = cp
	v.slots += len(cp)
	inSlot := map[string]stressSlot{}
	for k, s := range cp {
		if _, dup := inSlot[s.SessionID]; dup {
			t.Errorf("checkpoint %s lists session %s twice", id, s.SessionID)
		}
		inSlot[s.SessionID] = s
		ev, found := findCondensed(v.journals[s.SessionID], id)
		switch {
		case !found:
			t.Errorf("checkpoint %s slot %d is session %q, whose journal never condensed into it", id, k, s.SessionID)
		case ev.UserCommit != c || ev.Slot != k:
			t.Errorf("checkpoint %s slot %d (%s): journal says commit %.12s slot %d, want %.12s slot %d", id, k, s.SessionID, ev.UserCommit, ev.Slot, c, k)
		case ev.Provisional || v.journals[s.SessionID].prepared[id]:
			// An active session joins any linked commit (spec 3.8), and so does one that
			// prepare-commit-msg linked while it was active: the trailer is that decision.
			v.provisional++
		case len(s.FilesTouched) == 0 || !stressSubset(s.FilesTouched, files):
			t.Errorf("checkpoint %s slot %d: idle session %s linked with files_touched %v, not among the commit's files %v", id, k, s.SessionID, s.FilesTouched, files)
		}
	}
	for _, sid := range stressKeys(own) {
		s, ok := inSlot[sid]
		if !ok {
			t.Errorf("commit %.12s (checkpoint %s) has %v of session %s, but the checkpoint lists only %v", c, id, own[sid], sid, stressKeys(inSlot))
		} else if !stressSubset(own[sid], s.FilesTouched) {
			t.Errorf("checkpoint %s: session %s slot lists files_touched %v, missing some of its committed %v", id, sid, s.FilesTouched, own[sid])
		}
	}
}

// checkFiles checks that nothing a session wrote is silently lost: each file is committed
// (and checkCommit saw the commit linked to the session) or still in its files_touched.
func (w *stressWorld) checkFiles(v *stressTally, tr *stressTree, committed map[string]bool) {
	dirty := w.dirty(tr.dir)
	for _, a := range tr.agents {
		touched := v.states[a.id].FilesTouched
		for _, f := range stressKeys(a.wrote) {
			switch {
			case dirty[f] && !slices.Contains(touched, f):
				w.t.Errorf("session %s: %s is uncommitted and missing from files_touched %v: its work is lost", a.id, f, touched)
			case dirty[f]:
				v.pending++
			case !committed[f]:
				w.t.Errorf("session %s: %s is neither committed on %s nor pending", a.id, f, tr.branch)
			default:
				v.committed++
			}
		}
	}
}

// readJournal decodes a session's journal line by line and checks its framing.
func (w *stressWorld) readJournal(a *stressAgent) stressJournal {
	t := w.t
	j := stressJournal{counts: map[string]int{}, prepared: map[string]bool{}}
	data, err := os.ReadFile(filepath.Join(w.common, "entire-sessions", a.id+".jsonl"))
	if err != nil {
		t.Errorf("session %s: %v", a.id, err)
		return j
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("session %s: journal does not end with a newline", a.id)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Errorf("session %s journal line %d: %v: %s", a.id, i+1, err, line)
			continue
		}
		for _, k := range []string{"v", "seq", "type", "time", "data"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("session %s journal line %d has no %q: %s", a.id, i+1, k, line)
			}
		}
		var seq int
		var typ string
		var data struct {
			SessionID string            `json:"session_id"`
			Failed    map[string]string `json:"failed"`
		}
		if json.Unmarshal(raw["seq"], &seq) != nil || json.Unmarshal(raw["type"], &typ) != nil || json.Unmarshal(raw["data"], &data) != nil {
			t.Errorf("session %s journal line %d: bad seq, type or data: %s", a.id, i+1, line)
			continue
		}
		if seq != i+1 {
			t.Errorf("session %s journal line %d has seq %d", a.id, i+1, seq)
		}
		j.events++
		j.counts[typ]++
		switch typ {
		case "turn_started", "turn_ended":
			if data.SessionID != a.id {
				t.Errorf("journal of %s line %d: %s of session %q", a.id, i+1, typ, data.SessionID)
			}
		case "commit_prepared":
			var c stressCondensed
			if err := json.Unmarshal(raw["data"], &c); err != nil {
				t.Errorf("session %s journal line %d: %v", a.id, i+1, err)
			}
			j.prepared[c.CheckpointID] = true
		case "checkpoint_condensed":
			var c stressCondensed
			if err := json.Unmarshal(raw["data"], &c); err != nil {
				t.Errorf("session %s journal line %d: %v", a.id, i+1, err)
			}
			j.condensed = append(j.condensed, c)
		case "effect_failed":
			j.failures = append(j.failures, string(raw["data"]))
		case "checkpoints_finalized":
			if len(data.Failed) > 0 {
				j.failures = append(j.failures, string(raw["data"]))
			}
		}
	}
	for _, typ := range []string{"turn_started", "turn_ended"} {
		if j.counts[typ] != stressTurns {
			t.Errorf("session %s: %d %s events, want %d (one per hook call)", a.id, j.counts[typ], typ, stressTurns)
		}
	}
	for _, f := range j.failures {
		if w.faults {
			continue // a held lock makes effects fail; what matters is the record at the end
		}
		t.Errorf("session %s: journal records a failed effect: %s", a.id, f)
	}
	return j
}

// replay checks that `entire replay --state-only` rebuilds the snapshot byte for byte and
// returns the snapshot.
func (w *stressWorld) replay(a *stressAgent) stressState {
	t := w.t
	var st stressState
	snap, err := os.ReadFile(filepath.Join(w.common, "entire-sessions", a.id+".json"))
	if err != nil {
		t.Errorf("session %s: %v", a.id, err)
		return st
	}
	out, err := w.output(a.dir, w.bin, "replay", "--state-only", a.id)
	if err != nil {
		t.Errorf("session %s: %v", a.id, err)
	} else if d := cmp.Diff(string(snap), out); d != "" {
		t.Errorf("session %s: replayed state differs from the snapshot (-snapshot +replay):\n%s", a.id, d)
	}
	if err := json.Unmarshal(snap, &st); err != nil {
		t.Errorf("session %s snapshot: %v", a.id, err)
	}
	if st.Phase != "idle" {
		t.Errorf("session %s ends in phase %q, want idle after its last stop", a.id, st.Phase)
	}
	return st
}

// checkpoint reads a checkpoint's slots from the metadata branch; ok=false (and an error
// reported) when it is missing or malformed.
func (w *stressWorld) checkpoint(dir, id string) ([]stressSlot, bool) {
	t := w.t
	cp := id[:2] + "/" + id[2:]
	ls, err := w.git(dir, "ls-tree", "-r", "--name-only", stressMetaBranch, "--", cp)
	if err != nil || ls == "" {
		t.Errorf("checkpoint %s is missing from %s (%v)", id, stressMetaBranch, err)
		return nil, false
	}
	present := map[string]bool{}
	for _, p := range strings.Fields(ls) {
		present[p] = true
	}
	var root struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	if err := w.showJSON(dir, cp+"/metadata.json", &root); err != nil || len(root.Sessions) == 0 {
		t.Errorf("checkpoint %s: root metadata.json with no sessions (%v)", id, err)
		return nil, false
	}
	var out []stressSlot
	for k := range root.Sessions {
		var s stressSlot
		if err := w.showJSON(dir, fmt.Sprintf("%s/%d/metadata.json", cp, k), &s); err != nil {
			t.Errorf("checkpoint %s slot %d: %v", id, k, err)
			return nil, false
		}
		if !present[fmt.Sprintf("%s/%d/full.jsonl", cp, k)] {
			t.Errorf("checkpoint %s slot %d (%s) has no full.jsonl", id, k, s.SessionID)
		}
		out = append(out, s)
	}
	for p := range present {
		var k int
		if n, _ := fmt.Sscanf(strings.TrimPrefix(p, cp+"/"), "%d/", &k); n == 1 && k >= len(out) {
			t.Errorf("checkpoint %s: %s is beyond the %d sessions its root metadata.json lists", id, p, len(out))
		}
	}
	return out, true
}

func (w *stressWorld) showJSON(dir, path string, v any) error {
	out, err := w.git(dir, "show", stressMetaBranch+":"+path)
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(out), v)
}

// dirty are the worktree's paths that differ from HEAD, untracked ones included.
func (w *stressWorld) dirty(dir string) map[string]bool {
	out := w.mustGit(dir, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	set := map[string]bool{}
	for _, rec := range strings.Split(out, "\x00") {
		if len(rec) > 3 {
			set[rec[3:]] = true
		}
	}
	return set
}

func findCondensed(j stressJournal, id string) (stressCondensed, bool) {
	for _, c := range j.condensed {
		if c.CheckpointID == id {
			return c, true
		}
	}
	return stressCondensed{}, false
}

var stressCheckpointID = regexp.MustCompile(`^[0-9a-f]{12}$`)

// stressTrailer is a message's Entire-Checkpoint value, or "".
func stressTrailer(msg string) string {
	id := ""
	for _, l := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			id = strings.TrimSpace(v)
		}
	}
	return id
}

func stressSubset(sub, of []string) bool {
	for _, x := range sub {
		if !slices.Contains(of, x) {
			return false
		}
	}
	return true
}

func stressKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
