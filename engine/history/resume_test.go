package history

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/checkpoint/checkpointtest"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec"
	"github.com/entirerec/entire/gitexec/gittest"
)

func TestRestoreFor(t *testing.T) {
	home := t.TempDir()
	en := New(&engine.Engine{Home: home, Store: session.NewStore(t.TempDir()), Repo: gittest.Repo(t)})
	def := func(agent, sid string) string { return filepath.Join(home, "default", sid+".jsonl") }
	place := TranscriptPlace{Default: def}
	override := TranscriptPlace{Override: filepath.Join(home, "claude-project"), Default: def}
	sameDir := TranscriptPlace{Default: func(agent, sid string) string { return filepath.Join(home, ".claude", "projects", "p", sid+".jsonl") }}
	rel := ".claude/projects/p/s.jsonl"
	abs := filepath.Join(home, filepath.FromSlash(rel))
	data := []byte("a\nb\n")
	slot := func(agent, path string, transcript []byte) checkpoint.Slot {
		return checkpoint.Slot{Meta: checkpoint.CommittedMetadata{SessionID: "s", Agent: agent, TranscriptPath: path}, Transcript: transcript}
	}
	for _, tc := range []struct {
		name   string
		slot   checkpoint.Slot
		place  *TranscriptPlace // nil: place
		local  string           // "" = no local file
		want   RestoreStatus
		path   string
		reason string // non-empty: skipped with this text
	}{
		{name: "missing", slot: slot(engine.AgentClaudeCode, rel, data), want: RestoreNew, path: abs},
		{name: "same", slot: slot(engine.AgentClaudeCode, rel, data), local: "a\nb\n", want: RestoreUpToDate, path: abs},
		{name: "older prefix", slot: slot(engine.AgentClaudeCode, rel, data), local: "a\n", want: RestoreBehind, path: abs},
		{name: "differs, as long", slot: slot(engine.AgentClaudeCode, rel, data), local: "x\ny\n", place: &sameDir, want: RestoreConflict, path: abs},
		{name: "differs, shorter", slot: slot(engine.AgentClaudeCode, rel, data), local: "x\n", place: &sameDir, want: RestoreConflict, path: abs},
		{name: "newer", slot: slot(engine.AgentClaudeCode, rel, data), local: "a\nb\nc", place: &sameDir, want: RestoreConflict, path: abs},
		// The agent run here looks in another directory, and no session here records the
		// transcript: the file is another checkout's, left alone.
		{name: "newer, another checkout's", slot: slot(engine.AgentClaudeCode, rel, data), local: "a\nb\nc", want: RestoreElsewhere, path: abs},
		{name: "differs, another checkout's", slot: slot(engine.AgentClaudeCode, rel, data), local: "x\n", want: RestoreElsewhere, path: abs},
		{name: "escaping path", slot: slot(engine.AgentClaudeCode, "../evil.jsonl", data), want: RestoreNew, path: def("", "s")},
		{name: "no path", slot: slot(engine.AgentClaudeCode, "", data), want: RestoreNew, path: def("", "s")},
		{name: "claude project dir set", slot: slot(engine.AgentClaudeCode, rel, data), place: &override, want: RestoreNew,
			path: filepath.Join(home, "claude-project", "s.jsonl")},
		{name: "claude project dir is not gemini's", slot: slot("Gemini CLI", rel, data), place: &override, want: RestoreNew, path: abs},
		{name: "unknown agent", slot: slot("Agent", rel, data), reason: "cannot be resumed"},
		{name: "no transcript", slot: slot(engine.AgentClaudeCode, rel, nil), reason: "no transcript"},
		{name: "no session", slot: checkpoint.Slot{Meta: checkpoint.CommittedMetadata{Agent: engine.AgentClaudeCode}, Transcript: data}, reason: "without a session ID"},
		{name: "session ID leaving the directory", slot: checkpoint.Slot{Meta: checkpoint.CommittedMetadata{SessionID: "../../../x", Agent: engine.AgentClaudeCode}, Transcript: data},
			reason: `invalid session ID "../../../x"`},
		{name: "session ID leaving the claude project dir", slot: checkpoint.Slot{Meta: checkpoint.CommittedMetadata{SessionID: "../x", Agent: engine.AgentClaudeCode}, Transcript: data},
			place: &override, reason: "invalid session ID"},
	} {
		if tc.reason == "invalid session ID" { // rewind asks placeTranscript directly
			if got := en.placeTranscript(tc.slot.Meta, *tc.place); got != "" {
				t.Errorf("%s: placed at %s", tc.name, got)
			}
		}
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(filepath.Dir(abs))
			if tc.local != "" {
				if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(abs, []byte(tc.local), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			p := place
			if tc.place != nil {
				p = *tc.place
			}
			r, why := en.restoreFor(tc.slot, p)
			if tc.reason != "" {
				if !strings.Contains(why, tc.reason) {
					t.Fatalf("skip reason %q, want %q", why, tc.reason)
				}
				return
			}
			if why != "" || r.Status != tc.want || r.Path != tc.path || r.Lines != 2 {
				t.Fatalf("restore = %+v (%q), want status %v at %s", r, why, tc.want, tc.path)
			}
		})
	}
}

