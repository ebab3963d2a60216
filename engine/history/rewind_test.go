package history

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec"
	"github.com/entirerec/entire/gitexec/gittest"
)

func TestFindRewindPoint(t *testing.T) {
	points := []RewindPoint{
		{ID: "aaaaaaa1111111111111111111111111111111111"},
		{ID: "aaaaaaa2222222222222222222222222222222222"},
		{ID: "bbbbbbb3333333333333333333333333333333333", IsLogsOnly: true, CheckpointID: "c0ffee123456"},
		// A squash of three linked commits: each trailer's ID finds it, restoring that checkpoint.
		{ID: "ddddddd4444444444444444444444444444444444", IsLogsOnly: true, CheckpointID: "0003c0000003",
			squashed: []string{"0001a0000001", "0002b0000002"}},
	}
	for _, tc := range []struct {
		id, want, cp string
		squashed     []string
		err          error
		amb          bool
	}{
		{id: points[3].ID, want: points[3].ID, cp: "0003c0000003", squashed: []string{"0001a0000001", "0002b0000002"}},
		{id: "0003c0000003", want: points[3].ID, cp: "0003c0000003", squashed: []string{"0001a0000001", "0002b0000002"}},
		{id: "0002b0000002", want: points[3].ID, cp: "0002b0000002", squashed: []string{"0001a0000001"}},
		{id: "0001a00", want: points[3].ID, cp: "0001a0000001"},
		{id: "000", err: ErrRewindPointNotFound},
		{id: points[0].ID, want: points[0].ID},
		{id: "AAAAAAA2", want: points[1].ID},
		{id: "c0ffee123456", want: points[2].ID},
		{id: "c0ffee1", want: points[2].ID},
		{id: "bbbbbbb", want: points[2].ID},
		{id: "aaaaaaa", amb: true},
		{id: "aaa", err: ErrRewindPointNotFound},
		{id: "deadbeef", err: ErrRewindPointNotFound},
		{id: " ", err: ErrRewindPointNotFound},
	} {
		p, err := FindRewindPoint(points, tc.id)
		var amb *checkpoint.AmbiguousError
		switch {
		case tc.amb:
			if !errors.As(err, &amb) || len(amb.Candidates) != 2 {
				t.Errorf("%q: err = %v, want ambiguous between two", tc.id, err)
			}
		case tc.err != nil:
			if !errors.Is(err, tc.err) {
				t.Errorf("%q: err = %v, want %v", tc.id, err, tc.err)
			}
		case err != nil || p.ID != tc.want:
			t.Errorf("%q: got %q, %v; want %q", tc.id, p.ID, err, tc.want)
		case tc.cp != "" && (p.CheckpointID != tc.cp || !slices.Equal(p.squashed, tc.squashed)):
			t.Errorf("%q: checkpoint %s after %v, want %s after %v", tc.id, p.CheckpointID, p.squashed, tc.cp, tc.squashed)
		}
	}
}

func TestTruncateAtUUID(t *testing.T) {
	data := []byte(`{"uuid":"a"}` + "\n" + `{"uuid":"b"}` + "\n" + `{"uuid":"c"}` + "\n")
	if got := string(TruncateAtUUID(data, "b")); got != `{"uuid":"a"}`+"\n"+`{"uuid":"b"}`+"\n" {
		t.Errorf("truncate at b = %q", got)
	}
	if got := TruncateAtUUID(data, "zzz"); string(got) != string(data) {
		t.Errorf("unknown uuid changed the transcript: %q", got)
	}
}

func TestProtectedDir(t *testing.T) {
	for p, want := range map[string]bool{".git/config": true, ".entire/settings.json": true, ".claude/x": true,
		".gemini": true, ".claudex/y": false, "src/.claude/z": false, "a.txt": false} {
		if got := ProtectedDir(p); got != want {
			t.Errorf("protectedDir(%q) = %v, want %v", p, got, want)
		}
	}
}

// rwShadow commits files on top of base's tree as a shadow checkpoint of session s1.
func rwShadow(t *testing.T, repo *gitexec.Repo, base, parent gitexec.OID, branch, msg string, files map[string]string) gitexec.OID {
	t.Helper()
	msg += "\n\nEntire-Metadata: .entire/metadata/s1\nEntire-Session: s1\nEntire-Strategy: manual-commit\n"
	return gittest.CommitOn(t, repo, string(gitexec.BranchRef(branch)), base, parent, msg, files)
}

