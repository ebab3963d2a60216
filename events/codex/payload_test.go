package codex

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
)

const (
	sessionID   = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	rootRollout = "/home/u/.codex/sessions/2026/03/14/rollout-2026-03-14T09-30-12-019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b.jsonl"
	childID     = "019a2b3c-aaaa-7bbb-8ccc-ddddeeeeffff"
	childPath   = "/home/u/.codex/sessions/2026/03/14/rollout-2026-03-14T09-41-03-019a2b3c-aaaa-7bbb-8ccc-ddddeeeeffff.jsonl"
)

func TestParseFiles(t *testing.T) {
	tests := []struct {
		verb, file string
		want       agent.Hook
	}{
		{"session-start", "testdata/session-start.json", agent.Hook{Kind: agent.SessionStart, SessionID: sessionID,
			TranscriptPath: rootRollout, Source: "startup", Model: "gpt-5.5-codex"}},
		{"user-prompt-submit", "testdata/user-prompt-submit.json", agent.Hook{Kind: agent.TurnStart, SessionID: sessionID,
			TranscriptPath: rootRollout, Prompt: "Ask a reviewer subagent to check the change.", Model: "gpt-5.5-codex",
			TurnID: "019a2b3c-5000-7000-8000-000000000003"}},
		// last_assistant_message is null: LastMessage stays "".
		{"stop", "testdata/stop.json", agent.Hook{Kind: agent.TurnEnd, SessionID: sessionID, TranscriptPath: rootRollout,
			Model: "gpt-5.5-codex"}},
		// The child's rollout under the parent's session_id: a subagent thread's Stop.
		{"stop", "testdata/stop-subagent-thread.json", agent.Hook{Kind: agent.Ignore, SessionID: sessionID,
			TranscriptPath: childPath, LastMessage: "No problems found.", Model: "gpt-5.5-codex"}},
		{"subagent-start", "testdata/subagent-start.json", agent.Hook{Kind: agent.SubagentStart, SessionID: sessionID,
			TranscriptPath: rootRollout, Model: "gpt-5.5-codex", ToolUseID: childID, SubagentID: childID, SubagentType: "reviewer"}},
		{"subagent-stop", "testdata/subagent-stop.json", agent.Hook{Kind: agent.SubagentEnd, SessionID: sessionID,
			TranscriptPath: rootRollout, Model: "gpt-5.5-codex", ToolUseID: childID, SubagentID: childID, SubagentType: "reviewer",
			SubagentTranscript: childPath, LastMessage: "No problems found."}},
		{"post-tool-use", "testdata/post-tool-use.json", agent.Hook{Kind: agent.Ignore, SessionID: sessionID,
			TranscriptPath: rootRollout, Model: "gpt-5.5-codex", ToolName: "apply_patch", ToolUseID: "call_A2",
			ToolInput: []byte(`{"command":"*** Begin Patch\n*** Update File: cmd/tool/main.go\n@@\n+\tverbose := flag.Bool(\"verbose\", false, \"log every step\")\n*** End Patch\n"}`)}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Agent{}.Parse(tt.verb, data)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%s, %s) (-want +got):\n%s", tt.verb, tt.file, diff)
		}
	}
}