// A transcript that went on past the checkpoint at the recorded path is this checkout's when
// a session of this worktree records it there, though the agent run here would look elsewhere
// (started in a subdirectory): overwriting it takes consent, as always.
func TestRestoreForRecordedHere(t *testing.T) {
	home := t.TempDir()
	en := New(&engine.Engine{Home: home, Store: session.NewStore(t.TempDir()), Repo: gittest.Repo(t)})
	place := TranscriptPlace{Default: func(agent, sid string) string { return filepath.Join(home, "default", sid+".jsonl") }}
	abs := filepath.Join(home, ".claude", "projects", "p", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte("a\nb\nc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	slot := checkpoint.Slot{Meta: checkpoint.CommittedMetadata{SessionID: "s", Agent: engine.AgentClaudeCode,
		TranscriptPath: ".claude/projects/p/s.jsonl"}, Transcript: []byte("a\nb\n")}
	if r, _ := en.restoreFor(slot, place); r.Status != RestoreElsewhere {
		t.Fatalf("no session here: status %v, want RestoreElsewhere", r.Status)
	}
	if err := en.Store.WriteSnapshot(session.State{SessionID: "s", TranscriptPath: abs, BaseCommit: "abc",
		StartedAt: time.Now(), Phase: session.PhaseIdle}); err != nil {
		t.Fatal(err)
	}
	if r, _ := en.restoreFor(slot, place); r.Status != RestoreConflict {
		t.Fatalf("recorded here: status %v, want RestoreConflict", r.Status)
	}
}

func TestWriteTranscriptAndCommand(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a", "b", "s.jsonl")
	if err := WriteTranscript(TranscriptRestore{Path: p, Data: []byte("x\n")}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "x\n" {
		t.Fatalf("wrote %q", got)
	}
	if got := ResumeCommand(engine.AgentClaudeCode, "s1"); got != "claude -r s1" {
		t.Fatalf("command %q", got)
	}
	if got := ResumeCommand("Agent", "s1"); got != "" {
		t.Fatalf("unknown agent command %q", got)
	}
	// An ID from someone else's checkpoint cannot run anything when the command is pasted.
	for id, want := range map[string]string{
		"c010174c-a7cd-4bcc-b7d4-61258d6c463f": "claude -r c010174c-a7cd-4bcc-b7d4-61258d6c463f",
		"x; rm -rf ~":                          `claude -r 'x; rm -rf ~'`,
		"it's $(id)":                           `claude -r 'it'\''s $(id)'`,
	} {
		got := ResumeCommand(engine.AgentClaudeCode, id)
		if got != want {
			t.Errorf("ResumeCommand(%q) = %s, want %s", id, got, want)
		}
		out, err := exec.Command("sh", "-c", "printf %s "+strings.TrimPrefix(got, "claude -r ")).Output()
		if err != nil || string(out) != id {
			t.Errorf("the shell reads %s as %q (%v), want %q", got, out, err, id)
		}
	}
}

func TestFindBranch(t *testing.T) {
	ctx := context.Background()
	en, _ := mtEngine(t)
	gittest.Commit(t, en.Repo, "refs/remotes/origin/topic", "", "topic", map[string]string{"t": "t\n"})
	if b, err := FindBranch(ctx, en.Repo, "main", "origin"); err != nil || b.Track != "" || b.Ref != "refs/heads/main" {
		t.Fatalf("main: %+v %v", b, err)
	}
	if b, err := FindBranch(ctx, en.Repo, "topic", "origin"); err != nil || b.Track != "refs/remotes/origin/topic" {
		t.Fatalf("topic: %+v %v", b, err)
	}
	if _, err := FindBranch(ctx, en.Repo, "nope", "origin"); !errors.Is(err, ErrBranchNotFound) {
		t.Fatalf("nope: %v", err)
	}
}

func TestPlanResumeNewestLinkedCheckpoint(t *testing.T) {
	ctx := context.Background()
	en, head := mtEngine(t)
	const id, missing = "a1b2c3d4e5f6", "0f0f0f0f0f0f"
	files := checkpointtest.SlotFiles(id, "0", "s1")
	files[checkpoint.CheckpointPath(id)+"/metadata.json"] = checkpointtest.Root(id, 1)
	files[checkpoint.CheckpointPath(id)+"/0/full.jsonl"] = checkpointtest.Line1 + "\n"
	gittest.Commit(t, en.Repo, string(checkpoint.MetaRef), "", "Checkpoint: "+id, files)
	older := gittest.Commit(t, en.Repo, "refs/heads/main", gitexec.OID(head), "old\n\nEntire-Checkpoint: "+missing+"\n", map[string]string{"x": "1\n"})
	newest := gittest.Commit(t, en.Repo, "refs/heads/main", older, "work\n\nEntire-Checkpoint: "+id+"\n", map[string]string{"x": "2\n"})
	gittest.Commit(t, en.Repo, "refs/heads/main", newest, "unlinked", map[string]string{"x": "3\n"})
	def := func(agent, sid string) string { return filepath.Join(en.Home, "d", sid+".jsonl") }
	place := TranscriptPlace{Default: def}

	plan, err := en.PlanResume(ctx, "refs/heads/main", nil, place)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Commit == nil || plan.Commit.SHA != newest || len(plan.Restores) != 1 {
		t.Fatalf("plan = %+v", plan)
	}
	if r := plan.Restores[0]; r.SessionID != "s1" || r.Path != def("", "s1") || string(r.Data) != checkpointtest.Line1+"\n" {
		t.Fatalf("restore = %+v", r)
	}
	if _, err := en.PlanResume(ctx, string(older), nil, place); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing checkpoint: %v", err)
	}
	if plan, err := en.PlanResume(ctx, head, nil, place); err != nil || plan.Commit != nil {
		t.Fatalf("unlinked history: %+v %v", plan, err)
	}
}

