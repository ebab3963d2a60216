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
