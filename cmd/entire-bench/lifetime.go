package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Long-session and ended-session scenarios: whether hook cost grows with a session's length
// or with the number of sessions a repository has seen.
const (
	longTurns   = 200 // turns of the long session
	longWindow  = 10  // turns compared at each end
	commitEvery = 10  // the user commits every this many turns (and every this many sessions)
	endedCount  = 100 // ended sessions created before the second measurement
)

// Names of the long-session and ended-session steps.
var (
	stStopFirst   = fmt.Sprintf("Stop, turns 1-%d of a young session, alternating", longWindow)
	stStopLast    = fmt.Sprintf("Stop, turns %d-%d", longTurns-longWindow+1, longTurns)
	stPromptFirst = fmt.Sprintf("user-prompt-submit, turns 1-%d of a young session, alternating", longWindow)
	stPromptLast  = fmt.Sprintf("user-prompt-submit, turns %d-%d", longTurns-longWindow+1, longTurns)
	stStopAll     = "Stop, every turn in order"
	stPromptAll   = "user-prompt-submit, every turn in order"
	stCommitLong  = fmt.Sprintf("commit every %d turns, K=%d", commitEvery, commitEvery)
	stCommitNone  = "commit, hooks, no sessions (twin repository), K=10"
	stCommitEnded = fmt.Sprintf("commit, hooks, %d ended sessions, K=10", endedCount)
)

func longTable(p plan) string  { return p.label + ", 200-turn session" }
func endedTable(p plan) string { return p.label + ", 100 ended sessions" }

// runLongSession runs one session of longTurns one-file turns in a fresh repository, the
// user committing every commitEvery turns, and compares its last longWindow turns with the
// first longWindow turns of a young session in a twin repository. The young session's turns
// alternate with the long session's last ones, so that load from other processes (which
// drifts over the 20 seconds the long session takes) hits both windows alike.
func (h *harness) runLongSession(p plan) error {
	table := longTable(p)
	r, err := h.freshEnabled(p, "long")
	if err != nil {
		return err
	}
	twin, err := h.freshEnabled(p, "young")
	if err != nil {
		return err
	}
	h.progress("%s: %d turns, the last %d beside a young session's first", table, longTurns, longWindow)
	long, young := h.newSession(r), h.newSession(twin)
	for _, ss := range []*session{long, young} {
		if err := ss.start(nil); err != nil {
			return err
		}
	}
	stops, prompts := h.res.get(table, stStopAll), h.res.get(table, stPromptAll)
	firstStops, firstPrompts := h.res.get(table, stStopFirst), h.res.get(table, stPromptFirst)
	lastStops, lastPrompts := h.res.get(table, stStopLast), h.res.get(table, stPromptLast)
	var pending, youngPending []string
	for turn := 1; turn <= longTurns; turn++ {
		last := turn > longTurns-longWindow
		youngTurn := func() error {
			cs, err := young.turn(firstPrompts, firstStops, 1)
			youngPending = append(youngPending, rels(cs)...)
			return err
		}
		longTurn := func() error {
			p, st := prompts, stops
			if last {
				p, st = lastPrompts, lastStops
			}
			cs, err := long.turn(p, st, 1)
			pending = append(pending, rels(cs)...)
			return err
		}
		steps := []func() error{longTurn}
		if last && turn%2 == 0 {
			steps = []func() error{youngTurn, longTurn}
		} else if last {
			steps = []func() error{longTurn, youngTurn}
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		if turn%commitEvery == 0 {
			if err := h.commit(h.res.get(table, stCommitLong), r.dir, pending, fmt.Sprintf("Turns up to %d", turn)); err != nil {
				return err
			}
			pending = nil
		}
	}
	if err := h.commit(nil, twin.dir, youngPending, "The young session's turns"); err != nil {
		return err
	}
	for _, ss := range []*session{long, young} {
		if err := ss.end(nil); err != nil {
			return err
		}
	}
	appendSeries(stops, lastStops) // the long session's every turn, in order
	appendSeries(prompts, lastPrompts)
	h.checkLog(table, r)
	h.checkLog(table, twin)
	return nil
}

// appendSeries adds the samples (and process counts) of part to all.
func appendSeries(all, part *series) {
	all.Samples = append(all.Samples, part.Samples...)
	all.Procs = append(all.Procs, part.Procs...)
	for cmd, n := range part.Cmds {
		if all.Cmds == nil {
			all.Cmds = map[string]int{}
		}
		all.Cmds[cmd] += n
	}
}

// runEndedSessions creates endedCount sessions with real hook calls (start, a one-file turn,
// end; the user commits every commitEvery sessions) in one fresh repository, then times the
// same commit there and in a twin repository that never had a session, alternating between
// the two so that load from other processes hits both alike.
func (h *harness) runEndedSessions(p plan) error {
	table := endedTable(p)
	twin, err := h.freshEnabled(p, "no-sessions")
	if err != nil {
		return err
	}
	r, err := h.freshEnabled(p, "ended")
	if err != nil {
		return err
	}
	h.progress("%s: create %d ended sessions", table, endedCount)
	var pending []string
	for i := 1; i <= endedCount; i++ {
		ss := h.newSession(r)
		if err := ss.start(nil); err != nil {
			return err
		}
		cs, err := ss.turn(nil, nil, 1)
		if err != nil {
			return err
		}
		pending = append(pending, rels(cs)...)
		if err := ss.end(nil); err != nil {
			return err
		}
		if i%commitEvery == 0 {
			if err := h.commit(nil, r.dir, pending, fmt.Sprintf("Sessions up to %d", i)); err != nil {
				return err
			}
			pending = nil
		}
	}
	states, _ := filepath.Glob(filepath.Join(r.dir, ".git", "entire-sessions", "*.json"))
	if len(states) < endedCount {
		h.warn("%s: only %d session states after %d sessions", table, len(states), endedCount)
	}
	h.progress("%s: commit with and without them, alternating (%d reps)", table, p.reps)
	for t := 0; t <= p.reps; t++ {
		for _, c := range []struct {
			r    *repo
			name string
		}{{twin, stCommitNone}, {r, stCommitEnded}} {
			cs, err := c.r.edit(10)
			if err != nil {
				return err
			}
			if err := h.commit(h.pick(table, c.name, t > 0), c.r.dir, rels(cs), "Edit ten files"); err != nil {
				return err
			}
		}
	}
	h.checkLog(table, r)
	return nil
}

// freshEnabled clones p's template into a new repository named name and enables entire.
func (h *harness) freshEnabled(p plan, name string) (*repo, error) {
	r, err := h.clone(p.files, strings.ReplaceAll(p.label, " ", "-")+"-"+name)
	if err != nil {
		return nil, err
	}
	if err := h.enable(r.dir); err != nil {
		return nil, err
	}
	return r, h.settle(r)
}

// checkLog warns when entire logged hook errors in r: hooks always exit 0, so a broken path
// would otherwise be timed as if it worked.
func (h *harness) checkLog(table string, r *repo) {
	if n := hookErrors(r.dir); n > 0 {
		h.warn("%s: entire logged %d hook errors in %s", table, n, filepath.Join(r.dir, ".entire", "logs", "entire.log"))
	}
}

// warn prints a warning now and keeps it for the report.
func (h *harness) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	h.warnings = append(h.warnings, msg)
	fmt.Fprintln(os.Stderr, "WARNING:", msg)
}
