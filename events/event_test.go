package events

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// samples has one populated payload of every type.
func samples() []Payload {
	tr := Transcript{Path: "/t.jsonl", Lines: 3, Offset: 120, LastUUID: "u3"}
	wt := Worktree{Path: "/w", ID: "wt", Head: "0123456789012345678901234567890123456789"}
	return []Payload{
		SessionStarted{SessionID: "s", Agent: "Claude Code", Source: "resume", Transcript: tr, Worktree: wt},
		TurnStarted{SessionID: "s", Agent: "Claude Code", TurnID: "abcdefabcdef", Prompt: "hi <b>", Transcript: tr, Worktree: wt,
			DirtyFiles: []string{"a"}, UntrackedFiles: []string{"b"}, ResetShadow: true, PriorPrompts: []string{"earlier"},
			Attribution: &PromptAttribution{CheckpointNumber: 2, UserLinesAdded: 1, UserAddedPerFile: map[string]int{"a": 1}}},
		TurnEnded{SessionID: "s", Transcript: tr, Worktree: wt, Files: []string{"a"}, Usage: TokenUsage{InputTokens: 1,
			SubagentTokens: &TokenUsage{OutputTokens: 2}}, Summary: "done", Prompts: []string{"p"}, Flushed: true,
			Captured: []FileContent{{Path: "a", Mode: "100644", OID: "o"}, {Path: "d", Deleted: true}}},
		SessionStopped{SessionID: "s", Reason: "clear"},
		GitCommitted{Commit: "c", CheckpointID: "0123456789ab", Branch: "main", Files: []string{"a"}, Overlap: true, TranscriptGrew: true},
		SubagentEnded{SessionID: "s", Agent: "Gemini CLI", ToolUseID: "toolu_1", AgentID: "a1", Files: []string{"x"}, Incremental: true, Todo: []byte(`{"todos":[]}`)},
		ShadowCheckpointWritten{Branch: "entire/0123456-e3b0c4", Commit: "c", BaseCommit: "b", Files: []string{"a"}, Reset: true,
			Chunks: []ChunkRef{{End: 10, Blob: "b1", HashState: []byte{1, 2}}}},
		ShadowCheckpointSkipped{Reason: "no changes"},
		ShadowBranchMigrated{From: "x", To: "y", NewBase: "b"},
		ShadowBranchDeleted{Branch: "x", Commit: "c"},
		CheckpointCondensed{CheckpointID: "0123456789ab", MetadataCommit: "m", UserCommit: "u", Slot: 1, Provisional: true},
		CarriedForward{Branch: "x", Commit: "c", Files: []string{"a"}},
		CheckpointsFinalized{Finalized: []string{"a"}, Failed: map[string]string{"b": "boom"}, ScopeKept: true},
		TaskCheckpointWritten{Branch: "x", Commit: "c", ToolUseID: "toolu_1", Sequence: 2},
		EffectFailed{Effect: "condense", CheckpointID: "0123456789ab", Error: "boom"},
		CommitPrepared{CheckpointID: "0123456789ab"},
		SessionDiscarded{Reason: "entire reset"},
		CheckpointRepaired{CheckpointID: "0123456789ab", UserCommit: "c", MetadataCommit: "m"},
		Rewound{Branch: "x", Commit: "c", BaseCommit: "b", Files: []string{"a"}, Transcript: tr, Prompts: []string{"p"}, Undo: true},
		TranscriptRestored{CheckpointID: "c", Transcripts: []Transcript{tr}, Prompts: []string{"p"}, Tail: "t"},
	}
}

func TestRoundTripEveryType(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 123, time.UTC)
	seen := map[Type]bool{}
	for i, p := range samples() {
		e := New(at, p)
		e.Seq = uint64(i + 1)
		line, err := Encode(e)
		if err != nil {
			t.Fatalf("%s: %v", p.EventType(), err)
		}
		if strings.Contains(string(line), "\n") {
			t.Fatalf("%s: encoded line has a newline", p.EventType())
		}
		got, err := Decode(line)
		if err != nil {
			t.Fatalf("%s: %v", p.EventType(), err)
		}
		if diff := cmp.Diff(e, got); diff != "" {
			t.Errorf("%s round trip (-want +got):\n%s", p.EventType(), diff)
		}
		seen[p.EventType()] = true
	}
	for _, typ := range []Type{TypeSessionStarted, TypeTurnStarted, TypeTurnEnded, TypeSessionStopped, TypeGitCommitted,
		TypeCommitPrepared, TypeSessionDiscarded, TypeSubagentEnded, TypeShadowCheckpointWritten, TypeShadowCheckpointSkipped, TypeShadowBranchMigrated,
		TypeShadowBranchDeleted, TypeCheckpointCondensed, TypeCarriedForward,
		TypeCheckpointsFinalized, TypeTaskCheckpointWritten, TypeEffectFailed, TypeRewound, TypeTranscriptRestored, TypeCheckpointRepaired} {
		if !seen[typ] {
			t.Errorf("no round-trip sample for %s", typ)
		}
	}
}

