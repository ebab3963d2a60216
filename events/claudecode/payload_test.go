package claudecode

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
)

func TestParseHookInputFiles(t *testing.T) {
	tests := []struct {
		file string
		want HookInput
	}{
		{"testdata/stop.json", HookInput{
			SessionID:            "5b2c9d1e-8f4a-4c3b-9e7d-1a2b3c4d5e6f",
			TranscriptPath:       "/home/u/.claude/projects/-home-u-src-repo/5b2c9d1e-8f4a-4c3b-9e7d-1a2b3c4d5e6f.jsonl",
			Cwd:                  "/home/u/src/repo",
			HookEventName:        "Stop",
			LastAssistantMessage: "Updated README.md.\n\nDone.",
		}},
		{"testdata/post-tool-use.json", HookInput{
			SessionID:      "5b2c9d1e-8f4a-4c3b-9e7d-1a2b3c4d5e6f",
			TranscriptPath: "/home/u/.claude/projects/-home-u-src-repo/5b2c9d1e-8f4a-4c3b-9e7d-1a2b3c4d5e6f.jsonl",
			Cwd:            "/home/u/src/repo/sub",
			HookEventName:  "PostToolUse",
			ToolName:       "Write",
			ToolUseID:      "toolu_01Write",
			AgentID:        "a1b2c3",
			AgentType:      "Explore",
			ToolInput:      []byte(`{"file_path": "/home/u/src/repo/main.go", "content": "package main\n"}`),
			ToolResponse:   []byte(`{"filePath": "/home/u/src/repo/main.go", "success": true}`),
		}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseHookInput(data)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.file, diff)
		}
	}
}

func TestParseHookInput(t *testing.T) {
	tests := []struct {
		in      string
		want    HookInput
		wantErr string
	}{
		{in: "", wantErr: "empty"},
		{in: " \n\t", wantErr: "empty"},
		{in: "{", wantErr: "not valid JSON"},
		{in: `{"session_id":"a"} trailing`, wantErr: "not valid JSON"},
		{in: "[]", wantErr: "JSON array"},
		{in: `"x"`, wantErr: "JSON string"},
		{in: "42", wantErr: "JSON number"},
		{in: "null", wantErr: "JSON null"},
		{in: "true", wantErr: "JSON boolean"},
		{in: "{}", want: HookInput{}},
		{in: `{"prompt":"fix \"it\"\n","source":"resume","reason":"clear"}`, want: HookInput{Prompt: "fix \"it\"\n", Source: "resume", Reason: "clear"}},
		{in: `{"session_id":42,"cwd":null,"tool_input":null,"tool_response":"text"}`, want: HookInput{ToolResponse: []byte(`"text"`)}},
		{in: `{"sessionId":"camel","hook_event_name":{"x":1}}`, want: HookInput{}},
		{in: `{"session_id":"a.b","tool_input":[1,2]}`, want: HookInput{SessionID: "a.b", ToolInput: []byte("[1,2]")}},
	}
	for _, tt := range tests {
		got, err := ParseHookInput([]byte(tt.in))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseHookInput(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseHookInput(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseHookInput(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestValidateSessionID(t *testing.T) {
	tests := []struct {
		id      string
		wantErr string // "" means valid
	}{
		{"5b2c9d1e-8f4a-4c3b-9e7d-1a2b3c4d5e6f", ""},
		{"2026-01-06-3a782158-6c7c-4f3e-9c1a-0123456789ab", ""}, // legacy date-prefixed
		{"unknown", ""},
		{"with space", ""},
		{"a..b", ""}, // ".." inside a name is not a path element
		{"...", ""},
		{"ünïcode", ""},
		{strings.Repeat("a", agent.MaxSessionIDLen), ""},
		{"", "empty"},
		{"../../x", "path separator"},
		{"a/b", "path separator"},
		{`a\b`, "path separator"},
		{"..", "relative path element"},
		{".", "relative path element"},
		{"a\x00b", "NUL"},
		{"a\nb", "control character U+000A"},
		{"a\rb", "control character"},
		{"a\x7fb", "control character U+007F"},
		{"a\u0085b", "control character U+0085"},
		{"a\xffb", "invalid UTF-8"},
		{strings.Repeat("a", agent.MaxSessionIDLen+1), "161 bytes"},
		{strings.Repeat("a", 250), "250 bytes"}, // passed at 256, then failed to open its journal
	}
	for _, tt := range tests {
		err := agent.ValidateSessionID(tt.id)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("agent.ValidateSessionID(%q) = %v, want nil", tt.id, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("agent.ValidateSessionID(%q) = %v, want an error containing %q", tt.id, err, tt.wantErr)
		}
	}
}

// Cursor runs the hooks of .claude/settings.json too ("third-party hooks"), with its own
// payloads: such a call is no Claude Code hook and records nothing, whatever its verb, while
// Claude Code's own payloads (PascalCase event names, or none) are recorded as before.
func TestParseForeignPayloadIgnored(t *testing.T) {
	cursorStart := `{"conversation_id":"c-1","generation_id":"g","model":"m","is_background_agent":false,` +
		`"session_id":"c-1","hook_event_name":"sessionStart","cursor_version":"2026.08.11-e8db854",` +
		`"workspace_roots":["/w"],"user_email":"u@e.com","transcript_path":null}`
	cursorPrompt := `{"conversation_id":"c-1","generation_id":"g","hook_event_name":"beforeSubmitPrompt",` +
		`"cursor_version":"2026.08.11-e8db854","workspace_roots":["/w"],"transcript_path":null,"prompt":"hi"}`
	otherStop := `{"session_id":"s-1","hook_event_name":"stop","transcript_path":"/t.jsonl"}`
	for _, tc := range []struct {
		verb, payload string
		want          agent.Hook
	}{
		{"session-start", cursorStart, agent.Hook{Kind: agent.Ignore, SessionID: "c-1", Foreign: "Cursor"}},
		{"user-prompt-submit", cursorPrompt, agent.Hook{Kind: agent.Ignore, Foreign: "Cursor"}},
		{"stop", otherStop, agent.Hook{Kind: agent.Ignore, SessionID: "s-1", Foreign: "other"}},
		{"session-start", `{"session_id":"s-1","hook_event_name":"SessionStart","source":"startup"}`,
			agent.Hook{Kind: agent.SessionStart, SessionID: "s-1", Source: "startup"}},
		{"user-prompt-submit", `{"session_id":"s-1","prompt":"hi"}`,
			agent.Hook{Kind: agent.TurnStart, SessionID: "s-1", Prompt: "hi"}},
	} {
		got, err := Agent{}.Parse(tc.verb, []byte(tc.payload))
		if err != nil {
			t.Fatalf("%s %s: %v", tc.verb, tc.payload, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.verb, tc.payload, diff)
		}
	}
}