func TestPlanResumeRestoresEverySlotOldestFirst(t *testing.T) {
	ctx := context.Background()
	en, head := mtEngine(t)
	const id = "b2c3d4e5f6a1"
	line := func(prompt, ts string) string {
		return `{"type":"user","message":{"content":"` + prompt + `"},"timestamp":"` + ts + `"}` + "\n"
	}
	// Slot 0's session went on longer than slot 1's: slot order is not recency.
	late, early := line("late  work", "2026-01-02T03:00:09Z"), line("early work", "2026-01-02T03:00:01Z")
	files := checkpointtest.SlotFiles(id, "0", "s-late")
	for k, v := range checkpointtest.SlotFiles(id, "1", "s-early") {
		files[k] = v
	}
	files[checkpoint.CheckpointPath(id)+"/metadata.json"] = checkpointtest.Root(id, 2)
	files[checkpoint.CheckpointPath(id)+"/0/full.jsonl"] = late
	files[checkpoint.CheckpointPath(id)+"/1/full.jsonl"] = early
	gittest.Commit(t, en.Repo, string(checkpoint.MetaRef), "", "Checkpoint: "+id, files)
	gittest.Commit(t, en.Repo, "refs/heads/main", gitexec.OID(head), "work\n\nEntire-Checkpoint: "+id+"\n", map[string]string{"x": "1\n"})
	dir := t.TempDir()
	// s-early's local file is an earlier part of its checkpoint transcript; s-late's is not.
	if err := os.WriteFile(filepath.Join(dir, "s-late.jsonl"), []byte(line("other", "2026-01-02T03:00:10Z")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s-early.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	place := TranscriptPlace{Default: func(agent, sid string) string { return filepath.Join(dir, sid+".jsonl") }}

	plan, err := en.PlanResume(ctx, "refs/heads/main", nil, place)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		SID, Prompt, Data string
		Status            RestoreStatus
	}
	var have []got
	for _, r := range plan.Restores {
		have = append(have, got{r.SessionID, r.Prompt, string(r.Data), r.Status})
	}
	want := []got{{"s-early", "early work", early, RestoreBehind}, {"s-late", "late work", late, RestoreConflict}}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Fatalf("restores (-want +got):\n%s", diff)
	}
	if c := plan.Conflicts(); len(c) != 1 || c[0].SessionID != "s-late" || c[0].LocalLines != 1 {
		t.Fatalf("conflicts = %+v", c)
	}
}

func TestFetchBranch(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	en := testRepo(t)
	gittest.Identity(t)
	gittest.Git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	gittest.Git(t, en.Repo.TopLevel, "commit", "-q", "--allow-empty", "-m", "init")
	gittest.Git(t, en.Repo.TopLevel, "push", "-q", remote, "HEAD:refs/heads/topic")
	want := gittest.Git(t, en.Repo.TopLevel, "rev-parse", "HEAD")

	if _, err := en.FetchBranch(ctx, "topic", "origin"); !errors.Is(err, ErrBranchNotFound) {
		t.Fatalf("no origin: %v, want ErrBranchNotFound", err)
	}
	gittest.Git(t, en.Repo.TopLevel, "remote", "add", "origin", remote)
	b, err := en.FetchBranch(ctx, "topic", "origin")
	if err != nil || b.Branch != "topic" || b.Track != "refs/remotes/origin/topic" || b.Ref != b.Track {
		t.Fatalf("topic: %+v %v", b, err)
	}
	if got := gittest.Git(t, en.Repo.TopLevel, "rev-parse", "refs/remotes/origin/topic"); got != want {
		t.Fatalf("origin/topic = %s, want %s", got, want)
	}
	for _, name := range []string{"nope", "a:b", "-x", "a b"} {
		if _, err := en.FetchBranch(ctx, name, "origin"); !errors.Is(err, ErrBranchNotFound) {
			t.Fatalf("%q: %v, want ErrBranchNotFound", name, err)
		}
	}
}