func TestEncodeLineShape(t *testing.T) {
	e := New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), SessionStopped{SessionID: "s"})
	e.Seq = 7
	line, err := Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"v":1,"seq":7,"type":"session_stopped","time":"2026-01-02T03:04:05Z","data":{"session_id":"s"}}`
	if string(line) != want {
		t.Fatalf("line = %s\nwant   %s", line, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	for name, line := range map[string]string{
		"not json":       `{"v":1,`,
		"unknown type":   `{"v":1,"seq":1,"type":"made_up","time":"2026-01-02T03:04:05Z","data":{}}`,
		"future version": `{"v":99,"seq":1,"type":"session_stopped","time":"2026-01-02T03:04:05Z","data":{}}`,
		"zero version":   `{"seq":1,"type":"session_stopped","data":{}}`,
		"bad payload":    `{"v":1,"seq":1,"type":"turn_ended","time":"2026-01-02T03:04:05Z","data":{"files":"a"}}`,
	} {
		if _, err := Decode([]byte(line)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
	if _, err := Encode(Event{V: 1, Seq: 1, Type: TypeTurnEnded, Data: SessionStopped{}}); err == nil {
		t.Error("a type that does not match its payload was encoded")
	}
}

func TestTokenUsageAdd(t *testing.T) {
	a := TokenUsage{InputTokens: 1, CacheReadTokens: 2, APICallCount: 1, SubagentTokens: &TokenUsage{OutputTokens: 3}}
	b := TokenUsage{InputTokens: 10, OutputTokens: 5, APICallCount: 2}
	got := a.Add(b)
	want := TokenUsage{InputTokens: 11, CacheReadTokens: 2, OutputTokens: 5, APICallCount: 3, SubagentTokens: &TokenUsage{OutputTokens: 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
	if !(TokenUsage{}).IsZero() || got.IsZero() {
		t.Error("IsZero is wrong")
	}
}

func TestTokenUsageSub(t *testing.T) {
	tests := []struct {
		name string
		u, o TokenUsage
		want TokenUsage
	}{
		{"a run's totals less what came before the range",
			TokenUsage{InputTokens: 4000, OutputTokens: 100, APICallCount: 4},
			TokenUsage{OutputTokens: 50, APICallCount: 2},
			TokenUsage{InputTokens: 4000, OutputTokens: 50, APICallCount: 2}},
		{"floored at zero, field by field",
			TokenUsage{InputTokens: 1, CacheCreationTokens: 9, CacheReadTokens: 2, OutputTokens: 3, APICallCount: 1},
			TokenUsage{InputTokens: 5, CacheCreationTokens: 4, CacheReadTokens: 7, OutputTokens: 3, APICallCount: 2},
			TokenUsage{CacheCreationTokens: 5}},
		{"subagent tokens subtracted",
			TokenUsage{SubagentTokens: &TokenUsage{InputTokens: 500, APICallCount: 2}},
			TokenUsage{SubagentTokens: &TokenUsage{InputTokens: 100, APICallCount: 1}},
			TokenUsage{SubagentTokens: &TokenUsage{InputTokens: 400, APICallCount: 1}}},
		{"subagent tokens kept when o has none",
			TokenUsage{OutputTokens: 1, SubagentTokens: &TokenUsage{OutputTokens: 7}},
			TokenUsage{OutputTokens: 1},
			TokenUsage{SubagentTokens: &TokenUsage{OutputTokens: 7}}},
		{"subagent tokens used up are dropped",
			TokenUsage{SubagentTokens: &TokenUsage{OutputTokens: 7}},
			TokenUsage{SubagentTokens: &TokenUsage{OutputTokens: 9}},
			TokenUsage{}},
		{"o's subagent tokens alone change nothing",
			TokenUsage{InputTokens: 3},
			TokenUsage{SubagentTokens: &TokenUsage{InputTokens: 3}},
			TokenUsage{InputTokens: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.u.Sub(tt.o)); diff != "" {
				t.Errorf("%+v.Sub(%+v) (-want +got):\n%s", tt.u, tt.o, diff)
			}
		})
	}
}

// A subagent_ended journaled before the event named its agent decodes as Claude Code's, the
// only agent recorded then.
func TestLegacySubagentEndedAgent(t *testing.T) {
	e, err := Decode([]byte(`{"v":1,"seq":3,"type":"subagent_ended","time":"2026-01-02T03:04:05Z","data":{"session_id":"s","tool_use_id":"t"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Data.(SubagentEnded).Agent; got != "Claude Code" {
		t.Errorf("agent = %q, want Claude Code", got)
	}
}
