package cursor

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
)

const (
	conv     = "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
	subagent = "7e6d5c4b-3a29-4817-a6b5-c4d3e2f1a0b9"
)

func TestParseFixtures(t *testing.T) {
	const shop = "/home/u/src/shop" // the fixtures' workspace_roots[0]
	tests := []struct {
		verb, file string
		want       agent.Hook
	}{
		{"session-start", "session-start.json", agent.Hook{Workspace: shop, Kind: agent.SessionStart, SessionID: conv, Model: "claude-4.5-sonnet", OpensTurn: true}},
		{"before-submit-prompt", "before-submit-prompt.json", agent.Hook{Workspace: shop, Kind: agent.TurnStart, SessionID: conv, Model: "claude-4.5-sonnet",
			TranscriptPath: "/home/u/.cursor/projects/home-u-src-shop/agent-transcripts/" + conv + "/" + conv + ".jsonl",
			Prompt:         "Add a retry helper to fetch.go.\nThe staging key is AKIAIOSFODNN7EXAMPLE, keep it out of the code."}},
		{"stop", "stop.json", agent.Hook{Workspace: shop, Kind: agent.TurnEnd, SessionID: conv, Model: "claude-4.5-sonnet"}},
		{"session-end", "session-end.json", agent.Hook{Workspace: shop, Kind: agent.SessionEnd, SessionID: conv, Model: "claude-4.5-sonnet", Reason: "completed"}},
		{"subagent-start", "subagent-start.json", agent.Hook{Workspace: shop, Kind: agent.SubagentStart, SessionID: conv, Model: "claude-4.5-sonnet",
			SubagentID: subagent, ToolUseID: subagent, SubagentType: "generalPurpose", Description: "Find every caller of Fetch"}},
		// conversation_id is the subagent's own here; parent_conversation_id names the session.
		{"subagent-stop", "subagent-stop.json", agent.Hook{Workspace: shop, Kind: agent.SubagentEnd, SessionID: conv, Model: "claude-4.5-sonnet",
			SubagentID: subagent, ToolUseID: subagent, SubagentType: "generalPurpose", Description: "Find every caller of Fetch",
			LastMessage:        "Fetch is called from cart.go and checkout.go.",
			SubagentTranscript: "/home/u/.cursor/projects/home-u-src-shop/agent-transcripts/" + subagent + ".jsonl"}},
		{"after-file-edit", "after-file-edit.json", agent.Hook{Workspace: shop, Kind: agent.Ignore, SessionID: conv, Model: "claude-4.5-sonnet"}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile("testdata/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Agent{}.Parse(tt.verb, data)
		if err != nil {
			t.Fatalf("%s: %v", tt.verb, err)
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
		{verb: "user-prompt-submit", in: `{}`, wantErr: "unknown cursor hook"},
		{verb: "beforeSubmitPrompt", in: `{}`, wantErr: "unknown cursor hook"},
		{verb: "stop", in: "", wantErr: "empty"},
		{verb: "stop", in: " \n", wantErr: "empty"},
		{verb: "stop", in: "{", wantErr: "not valid JSON"},
		{verb: "stop", in: `{"a":1} {}`, wantErr: "not valid JSON"},
		{verb: "stop", in: `[]`, wantErr: "not a JSON object"},
		{verb: "stop", in: `"x"`, wantErr: "not a JSON object"},
		{verb: "stop", in: `null`, wantErr: "not a JSON object"},
		{verb: "stop", in: `{}`, want: agent.Hook{Kind: agent.TurnEnd}},
		{verb: "pre-compact", in: `{"conversation_id":"c","trigger":"auto"}`, want: agent.Hook{Kind: agent.Ignore, SessionID: "c"}},
		// session_id is the fallback; conversation_id wins.
		{verb: "session-start", in: `{"session_id":"s"}`, want: agent.Hook{Kind: agent.SessionStart, SessionID: "s", OpensTurn: true}},
		{verb: "session-start", in: `{"session_id":"s","conversation_id":"c"}`, want: agent.Hook{Kind: agent.SessionStart, SessionID: "c", OpensTurn: true}},
		// Wrong types read as "" and never fail the hook.
		{verb: "before-submit-prompt", in: `{"conversation_id":42,"session_id":"s","prompt":["x"],"transcript_path":{},"model":null}`,
			want: agent.Hook{Kind: agent.TurnStart, SessionID: "s"}},
		{verb: "session-end", in: `{"conversation_id":"c","reason":7}`, want: agent.Hook{Kind: agent.SessionEnd, SessionID: "c"}},
		// The prompt is read for TurnStart only, the reason for SessionEnd only.
		{verb: "stop", in: `{"conversation_id":"c","prompt":"p","reason":"r"}`, want: agent.Hook{Kind: agent.TurnEnd, SessionID: "c"}},
		// tool_use_id holds a newline: mapped to a file-name-safe id.
		{verb: "after-file-edit", in: `{"tool_use_id":"call_x\nctc_x","tool_name":"Write","tool_input":{"path":"/a"}}`,
			want: agent.Hook{Kind: agent.Ignore, ToolName: "Write", ToolUseID: "call_x_ctc_x-e00fbc8e", ToolInput: []byte(`{"path":"/a"}`)}},
		{verb: "subagent-start", in: `{"conversation_id":"c","subagent_id":"a/b","description":"d"}`,
			want: agent.Hook{Kind: agent.SubagentStart, SessionID: "c", SubagentID: "a_b-c14cddc0", ToolUseID: "a_b-c14cddc0", Description: "d"}},
		{verb: "subagent-stop", in: `{"conversation_id":"c","parent_conversation_id":"","subagent_id":"s1","summary":"done"}`,
			want: agent.Hook{Kind: agent.SubagentEnd, SessionID: "c", SubagentID: "s1", ToolUseID: "s1", LastMessage: "done"}},
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
	long := strings.Repeat("é", agent.MaxTextBytes)
	got, err := Agent{}.Parse("before-submit-prompt", []byte(`{"conversation_id":"c","prompt":"`+long+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Prompt) >= len(long) || !strings.HasPrefix(long, strings.SplitN(got.Prompt, "\n[entire:", 2)[0]) {
		t.Errorf("prompt of %d bytes kept as %d bytes", len(long), len(got.Prompt))
	}
}

var safeIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func TestSafeID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"7e6d5c4b-3a29-4817-a6b5-c4d3e2f1a0b9", "7e6d5c4b-3a29-4817-a6b5-c4d3e2f1a0b9"},
		{"toolu_01ABC", "toolu_01ABC"},
		// The suffixes are the first 8 hex digits of sha256 of the input, computed outside Go.
		{"call_x\nctc_x", "call_x_ctc_x-e00fbc8e"},
		{"a..b", "a_b-f62b4241"},
		{"é", "_-4a99557e"},
	}
	for _, tt := range tests {
		if got := agent.SafeID(tt.in); got != tt.want {
			t.Errorf("agent.SafeID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Ids that differ only in replaced bytes stay apart; every result is safe.
	seen := map[string]string{}
	for _, id := range []string{"a.b", "a/b", "a b", "a\nb", "a_b", strings.Repeat("x", 200), strings.Repeat("x", 201)} {
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
