package copilot

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
)

const (
	sess       = "b0ff98c0-8e01-4b73-bf92-9649b139931b"
	transcript = "/home/u/.copilot/session-state/" + sess + "/events.jsonl"
)

func TestParseFixtures(t *testing.T) {
	tests := []struct {
		verb, file string
		want       agent.Hook
	}{
		{"user-prompt-submitted", "user-prompt-submitted.json", agent.Hook{Kind: agent.TurnStart, SessionID: sess,
			Prompt: "Add input validation to src/validate.ts and a test. The CI token AKIAIOSFODNN7EXAMPLE must not end up in the code."}},
		{"session-start", "session-start.json", agent.Hook{Kind: agent.SessionStart, SessionID: sess, Source: "new"}},
		{"agent-stop", "agent-stop.json", agent.Hook{Kind: agent.TurnEnd, SessionID: sess, TranscriptPath: transcript}},
		{"session-end", "session-end.json", agent.Hook{Kind: agent.SessionEnd, SessionID: sess, Reason: "user_exit"}},
		{"subagent-start", "subagent-start.json", agent.Hook{Kind: agent.SubagentStart, SessionID: sess, TranscriptPath: transcript,
			SubagentID: "code-review", ToolUseID: "code-review", SubagentType: "code-review", Description: "Reviews the validation change"}},
		{"subagent-stop", "subagent-stop.json", agent.Hook{Kind: agent.SubagentEnd, SessionID: sess, TranscriptPath: transcript,
			SubagentID: "code-review", ToolUseID: "code-review", SubagentType: "code-review", Description: "Code Review"}},
		// toolArgs is a string of JSON: ToolInput is the JSON it holds.
		{"post-tool-use", "post-tool-use.json", agent.Hook{Kind: agent.Ignore, SessionID: sess, ToolName: "edit",
			ToolInput: []byte(`{"path":"/home/u/src/app/src/validate.ts","old_str":"a","new_str":"b"}`)}},
		// The snake_case dialect of the PascalCase keys.
		{"agent-stop", "stop-snake.json", agent.Hook{Kind: agent.TurnEnd, SessionID: sess, TranscriptPath: transcript}},
		{"pre-tool-use", "pre-tool-use-snake.json", agent.Hook{Kind: agent.Ignore, SessionID: sess, ToolName: "bash",
			ToolInput: []byte(`{"command":"npm test","description":"Run the tests"}`)}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile("testdata/" + tt.file)
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
		if out := (Agent{}).Reply(got, "a message"); out != nil {
			t.Errorf("Reply(%s) = %q, want nothing", tt.verb, out)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		verb, in string
		want     agent.Hook
		wantErr  string
	}{
		{verb: "userPromptSubmitted", in: `{}`, wantErr: "unknown copilot hook"},
		{verb: "stop", in: `{}`, wantErr: "unknown copilot hook"},
		{verb: "agent-stop", in: "", wantErr: "empty"},
		{verb: "agent-stop", in: "\t\n", wantErr: "empty"},
		{verb: "agent-stop", in: `{"sessionId":`, wantErr: "not valid JSON"},
		{verb: "agent-stop", in: `{} []`, wantErr: "not valid JSON"},
		{verb: "agent-stop", in: `[{}]`, wantErr: "not a JSON object"},
		{verb: "agent-stop", in: `12`, wantErr: "not a JSON object"},
		{verb: "agent-stop", in: `{}`, want: agent.Hook{Kind: agent.TurnEnd}},
		{verb: "notification", in: `{"sessionId":"s","hook_event_name":"Notification","message":"hi"}`, want: agent.Hook{Kind: agent.Ignore, SessionID: "s"}},
		{verb: "error-occurred", in: `{"sessionId":"s","error":{"message":"x"}}`, want: agent.Hook{Kind: agent.Ignore, SessionID: "s"}},
		{verb: "pre-compact", in: `{"sessionId":"s","transcriptPath":"/t","trigger":"auto"}`, want: agent.Hook{Kind: agent.Ignore, SessionID: "s", TranscriptPath: "/t"}},
		// camelCase wins over snake_case; a wrong type falls through to the other spelling.
		{verb: "session-start", in: `{"sessionId":"camel","session_id":"snake"}`, want: agent.Hook{Kind: agent.SessionStart, SessionID: "camel"}},
		{verb: "session-start", in: `{"sessionId":7,"session_id":"snake","source":{"x":1}}`, want: agent.Hook{Kind: agent.SessionStart, SessionID: "snake"}},
		{verb: "user-prompt-submitted", in: `{"sessionId":"s","prompt":42,"transcriptPath":null}`, want: agent.Hook{Kind: agent.TurnStart, SessionID: "s"}},
		// The prompt is read for TurnStart only, source for SessionStart only.
		{verb: "agent-stop", in: `{"sessionId":"s","prompt":"p","source":"new","reason":"r"}`, want: agent.Hook{Kind: agent.TurnEnd, SessionID: "s"}},
		// A name that is not a safe file name is mapped; the type keeps it as sent.
		{verb: "subagent-stop", in: `{"sessionId":"s","agentName":"code review","agentDescription":7,"agentDisplayName":"Code Review"}`,
			want: agent.Hook{Kind: agent.SubagentEnd, SessionID: "s", SubagentType: "code review", SubagentID: "code_review-7abada36", ToolUseID: "code_review-7abada36", Description: "Code Review"}},
		{verb: "subagent-start", in: `{"session_id":"s","agent_name":"explore","agent_description":"d"}`,
			want: agent.Hook{Kind: agent.SubagentStart, SessionID: "s", SubagentType: "explore", SubagentID: "explore", ToolUseID: "explore", Description: "d"}},
		// toolArgs: an object is kept raw; a string that is not JSON, or JSON but no container, stays the string.
		{verb: "pre-tool-use", in: `{"toolArgs":{"a":1}}`, want: agent.Hook{Kind: agent.Ignore, ToolInput: []byte(`{"a":1}`)}},
		{verb: "pre-tool-use", in: `{"toolArgs":"ls -la"}`, want: agent.Hook{Kind: agent.Ignore, ToolInput: []byte(`"ls -la"`)}},
		{verb: "pre-tool-use", in: `{"toolArgs":"12"}`, want: agent.Hook{Kind: agent.Ignore, ToolInput: []byte(`"12"`)}},
		{verb: "pre-tool-use", in: `{"toolArgs":null,"tool_input":[1]}`, want: agent.Hook{Kind: agent.Ignore, ToolInput: []byte(`[1]`)}},
	}
	for _, tt := range tests {
		got, err := Agent{}.Parse(tt.verb, []byte(tt.in))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%s, %q) error = %v, want one containing %q", tt.verb, tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%s, %q): %v", tt.verb, tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%s, %q) (-want +got):\n%s", tt.verb, tt.in, diff)
		}
	}
}

