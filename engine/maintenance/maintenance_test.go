package maintenance

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/checkpoint/checkpointtest"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/gitexec"
	"github.com/entirerec/entire/gitexec/gittest"
)

var mtNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// mtEngine is the maintenance of a hermetic repository with one commit on main, and a fixed clock.
func mtEngine(t *testing.T) (*Maintenance, string) {
	t.Helper()
	repo := gittest.Repo(t)
	head := gittest.Commit(t, repo, "refs/heads/main", "", "init", map[string]string{"README": "hi\n"})
	en := New(engine.New(repo, slog.New(slog.NewTextHandler(io.Discard, nil)), &bytes.Buffer{}))
	en.Now = func() time.Time { return mtNow }
	return en, string(head)
}

// mtState writes a session-state snapshot.
func mtState(t *testing.T, en *Maintenance, s session.State) {
	t.Helper()
	if s.StartedAt.IsZero() {
		s.StartedAt = mtNow.Add(-time.Hour)
	}
	if err := en.Store.WriteSnapshot(s); err != nil {
		t.Fatal(err)
	}
}

// mtBranch points a new branch at commit.
func mtBranch(t *testing.T, en *Maintenance, name, commit string) {
	t.Helper()
	if err := en.Repo.UpdateRefs(context.Background(), []gitexec.RefUpdate{{Name: gitexec.BranchRef(name), New: gitexec.OID(commit)}}); err != nil {
		t.Fatal(err)
	}
}

func mtBranchExists(t *testing.T, en *Maintenance, name string) bool {
	t.Helper()
	_, ok, err := en.Repo.ResolveRef(context.Background(), gitexec.BranchRef(name))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func mtIDs(t *testing.T, en *Maintenance) []string {
	t.Helper()
	ids, err := en.Store.IDs()
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func ago(d time.Duration) *time.Time { t := mtNow.Add(-d); return &t }

func TestPlanCleanRules(t *testing.T) {
	ctx := context.Background()
	en, head := mtEngine(t)
	const id = "a1b2c3d4e5f6"
	files := checkpointtest.SlotFiles(id, "0", "condensed")
	files[checkpoint.CheckpointPath(id)+"/metadata.json"] = checkpointtest.Root(id, 1)
	gittest.Commit(t, en.Repo, string(checkpoint.MetaRef), "", "Checkpoint: "+id, files)
	live := session.ShadowBranch(head, "")
	mtBranch(t, en, live, head)
	orphanTip := gittest.Commit(t, en.Repo, "refs/heads/entire/abcdef0-e3b0c4", "", "cp\n\nEntire-Session: ghost\n", map[string]string{"g": "g\n"})
	for _, s := range []session.State{
		{SessionID: "live", BaseCommit: head},
		{SessionID: "stale", BaseCommit: strings.Repeat("1", 40)},
		{SessionID: "lost", BaseCommit: strings.Repeat("2", 40), CheckpointCount: 2, FilesTouched: []string{"x"}},
		{SessionID: "recent", BaseCommit: strings.Repeat("3", 40), StartedAt: mtNow.Add(-5 * time.Minute)},
		{SessionID: "busy", BaseCommit: strings.Repeat("4", 40), LastInteractionTime: ago(time.Minute)},
		{SessionID: "condensed", BaseCommit: strings.Repeat("5", 40)},
	} {
		mtState(t, en, s)
	}
	plan, err := en.PlanClean(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Branches) != 1 || plan.Branches[0] != (OrphanBranch{Name: "entire/abcdef0-e3b0c4", Tip: orphanTip, Checkpoints: 1}) {
		t.Fatalf("orphan branches = %+v", plan.Branches)
	}
	var got []string
	for _, o := range plan.States {
		got = append(got, o.State.SessionID)
		if o.LostWork != (o.State.SessionID == "lost") {
			t.Errorf("%s: LostWork = %v", o.State.SessionID, o.LostWork)
		}
	}
	if !slices.Equal(got, []string{"lost", "stale"}) {
		t.Fatalf("orphan states = %v, want [lost stale]", got)
	}
	var done []string
	if err := en.Clean(ctx, plan, func(s string) { done = append(done, s) }); err != nil {
		t.Fatal(err)
	}
	if len(done) != 3 || mtBranchExists(t, en, "entire/abcdef0-e3b0c4") || !mtBranchExists(t, en, live) {
		t.Fatalf("after clean: done=%v", done)
	}
	if ids := mtIDs(t, en); !slices.Equal(ids, []string{"busy", "condensed", "live", "recent"}) {
		t.Fatalf("states left = %v", ids)
	}
}

// TestCleanBranchChangedSincePlan: a hook deletes an orphan branch (its session's emptied
// branch) or writes to it after clean listed it. Clean --force failed with git's "unable to
// resolve reference" and exited 1 for the first, and called the second a failure too.
func TestCleanBranchChangedSincePlan(t *testing.T) {
	ctx := context.Background()
	en, _ := mtEngine(t)
	const gone, moved = "entire/abcdef0-e3b0c4", "entire/1234567-e3b0c4"
	goneTip := gittest.Commit(t, en.Repo, "refs/heads/"+gone, "", "cp\n\nEntire-Session: s1\n", map[string]string{"g": "g\n"})
	tip := gittest.Commit(t, en.Repo, "refs/heads/"+moved, "", "cp\n\nEntire-Session: s2\n", map[string]string{"m": "m\n"})
	plan, err := en.PlanClean(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Branches) != 2 {
		t.Fatalf("orphan branches = %+v", plan.Branches)
	}
	if err := en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: gitexec.BranchRef(gone), Old: goneTip}}); err != nil {
		t.Fatal(err)
	}
	gittest.Commit(t, en.Repo, "refs/heads/"+moved, tip, "cp 2\n\nEntire-Session: s2\n", map[string]string{"m": "m2\n"})
	var done []string
	if err := en.Clean(ctx, plan, func(s string) { done = append(done, s) }); err != nil {
		t.Fatalf("clean: %v (done: %q)", err, done)
	}
	want := []string{"Kept shadow branch " + moved + ": a session wrote to it since the preview", "Shadow branch " + gone + " was already deleted"}
	if !slices.Equal(done, want) {
		t.Errorf("done = %q, want %q", done, want)
	}
	if !mtBranchExists(t, en, moved) {
		t.Error("the branch a session wrote to since the preview was deleted")
	}
}

