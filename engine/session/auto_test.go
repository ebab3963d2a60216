package session

import (
	"slices"
	"testing"

	"github.com/entirerec/entire/events"
)

// An auto-commit turn's checkpoint is the turn's alone. Work recorded under manual-commit
// before the switch that the turn's commit leaves out stays the session's, on its shadow
// branch, for the user's commit; once nothing of it is left the session starts afresh and the
// emptied shadow branch goes.
func TestAutoCommitKeepsManualWork(t *testing.T) {
	from := events.Transcript{Path: "/t/old.jsonl", Lines: 4, Offset: 400}
	slot := AutoSlot{To: events.Transcript{Path: "/t/old.jsonl", Lines: 8, Offset: 800, LastUUID: "u8"}, Prompt: "go"}
	turn := func(files ...string) (State, State) {
		s := fixture(PhaseIdle) // two manual-commit steps, b.go and d.go uncommitted
		s.Recorder.Strategy = events.StrategyAutoCommit
		s.FilesTouched = MergeSorted(s.FilesTouched, files)
		s.Recorder.Commits = []AutoCommit{{Files: files, CheckpointID: cpNew, Prompt: "go", Start: &from, Slot: &slot}}
		committed := Evolve(s, ev(events.AutoCommitted{Commit: rHead, Parent: rBase, Branch: "main", CheckpointID: cpNew, Files: files}))
		return committed, Evolve(committed, ev(events.CheckpointCondensed{CheckpointID: cpNew, UserCommit: rHead, Transcript: slot.To}))
	}

	committed, done := turn("e.go")
	if len(committed.Recorder.Pending) != 1 || *committed.Recorder.Pending[0].Auto != slot || *committed.Recorder.Pending[0].Start != from {
		t.Fatalf("pending = %+v, want the turn's slot", committed.Recorder.Pending)
	}
	if committed.CheckpointCount != 2 || committed.BaseCommit != rBase || len(committed.Recorder.Commits) != 0 {
		t.Errorf("after the commit: steps %d, base %s; want the manual work's 2 and its base", committed.CheckpointCount, committed.BaseCommit)
	}
	if got := ManualWorkLeft(committed, committed.Recorder.Pending[0]); !slices.Equal(got, []string{"b.go", "d.go"}) {
		t.Errorf("ManualWorkLeft = %v", got)
	}
	if len(done.Recorder.Pending) != 0 || done.CheckpointCount != 2 || done.CheckpointTranscriptStart != 3 ||
		!slices.Equal(done.FilesTouched, []string{"b.go", "d.go"}) || done.Recorder.LastShadowCommit != rShadow ||
		done.Recorder.ShadowToDelete != nil || done.LastCheckpointID != cpNew {
		t.Errorf("after the checkpoint: %+v", done)
	}
	if !LinksCommit(done, events.GitCommitted{Overlap: true}) {
		t.Error("the manual-commit work does not link the user's commit")
	}

	_, done = turn("b.go", "d.go") // the turn's commit takes the manual work in full
	if done.CheckpointCount != 0 || done.FilesTouched != nil || done.BaseCommit != rHead || done.Recorder.ShadowToDelete == nil {
		t.Errorf("manual work committed: steps %d, files %v, base %s, shadow to delete %v",
			done.CheckpointCount, done.FilesTouched, done.BaseCommit, done.Recorder.ShadowToDelete)
	}
	if LinksCommit(done, events.GitCommitted{Overlap: true}) {
		t.Error("an auto-commit session links the user's commit")
	}
}

