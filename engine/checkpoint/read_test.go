package checkpoint_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/checkpoint/checkpointtest"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec"
	"github.com/entirerec/entire/gitexec/gittest"
)

func TestReadChunkedTranscript(t *testing.T) {
	whole := checkpointtest.Line1 + "\n" + checkpointtest.Line2 + "\n" + checkpointtest.Line3 + "\n"
	for _, tc := range []struct {
		name  string
		files map[string]string // slot-relative
	}{
		{"single file", map[string]string{"full.jsonl": whole}},
		// The reference drops the final "\n" of every chunk; the last one keeps the
		// transcript's own trailing newline (spec §3.4).
		{"three chunks", map[string]string{"full.jsonl": checkpointtest.Line1, "full.jsonl.001": checkpointtest.Line2, "full.jsonl.002": checkpointtest.Line3 + "\n"}},
		// Chunks are ordered by number, not by name; a non-numeric suffix is not a chunk.
		{"numeric order", map[string]string{"full.jsonl": checkpointtest.Line1, "full.jsonl.9": checkpointtest.Line2, "full.jsonl.10": checkpointtest.Line3 + "\n", "full.jsonl.bak": "junk"}},
		{"legacy full.log", map[string]string{"full.log": whole}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := gittest.Repo(t)
			id := "ed51f6581660"
			files := checkpointtest.SlotFiles(id, "0", "s1")
			files[checkpoint.CheckpointPath(id)+"/metadata.json"] = checkpointtest.Root(id, 1)
			files[checkpoint.CheckpointPath(id)+"/0/prompt.txt"] = "first prompt\n\n---\n\nsecond prompt"
			for name, data := range tc.files {
				files[checkpoint.CheckpointPath(id)+"/0/"+name] = data
			}
			gittest.Commit(t, repo, "refs/heads/"+checkpoint.MetadataBranch, "", "Checkpoint: "+id, files)
			cp, err := checkpointtest.Reader(t, repo).ReadCheckpoint(context.Background(), "ed5")
			if err != nil {
				t.Fatal(err)
			}
			if len(cp.Slots) != 1 {
				t.Fatalf("slots = %d, want 1", len(cp.Slots))
			}
			s := cp.Slots[0]
			if diff := cmp.Diff(whole, string(s.Transcript)); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"first prompt", "second prompt"}, s.Prompts); diff != "" {
				t.Errorf("prompts (-want +got):\n%s", diff)
			}
			if got, want := string(s.ScopedTranscript()), checkpointtest.Line3+"\n"; got != want {
				t.Errorf("scoped transcript = %q, want %q", got, want)
			}
			if diff := cmp.Diff([]string{"second prompt"}, s.ScopedPrompts()); diff != "" {
				t.Errorf("scoped prompts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadGeminiChunksMerge(t *testing.T) {
	got, err := checkpoint.JoinChunks("Gemini CLI", [][]byte{[]byte(`{"messages":[{"id":"1"}]}`), []byte(`{"messages":[{"id":"2"},{"id":"3"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"messages":[{"id":"1"},{"id":"2"},{"id":"3"}]}`; string(got) != want {
		t.Errorf("gemini reassembly = %s, want %s", got, want)
	}
}

func TestReadLegacyRoot(t *testing.T) {
	repo := gittest.Repo(t)
	id := "1a2b3c4d5e6f"
	cp := checkpoint.CheckpointPath(id)
	gittest.Commit(t, repo, "refs/heads/"+checkpoint.MetadataBranch, "", "Checkpoint: "+id, map[string]string{
		cp + "/metadata.json": `{"checkpoint_id":"1a2b3c4d5e6f","session_id":"latest","created_at":"2025-12-01T10:00:00Z",` +
			`"checkpoints_count":2,"files_touched":["f.go"],"agent":"Claude Code","is_task":false,"tool_use_id":"",` +
			`"session_count":2,"session_ids":["older","latest"]}`,
		cp + "/full.jsonl":      checkpointtest.Line1 + "\n",
		cp + "/prompt.txt":      "first prompt",
		cp + "/1/metadata.json": `{"checkpoint_id":"1a2b3c4d5e6f","session_id":"older","created_at":"2025-11-30T10:00:00Z"}`,
		cp + "/1/full.jsonl":    checkpointtest.Line3 + "\n",
	})
	c, err := checkpointtest.Reader(t, repo).ReadCheckpoint(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Legacy {
		t.Error("Legacy = false, want true")
	}
	var sessions, transcripts []string
	for _, s := range c.Slots {
		sessions = append(sessions, s.Meta.SessionID)
		transcripts = append(transcripts, string(s.Transcript))
	}
	if diff := cmp.Diff([]string{"older", "latest"}, sessions); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{checkpointtest.Line3 + "\n", checkpointtest.Line1 + "\n"}, transcripts); diff != "" {
		t.Errorf("transcripts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"f.go"}, c.Summary.FilesTouched); diff != "" {
		t.Errorf("summary files (-want +got):\n%s", diff)
	}
	if c.Summary.CheckpointsCount != 2 {
		t.Errorf("summary checkpoints_count = %d, want 2", c.Summary.CheckpointsCount)
	}
}

func TestReadResolvePrefix(t *testing.T) {
	repo := gittest.Repo(t)
	files := map[string]string{}
	for _, id := range []string{"ab0000000001", "ab0000000002", "cd0000000001"} {
		files[checkpoint.CheckpointPath(id)+"/metadata.json"] = checkpointtest.Root(id, 1)
		for k, v := range checkpointtest.SlotFiles(id, "0", "s-"+id) {
			files[k] = v
		}
	}
	files["ab/not-an-id/metadata.json"] = "{}"    // not 10 hex: not a checkpoint
	files["cd/0000000002/full.jsonl"] = "ignored" // no metadata.json: not a checkpoint
	gittest.Commit(t, repo, "refs/heads/"+checkpoint.MetadataBranch, "", "Checkpoints", files)
	r := checkpointtest.Reader(t, repo)
	ctx := context.Background()

	ids, err := r.ListCommitted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ab0000000001", "ab0000000002", "cd0000000001"}, ids); diff != "" {
		t.Errorf("ListCommitted (-want +got):\n%s", diff)
	}
	for prefix, want := range map[string]string{"cd": "cd0000000001", "AB0000000002": "ab0000000002", "ab0000000001": "ab0000000001"} {
		if got, err := r.Resolve(ctx, prefix); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", prefix, got, err, want)
		}
	}
	for _, prefix := range []string{"ef", "", "cd0000000002", "zz"} {
		if _, err := r.Resolve(ctx, prefix); !errors.Is(err, checkpoint.ErrCheckpointNotFound) {
			t.Errorf("Resolve(%q) error = %v, want ErrCheckpointNotFound", prefix, err)
		}
	}
	_, err = r.ReadCheckpoint(ctx, "ab")
	var amb *checkpoint.AmbiguousError
	if !errors.As(err, &amb) {
		t.Fatalf("ReadCheckpoint(ab) error = %v, want *AmbiguousError", err)
	}
	if diff := cmp.Diff([]string{"ab0000000001", "ab0000000002"}, amb.Candidates); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), "ab0000000001, ab0000000002") {
		t.Errorf("error %q does not list the candidates", err)
	}
}

func TestReadWithoutMetadataBranch(t *testing.T) {
	repo := gittest.Repo(t)
	r := checkpointtest.Reader(t, repo)
	ids, err := r.ListCommitted(context.Background())
	if err != nil || len(ids) != 0 {
		t.Errorf("ListCommitted = %v, %v; want none", ids, err)
	}
	if _, err := r.ReadCheckpoint(context.Background(), "ab"); !errors.Is(err, checkpoint.ErrCheckpointNotFound) {
		t.Errorf("ReadCheckpoint error = %v, want ErrCheckpointNotFound", err)
	}
}

func TestReadLinkedCommits(t *testing.T) {
	repo := gittest.Repo(t)
	ref := "refs/heads/main"
	c1 := gittest.Commit(t, repo, ref, "", "Add a\n\nEntire-Checkpoint: aaaaaaaaaaaa\n", map[string]string{"a": "a"})
	c2 := gittest.Commit(t, repo, ref, c1, "No trailer\n", map[string]string{"b": "b"})
	c3 := gittest.Commit(t, repo, ref, c2, "Add c\n\nEntire-Checkpoint:bbbbbbbbbbbb\n", map[string]string{"c": "c"})
	c4 := gittest.Commit(t, repo, ref, c3, "Bad trailer\n\nEntire-Checkpoint: BBBBBBBBBBBB\n", map[string]string{"d": "d"})
	_ = c4
	ctx := context.Background()
	all, err := checkpoint.LinkedCommits(ctx, repo, "HEAD", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range all {
		got = append(got, c.CheckpointID+" "+c.Subject+" "+c.SHA.Short(12)+" "+c.Author)
	}
	want := []string{
		"bbbbbbbbbbbb Add c " + c3.Short(12) + " Test User <user@example.com>",
		"aaaaaaaaaaaa Add a " + c1.Short(12) + " Test User <user@example.com>",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LinkedCommits (-want +got):\n%s", diff)
	}
	one, err := checkpoint.LinkedCommits(ctx, repo, "HEAD", "aaaaaaaaaaaa", 0)
	if err != nil || len(one) != 1 || one[0].SHA != c1 {
		t.Errorf("LinkedCommits(aaaa…) = %v, %v; want only %s", one, err, c1)
	}
	if limited, _ := checkpoint.LinkedCommits(ctx, repo, "HEAD", "", 1); len(limited) != 1 || limited[0].SHA != c3 {
		t.Errorf("LinkedCommits limit 1 = %v, want only %s", limited, c3)
	}
}

func TestReadTemporary(t *testing.T) {
	repo := gittest.Repo(t)
	base := gittest.Commit(t, repo, "refs/heads/main", "", "init\n", map[string]string{"README": "hi\n"})
	branch := session.ShadowBranch(string(base), "")
	ref := "refs/heads/" + branch
	meta := ".entire/metadata/sess-t"
	// The first turn on this branch is the session's second: its first turn was condensed.
	first := gittest.Commit(t, repo, ref, "", "Add a\n\nEntire-Metadata: "+meta+"\nEntire-Session: sess-t\nEntire-Strategy: manual-commit\n",
		map[string]string{"README": "hi\n", "a.go": "a\n", meta + "/full.jsonl": checkpointtest.Line1 + "\n" + checkpointtest.Line2 + "\n" + checkpointtest.Line3 + "\n", meta + "/prompt.txt": "second prompt"})
	second := gittest.Commit(t, repo, ref, first, "Add b\n\nEntire-Metadata: "+meta+"\nEntire-Session: sess-t\nEntire-Strategy: manual-commit\n",
		map[string]string{"b.go": "b\n", meta + "/full.jsonl": checkpointtest.Line1 + "\n" + checkpointtest.Line2 + "\n" + checkpointtest.Line3 + "\n" + checkpointtest.Line4 + "\n", meta + "/prompt.txt": "second prompt"})
	// A carry-forward commit: empty Entire-Metadata, read line by line (spec §2.3).
	carry := gittest.Commit(t, repo, ref, second, "carry forward: uncommitted session files\n\nEntire-Metadata: \nEntire-Session: sess-t\nEntire-Strategy: manual-commit\n",
		map[string]string{"c.go": "c\n"})
	ctx := context.Background()
	tcs, err := checkpoint.ListTemporary(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range tcs {
		got = append(got, tc.Commit.Short(7)+" "+tc.SessionID+" "+tc.MetadataDir+" "+tc.Subject)
	}
	want := []string{
		carry.Short(7) + " sess-t " + meta + " carry forward: uncommitted session files",
		second.Short(7) + " sess-t " + meta + " Add b",
		first.Short(7) + " sess-t " + meta + " Add a",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListTemporary (-want +got):\n%s", diff)
	}
	tc, err := checkpoint.FindTemporary(ctx, repo, second.Short(9))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := checkpoint.ReadTemporary(ctx, repo, tc)
	if err != nil {
		t.Fatal(err)
	}
	s := cp.Slots[0]
	if !cp.Temporary || cp.ID != string(second) {
		t.Errorf("checkpoint = %s temporary=%v, want %s temporary", cp.ID, cp.Temporary, second)
	}
	if s.TranscriptStart() != 3 || string(s.ScopedTranscript()) != checkpointtest.Line4+"\n" {
		t.Errorf("scope starts at %d: %q, want line 3: the parent's transcript ended there", s.TranscriptStart(), s.ScopedTranscript())
	}
	if diff := cmp.Diff([]string{"b.go"}, s.Meta.FilesTouched); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	// The branch's first commit is scoped from its turn's first prompt (prompt.txt).
	tc, err = checkpoint.FindTemporary(ctx, repo, string(first))
	if err != nil {
		t.Fatal(err)
	}
	if cp, err = checkpoint.ReadTemporary(ctx, repo, tc); err != nil {
		t.Fatal(err)
	}
	if got := cp.Slots[0].TranscriptStart(); got != 2 {
		t.Errorf("first commit scope starts at %d, want 2 (the line of prompt.txt's first prompt)", got)
	}
	if diff := cmp.Diff([]string{"a.go"}, cp.Slots[0].Meta.FilesTouched); diff != "" {
		t.Errorf("first commit files (-want +got):\n%s", diff)
	}
	if _, err := checkpoint.FindTemporary(ctx, repo, "ffffffff"); !errors.Is(err, checkpoint.ErrCheckpointNotFound) {
		t.Errorf("FindTemporary(unknown) error = %v, want ErrCheckpointNotFound", err)
	}
}

// TestReadTemporaryTask reads the reference's task commits (spec §2.4): the trailer names
// tasks/<tool-use-id> (or an incremental step's file there), and the transcript is the
// session's full.jsonl on the same tree; prompt.txt there is the last turn end's.
func TestReadTemporaryTask(t *testing.T) {
	repo := gittest.Repo(t)
	base := gittest.Commit(t, repo, "refs/heads/main", "", "init\n", map[string]string{"README": "hi\n"})
	ref := "refs/heads/" + session.ShadowBranch(string(base), "")
	meta := ".entire/metadata/sess-t"
	task := meta + "/tasks/toolu_x"
	trailers := "\nEntire-Session: sess-t\nEntire-Strategy: manual-commit\n"
	stop := gittest.Commit(t, repo, ref, "", "First prompt\n\nEntire-Metadata: "+meta+trailers,
		map[string]string{"README": "hi\n", "a.go": "a\n", meta + "/full.jsonl": checkpointtest.Line1 + "\n" + checkpointtest.Line2 + "\n", meta + "/prompt.txt": "first prompt"})
	final := gittest.Commit(t, repo, ref, stop, "Completed 'dev' agent: write b (toolu_x)\n\nEntire-Metadata-Task: "+task+trailers,
		map[string]string{"b.go": "b\n", meta + "/full.jsonl": checkpointtest.Line1 + "\n" + checkpointtest.Line2 + "\n" + checkpointtest.Line3 + "\n" + checkpointtest.Line4 + "\n",
			task + "/checkpoint.json": `{"session_id": "sess-t", "tool_use_id": "toolu_x", "checkpoint_uuid": "", "agent_id": "a1"}`, task + "/agent-a1.jsonl": checkpointtest.Line2 + "\n"})
	step := gittest.Commit(t, repo, ref, final, "Write c (toolu_x)\n\nEntire-Metadata-Task: "+task+"/checkpoints/001-toolu_x.json"+trailers,
		map[string]string{"c.go": "c\n", task + "/checkpoints/001-toolu_x.json": `{"type": "TodoWrite"}`})
	ctx := context.Background()
	read := func(commit gitexec.OID) checkpoint.Slot {
		t.Helper()
		tc, err := checkpoint.FindTemporary(ctx, repo, string(commit))
		if err != nil {
			t.Fatal(err)
		}
		cp, err := checkpoint.ReadTemporary(ctx, repo, tc)
		if err != nil {
			t.Fatalf("ReadTemporary(%s): %v", commit.Short(7), err)
		}
		return cp.Slots[0]
	}
	s := read(final)
	if diff := cmp.Diff([]string{"second prompt"}, s.Prompts); diff != "" {
		t.Errorf("task commit prompts (-want +got):\n%s", diff)
	}
	if got, want := string(s.ScopedTranscript()), checkpointtest.Line3+"\n"+checkpointtest.Line4+"\n"; got != want {
		t.Errorf("task commit scope = %q, want %q (after the parent's transcript)", got, want)
	}
	if !s.Meta.IsTask || s.Meta.ToolUseID != "toolu_x" || !slices.Equal(s.Meta.FilesTouched, []string{"b.go"}) {
		t.Errorf("task commit meta: is_task %v, tool_use_id %q, files %v", s.Meta.IsTask, s.Meta.ToolUseID, s.Meta.FilesTouched)
	}
	s = read(step)
	if len(s.Prompts) != 0 || len(s.ScopedTranscript()) != 0 || s.Meta.ToolUseID != "toolu_x" || !slices.Equal(s.Meta.FilesTouched, []string{"c.go"}) {
		t.Errorf("incremental step: prompts %q, scope %q, tool_use_id %q, files %v", s.Prompts, s.ScopedTranscript(), s.Meta.ToolUseID, s.Meta.FilesTouched)
	}
}

func TestReadTranscriptEntries(t *testing.T) {
	data := strings.Join([]string{
		`{"type":"user","message":{"content":"<system-reminder>x</system-reminder>Do it"}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"Sure."},{"type":"tool_use","name":"Bash","input":{"command":"ls","description":"list files"}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":"/r/a.go","content":"x"}}]}}`,
		`not json`,
		`{"type":"user","message":{"content":[{"type":"text","text":"part one"},{"type":"text","text":"part two"}]}}`,
	}, "\n")
	want := []checkpoint.TranscriptEntry{
		{Kind: "user", Text: "Do it"},
		{Kind: "assistant", Text: "Sure."},
		{Kind: "tool", Tool: "Bash", Text: "list files"},
		{Kind: "tool", Tool: "Write", Text: "/r/a.go"},
		{Kind: "user", Text: "part one\n\npart two"},
	}
	if diff := cmp.Diff(want, checkpoint.TranscriptEntries([]byte(data))); diff != "" {
		t.Errorf("TranscriptEntries (-want +got):\n%s", diff)
	}
}

func TestReadSkipLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 0, "a\nb\nc\n"},
		{"a\nb\nc\n", 2, "c\n"},
		{"a\nb\nc", 2, "c"},
		{"a\nb\n", 2, ""},
		{"a\nb\n", 5, ""},
	} {
		if got := string(checkpoint.SkipLines([]byte(tc.in), tc.n)); got != tc.want {
			t.Errorf("SkipLines(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// Gemini CLI's chat files are JSON lines since v0.39: their chunks join like any JSONL
// transcript's; only {"messages":[...]} chunks (the older document) are merged.
func TestJoinChunksGeminiLines(t *testing.T) {
	parts := [][]byte{[]byte(`{"sessionId":"g"}` + "\n" + `{"id":"m1","type":"user"}`), []byte(`{"id":"m2","type":"gemini"}`)}
	got, err := checkpoint.JoinChunks("Gemini CLI", parts)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"sessionId":"g"}` + "\n" + `{"id":"m1","type":"user"}` + "\n" + `{"id":"m2","type":"gemini"}`; string(got) != want {
		t.Errorf("joined %q", got)
	}
	doc, err := checkpoint.JoinChunks("Gemini CLI", [][]byte{[]byte(`{"messages":[{"id":"a"}]}`), []byte(`{"messages":[{"id":"b"}]}`)})
	if err != nil || string(doc) != `{"messages":[{"id":"a"},{"id":"b"}]}` {
		t.Errorf("merged %q (%v)", doc, err)
	}
}

// A Gemini CLI chat document's checkpoint_transcript_start counts messages (spec §12.4): the
// scope of a checkpoint that starts at message 2 is turn 2, whether the document is stored
// pretty-printed (as Gemini writes it) or merged from chunks (compact); the prompts and the
// entries explain shows are turn 2's. Its JSONL chat files are scoped by lines, as before.
func TestReadScopedGeminiDocument(t *testing.T) {
	pretty := "{\n  \"sessionId\": \"g\",\n  \"messages\": [\n" +
		"    {\"id\": \"u1\", \"type\": \"user\", \"content\": \"write f1\"},\n" +
		"    {\"id\": \"g1\", \"type\": \"gemini\", \"content\": \"Wrote f1.\", \"toolCalls\": [{\"name\": \"write_file\", \"args\": {\"file_path\": \"/r/f1.txt\"}}]},\n" +
		"    {\"id\": \"u2\", \"type\": \"user\", \"content\": \"write f2\"},\n" +
		"    {\"id\": \"g2\", \"type\": \"gemini\", \"content\": \"Wrote f2.\", \"toolCalls\": [{\"name\": \"write_file\", \"args\": {\"file_path\": \"/r/f2.txt\"}}]}\n" +
		"  ]\n}"
	compact := `{"messages":[{"id":"u1","type":"user","content":"write f1"},{"id":"g1","type":"gemini","content":"Wrote f1.","toolCalls":[{"name":"write_file","args":{"file_path":"/r/f1.txt"}}]},` +
		`{"id":"u2","type":"user","content":"write f2"},{"id":"g2","type":"gemini","content":"Wrote f2.","toolCalls":[{"name":"write_file","args":{"file_path":"/r/f2.txt"}}]}]}`
	turn2 := `{"messages":[{"id":"u2","type":"user","content":"write f2"},{"id":"g2","type":"gemini","content":"Wrote f2.","toolCalls":[{"name":"write_file","args":{"file_path":"/r/f2.txt"}}]}]}`
	entries := []checkpoint.TranscriptEntry{
		{Kind: "user", Text: "write f2"},
		{Kind: "tool", Tool: "write_file", Text: "/r/f2.txt"},
		{Kind: "assistant", Text: "Wrote f2."},
	}
	for name, doc := range map[string]string{"pretty": pretty, "merged": compact} {
		s := checkpoint.Slot{Meta: checkpoint.CommittedMetadata{Agent: "Gemini CLI", CheckpointTranscriptStart: 2}, Transcript: []byte(doc)}
		if got := string(s.ScopedTranscript()); got != turn2 {
			t.Errorf("%s: scoped transcript = %s, want %s", name, got, turn2)
		}
		if diff := cmp.Diff([]string{"write f2"}, s.ScopedPrompts()); diff != "" {
			t.Errorf("%s: scoped prompts (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(entries, s.Entries(s.ScopedTranscript())); diff != "" {
			t.Errorf("%s: scoped entries (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff([]string{"write f1", "write f2"}, s.AllPrompts()); diff != "" {
			t.Errorf("%s: all prompts (-want +got):\n%s", name, diff)
		}
	}
	lines := `{"sessionId":"g"}` + "\n" + `{"id":"u1","type":"user","content":"write f1"}` + "\n" + `{"id":"u2","type":"user","content":"write f2"}` + "\n"
	s := checkpoint.Slot{Meta: checkpoint.CommittedMetadata{Agent: "Gemini CLI", CheckpointTranscriptStart: 2}, Transcript: []byte(lines)}
	if diff := cmp.Diff([]string{"write f2"}, s.ScopedPrompts()); diff != "" {
		t.Errorf("JSONL scoped prompts (-want +got):\n%s", diff)
	}
}

// A Gemini CLI chat document (before v0.39) of several turns is shown in the order of its
// messages, each prompt before its turn's tool calls and answer, whether pretty-printed as
// Gemini writes it or compact as the reader merges chunks. Scanned as one record, explain
// listed every prompt first, then every tool call, then only the last answer.
func TestReadEntriesGeminiDocumentInOrder(t *testing.T) {
	pretty := "{\n  \"sessionId\": \"g\",\n  \"messages\": [\n" +
		"    {\"id\": \"u1\", \"type\": \"user\", \"content\": \"write f1\"},\n" +
		"    {\"id\": \"g1\", \"type\": \"gemini\", \"content\": \"Wrote f1.\", \"toolCalls\": [{\"name\": \"write_file\", \"args\": {\"file_path\": \"/r/f1.txt\"}}]},\n" +
		"    {\"id\": \"i1\", \"type\": \"info\", \"content\": \"note\"},\n" +
		"    {\"id\": \"u2\", \"type\": \"user\", \"content\": [{\"text\": \"write f2\"}]},\n" +
		"    {\"id\": \"g2\", \"type\": \"gemini\", \"content\": \"\", \"toolCalls\": [{\"name\": \"run_shell_command\", \"args\": {\"command\": \"ls\"}}]},\n" +
		"    {\"id\": \"g3\", \"type\": \"gemini\", \"content\": \"Wrote f2.\", \"toolCalls\": [{\"name\": \"write_file\", \"args\": {\"file_path\": \"/r/f2.txt\"}}]}\n" +
		"  ]\n}\n"
	compact := `{"messages":[{"id":"u1","type":"user","content":"write f1"},{"id":"g1","type":"gemini","content":"Wrote f1.","toolCalls":[{"name":"write_file","args":{"file_path":"/r/f1.txt"}}]},{"id":"i1","type":"info","content":"note"},` +
		`{"id":"u2","type":"user","content":[{"text":"write f2"}]},{"id":"g2","type":"gemini","content":"","toolCalls":[{"name":"run_shell_command","args":{"command":"ls"}}]},` +
		`{"id":"g3","type":"gemini","content":"Wrote f2.","toolCalls":[{"name":"write_file","args":{"file_path":"/r/f2.txt"}}]}]}`
	want := []checkpoint.TranscriptEntry{
		{Kind: "user", Text: "write f1"},
		{Kind: "tool", Tool: "write_file", Text: "/r/f1.txt"},
		{Kind: "assistant", Text: "Wrote f1."},
		{Kind: "user", Text: "write f2"},
		{Kind: "tool", Tool: "run_shell_command", Text: "ls"},
		{Kind: "tool", Tool: "write_file", Text: "/r/f2.txt"},
		{Kind: "assistant", Text: "Wrote f2."},
	}
	for name, doc := range map[string]string{"pretty": pretty, "compact": compact} {
		s := checkpoint.Slot{Meta: checkpoint.CommittedMetadata{Agent: "Gemini CLI"}, Transcript: []byte(doc)}
		if diff := cmp.Diff(want, s.Entries(s.Transcript)); diff != "" {
			t.Errorf("%s entries (-want +got):\n%s", name, diff)
		}
	}
}

// Gemini CLI's JSONL drops the messages a "$rewindTo" record names (the user rewound the
// conversation): explain shows what is left, as the prompts and the token usage count it. Read
// line by line, the dropped answer was shown between the turns.
func TestReadEntriesGeminiRewound(t *testing.T) {
	data := strings.Join([]string{
		`{"sessionId":"g","projectHash":"p","kind":"main"}`,
		`{"id":"u1","type":"user","content":[{"text":"write a"}]}`,
		`{"id":"g1","type":"gemini","content":"Wrote a.","toolCalls":[{"name":"write_file","args":{"file_path":"/r/a.txt"}}]}`,
		`{"id":"u2","type":"user","content":[{"text":"write b"}]}`,
		`{"id":"g2","type":"gemini","content":"Wrote b.","toolCalls":[{"name":"write_file","args":{"file_path":"/r/b.txt"}}]}`,
		`{"$rewindTo":"u2"}`,
		`{"id":"u3","type":"user","content":[{"text":"write c"}]}`,
		`{"id":"g3","type":"gemini","content":"","toolCalls":[{"name":"write_file","args":{"file_path":"/r/c.txt"}}]}`,
		`{"id":"g3","type":"gemini","content":"Wrote c.","toolCalls":[{"name":"write_file","args":{"file_path":"/r/c.txt"}}]}`,
	}, "\n")
	want := []checkpoint.TranscriptEntry{
		{Kind: "user", Text: "write a"},
		{Kind: "tool", Tool: "write_file", Text: "/r/a.txt"},
		{Kind: "assistant", Text: "Wrote a."},
		{Kind: "user", Text: "write c"},
		{Kind: "tool", Tool: "write_file", Text: "/r/c.txt"},
		{Kind: "assistant", Text: "Wrote c."},
	}
	s := checkpoint.Slot{Meta: checkpoint.CommittedMetadata{Agent: "Gemini CLI"}, Transcript: []byte(data)}
	if diff := cmp.Diff(want, s.Entries(s.Transcript)); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

// An agent whose transcript holds one message in several records is shown each message once:
// Codex writes every prompt and answer both as a response_item and as an event_msg, and Gemini
// CLI appends a message again each time it changes (its scanner keeps the last record of an
// id, in the first one's place). Scanned line by line, explain showed them twice.
func TestReadEntriesOneRecordPerMessage(t *testing.T) {
	codex := strings.Join([]string{
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add hello"}]}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"Add hello"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Added."}]}}`,
		`{"type":"event_msg","payload":{"type":"agent_message","message":"Added."}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Again"}]}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"Again"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c2"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c3"}}`,
		`{"type":"event_msg","payload":{"type":"agent_message","message":"Done."}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}`,
	}, "\n") + "\n"
	gemini := strings.Join([]string{
		`{"sessionId":"g","projectHash":"p","kind":"main"}`,
		`{"id":"m1","type":"user","content":[{"text":"write f1"}]}`,
		`{"id":"m2","type":"gemini","content":"","toolCalls":[{"id":"w1","name":"write_file","args":{"file_path":"/r/f1.txt"},"status":"executing"}]}`,
		`{"id":"m2","type":"gemini","content":"Wrote f1.","toolCalls":[{"id":"w1","name":"write_file","args":{"file_path":"/r/f1.txt"},"status":"success"}]}`,
		`{"id":"m2","type":"gemini","content":"Wrote f1.","toolCalls":[{"id":"w1","name":"write_file","args":{"file_path":"/r/f1.txt"},"status":"success"}],"tokens":{"input":10,"output":2}}`,
	}, "\n") + "\n"
	for _, tc := range []struct {
		agent, data string
		want        []checkpoint.TranscriptEntry
	}{
		{"Codex", codex, []checkpoint.TranscriptEntry{
			{Kind: "user", Text: "Add hello"},
			{Kind: "tool", Tool: "exec_command", Text: "ls"},
			{Kind: "assistant", Text: "Added."},
			{Kind: "user", Text: "Again"},
			{Kind: "tool", Tool: "exec_command", Text: "ls"},
			{Kind: "tool", Tool: "exec_command", Text: "ls"},
			{Kind: "assistant", Text: "Done."},
		}},
		{"Gemini CLI", gemini, []checkpoint.TranscriptEntry{
			{Kind: "user", Text: "write f1"},
			{Kind: "tool", Tool: "write_file", Text: "/r/f1.txt"},
			{Kind: "assistant", Text: "Wrote f1."},
		}},
	} {
		s := checkpoint.Slot{Meta: checkpoint.CommittedMetadata{Agent: tc.agent}, Transcript: []byte(tc.data)}
		if diff := cmp.Diff(tc.want, s.Entries(s.Transcript)); diff != "" {
			t.Errorf("%s entries (-want +got):\n%s", tc.agent, diff)
		}
	}
}

// A record holding several steps (an assistant message with texts and tool calls) is shown
// step by step in the order written, every text of it. Read through each agent's Scan, explain
// showed the record's tool calls first, then only its last text: "Writing hello." came after
// the Write it announced, and "First." was lost.
func TestReadEntriesRecordInOrder(t *testing.T) {
	want := []checkpoint.TranscriptEntry{
		{Kind: "user", Text: "Add hello"},
		{Kind: "assistant", Text: "First."},
		{Kind: "assistant", Text: "Writing hello."},
		{Kind: "tool", Tool: "Write", Text: "/r/hello.go"},
		{Kind: "assistant", Text: "Done."},
	}
	lines := func(l ...string) string { return strings.Join(l, "\n") + "\n" }
	for _, tc := range []struct {
		agent, data string
		want        []checkpoint.TranscriptEntry
	}{
		{"Cursor", lines(
			`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nAdd hello\n</user_query>"}]}}`,
			`{"role":"assistant","message":{"content":[{"type":"text","text":"First."},{"type":"text","text":"Writing hello."},{"type":"tool_use","name":"Write","input":{"path":"/r/hello.go"}},{"type":"text","text":"Done."}]}}`,
		), want},
		{"Factory AI Droid", lines(
			`{"type":"message","id":"u1","message":{"role":"user","content":[{"type":"text","text":"Add hello"}]}}`,
			`{"type":"message","id":"a1","message":{"role":"assistant","content":[{"type":"text","text":"First."},{"type":"text","text":"Writing hello."},{"type":"tool_use","name":"Write","input":{"file_path":"/r/hello.go"}},{"type":"text","text":"Done."}]}}`,
		), want},
		{"OpenCode", lines(
			`{"info":{"id":"u1","role":"user"},"parts":[{"type":"text","text":"Add hello"}]}`,
			`{"info":{"id":"a1","role":"assistant"},"parts":[{"type":"step-start"},{"type":"text","text":"First."},{"type":"text","text":"Writing hello."},{"type":"tool","tool":"Write","state":{"status":"completed","input":{"filePath":"/r/hello.go"}}},{"type":"text","text":"Done."},{"type":"step-finish"}]}`,
		), want},
		{"Copilot CLI", lines(
			`{"type":"user.message","id":"1","data":{"content":"Add hello"}}`,
			`{"type":"assistant.message","id":"2","data":{"messageId":"m1","content":"Writing hello.","toolRequests":[{"name":"Write","arguments":{"path":"/r/hello.go"}}]}}`,
			`{"type":"assistant.message","id":"3","data":{"messageId":"m2","content":"Done.","toolRequests":[]}}`,
		), slices.Delete(slices.Clone(want), 1, 2)},
		{"Codex", lines(
			`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add hello"}]}}`,
			`{"type":"event_msg","payload":{"type":"user_message","message":"Add hello"}}`,
			`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"First."},{"type":"output_text","text":"Writing hello."}]}}`,
			`{"type":"response_item","payload":{"type":"function_call","name":"Write","arguments":"{\"cmd\":\"/r/hello.go\"}"}}`,
			`{"type":"event_msg","payload":{"type":"agent_message","message":"Done."}}`,
			`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}`,
		), want},
	} {
		s := checkpoint.Slot{Meta: checkpoint.CommittedMetadata{Agent: tc.agent}, Transcript: []byte(tc.data)}
		if diff := cmp.Diff(tc.want, s.Entries(s.Transcript)); diff != "" {
			t.Errorf("%s entries (-want +got):\n%s", tc.agent, diff)
		}
	}
}