func TestPlanReset(t *testing.T) {
	ctx := context.Background()
	en, head := mtEngine(t)
	shadow := session.ShadowBranch(head, "")
	mtBranch(t, en, shadow, head)
	mtState(t, en, session.State{SessionID: "a", BaseCommit: head, Phase: session.PhaseIdle})
	mtState(t, en, session.State{SessionID: "b", BaseCommit: head, Phase: session.PhaseActive})
	mtState(t, en, session.State{SessionID: "c", BaseCommit: strings.Repeat("1", 40)})

	if _, err := en.PlanReset(ctx, "nope"); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("PlanReset(nope) = %v, want ErrSessionNotFound", err)
	}
	all, err := en.PlanReset(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Sessions) != 2 || all.Branch != shadow || len(all.Risks) != 2 {
		t.Fatalf("HEAD plan = %+v", all)
	}
	one, err := en.PlanReset(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Sessions) != 1 || one.Branch != "" || len(one.Risks) != 0 {
		t.Fatalf("plan for a = %+v (b still uses the branch, a has no work)", one)
	}
	if err := en.Reset(ctx, one, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if ids := mtIDs(t, en); !slices.Equal(ids, []string{"b", "c"}) || !mtBranchExists(t, en, shadow) {
		t.Fatalf("after reset a: states %v", ids)
	}
	all, _ = en.PlanReset(ctx, "")
	if err := en.Reset(ctx, all, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if ids := mtIDs(t, en); !slices.Equal(ids, []string{"c"}) || mtBranchExists(t, en, shadow) {
		t.Fatalf("after reset: states %v", ids)
	}
}

func TestFindStuck(t *testing.T) {
	en, head := mtEngine(t)
	mtBranch(t, en, session.ShadowBranch(head, ""), head)
	for _, s := range []session.State{
		{SessionID: "quiet", BaseCommit: head, Phase: session.PhaseActive, LastInteractionTime: ago(2 * time.Hour)},
		{SessionID: "never", BaseCommit: head, Phase: session.PhaseActive, FilesTouched: []string{"a"}},
		{SessionID: "fresh", BaseCommit: head, Phase: session.PhaseActive, LastInteractionTime: ago(5 * time.Minute)},
		{SessionID: "ended", BaseCommit: head, Phase: session.PhaseEnded, CheckpointCount: 1},
		{SessionID: "gone", BaseCommit: strings.Repeat("1", 40), Phase: session.PhaseEnded, CheckpointCount: 1},
		{SessionID: "idle", BaseCommit: head, Phase: session.PhaseIdle, CheckpointCount: 3},
	} {
		mtState(t, en, s)
	}
	stuck, err := en.FindStuck(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]DoctorAction{}
	for _, s := range stuck {
		got[s.State.SessionID] = s.Default
	}
	want := map[string]DoctorAction{"quiet": DoctorDiscard, "never": DoctorCondense, "ended": DoctorCondense}
	if len(got) != len(want) {
		t.Fatalf("stuck = %v, want %v", got, want)
	}
	for id, a := range want {
		if got[id] != a {
			t.Errorf("%s: default %v, want %v", id, got[id], a)
		}
	}
}

func TestCondenseStuckAndDiscard(t *testing.T) {
	ctx := context.Background()
	en, head := mtEngine(t)
	shadow := session.ShadowBranch(head, "")
	mtBranch(t, en, shadow, head)
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	data := checkpointtest.Line1 + "\n" + checkpointtest.Line2 + "\n"
	if err := os.WriteFile(transcript, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	mtState(t, en, session.State{SessionID: "work", BaseCommit: head, Phase: session.PhaseActive, AgentType: engine.AgentClaudeCode,
		CheckpointCount: 2, FilesTouched: []string{"a.txt"}, TranscriptPath: transcript})
	mtState(t, en, session.State{SessionID: "idle", BaseCommit: strings.Repeat("1", 40), Phase: session.PhaseActive})

	id, err := en.CondenseStuck(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := checkpointtest.Reader(t, en.Repo).ReadCheckpoint(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if m := cp.Slots[0].Meta; m.SessionID != "work" || m.CheckpointsCount != 2 || string(cp.Slots[0].Transcript) != data {
		t.Fatalf("checkpoint slot = %+v, transcript %q", m, cp.Slots[0].Transcript)
	}
	s, err := en.Store.Peek("work")
	if err != nil {
		t.Fatal(err)
	}
	if s.Phase != session.PhaseEnded || s.HasNewContent() || s.LastCheckpointID != id || mtBranchExists(t, en, shadow) {
		t.Fatalf("after condense: %+v", s)
	}
	if _, err := en.CondenseStuck(ctx, "idle"); err == nil {
		t.Fatal("condensing a session without work succeeded")
	}
	if err := en.DiscardSession(ctx, "idle", func(string) {}); err != nil {
		t.Fatal(err)
	}
	if ids := mtIDs(t, en); !slices.Equal(ids, []string{"work"}) {
		t.Fatalf("states left = %v", ids)
	}
}

// A stuck session that still owes a linked commit's checkpoint (or a turn's auto-commit) is
// skipped by default and never discarded, even when asked to: its state is what writes it.
func TestDiscardRefusesOwedCheckpoint(t *testing.T) {
	ctx := context.Background()
	en, head := mtEngine(t)
	owed := session.Condense{Commit: events.GitCommitted{Commit: head, CheckpointID: "aaaaaaaaaaaa"}}
	mtState(t, en, session.State{SessionID: "owes", BaseCommit: head, Phase: session.PhaseActive, LastInteractionTime: ago(2 * time.Hour),
		Recorder: session.Recorder{Pending: []session.Condense{owed}}})
	mtState(t, en, session.State{SessionID: "commits", BaseCommit: head, Phase: session.PhaseActive, LastInteractionTime: ago(2 * time.Hour),
		Recorder: session.Recorder{Commits: []session.AutoCommit{{CheckpointID: "bbbbbbbbbbbb", Files: []string{"a"}}}}})
	stuck, err := en.FindStuck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(stuck) != 2 {
		t.Fatalf("stuck = %+v, want both sessions", stuck)
	}
	for _, st := range stuck {
		if st.Default != DoctorSkip || !st.Owes {
			t.Errorf("%s: default %v, owes %v; want skip, owes", st.State.SessionID, st.Default, st.Owes)
		}
		if err := en.DiscardSession(ctx, st.State.SessionID, func(string) {}); !errors.Is(err, ErrOwesRecord) {
			t.Errorf("discard %s: %v, want ErrOwesRecord", st.State.SessionID, err)
		}
	}
	if ids := mtIDs(t, en); !slices.Equal(ids, []string{"commits", "owes"}) {
		t.Fatalf("states left = %v", ids)
	}
	plan, err := en.PlanClean(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.States) != 0 {
		t.Errorf("clean plans to delete %+v", plan.States)
	}
}

// A hook that runs for an orphaned state between clean's plan and its removal (a prompt, or a
// commit that session linked, whose checkpoint it now owes) keeps the state: clean deletes what it
// previewed, not a session that came back since.
func TestCleanKeepsStateChangedSincePlan(t *testing.T) {
	ctx := context.Background()
	en, head := mtEngine(t)
	mtState(t, en, session.State{SessionID: "quiet", BaseCommit: head, Phase: session.PhaseIdle, LastInteractionTime: ago(time.Hour)})
	mtState(t, en, session.State{SessionID: "other", BaseCommit: head, Phase: session.PhaseIdle, LastInteractionTime: ago(time.Hour)})
	prompted := session.State{SessionID: "prompted", BaseCommit: head, Phase: session.PhaseIdle, LastInteractionTime: ago(time.Hour)}
	mtState(t, en, prompted)
	plan, err := en.PlanClean(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.States) != 3 {
		t.Fatalf("plan.States = %+v, want the three sessions", plan.States)
	}
	// A prompt of one session, and a commit the other linked, whose checkpoint it now owes.
	prompted.Phase, prompted.LastInteractionTime = session.PhaseActive, ago(0)
	mtState(t, en, prompted)
	sess, err := en.Store.Open("quiet")
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Append(en.Event(events.CommitPrepared{CheckpointID: "aaaaaaaaaaaa"}),
		en.Event(events.GitCommitted{Commit: head, CheckpointID: "aaaaaaaaaaaa"})); err != nil {
		t.Fatal(err)
	}
	if len(sess.State.Recorder.Pending) != 1 {
		t.Fatalf("pending = %+v, want the commit's checkpoint", sess.State.Recorder.Pending)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	if err := en.Clean(ctx, plan, func(l string) { lines = append(lines, l) }); err != nil {
		t.Fatal(err)
	}
	if ids := mtIDs(t, en); !slices.Equal(ids, []string{"prompted", "quiet"}) {
		t.Errorf("states left = %v, want [prompted quiet] (clean said %q)", ids, lines)
	}
}