// Under auto-commit every subagent's end gets a task checkpoint: on its own commit, or on
// HEAD when it has nothing to commit (no files, or files committed already); an incremental
// step takes the next step number, which its commit's subject and its file share.
func TestAutoCommitTaskCheckpoints(t *testing.T) {
	s := fixture(PhaseActive)
	s.CheckpointCount, s.FilesTouched, s.Recorder.Strategy = 0, nil, events.StrategyAutoCommit
	s.Recorder.Commits, s.Recorder.Pending = nil, nil
	wt := events.Worktree{Path: "/w", Head: rBase}
	task := func(id string, files ...string) events.SubagentEnded {
		return events.SubagentEnded{SessionID: "sess-1", ToolUseID: "toolu_" + id, CheckpointID: id, Worktree: wt, Files: files}
	}
	pending := func(s State, id string) Condense {
		for _, c := range s.Recorder.Pending {
			if c.Commit.CheckpointID == id {
				return c
			}
		}
		t.Fatalf("no pending checkpoint %s in %+v", id, s.Recorder.Pending)
		return Condense{}
	}

	got := Evolve(s, ev(task("aaaaaaaaaaaa")))
	if c := pending(got, "aaaaaaaaaaaa"); c.Commit.Commit != rBase || c.Commit.ToolUseID != "toolu_aaaaaaaaaaaa" ||
		c.Auto == nil || c.Auto.Task == nil || c.Auto.Task.ToolUseID != "toolu_aaaaaaaaaaaa" || !c.Auto.At.Equal(evTime) {
		t.Errorf("subagent without files: %+v", c)
	}
	if len(got.Recorder.Commits) != 0 {
		t.Errorf("subagent without files owes a commit: %+v", got.Recorder.Commits)
	}

	got = Evolve(s, ev(task("bbbbbbbbbbbb", "x.go")))
	if len(got.Recorder.Commits) != 1 || got.Recorder.Commits[0].Slot == nil || got.Recorder.Commits[0].Slot.Task == nil {
		t.Fatalf("subagent with files: commits %+v", got.Recorder.Commits)
	}
	got = Evolve(got, ev(events.AutoCommitted{CheckpointID: "bbbbbbbbbbbb", Branch: "main", Files: []string{"x.go"},
		Skipped: true, Parent: rHead, ToolUseID: "toolu_bbbbbbbbbbbb"}))
	if c := pending(got, "bbbbbbbbbbbb"); c.Commit.Commit != rHead || c.Commit.Branch != "main" || c.Commit.Files != nil || c.Auto.Task == nil {
		t.Errorf("subagent whose files were committed already: %+v", c)
	}

	step := task("cccccccccccc", "y.go")
	step.Incremental = true
	s.Recorder.TaskSteps = 2
	got = Evolve(s, ev(step))
	if got.Recorder.TaskSteps != 3 || len(got.Recorder.Commits) != 1 || got.Recorder.Commits[0].Slot.Sequence != 3 {
		t.Fatalf("incremental step: steps %d, commits %+v", got.Recorder.TaskSteps, got.Recorder.Commits)
	}
	got = Evolve(got, ev(events.AutoCommitted{Commit: rHead, CheckpointID: "cccccccccccc", Files: step.Files, ToolUseID: step.ToolUseID}))
	if c := pending(got, "cccccccccccc"); c.Commit.Commit != rHead || c.Auto.Sequence != 3 ||
		!slices.Equal(c.Commit.Files, []string{"y.go"}) || got.BaseCommit != rHead || got.Recorder.TaskSteps != 3 {
		t.Errorf("incremental step committed: %+v, steps %d, base %s", c, got.Recorder.TaskSteps, got.BaseCommit)
	}
}

// A turn's commit holds its files as the turn left them (the content its end captured), made
// when it may be: with HEAD at the turn's end, and what the session's commits still owed hold of
// the same files, which HEAD holds once they are made.
func TestAutoCommitTurnContent(t *testing.T) {
	s := fixture(PhaseActive)
	s.Recorder.Strategy, s.Recorder.DirtyAtTurnStart = events.StrategyAutoCommit, nil
	owedB := events.FileContent{Path: "b.go", Mode: "100644", OID: "b1"}
	s.Recorder.Commits = []AutoCommit{
		{Files: []string{"b.go", "c.go"}, CheckpointID: cpOld, Content: []events.FileContent{owedB, {Path: "c.go", Deleted: true}}},
	}
	a := events.FileContent{Path: "a.go", Mode: "100755", OID: "a2"}
	b := events.FileContent{Path: "b.go", Mode: "100644", OID: "b2"}
	got := Evolve(s, ev(events.TurnEnded{Strategy: events.StrategyAutoCommit, CheckpointID: cpNew, Worktree: events.Worktree{Head: rHead},
		Edited: []string{"a.go", "b.go"}, Dirty: []string{"a.go", "b.go", "u.go"}, Modified: []string{"a.go", "b.go", "u.go"},
		Captured: []events.FileContent{a, b, {Path: "u.go", OID: "u1"}}}))
	if len(got.Recorder.Commits) != 2 {
		t.Fatalf("commits owed = %+v, want the earlier one and the turn's", got.Recorder.Commits)
	}
	c := got.Recorder.Commits[1]
	if !slices.Equal(c.Files, []string{"a.go", "b.go"}) || c.Head != rHead {
		t.Errorf("the turn's commit: files %v, head %s", c.Files, c.Head)
	}
	if !slices.Equal(c.Content, []events.FileContent{a, b}) {
		t.Errorf("content = %+v, want the captured a.go and b.go only (u.go is the user's)", c.Content)
	}
	if !slices.Equal(c.Since, []events.FileContent{owedB}) {
		t.Errorf("since = %+v, want what the owed commit holds of b.go", c.Since)
	}
}
