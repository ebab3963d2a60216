package session

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/entirerec/entire/events"
)

// A journal damaged in its middle is set aside, and the session goes on from the events before
// the damage: later hooks append again, and the damaged copy is kept and listed.
func TestDamagedJournalIsQuarantined(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	at := time.Date(2026, 2, 16, 10, 0, 0, 0, time.UTC)
	sess, err := st.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	wt := events.Worktree{Path: "/w", Head: "1111111111111111111111111111111111111111"}
	for _, p := range []events.Payload{
		events.TurnStarted{SessionID: "s1", Agent: "Claude Code", Prompt: "one", Worktree: wt},
		events.TurnEnded{SessionID: "s1", Worktree: wt, Files: []string{"a.go"}},
		events.TurnStarted{SessionID: "s1", Agent: "Claude Code", Prompt: "two", Worktree: wt},
		events.TurnEnded{SessionID: "s1", Worktree: wt, Files: []string{"b.go"}},
	} {
		if err := sess.Append(events.New(at, p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	// Line 3 gets damaged, and the snapshot is lost.
	data, err := os.ReadFile(st.JournalPath("s1"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[2] = "{not json\n"
	if err := os.WriteFile(st.JournalPath("s1"), []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(st.StatePath("s1")); err != nil {
		t.Fatal(err)
	}
	sess, err = st.Open("s1")
	if err != nil {
		t.Fatalf("open after damage: %v", err)
	}
	if got := sess.State.FilesTouched; len(got) != 1 || got[0] != "a.go" {
		t.Errorf("state from the good prefix: files_touched %v, want [a.go]", got)
	}
	if err := sess.Append(events.New(at, events.SessionStopped{SessionID: "s1"})); err != nil {
		t.Fatalf("append after quarantine: %v", err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	damaged, err := st.Damaged()
	if err != nil || len(damaged) != 1 {
		t.Fatalf("damaged copies = %v (%v), want one", damaged, err)
	}
	if kept, _ := os.ReadFile(damaged[0]); string(kept) != strings.Join(lines, "") {
		t.Error("the damaged copy is not the damaged journal")
	}
	if _, err := st.Replay("s1", nil); err != nil {
		t.Errorf("replay of the repaired journal: %v", err)
	}
}

// A journal damaged after its snapshot was written: the snapshot is newer than the events
// before the damage, so it is journaled (state_restored) and the session goes on from it, and a
// replay of the repaired journal rebuilds the same state.
func TestDamagedJournalKeepsNewerSnapshot(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	at := time.Date(2026, 2, 16, 10, 0, 0, 0, time.UTC)
	sess, err := st.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	wt := events.Worktree{Path: "/w", Head: "1111111111111111111111111111111111111111"}
	for _, p := range []events.Payload{
		events.TurnStarted{SessionID: "s1", Agent: "Claude Code", Prompt: "one", Worktree: wt},
		events.TurnEnded{SessionID: "s1", Worktree: wt, Files: []string{"a.go"}},
		events.TurnStarted{SessionID: "s1", Agent: "Claude Code", Prompt: "two", Worktree: wt},
		events.TurnEnded{SessionID: "s1", Worktree: wt, Files: []string{"b.go"}},
	} {
		if err := sess.Append(events.New(at, p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(st.JournalPath("s1"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[2] = "{not json\n"
	if err := os.WriteFile(st.JournalPath("s1"), []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	sess, err = st.Open("s1")
	if err != nil {
		t.Fatalf("open after damage: %v", err)
	}
	if got := sess.State.FilesTouched; len(got) != 2 || got[1] != "b.go" {
		t.Errorf("files_touched %v, want the snapshot's [a.go b.go]", got)
	}
	if sess.State.Recorder.TurnPrompt != "two" {
		t.Errorf("turn prompt %q, want the snapshot's", sess.State.Recorder.TurnPrompt)
	}
	want := sess.State
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := st.Replay("s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Recorder.JournalSeq != 3 || len(got.FilesTouched) != 2 || got.Recorder.TurnPrompt != want.Recorder.TurnPrompt {
		t.Errorf("replay after the repair: seq %d, files %v, prompt %q", got.Recorder.JournalSeq, got.FilesTouched, got.Recorder.TurnPrompt)
	}
}
