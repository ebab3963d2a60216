package session

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/journal"
)

// A long prompt list stays out of the snapshot, which every hook reads and writes: the
// snapshot says how many it left out, a reopened session appends the new ones, AllPrompts
// gets the whole list back from the journal, and a replay of the journal marshals to the same
// snapshot bytes.
func TestStoreLongPromptsStayInJournal(t *testing.T) {
	st := NewStore(t.TempDir())
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	n := 0
	e := func(p events.Payload) events.Event { n++; return events.New(t0.Add(time.Duration(n)*time.Second), p) }
	tr := func(path string, lines int) events.Transcript {
		return events.Transcript{Path: path, Lines: lines, Offset: int64(lines) * 100}
	}
	wt := events.Worktree{Path: "/w", Head: rBase}
	long := func(c string) string { return strings.Repeat(c, MaxSnapshotPrompts/2+1) }
	p1, p2, p3 := long("x"), long("y"), "third"

	record(t, st, "s1", [][]events.Event{
		{e(events.TurnStarted{SessionID: "s1", Agent: agentClaudeCode, TurnID: "aaaaaaaaaaa1", Transcript: tr("/t/s1.jsonl", 1), Worktree: wt, PriorPrompts: []string{p1}})},
		{e(events.TurnEnded{SessionID: "s1", Transcript: tr("/t/s1.jsonl", 2), Worktree: wt, Prompts: []string{p2}})},
	})
	snap := readBytes(t, st.StatePath("s1"))
	if len(snap) > 8<<10 || strings.Contains(string(snap), "xxxx") {
		t.Fatalf("the snapshot holds the prompts (%d bytes)", len(snap))
	}
	loaded, err := UnmarshalState(snap)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Recorder.Prompts != nil || loaded.Recorder.PromptsOmitted != 2 {
		t.Fatalf("loaded prompts %d, omitted %d; want none and 2", len(loaded.Recorder.Prompts), loaded.Recorder.PromptsOmitted)
	}

	sess, err := st.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Append(e(events.TurnStarted{SessionID: "s1", Agent: agentClaudeCode, TurnID: "aaaaaaaaaaa2", Transcript: tr("/t/s1.jsonl", 3), Worktree: wt, PriorPrompts: []string{p3}})); err != nil {
		t.Fatal(err)
	}
	if got := sess.State.Recorder; !cmp.Equal(got.Prompts, []string{p3}) || got.PromptsOmitted != 2 {
		t.Fatalf("after a new prompt: %d held, %d omitted; want the new one and 2", len(got.Prompts), got.PromptsOmitted)
	}
	replays := 0
	defer func(f func(*journal.Journal, State, int64, uint64) (State, error)) { replayJournal = f }(replayJournal)
	replayJournal = func(j *journal.Journal, s State, off int64, seq uint64) (State, error) {
		replays++
		return replayFrom(j, s, off, seq)
	}
	for range 2 { // the second call (a hook that condenses, then finalizes) replays nothing
		all, ok := sess.AllPrompts()
		if !ok || !cmp.Equal(all, []string{p1, p2, p3}) {
			t.Fatalf("AllPrompts = %d prompts, %v; want the three", len(all), ok)
		}
	}
	if replays != 1 {
		t.Errorf("AllPrompts replayed the journal %d times for one state, want once", replays)
	}
	held := sess.State
	sess.State.Recorder.Scanned.Offset++
	if _, ok := sess.AllPrompts(); ok {
		t.Error("AllPrompts answered for a state the journal does not end in")
	}
	sess.State = held
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	snap = readBytes(t, st.StatePath("s1"))
	if err := os.Remove(st.StatePath("s1")); err != nil {
		t.Fatal(err)
	}
	replayed, err := st.Replay("s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(replayed.Recorder.Prompts, []string{p1, p2, p3}) {
		t.Fatalf("replay holds %d prompts, want the three", len(replayed.Recorder.Prompts))
	}
	if diff := cmp.Diff(string(snap), string(marshal(t, replayed))); diff != "" {
		t.Errorf("replay marshals differently from the snapshot (-snapshot +replay):\n%s", diff)
	}

	// Another transcript starts the list over: nothing is left out any more.
	sess, err = st.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Append(e(events.TurnStarted{SessionID: "s1", Agent: agentClaudeCode, TurnID: "aaaaaaaaaaa3", Transcript: tr("/t/other.jsonl", 1), Worktree: wt, PriorPrompts: []string{"fresh"}})); err != nil {
		t.Fatal(err)
	}
	if all, ok := sess.AllPrompts(); !ok || !cmp.Equal(all, []string{"fresh"}) || sess.State.Recorder.PromptsOmitted != 0 {
		t.Errorf("after another transcript: %q, %v, omitted %d", all, ok, sess.State.Recorder.PromptsOmitted)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
}

// The snapshot a hook writes and the next one reads, for a session with no prompts, with a
// few, and with 1,000 of about 300 bytes (past MaxSnapshotPrompts, left to the journal): the
// last should cost about what the first does.
func BenchmarkSnapshotRoundTrip(b *testing.B) {
	for _, n := range []int{0, 10, 1000} {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			s := State{SessionID: "s1", WorktreePath: "/w", BaseCommit: rBase, Phase: PhaseIdle}
			for i := range n {
				s.Recorder.Prompts = append(s.Recorder.Prompts, fmt.Sprintf("please do task %d: %s", i, strings.Repeat("lorem ipsum ", 24)))
			}
			b.ReportAllocs()
			var size int
			for b.Loop() {
				data, err := MarshalState(s)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := UnmarshalState(data); err != nil {
					b.Fatal(err)
				}
				size = len(data)
			}
			b.ReportMetric(float64(size), "snapshot-bytes")
		})
	}
}
