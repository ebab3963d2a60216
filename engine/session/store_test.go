package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/journal"
)

// sessionBatches is a realistic session, one Append per batch: a turn with a shadow
// checkpoint, a second turn in which the agent commits, carry-forward, finalization, stop.
func sessionBatches(id string) [][]events.Event {
	t0 := time.Date(2026, 2, 16, 10, 0, 0, 123456789, time.FixedZone("", 3600))
	n := 0
	e := func(p events.Payload) events.Event { n++; return events.New(t0.Add(time.Duration(n)*time.Second), p) }
	wt := events.Worktree{Path: "/w", Head: rBase}
	tr := func(lines int) events.Transcript {
		return events.Transcript{Path: "/t/" + id + ".jsonl", Lines: lines, Offset: int64(lines) * 100, LastUUID: fmt.Sprint("u", lines)}
	}
	usage := events.TokenUsage{InputTokens: 3, OutputTokens: 4, APICallCount: 1}
	return [][]events.Event{
		{e(events.TurnStarted{SessionID: id, Agent: agentClaudeCode, TurnID: "aaaaaaaaaaa1", Prompt: "Add <b> & co",
			Transcript: tr(1), Worktree: wt, UntrackedFiles: []string{"README.md"}})},
		{e(events.TurnEnded{SessionID: id, Transcript: tr(4), Worktree: wt, Files: []string{"hello.go"}, Usage: usage}),
			e(events.ShadowCheckpointWritten{Branch: "entire/1111111-e3b0c4", Commit: rShadow, BaseCommit: rBase,
				Files: []string{"hello.go"}, Usage: usage, Transcript: tr(4)})},
		{e(events.TurnStarted{SessionID: id, Agent: agentClaudeCode, TurnID: "aaaaaaaaaaa2", Prompt: "commit it",
			Transcript: tr(5), Worktree: wt})},
		{e(events.GitCommitted{Commit: rHead, CheckpointID: cpNew, Branch: "main", Files: []string{"hello.go"}, Overlap: true}),
			e(events.CheckpointCondensed{CheckpointID: cpNew, MetadataCommit: rShadow2, UserCommit: rHead,
				Files: []string{"hello.go"}, Provisional: true, Transcript: tr(6)}),
			e(events.CarriedForward{Branch: "entire/2222222-e3b0c4", Commit: rShadow2, Files: []string{"util.go"}})},
		{e(events.TurnEnded{SessionID: id, Transcript: tr(8), Worktree: events.Worktree{Path: "/w", Head: rHead}, Usage: usage}),
			e(events.CheckpointsFinalized{Finalized: []string{cpNew}, Transcript: tr(8)})},
		{e(events.SessionStopped{SessionID: id, Reason: "exit"})},
	}
}

// record opens the session, appends each batch with one Append, and closes it.
func record(t *testing.T, st Store, id string, batches [][]events.Event) State {
	t.Helper()
	sess, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if err := sess.Append(b...); err != nil {
			t.Fatal(err)
		}
	}
	state := sess.State
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	return state
}

