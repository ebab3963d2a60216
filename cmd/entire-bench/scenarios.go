package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Names of the steps and floors, shared by the scenarios and the report.
const (
	stRevParse     = "git rev-parse HEAD"
	stCommitTree   = "git commit-tree"
	stUpdateRef    = "git update-ref"
	stStart        = "session-start"
	stPrompt       = "user-prompt-submit"
	stEnd          = "session-end"
	stNoSession    = "commit, hooks, no session, K=10"
	stEmptyHooks   = "git commit with three empty #!/bin/sh hooks, K=10"
	stStop20MB     = "Stop, K=10, 20 MB transcript"
	stCommit20MB   = "commit after Stop, K=10, 20 MB transcript"
	stCommitMid    = "commit mid-turn by the agent (session active), K=10"
	stStopAfterMid = "Stop after that mid-turn commit, K=10"
	stCommitPerson = "commit by a person (-m, TTY=1), K=10"
	stHash20MB     = "git hash-object -w of the 20 MB transcript"
	// The first hooks that see a session whose transcript is already 20 MB (a resumed one):
	// its first prompt, Stop and commit, each timed, and their sum per session.
	stFirstPrompt = "first sight of a 20 MB transcript: user-prompt-submit"
	stFirstStop   = "first sight of a 20 MB transcript: Stop, K=10"
	stFirstCommit = "first sight of a 20 MB transcript: commit, K=10"
	stFirstSight  = "first sight of a 20 MB transcript: prompt + Stop + commit, K=10"
)

func stBareCommit(k int) string { return fmt.Sprintf("git commit (no hooks), K=%d", k) }
func stHash(k int) string       { return fmt.Sprintf("git hash-object -w --stdin-paths, K=%d", k) }
func stTempTree(k int) string {
	return fmt.Sprintf("temp index: read-tree + update-index + write-tree, K=%d", k)
}
func stBlobsTree(k int) string { return fmt.Sprintf("K blobs + one tree, K=%d", k) }
func stStop(k int) string      { return fmt.Sprintf("Stop, K=%d", k) }
func stCommit(k int) string    { return fmt.Sprintf("commit after Stop, K=%d", k) }

// fillerSize is the earlier conversation of the big-transcript scenario.
const fillerSize = 20 << 20

// turnSpec is one turn scenario: a session in the hooked repository whose every turn rewrites
// k files. The first turn is a warm-up; the next reps turns are timed.
type turnSpec struct {
	k                    int
	filler               int      // bytes of earlier conversation written during the warm-up turn
	midTurn              bool     // the agent commits before the turn ends (the session is active)
	env                  []string // environment added to the commit
	floors               bool     // interleave the git floors for k in the bare repository
	hashT                bool     // time writing the transcript as one blob, the floor of storing it
	prompt, stop, commit string   // series names; "" is not recorded
}