func TestParseTruncatesPrompt(t *testing.T) {
	long := strings.Repeat("ab", agent.MaxTextBytes)
	got, err := Agent{}.Parse("user-prompt-submitted", []byte(`{"sessionId":"s","prompt":"`+long+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Prompt, long[:agent.MaxTextBytes]+"\n[entire: truncated") {
		t.Errorf("prompt of %d bytes kept as %d bytes", len(long), len(got.Prompt))
	}
}

var safeIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func TestSafeID(t *testing.T) {
	// The suffixes are the first 8 hex digits of sha256 of the input, computed outside Go.
	tests := []struct{ in, want string }{
		{"", ""},
		{"code-review", "code-review"},
		{"Explore_2", "Explore_2"},
		{"code review", "code_review-7abada36"},
		{"call_x\nctc_x", "call_x_ctc_x-e00fbc8e"},
		{"a..b", "a_b-f62b4241"},
		{"a/b", "a_b-c14cddc0"},
	}
	for _, tt := range tests {
		if got := agent.SafeID(tt.in); got != tt.want {
			t.Errorf("agent.SafeID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	seen := map[string]string{}
	for _, id := range []string{"a.b", "a/b", "a b", "a_b", strings.Repeat("y", 128), strings.Repeat("y", 129), strings.Repeat("y", 130)} {
		got := agent.SafeID(id)
		if !safeIDRe.MatchString(got) || len(got) > 128+9 {
			t.Errorf("agent.SafeID(%q) = %q: not a safe id", id, got)
		}
		if prev, dup := seen[got]; dup {
			t.Errorf("agent.SafeID(%q) = agent.SafeID(%q) = %q", id, prev, got)
		}
		seen[got] = id
	}
}