func marshal(t *testing.T, s State) []byte {
	t.Helper()
	b, err := MarshalState(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// journalSeqs returns the seq of every line of a journal file.
func journalSeqs(t *testing.T, path string) []uint64 {
	t.Helper()
	var seqs []uint64
	for _, line := range strings.SplitAfter(string(readBytes(t, path)), "\n") {
		if line == "" {
			continue
		}
		e, err := events.Decode([]byte(strings.TrimSuffix(line, "\n")))
		if err != nil || e.V != events.FormatVersion || !strings.HasSuffix(line, "\n") {
			t.Fatalf("journal line %q: %v", line, err)
		}
		seqs = append(seqs, e.Seq)
	}
	return seqs
}

func seqRange(n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return out
}

func TestStoreSnapshotEqualsReplay(t *testing.T) {
	st := NewStore(t.TempDir())
	final := record(t, st, "s1", sessionBatches("s1"))
	snap := readBytes(t, st.StatePath("s1"))
	if !bytes.Equal(snap, marshal(t, final)) {
		t.Fatalf("snapshot is not the session's state:\n%s\nvs\n%s", snap, marshal(t, final))
	}
	fi, err := os.Stat(st.JournalPath("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if final.Phase != PhaseEnded || final.TurnCheckpointIDs != nil || !cmp.Equal(final.FilesTouched, []string{"util.go"}) ||
		final.CheckpointTranscriptStart != 8 || final.BaseCommit != rHead || final.Recorder.JournalSeq != 10 ||
		final.Recorder.JournalOffset != fi.Size() {
		t.Errorf("unexpected final state:\n%s", snap)
	}
	if diff := cmp.Diff(seqRange(10), journalSeqs(t, st.JournalPath("s1"))); diff != "" {
		t.Errorf("journal seqs (-want +got):\n%s", diff)
	}
	if err := os.Remove(st.StatePath("s1")); err != nil {
		t.Fatal(err)
	}
	var seen []uint64
	replayed, err := st.Replay("s1", func(e events.Event, s State) {
		if s.Recorder.JournalSeq != e.Seq {
			t.Errorf("state after event %d has journal_seq %d", e.Seq, s.Recorder.JournalSeq)
		}
		seen = append(seen, e.Seq)
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(snap), string(marshal(t, replayed))); diff != "" {
		t.Errorf("replay differs from the snapshot (-snapshot +replay):\n%s", diff)
	}
	if diff := cmp.Diff(seqRange(10), seen); diff != "" {
		t.Errorf("replay callback seqs (-want +got):\n%s", diff)
	}
}

// editSnapshot rewrites the snapshot's recorder bookkeeping.
func editSnapshot(edit func(*Recorder)) func(t *testing.T, st Store, mid []byte) {
	return func(t *testing.T, st Store, _ []byte) {
		s, err := UnmarshalState(readBytes(t, st.StatePath("s1")))
		if err != nil {
			t.Fatal(err)
		}
		edit(&s.Recorder)
		if err := os.WriteFile(st.StatePath("s1"), marshal(t, s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func writeSnapshotBytes(b string) func(t *testing.T, st Store, mid []byte) {
	return func(t *testing.T, st Store, _ []byte) {
		if err := os.WriteFile(st.StatePath("s1"), []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStoreOpenSurvivesBadSnapshot(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, st Store, mid []byte)
	}{
		{"intact", func(*testing.T, Store, []byte) {}},
		{"missing", func(t *testing.T, st Store, _ []byte) { os.Remove(st.StatePath("s1")) }},
		{"garbage", writeSnapshotBytes("{\"session_id\": \"s1\", garbage")},
		{"empty", writeSnapshotBytes("")},
		{"invalid last_checkpoint_id", writeSnapshotBytes(`{"session_id": "s1", "last_checkpoint_id": "nope"}`)},
		{"offset past the end", editSnapshot(func(r *Recorder) { r.JournalOffset += 100 })},
		{"seq past the end", editSnapshot(func(r *Recorder) { r.JournalSeq = 99 })},
		{"offset inside a line", editSnapshot(func(r *Recorder) { r.JournalOffset -= 5; r.JournalSeq-- })},
		{"offset and seq disagree", editSnapshot(func(r *Recorder) { r.JournalSeq -= 2 })},
		{"seq zero with an offset", editSnapshot(func(r *Recorder) { r.JournalSeq = 0 })},
		{"stale but consistent", func(t *testing.T, st Store, mid []byte) {
			if err := os.WriteFile(st.StatePath("s1"), mid, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := NewStore(t.TempDir())
			batches := sessionBatches("s1")
			record(t, st, "s1", batches[:3])
			mid := readBytes(t, st.StatePath("s1"))
			good := marshal(t, record(t, st, "s1", batches[3:]))
			tc.damage(t, st, mid)
			sess, err := st.Open("s1")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(good), string(marshal(t, sess.State))); diff != "" {
				t.Errorf("state after Open (-want +got):\n%s", diff)
			}
			err = sess.Append(events.New(time.Date(2026, 2, 16, 12, 0, 0, 0, time.UTC), events.SessionStarted{SessionID: "s1"}))
			if err != nil {
				t.Fatal(err)
			}
			if sess.State.Phase != PhaseIdle || sess.State.EndedAt != nil || sess.State.Recorder.JournalSeq != 11 {
				t.Errorf("after SessionStarted: phase %q, ended_at %v, seq %d", sess.State.Phase, sess.State.EndedAt, sess.State.Recorder.JournalSeq)
			}
			if err := sess.Close(); err != nil {
				t.Fatal(err)
			}
			replayed, err := st.Replay("s1", nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(marshal(t, replayed)), string(readBytes(t, st.StatePath("s1")))); diff != "" {
				t.Errorf("snapshot after Close differs from replay (-replay +snapshot):\n%s", diff)
			}
		})
	}
}

func TestStoreRepairsTornLastLine(t *testing.T) {
	for _, keepSnapshot := range []bool{true, false} {
		t.Run(fmt.Sprint("snapshot=", keepSnapshot), func(t *testing.T) {
			st := NewStore(t.TempDir())
			good := marshal(t, record(t, st, "s1", sessionBatches("s1")))
			size := int64(len(readBytes(t, st.JournalPath("s1"))))
			if !keepSnapshot {
				os.Remove(st.StatePath("s1"))
			}
			f, err := os.OpenFile(st.JournalPath("s1"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString(`{"v":1,"seq":11,"type":"session_started","time":"2026-02-16T12:00`)
			if cerr := f.Close(); err != nil || cerr != nil {
				t.Fatal(err, cerr)
			}
			replayed, err := st.Replay("s1", nil) // a reader stops before the torn line
			if err != nil || !bytes.Equal(marshal(t, replayed), good) {
				t.Errorf("Replay before repair: err %v, state:\n%s", err, marshal(t, replayed))
			}
			sess, err := st.Open("s1")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(good), string(marshal(t, sess.State))); diff != "" {
				t.Errorf("state after repair (-want +got):\n%s", diff)
			}
			if err := sess.Close(); err != nil {
				t.Fatal(err)
			}
			if got := int64(len(readBytes(t, st.JournalPath("s1")))); got != size {
				t.Errorf("journal size after repair = %d, want %d", got, size)
			}
			if diff := cmp.Diff(string(good), string(readBytes(t, st.StatePath("s1")))); diff != "" {
				t.Errorf("snapshot after repair (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStoreCorruptJournalIsSetAside(t *testing.T) {
	st := NewStore(t.TempDir())
	record(t, st, "s1", sessionBatches("s1"))
	lines := strings.SplitAfter(string(readBytes(t, st.JournalPath("s1"))), "\n")
	lines[2] = "{\"v\":1,\"seq\":3,\"type\":\"turn_started\",\"data\":{\"turn_id\":7}}\n" // valid line, bad payload
	if err := os.WriteFile(st.JournalPath("s1"), []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(st.StatePath("s1"))
	// Replay (entire replay, read-only) reports the damage, naming file and line.
	_, err := st.Replay("s1", nil)
	var ce *journal.CorruptError
	if !errors.As(err, &ce) || ce.Line != 3 || ce.Path != st.JournalPath("s1") {
		t.Errorf("Replay error = %v, want a *journal.CorruptError for line 3", err)
	}
	// A hook's Open sets the damaged journal aside and goes on from the two lines before it.
	sess, err := st.Open("s1")
	if err != nil {
		t.Fatalf("Open after damage: %v", err)
	}
	if sess.State.Recorder.JournalSeq != 2 {
		t.Errorf("state from the prefix is at seq %d, want 2", sess.State.Recorder.JournalSeq)
	}
	sess.Close()
	if damaged, _ := st.Damaged(); len(damaged) != 1 {
		t.Errorf("damaged copies = %v, want one", damaged)
	}
}

func TestStorePeekListIDs(t *testing.T) {
	st := NewStore(t.TempDir())
	if ids, err := st.IDs(); ids != nil || err != nil {
		t.Fatalf("IDs of a missing directory = %v, %v; want nil, nil", ids, err)
	}
	a := record(t, st, "a", sessionBatches("a"))
	b := record(t, st, "b", sessionBatches("b")[:2])
	os.Remove(st.StatePath("b")) // journal only
	c := State{SessionID: "c", BaseCommit: rBase, AttributionBaseCommit: rBase, Phase: PhaseIdle}
	if err := st.WriteSnapshot(c); err != nil { // snapshot only
		t.Fatal(err)
	}
	empty, err := st.Open("e") // a journal without events
	if err != nil {
		t.Fatal(err)
	}
	empty.Close()
	for name, data := range map[string]string{"d.json": "garbage", "notes.txt": "x", "a.json.tmp": "{}"} {
		if err := os.WriteFile(st.Dir+"/"+name, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := st.IDs()
	if diff := cmp.Diff([]string{"a", "b", "c", "d", "e"}, ids); err != nil || diff != "" {
		t.Errorf("IDs (-want +got):\n%s (err %v)", diff, err)
	}
	for id, want := range map[string]State{"a": a, "b": b, "c": c} {
		got, err := st.Peek(id)
		if err != nil || !bytes.Equal(marshal(t, got), marshal(t, want)) {
			t.Errorf("Peek(%s) = %v:\n%s\nwant:\n%s", id, err, marshal(t, got), marshal(t, want))
		}
	}
	for _, id := range []string{"d", "missing"} {
		if _, err := st.Peek(id); err == nil {
			t.Errorf("Peek(%s) succeeded, want an error", id)
		}
	}
	listed := listedIDs(t, st)
	if diff := cmp.Diff([]string{"a", "b", "c"}, listed); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

func TestStoreOpenHealsStaleSnapshot(t *testing.T) {
	st := NewStore(t.TempDir())
	batches := sessionBatches("s1")
	record(t, st, "s1", batches[:3])
	mid := readBytes(t, st.StatePath("s1"))
	good := marshal(t, record(t, st, "s1", batches[3:]))
	// A crash between the journal's fsync and the snapshot's rename leaves an older snapshot.
	if err := os.WriteFile(st.StatePath("s1"), mid, 0o600); err != nil {
		t.Fatal(err)
	}
	sess, err := st.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Peek("s1"); err != nil || !bytes.Equal(marshal(t, got), good) {
		t.Errorf("Peek after Open/Close = %v:\n%s\nwant:\n%s", err, marshal(t, got), good)
	}
}

func TestStoreConcurrentSessions(t *testing.T) {
	const writers, rounds = 8, 5
	st := NewStore(t.TempDir())
	record(t, st, "s1", sessionBatches("s1")[:1])
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers*rounds)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				sess, err := st.Open("s1")
				if err != nil {
					errs <- err
					return
				}
				errs <- sess.Append(events.New(time.Date(2026, 2, 16, 11, w, r, 0, time.UTC), events.ShadowCheckpointWritten{
					Commit: rShadow, BaseCommit: rBase, Files: []string{fmt.Sprintf("w%d/r%d.go", w, r)}}))
				errs <- sess.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if diff := cmp.Diff(seqRange(1+writers*rounds), journalSeqs(t, st.JournalPath("s1"))); diff != "" {
		t.Errorf("journal seqs (-want +got):\n%s", diff)
	}
	replayed, err := st.Replay("s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if replayed.CheckpointCount != writers*rounds || len(replayed.FilesTouched) != writers*rounds {
		t.Errorf("replay: checkpoint_count %d, %d files; want %d each", replayed.CheckpointCount, len(replayed.FilesTouched), writers*rounds)
	}
	if diff := cmp.Diff(string(marshal(t, replayed)), string(readBytes(t, st.StatePath("s1")))); diff != "" {
		t.Errorf("snapshot differs from replay (-replay +snapshot):\n%s", diff)
	}
}

// The store keeps a marker per state for the git hook scripts: "*" while the session may
// matter to any commit, its base commit once it ended with nothing left; the marker directory
// appears with a marker for every state already there, and a removed session's marker goes.
func TestLiveMarkers(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	read := func(id string) string {
		names, _ := filepath.Glob(filepath.Join(st.Dir, "live", id+"@*"))
		if len(names) != 1 {
			return fmt.Sprintf("%d markers", len(names))
		}
		return strings.TrimPrefix(filepath.Base(names[0]), id+"@")
	}
	// A state written before markers existed (an older version): no live directory yet.
	old := State{SessionID: "old", WorktreePath: "/w", BaseCommit: "b1", Phase: PhaseEnded}
	data, err := MarshalState(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.StatePath("old"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	active := State{SessionID: "act", WorktreePath: "/w", BaseCommit: "b2", Phase: PhaseActive}
	if err := st.WriteSnapshot(active); err != nil {
		t.Fatal(err)
	}
	if got := read("act"); got != "live" {
		t.Errorf("active session's marker = %q, want live", got)
	}
	if got := read("old"); got != "b1" {
		t.Errorf("earlier ended session's marker = %q, want its base b1", got)
	}
	active.Phase, active.FilesTouched = PhaseEnded, []string{"a.go"}
	if err := st.WriteSnapshot(active); err != nil {
		t.Fatal(err)
	}
	if got := read("act"); got != "live" {
		t.Errorf("ended session with work: marker %q, want live", got)
	}
	active.FilesTouched = nil
	if err := st.WriteSnapshot(active); err != nil {
		t.Fatal(err)
	}
	if got := read("act"); got != "b2" {
		t.Errorf("ended session without work: marker %q, want b2", got)
	}
	sess, err := st.Open("act")
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Remove(); err != nil {
		t.Fatal(err)
	}
	if got := read("act"); got != "0 markers" {
		t.Errorf("removed session's marker = %q", got)
	}
}

// A state written by SyncState or Snapshot is not written again by Close (same file, not a
// new one renamed over it), and a state appended after it is.
func TestStoreCloseSkipsSnapshotAlreadyWritten(t *testing.T) {
	st := NewStore(t.TempDir())
	batches := sessionBatches("s1")
	record(t, st, "s1", batches[:1])
	inode := func() os.FileInfo {
		t.Helper()
		fi, err := os.Stat(st.StatePath("s1"))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	for _, write := range []string{"SyncState", "Snapshot"} {
		sess, err := st.Open("s1")
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.Append(batches[1]...); err != nil {
			t.Fatal(err)
		}
		if write == "SyncState" {
			err = sess.SyncState()
		} else {
			err = sess.Snapshot()
		}
		if err != nil {
			t.Fatal(err)
		}
		written := inode()
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(written, inode()) {
			t.Errorf("%s then Close: the snapshot was written twice", write)
		}
		batches = batches[1:]
	}
	sess, err := st.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.SyncState(); err != nil {
		t.Fatal(err)
	}
	before := inode()
	if err := sess.Append(batches[1]...); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, inode()) {
		t.Error("a state appended after the snapshot was not written at Close")
	}
	if got, err := st.Peek("s1"); err != nil || got.Recorder.JournalSeq != sess.State.Recorder.JournalSeq {
		t.Errorf("Peek = seq %d (%v), want %d", got.Recorder.JournalSeq, err, sess.State.Recorder.JournalSeq)
	}
}

// AnyWhere answers as ListWhere does from the briefs, without decoding a state whose brief is
// readable: a snapshot that fails to decode past its brief (no journal to rebuild it from)
// still counts for AnyWhere, and ListWhere, which decodes, drops it. A snapshot without a
// brief is rebuilt from its journal and tested, as ListWhere does.
func TestStoreAnyWhere(t *testing.T) {
	st := NewStore(t.TempDir())
	if any, err := st.AnyWhere(func(Brief) bool { return true }); any || err != nil {
		t.Fatalf("AnyWhere of an empty store = %v, %v", any, err)
	}
	a := record(t, st, "a", sessionBatches("a"))
	isA := func(b Brief) bool { return b.SessionID == "a" }
	none := func(Brief) bool { return false }
	for _, tc := range []struct {
		keep func(Brief) bool
		want bool
	}{{isA, true}, {none, false}} {
		any, err := st.AnyWhere(tc.keep)
		list, lerr := st.ListWhere(tc.keep)
		if any != tc.want || err != nil || lerr != nil || (len(list) > 0) != tc.want {
			t.Errorf("AnyWhere = %v %v, ListWhere = %d states %v; want %v", any, err, len(list), lerr, tc.want)
		}
	}
	bad := `{"session_id":"b","worktree_path":"/w","phase":"idle","last_checkpoint_id":"not-an-id"}`
	if err := os.WriteFile(st.StatePath("b"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	isB := func(b Brief) bool { return b.SessionID == "b" }
	if any, err := st.AnyWhere(isB); !any || err != nil {
		t.Errorf("AnyWhere decoded the state past its brief: %v, %v", any, err)
	}
	if list, err := st.ListWhere(isB); len(list) != 0 || err != nil {
		t.Errorf("ListWhere kept an undecodable state: %v, %v", list, err)
	}
	if err := os.WriteFile(st.StatePath("a"), []byte("garbage"), 0o600); err != nil { // no brief
		t.Fatal(err)
	}
	if any, err := st.AnyWhere(func(b Brief) bool { return b.SessionID == "a" && b.WorktreePath == a.WorktreePath }); !any || err != nil {
		t.Errorf("AnyWhere of a snapshot without a brief, rebuilt from its journal = %v, %v", any, err)
	}
}

// A state read twice from the same snapshot bytes comes from the memo of decoded states:
// what a caller does to the first copy does not reach the second, and new bytes are decoded
// anew.
func TestStoreDecodeMemoHandsOutCopies(t *testing.T) {
	st := NewStore(t.TempDir())
	want := record(t, st, "a", sessionBatches("a"))
	first, err := st.Peek("a")
	if err != nil || len(first.FilesTouched) == 0 {
		t.Fatalf("Peek = %v, %v (want files touched)", first.FilesTouched, err)
	}
	first.FilesTouched[0] = "changed by a caller"
	first.Recorder.Prompts = append(first.Recorder.Prompts[:0], "changed")
	listed, err := st.ListWhere(func(Brief) bool { return true })
	if err != nil || len(listed) != 1 || !bytes.Equal(marshal(t, listed[0]), marshal(t, want)) {
		t.Fatalf("ListWhere after a caller changed its copy = %v:\n%s\nwant:\n%s", err, marshal(t, listed[0]), marshal(t, want))
	}
	next := want
	next.CheckpointCount = want.CheckpointCount + 5
	if err := st.WriteSnapshot(next); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Peek("a"); err != nil || got.CheckpointCount != next.CheckpointCount {
		t.Errorf("Peek after a new snapshot = %d, %v; want %d", got.CheckpointCount, err, next.CheckpointCount)
	}
}

// TestStoreSnapshotAheadOfLostJournalLines: the journal lacks its last lines (a disk that
// lost them, a copy of the directory taken mid-write) while the snapshot written after them
// survived. Open takes the journal's word.
func TestStoreSnapshotAheadOfLostJournalLines(t *testing.T) {
	st := NewStore(t.TempDir())
	batches := sessionBatches("s1")
	record(t, st, "s1", batches[:3])
	var mid State
	if err := json.Unmarshal(readBytes(t, st.StatePath("s1")), &mid); err != nil {
		t.Fatal(err)
	}
	want := marshal(t, record(t, st, "s1", nil)) // the state of the first three batches
	record(t, st, "s1", batches[3:])
	if err := os.Truncate(st.JournalPath("s1"), mid.Recorder.JournalOffset); err != nil {
		t.Fatal(err)
	}
	sess, err := st.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if diff := cmp.Diff(string(want), string(marshal(t, sess.State))); diff != "" {
		t.Errorf("state after Open (-journal's +got):\n%s", diff)
	}
}

// Every file the store names after a session ID fits in a file name (255 bytes) for the
// longest ID accepted, in a SHA-256 repository: the journal, the state and its temporary file,
// a damaged journal set aside, and the live marker with its temporary file.
func TestLongestSessionIDFileNames(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	id := strings.Repeat("s", agent.MaxSessionIDLen)
	head := strings.Repeat("f", 64)
	names := []string{
		st.JournalPath(id),
		st.StatePath(id) + ".tmp",
		st.JournalPath(id) + damagedSuffix + "9999999999",
		filepath.Join(st.Dir, id+markerSep+head+".tmp"+strconv.Itoa(1<<22)),
	}
	for _, name := range names {
		if err := os.WriteFile(name, nil, 0o600); err != nil {
			t.Errorf("%d-byte name: %v", len(filepath.Base(name)), err)
		}
	}
}

// TestReplayReleasesLockBeforeShowing: replay's callback prints to a reader that may be slow (a
// pager); the journal must be free for the hooks that append meanwhile.
func TestReplayReleasesLockBeforeShowing(t *testing.T) {
	st := NewStore(t.TempDir())
	record(t, st, "s1", sessionBatches("s1"))
	calls := 0
	_, err := st.Replay("s1", func(events.Event, State) {
		if calls++; calls > 1 {
			return
		}
		locked := make(chan error, 1)
		go func() {
			f, err := lockedfile.OpenFile(st.JournalPath("s1"), os.O_RDWR, 0)
			if err == nil {
				f.Close()
			}
			locked <- err
		}()
		select {
		case err := <-locked:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the journal's exclusive lock was not free while replay showed an event")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A state file is the session its file names, whatever its session_id says: it is listed,
// read, opened and written under the file's name, and a session_id that escapes the directory
// builds no path.
func TestStoreStateNamedByFile(t *testing.T) {
	root := t.TempDir()
	st := NewStore(filepath.Join(root, "common"))
	if err := os.MkdirAll(st.Dir, 0o750); err != nil {
		t.Fatal(err)
	}
	for name, inside := range map[string]string{"a": "b", "odd": "../../x"} {
		data := `{"session_id": "` + inside + `", "base_commit": "` + rBase + `", "started_at": "2020-01-01T00:00:00Z", "phase": "active"}`
		if err := os.WriteFile(st.StatePath(name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	listed := listedIDs(t, st)
	if diff := cmp.Diff([]string{"a", "odd"}, listed); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if s, err := st.Peek("odd"); err != nil || s.SessionID != "odd" {
		t.Errorf("Peek(odd) = %q, %v; want odd", s.SessionID, err)
	}
	// Open under the file's name; what Close writes says so, and nothing else appears.
	sess, err := st.Open("odd")
	if err != nil {
		t.Fatal(err)
	}
	if sess.State.SessionID != "odd" {
		t.Errorf("Open(odd).State.SessionID = %q, want odd", sess.State.SessionID)
	}
	if err := sess.Append(events.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), events.CommitPrepared{CheckpointID: cpNew})); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err := st.Peek("odd"); err != nil || s.SessionID != "odd" || s.Recorder.PreparedID != cpNew {
		t.Errorf("odd.json after Close = %q (prepared %q), %v; want odd", s.SessionID, s.Recorder.PreparedID, err)
	}
	for _, p := range []string{filepath.Join(root, "x.json"), filepath.Join(root, "x.jsonl"), st.StatePath("b")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists (%v)", p, err)
		}
	}
}

// An ID that cannot name a session's files is refused before any path is built from it.
func TestStoreRefusesInvalidIDs(t *testing.T) {
	root := t.TempDir()
	st := NewStore(filepath.Join(root, "common"))
	if err := os.MkdirAll(st.Dir, 0o750); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"..json", "ctl\x01.json", "ok.json"} {
		if err := os.WriteFile(filepath.Join(st.Dir, name), []byte(`{"session_id": "ok"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if ids, err := st.IDs(); err != nil || !slices.Equal(ids, []string{"ok"}) {
		t.Errorf("IDs = %q, %v; want [ok]", ids, err)
	}
	for _, id := range []string{"../x", "..", "", "a\nb"} {
		if sess, err := st.Open(id); err == nil {
			t.Errorf("Open(%q) succeeded", id)
			sess.Close()
		}
		if _, err := st.Peek(id); err == nil {
			t.Errorf("Peek(%q) succeeded", id)
		}
		if _, err := st.Replay(id, nil); err == nil {
			t.Errorf("Replay(%q) succeeded", id)
		}
		if _, err := st.Refresh(id); err == nil {
			t.Errorf("Refresh(%q) succeeded", id)
		}
		if ok, err := st.Has(id); ok || err == nil {
			t.Errorf("Has(%q) = %v, %v; want an error", id, ok, err)
		}
		if err := st.WriteSnapshot(State{SessionID: id, Phase: PhaseIdle}); err == nil {
			t.Errorf("WriteSnapshot(%q) succeeded", id)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "x.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("x.jsonl outside the store exists (%v)", err)
	}
}

// Refresh of a session that has only a state file (the reference writes no journal) leaves
// it so: no empty journal appears.
func TestStoreRefreshMakesNoJournal(t *testing.T) {
	st := NewStore(t.TempDir())
	if err := st.WriteSnapshot(State{SessionID: "c", BaseCommit: rBase, Phase: PhaseIdle}); err != nil {
		t.Fatal(err)
	}
	if stale, err := st.Refresh("c"); stale || err != nil {
		t.Errorf("Refresh(c) = %v, %v; want false, nil", stale, err)
	}
	if _, err := os.Stat(st.JournalPath("c")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Refresh made a journal (%v)", err)
	}
}

// listedIDs are the session IDs st.List returns, in its order.
func listedIDs(t *testing.T, st Store) []string {
	t.Helper()
	list, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.SessionID)
	}
	return ids
}

// A caller holding a session open holds its journal's lock: listing the other sessions must
// not read it (with no snapshot yet, its state would be rebuilt under that lock, for ever).
func TestStoreListOthersLeavesTheOpenSessionUnread(t *testing.T) {
	st := NewStore(t.TempDir())
	record(t, st, "a", sessionBatches("a"))
	record(t, st, "b", sessionBatches("b"))
	os.Remove(st.StatePath("a")) // journal only: reading it means replaying it under its lock
	sess, err := st.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	done := make(chan []State, 1)
	go func() {
		states, err := st.ListOthersWhere("a", func(Brief) bool { return true })
		if err != nil {
			t.Error(err)
		}
		done <- states
	}()
	select {
	case states := <-done:
		if len(states) != 1 || states[0].SessionID != "b" {
			t.Errorf("ListOthersWhere(a) = %d states, want b alone", len(states))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("listing the other sessions read the session this process holds open")
	}
}

// A journal that cannot be opened is named once, with its session, in the error.
func TestStoreOpenErrorNamesJournalOnce(t *testing.T) {
	st := NewStore(t.TempDir())
	if err := os.MkdirAll(st.JournalPath("s1"), 0o750); err != nil { // a directory: no file to open
		t.Fatal(err)
	}
	_, err := st.Open("s1")
	if err == nil {
		t.Fatal("Open succeeded on a directory")
	}
	if msg := err.Error(); strings.Count(msg, "open journal") != 1 || !strings.Contains(msg, "s1") {
		t.Errorf("error %q: want the session and one \"open journal\"", msg)
	}
}

// Removing a session removes the transcripts the hooks exported for it (an OpenCode
// session's copy) and leaves other sessions' copies.
func TestRemoveDeletesMaterializedTranscripts(t *testing.T) {
	st := NewStore(t.TempDir())
	record(t, st, "s1", sessionBatches("s1")[:1])
	dir := st.MaterializedDir("opencode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"s1", "s2"} {
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := st.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s1.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("removed session's transcript copy: stat err = %v, want not exist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s2.jsonl")); err != nil {
		t.Errorf("other session's transcript copy: %v", err)
	}
}
