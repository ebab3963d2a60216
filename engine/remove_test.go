package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirerec/entire/engine/session"
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

// Removing a session that has no file, or whose ID cannot name one, fails and leaves nothing
// behind: a maintenance command never reports a removal that did not happen.
func TestRemoveSessionWithoutFiles(t *testing.T) {
	en := testRepo(t)
	ctx := context.Background()
	if err := en.RemoveSession(ctx, "missing", "entire reset"); !errors.Is(err, session.ErrNoSession) {
		t.Errorf("RemoveSession(missing) = %v, want ErrNoSession", err)
	}
	if err := en.RemoveSession(ctx, "../x", "entire reset"); err == nil {
		t.Error("RemoveSession(../x) succeeded")
	}
	if ids, err := en.Store.IDs(); len(ids) != 0 || err != nil {
		t.Errorf("sessions after = %v, %v; want none", ids, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(en.Store.Dir), "x.jsonl")); !os.IsNotExist(err) {
		t.Errorf("x.jsonl beside the store exists (%v)", err)
	}
}