// runSize measures one repository size: git floors in a repository without hooks, and the
// same work through entire's hooks in an identical repository with entire enabled.
func (h *harness) runSize(p plan) error {
	slug := strings.ReplaceAll(p.label, " ", "-")
	hooked, err := h.clone(p.files, slug+"-hooks")
	if err != nil {
		return err
	}
	bare, err := h.clone(p.files, slug+"-bare")
	if err != nil {
		return err
	}
	// The floor of a commit with entire's hooks installed and no session: git starting three
	// hook scripts that do nothing.
	empty, err := h.clone(p.files, slug+"-empty-hooks")
	if err != nil {
		return err
	}
	for _, name := range []string{"prepare-commit-msg", "commit-msg", "post-commit"} {
		if err := os.WriteFile(filepath.Join(empty.dir, ".git", "hooks", name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			return err
		}
	}
	if err := h.enable(hooked.dir); err != nil {
		return err
	}
	if err := h.settle(hooked, bare, empty); err != nil {
		return err
	}
	h.progress("%s: commit with hooks and no session (%d reps)", p.label, p.reps)
	for t := 0; t <= p.reps; t++ {
		if err := h.floorRep(p.label, bare, 10, t > 0); err != nil {
			return err
		}
		cs, err := hooked.edit(10)
		if err != nil {
			return err
		}
		if err := h.commit(h.pick(p.label, stNoSession, t > 0), hooked.dir, rels(cs), "Edit ten files"); err != nil {
			return err
		}
		es, err := empty.edit(10)
		if err != nil {
			return err
		}
		if err := h.commit(h.pick(p.label, stEmptyHooks, t > 0), empty.dir, rels(es), "Edit ten files"); err != nil {
			return err
		}
	}
	specs := []turnSpec{
		{k: 1, floors: true, stop: stStop(1), commit: stCommit(1)},
		{k: 10, floors: true, prompt: stPrompt, stop: stStop(10), commit: stCommit(10)},
		{k: 100, floors: true, stop: stStop(100), commit: stCommit(100)},
		{k: 10, midTurn: true, stop: stStopAfterMid, commit: stCommitMid},
		{k: 10, env: []string{"ENTIRE_TEST_TTY=1"}, commit: stCommitPerson},
	}
	if p.big {
		// After its first turn (the warm-up, which pays the first sight) a turn of this
		// session costs what a short one does plus a hash-object of 20 MB: it takes as many
		// repetitions as the others, whose medians it is compared with (3 left a median that
		// moved from 0.73x to 1.67x between runs).
		specs = append(specs, turnSpec{k: 10, filler: fillerSize, hashT: true, stop: stStop20MB, commit: stCommit20MB})
	}
	for _, spec := range specs {
		if err := h.runTurns(p, hooked, bare, spec); err != nil {
			return err
		}
	}
	if p.big {
		if err := h.runFirstSight(p, hooked, min(p.reps, 3)); err != nil {
			return err
		}
	}
	h.checkLog(p.label, hooked)
	return nil
}

// pick returns the series to record into, or nil for a warm-up run or an unnamed step.
func (h *harness) pick(table, name string, record bool) *series {
	if !record || name == "" {
		return nil
	}
	return h.res.get(table, name)
}

// runTurns runs one session through a warm-up turn and p.reps timed turns.
func (h *harness) runTurns(p plan, hooked, bare *repo, spec turnSpec) error {
	what := fmt.Sprintf("K=%d", spec.k)
	switch {
	case spec.filler > 0:
		what += ", 20 MB transcript"
	case spec.midTurn:
		what += ", the agent commits mid-turn"
	case len(spec.env) > 0:
		what += ", a person commits with -m"
	}
	reps := p.reps
	h.progress("%s: session, %s (%d reps)", p.label, what, reps)
	ss := h.newSession(hooked)
	if err := ss.start(h.res.get(p.label, stStart)); err != nil {
		return err
	}
	for t := 0; t <= reps; t++ {
		rec := t > 0
		if spec.floors {
			if err := h.floorRep(p.label, bare, spec.k, rec); err != nil {
				return err
			}
		}
		if err := ss.prompt(h.pick(p.label, spec.prompt, rec), fmt.Sprintf("Turn %d: please update %d file(s).", t, spec.k)); err != nil {
			return err
		}
		if t == 0 && spec.filler > 0 {
			ss.t.filler(spec.filler)
		}
		cs, err := hooked.edit(spec.k)
		if err != nil {
			return err
		}
		if err := ss.work(cs); err != nil {
			return err
		}
		stop := func() error {
			return ss.stop(h.pick(p.label, spec.stop, rec), fmt.Sprintf("Updated %d file(s).", spec.k))
		}
		commit := func() error {
			return h.commit(h.pick(p.label, spec.commit, rec), hooked.dir, rels(cs), fmt.Sprintf("Update %d files (turn %d)", spec.k, t), spec.env...)
		}
		steps := []func() error{stop, commit}
		if spec.midTurn {
			steps = []func() error{commit, stop}
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		if t == 0 {
			h.expectTrailer(hooked, p.label+", "+what)
		}
		if spec.hashT {
			if _, err := h.timed(h.pick(p.label, stHash20MB, rec), h.gitProc(bare.dir, "hash-object", "-w", ss.t.path)); err != nil {
				return err
			}
		}
	}
	return ss.end(h.res.get(p.label, stEnd))
}

// expectTrailer warns when the last commit in r did not get a checkpoint trailer: the hooks
// then took a shortcut and the timings do not measure condensation.
func (h *harness) expectTrailer(r *repo, what string) {
	msg, err := h.gitOut(r.dir, "log", "-1", "--format=%B")
	if err != nil || !strings.Contains(msg, "Entire-Checkpoint:") {
		h.warn("%s: the commit got no Entire-Checkpoint trailer", what)
	}
}

// floorRep performs, without hooks, the git work a Stop and a commit of k changed files need
// at the least, and records each part: rev-parse, writing k blobs, one tree through a
// temporary index, commit-tree, update-ref, and the plain "git commit" of the same files.
func (h *harness) floorRep(table string, r *repo, k int, rec bool) error {
	cs, err := r.edit(k)
	if err != nil {
		return err
	}
	paths := rels(cs)
	if _, err := h.timed(h.pick(table, stRevParse, rec), h.gitProc(r.dir, "rev-parse", "HEAD")); err != nil {
		return err
	}
	hash := h.gitProc(r.dir, "hash-object", "-w", "--stdin-paths")
	hash.stdin = []byte(strings.Join(paths, "\n") + "\n")
	blobs, err := h.timed(nil, hash)
	if err != nil {
		return err
	}
	oids := strings.Fields(string(blobs.stdout))
	if len(oids) != len(paths) {
		return fmt.Errorf("hash-object: %d object names for %d paths", len(oids), len(paths))
	}
	var info strings.Builder
	for i, p := range paths {
		fmt.Fprintf(&info, "100644 %s\t%s\x00", oids[i], p)
	}
	index := filepath.Join(h.tmp, "floor.index")
	defer os.Remove(index)
	readTree := h.gitProc(r.dir, "read-tree", "HEAD")
	update := h.gitProc(r.dir, "update-index", "-z", "--index-info")
	update.stdin = []byte(info.String())
	writeTree := h.gitProc(r.dir, "write-tree")
	var tree timing
	for _, p := range []proc{readTree, update, writeTree} {
		p.env = []string{"GIT_INDEX_FILE=" + index} // absolute, as STYLE.md asks of gitexec
		t, err := h.timed(nil, p)
		if err != nil {
			return err
		}
		tree = tree.then(t)
	}
	both := blobs.then(tree)
	h.pick(table, stHash(k), rec).add(blobs.d, blobs.pc)
	h.pick(table, stTempTree(k), rec).add(tree.d, tree.pc)
	h.pick(table, stBlobsTree(k), rec).add(both.d, both.pc)
	commit, err := h.timed(h.pick(table, stCommitTree, rec), h.gitProc(r.dir, "commit-tree", strings.TrimSpace(string(tree.stdout)), "-p", "HEAD", "-m", "floor"))
	if err != nil {
		return err
	}
	if _, err := h.timed(h.pick(table, stUpdateRef, rec), h.gitProc(r.dir, "update-ref", "refs/heads/floor", strings.TrimSpace(string(commit.stdout)))); err != nil {
		return err
	}
	return h.commit(h.pick(table, stBareCommit(k), rec), r.dir, paths, fmt.Sprintf("Update %d files", k))
}

// runFirstSight times, for fresh sessions whose transcript already holds 20 MB of earlier
// conversation before the first hook (a resumed session), the first prompt, Stop and commit:
// the hooks that must scan, redact and store the old part once.
func (h *harness) runFirstSight(p plan, hooked *repo, reps int) error {
	h.progress("%s: first sight of a 20 MB transcript (%d reps)", p.label, reps)
	total := h.res.get(p.label, stFirstSight)
	for t := 0; t <= reps; t++ {
		rec := t > 0
		ss := h.newSession(hooked)
		ss.t.filler(fillerSize)
		prompt, stop, commit := h.pick(p.label, stFirstPrompt, rec), h.pick(p.label, stFirstStop, rec), h.pick(p.label, stFirstCommit, rec)
		if err := ss.prompt(prompt, "Continue: please update 10 files."); err != nil {
			return err
		}
		cs, err := hooked.edit(10)
		if err != nil {
			return err
		}
		if err := ss.work(cs); err != nil {
			return err
		}
		if err := ss.stop(stop, "Updated 10 files."); err != nil {
			return err
		}
		if err := h.commit(commit, hooked.dir, rels(cs), fmt.Sprintf("First sight %d", t)); err != nil {
			return err
		}
		if rec {
			total.Samples = append(total.Samples, last(prompt)+last(stop)+last(commit))
		}
		if err := ss.end(nil); err != nil {
			return err
		}
	}
	return nil
}

// last is a series' latest sample.
func last(s *series) float64 {
	if s == nil || len(s.Samples) == 0 {
		return 0
	}
	return s.Samples[len(s.Samples)-1]
}