func TestParse(t *testing.T) {
	const root = `"session_id":"s1","transcript_path":"/c/sessions/2026/01/02/rollout-2026-01-02T03-04-05-s1.jsonl"`
	tests := []struct {
		name, verb, in string
		want           agent.Hook
		wantErr        string
	}{
		{name: "unknown verb", verb: "notification", in: `{}`, wantErr: `unknown codex hook "notification"`},
		{name: "camel-case verb", verb: "UserPromptSubmit", in: `{}`, wantErr: "unknown codex hook"},
		{name: "empty", verb: "stop", in: "", wantErr: "empty"},
		{name: "blank", verb: "stop", in: " \n", wantErr: "empty"},
		{name: "invalid", verb: "stop", in: "{", wantErr: "not valid JSON"},
		{name: "trailing data", verb: "stop", in: `{} {}`, wantErr: "not valid JSON"},
		{name: "array", verb: "stop", in: `[]`, wantErr: "not a JSON object"},
		{name: "null", verb: "stop", in: `null`, wantErr: "not a JSON object"},
		{name: "empty object", verb: "stop", in: `{}`, want: agent.Hook{Kind: agent.TurnEnd}},
		{name: "wrong types read as empty", verb: "user-prompt-submit",
			in:   `{"session_id":7,"transcript_path":null,"prompt":["x"],"model":{"a":1}}`,
			want: agent.Hook{Kind: agent.TurnStart}},
		{name: "stop-failure", verb: "stop-failure", in: `{` + root + `,"error":"rate_limit","last_assistant_message":"partial"}`,
			want: agent.Hook{Kind: agent.TurnEnd, SessionID: "s1", TranscriptPath: "/c/sessions/2026/01/02/rollout-2026-01-02T03-04-05-s1.jsonl", LastMessage: "partial"}},
		{name: "interrupt", verb: "interrupt", in: `{` + root + `,"turn_id":"t"}`,
			want: agent.Hook{Kind: agent.TurnEnd, SessionID: "s1", TranscriptPath: "/c/sessions/2026/01/02/rollout-2026-01-02T03-04-05-s1.jsonl"}},
		{name: "session-end", verb: "session-end", in: `{` + root + `,"reason":"other"}`,
			want: agent.Hook{Kind: agent.SessionEnd, SessionID: "s1", TranscriptPath: "/c/sessions/2026/01/02/rollout-2026-01-02T03-04-05-s1.jsonl", Reason: "other"}},
		{name: "agent_id marks a subagent thread", verb: "user-prompt-submit", in: `{` + root + `,"agent_id":"a1","prompt":"p"}`,
			want: agent.Hook{Kind: agent.Ignore, SessionID: "s1", TranscriptPath: "/c/sessions/2026/01/02/rollout-2026-01-02T03-04-05-s1.jsonl", Prompt: "p"}},
		{name: "another thread's rollout", verb: "session-start", in: `{"session_id":"s1","transcript_path":"C:\\c\\rollout-2026-01-02T03-04-05-s2.jsonl"}`,
			want: agent.Hook{Kind: agent.Ignore, SessionID: "s1", TranscriptPath: `C:\c\rollout-2026-01-02T03-04-05-s2.jsonl`}},
		{name: "id that only ends like the session", verb: "stop", in: `{"session_id":"s1","transcript_path":"/c/rollout-x-as1.jsonl"}`,
			want: agent.Hook{Kind: agent.Ignore, SessionID: "s1", TranscriptPath: "/c/rollout-x-as1.jsonl"}},
		{name: "path not named like a rollout", verb: "stop", in: `{"session_id":"s1","transcript_path":"/tmp/t.jsonl"}`,
			want: agent.Hook{Kind: agent.TurnEnd, SessionID: "s1", TranscriptPath: "/tmp/t.jsonl"}},
		{name: "null transcript", verb: "stop", in: `{"session_id":"s1","transcript_path":null}`,
			want: agent.Hook{Kind: agent.TurnEnd, SessionID: "s1"}},
		{name: "subagent hooks are not filtered", verb: "subagent-stop", in: `{"session_id":"s1","transcript_path":"/c/rollout-x-s2.jsonl","agent_id":"s2"}`,
			want: agent.Hook{Kind: agent.SubagentEnd, SessionID: "s1", TranscriptPath: "/c/rollout-x-s2.jsonl", SubagentID: "s2", ToolUseID: "s2"}},
		{name: "unsafe agent id is mapped", verb: "subagent-start", in: `{"agent_id":"a/../b"}`,
			want: agent.Hook{Kind: agent.SubagentStart, SubagentID: "a_b-900ea8b7", ToolUseID: "a_b-900ea8b7"}},
		{name: "pre-compact", verb: "pre-compact", in: `{"session_id":"s1","trigger":"auto"}`, want: agent.Hook{Kind: agent.Ignore, SessionID: "s1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Agent{}.Parse(tt.verb, []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTruncatesPrompt(t *testing.T) {
	big := strings.Repeat("é", agent.MaxTextBytes)
	h, err := Agent{}.Parse("user-prompt-submit", []byte(`{"prompt":"`+big+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Prompt) > agent.MaxTextBytes+64 || !strings.HasSuffix(h.Prompt, "more bytes]") {
		t.Errorf("prompt of %d bytes not truncated: ...%q", len(h.Prompt), h.Prompt[len(h.Prompt)-40:])
	}
}

func TestReplyIsEmpty(t *testing.T) {
	for _, k := range []agent.Kind{agent.SessionStart, agent.TurnStart, agent.TurnEnd, agent.SessionEnd, agent.SubagentStart, agent.SubagentEnd, agent.Ignore} {
		if out := (Agent{}).Reply(agent.Hook{Kind: k}, "Powered by Entire"); out != nil {
			t.Errorf("Reply(%v) = %q, want nothing", k, out)
		}
	}
}
