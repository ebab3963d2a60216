package engine

import (
	"context"
	"os"
	"testing"

	"github.com/entirerec/entire/events"
)

// A removal journaled by a maintenance command that died before deleting anything is finished
// by the next hook or command (DrainPending); a removal that runs to its end leaves no file.
func TestRemoveSessionSurvivesACrash(t *testing.T) {
	en := testRepo(t)
	ctx := context.Background()
	for _, id := range []string{"gone", "crashed"} {
		sess, err := en.Store.Open(id)
		if err != nil {
			t.Fatal(err)
		}
		wt := events.Worktree{Path: en.Repo.TopLevel}
		if err := sess.Append(en.Event(events.TurnStarted{SessionID: id, Agent: AgentClaudeCode, Worktree: wt})); err != nil {
			t.Fatal(err)
		}
		CloseSession(en, sess)
	}
	if err := en.RemoveSession(ctx, "gone", "entire reset"); err != nil {
		t.Fatal(err)
	}
	// "crashed": the decision is journaled and the snapshot written, then the process died.
	sess, err := en.Store.Open("crashed")
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Append(en.Event(events.SessionDiscarded{Reason: "entire doctor"})); err != nil {
		t.Fatal(err)
	}
	CloseSession(en, sess)
	if ids, _ := en.Store.IDs(); len(ids) != 1 || ids[0] != "crashed" {
		t.Fatalf("sessions before the next hook = %v, want [crashed]", ids)
	}
	if err := en.DrainPending(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"gone", "crashed"} {
		for _, p := range []string{en.Store.JournalPath(id), en.Store.StatePath(id)} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("%s is still there (%v)", p, err)
			}
		}
	}
	// The session's next hook starts it afresh.
	sess, err = en.Store.Open("crashed")
	if err != nil {
		t.Fatal(err)
	}
	defer CloseSession(en, sess)
	if sess.State.Exists() || sess.State.Recorder.Discarded {
		t.Errorf("state after removal = %+v, want none", sess.State)
	}
}