func rwWrite(t *testing.T, top, rel, content string) {
	t.Helper()
	p := filepath.Join(top, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rwRead(t *testing.T, top, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(top, rel))
	if err != nil {
		return "<missing>"
	}
	return string(data)
}

// TestRewindAndUndo rewinds to the first of two temporary checkpoints and undoes it.
func TestRewindAndUndo(t *testing.T) {
	repo := gittest.Repo(t)
	ctx := context.Background()
	top := repo.TopLevel
	rwWrite(t, top, "README", "hello\n")
	rwWrite(t, top, ".claude/settings.json", "{}\n")
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", top}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	head, _, err := repo.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	branch := session.ShadowBranch(string(head), repo.WorktreeID())
	cp1 := rwShadow(t, repo, head, "", branch, "Add a", map[string]string{"a.txt": "A1\n", ".entire/metadata/s1/full.jsonl": "one\n"})
	cp2 := rwShadow(t, repo, cp1, cp1, branch, "Add b", map[string]string{"a.txt": "A2\n", "b.txt": "B\n", ".entire/metadata/s1/full.jsonl": "one\ntwo\n"})
	rwWrite(t, top, "a.txt", "A2\n")
	rwWrite(t, top, "b.txt", "B\n")
	rwWrite(t, top, "keep.txt", "there at start\n")
	rwWrite(t, top, ".claude/new.txt", "agent settings\n")
	en := New(engine.New(repo, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard))
	en.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	if err := en.Store.WriteSnapshot(session.State{SessionID: "s1", WorktreePath: top, AgentType: engine.AgentClaudeCode, UntrackedFilesAtStart: []string{"keep.txt"}}); err != nil {
		t.Fatal(err)
	}

	points, err := en.RewindPoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 2 || points[0].ID != string(cp2) || points[1].ID != string(cp1) {
		t.Fatalf("points = %+v, want cp2 then cp1", points)
	}
	place := TranscriptPlace{Override: t.TempDir()}
	plan, err := en.PlanRewind(ctx, points[1], RewindFiles, place)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a.txt"}, plan.Write); d != "" {
		t.Errorf("Write (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"b.txt"}, plan.Delete); d != "" {
		t.Errorf("Delete (-want +got):\n%s", d)
	}
	if len(plan.Discard) != 0 {
		t.Errorf("Discard = %v, want none (everything is in a checkpoint)", plan.Discard)
	}
	if _, err := en.ApplyRewind(ctx, plan); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(place.Override, "s1.jsonl")
	for rel, want := range map[string]string{"a.txt": "A1\n", "b.txt": "<missing>", "keep.txt": "there at start\n",
		".claude/new.txt": "agent settings\n", transcript: "one\n"} {
		if filepath.IsAbs(rel) {
			rel, _ = filepath.Rel(top, rel)
		}
		if got := rwRead(t, top, rel); got != want {
			t.Errorf("after rewind %s = %q, want %q", rel, got, want)
		}
	}
	if tip, _, _ := repo.ResolveRef(ctx, gitexec.BranchRef(branch)); tip != cp1 {
		t.Errorf("shadow branch at %s, want cp1 %s", tip, cp1)
	}

	undo, err := en.PlanUndo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := en.ApplyRewind(ctx, undo); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"a.txt": "A2\n", "b.txt": "B\n", "keep.txt": "there at start\n"} {
		if got := rwRead(t, top, rel); got != want {
			t.Errorf("after undo %s = %q, want %q", rel, got, want)
		}
	}
	if _, err := os.Stat(transcript); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("undo kept the transcript the rewind created: %v", err)
	}
	if tip, _, _ := repo.ResolveRef(ctx, gitexec.BranchRef(branch)); tip != cp2 {
		t.Errorf("shadow branch at %s after undo, want cp2 %s", tip, cp2)
	}
}

func TestCommitTrailers(t *testing.T) {
	a, b := gitexec.OID("aaaa"), gitexec.OID("bbbb")
	linked := []checkpoint.LinkedCommit{
		{SHA: a, CheckpointID: "000000000001", Subject: "squash"},
		{SHA: a, CheckpointID: "000000000002", Subject: "squash"},
		{SHA: a, CheckpointID: "000000000001", Subject: "squash"},
		{SHA: b, CheckpointID: "000000000003", Subject: "one"},
	}
	commits, ids := commitTrailers(linked)
	want := []checkpoint.LinkedCommit{{SHA: a, CheckpointID: "000000000002", Subject: "squash"}, {SHA: b, CheckpointID: "000000000003", Subject: "one"}}
	if d := cmp.Diff(want, commits); d != "" {
		t.Errorf("commits (-want +got):\n%s", d)
	}
	if d := cmp.Diff([][]string{{"000000000001", "000000000002"}, {"000000000003"}}, ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
}

func TestAddSlots(t *testing.T) {
	slot := func(sid, tree string) checkpoint.Slot {
		return checkpoint.Slot{Tree: tree, Meta: checkpoint.CommittedMetadata{SessionID: sid}}
	}
	older := []checkpoint.Slot{slot("s1", "old/s1"), slot("s2", "old/s2"), slot("", "old/none")}
	got := addSlots(addSlots(nil, older), []checkpoint.Slot{slot("s1", "new/s1"), slot("", "new/none")})
	var trees []string
	for _, s := range got {
		trees = append(trees, s.Tree)
	}
	if d := cmp.Diff([]string{"old/s2", "old/none", "new/s1", "new/none"}, trees); d != "" {
		t.Errorf("slots (-want +got):\n%s", d)
	}
}
