package opencode

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
)

const sessionID = "ses_5b2f8a1c3ffeXk9QpZ2mN4vR7t"

func readHook(t *testing.T, verb string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hooks", verb+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseSamples(t *testing.T) {
	tests := []struct {
		verb string
		want agent.Hook
	}{
		{"session-start", agent.Hook{Kind: agent.SessionStart, SessionID: sessionID, Source: "startup"}},
		{"turn-start", agent.Hook{Kind: agent.TurnStart, SessionID: sessionID, Model: "claude-sonnet-4-5",
			Prompt: "Use this key for the deploy script: AKIAIOSFODNN7EXAMPLE, and update the README.\n"}},
		{"turn-end", agent.Hook{Kind: agent.TurnEnd, SessionID: sessionID}},
		{"session-end", agent.Hook{Kind: agent.SessionEnd, SessionID: sessionID, Reason: "exit"}},
		{"subagent-start", agent.Hook{Kind: agent.SubagentStart, SessionID: sessionID, ToolUseID: "toolu_03Task",
			SubagentType: "general", Description: "Review the patch"}},
		{"subagent-end", agent.Hook{Kind: agent.SubagentEnd, SessionID: sessionID, ToolUseID: "toolu_03Task",
			SubagentID: "ses_5b2f8a1c0ffeChildAbCdEfGh"}},
		{"tool-after", agent.Hook{Kind: agent.Ignore, SessionID: sessionID, ToolName: "apply_patch",
			ToolUseID: "call_Zp3_apply_0-c3a26679"}},
	}
	for _, tt := range tests {
		got, err := Agent{}.Parse(tt.verb, readHook(t, tt.verb))
		if err != nil {
			t.Errorf("Parse(%s): %v", tt.verb, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%s) (-want +got):\n%s", tt.verb, diff)
		}
		if out := (Agent{}).Reply(got, "Entire is recording this session"); out != nil {
			t.Errorf("Reply(%s) = %q, want nothing", tt.verb, out)
		}
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		verb, in, wantErr string
	}{
		{"stop", `{"session_id":"a"}`, `unknown opencode hook "stop"`},
		{"session.idle", `{"session_id":"a"}`, "unknown opencode hook"},
		{"", `{}`, "unknown opencode hook"},
		{"turn-end", "", "empty"},
		{"turn-end", " \n\t", "empty"},
		{"turn-end", "{", "not valid JSON"},
		{"turn-end", `{"session_id":"a"} trailing`, "not valid JSON"},
		{"turn-end", "[]", "JSON array"},
		{"turn-end", `"x"`, "JSON string"},
		{"turn-end", "42", "JSON number"},
		{"turn-end", "null", "JSON null"},
		{"turn-end", "false", "JSON boolean"},
	}
	for _, tt := range tests {
		got, err := Agent{}.Parse(tt.verb, []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Parse(%q, %q) error = %v, want one containing %q", tt.verb, tt.in, err, tt.wantErr)
		}
		if !cmp.Equal(got, agent.Hook{}) {
			t.Errorf("Parse(%q, %q) = %+v with the error, want the zero Hook", tt.verb, tt.in, got)
		}
	}
}

func TestParseFieldTypes(t *testing.T) {
	tests := []struct {
		in   string
		want Payload
	}{
		{`{}`, Payload{}},
		{`{"session_id":42,"prompt":null,"model":{"modelID":"x"},"subagent_id":["a"]}`, Payload{}},
		{`{"sessionID":"camel","session_id":"ses_1","transcript_path":"/tmp/t.jsonl"}`,
			Payload{SessionID: "ses_1", TranscriptPath: "/tmp/t.jsonl"}},
		{`{"prompt":"fix \"it\"\n","unknown":{"deep":[1,2]}}`, Payload{Prompt: "fix \"it\"\n"}},
	}
	for _, tt := range tests {
		got, err := ParsePayload([]byte(tt.in))
		if err != nil {
			t.Errorf("ParsePayload(%s): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParsePayload(%s) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseTruncatesPrompt(t *testing.T) {
	long := strings.Repeat("é", agent.MaxTextBytes) // two bytes each: twice the cap
	h, err := Agent{}.Parse("turn-start", []byte(`{"session_id":"s","prompt":"`+long+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Prompt) > agent.MaxTextBytes+64 || !strings.HasPrefix(h.Prompt, "éé") {
		t.Errorf("prompt of %d bytes kept (cap %d), starting %q", len(h.Prompt), agent.MaxTextBytes, h.Prompt[:8])
	}
}

func TestFileSafeID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"toolu_01ABCdef-9", "toolu_01ABCdef-9"},
		{"ses_5b2f8a1c0ffeChildAbCdEfGh", "ses_5b2f8a1c0ffeChildAbCdEfGh"},
		{"call_Zp3|apply:0", "call_Zp3_apply_0-c3a26679"},
		{"functions.edit:3", "functions_edit_3-97dcb689"},
		{strings.Repeat("a", 128), strings.Repeat("a", 128)},
		{strings.Repeat("a", 129), strings.Repeat("a", 128) + "-c12cb024"},
	}
	safe := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	for _, tt := range tests {
		got := agent.SafeID(tt.in)
		if got != tt.want {
			t.Errorf("agent.SafeID(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got != "" && !safe.MatchString(got) {
			t.Errorf("agent.SafeID(%q) = %q, not a safe file name", tt.in, got)
		}
	}
	// Ids that differ only in replaced characters stay apart.
	if a, b := agent.SafeID("a.b"), agent.SafeID("a:b"); a == b {
		t.Errorf("FileSafeID maps a.b and a:b both to %q", a)
	}
}

func TestAgentTable(t *testing.T) {
	a := Agent{}
	if a.Name() != "opencode" || a.Type() != "OpenCode" || a.ConfigDir() != ".opencode" ||
		a.ConfigFile() != ".opencode/plugins/entire.ts" {
		t.Errorf("table entry = %q %q %q %q", a.Name(), a.Type(), a.ConfigDir(), a.ConfigFile())
	}
	if diff := cmp.Diff([]string{"open-code", "sst-opencode"}, a.Aliases()); diff != "" {
		t.Errorf("Aliases (-want +got):\n%s", diff)
	}
	if got := a.ResumeCommand(sessionID); got != "opencode --session "+sessionID {
		t.Errorf("ResumeCommand = %q", got)
	}
	if !a.TurnEndUnreliable() {
		t.Error("TurnEndUnreliable = false: a killed OpenCode sends no idle event")
	}
}

func TestDefaultTranscript(t *testing.T) {
	t.Setenv(TestProjectDirEnv, "")
	if got := (Agent{}).DefaultTranscript("/repo", sessionID); got != "" {
		t.Errorf("DefaultTranscript without the test directory = %q, want \"\"", got)
	}
	dir := t.TempDir()
	t.Setenv(TestProjectDirEnv, dir)
	if got, want := (Agent{}).DefaultTranscript("/repo", sessionID), filepath.Join(dir, sessionID+".jsonl"); got != want {
		t.Errorf("DefaultTranscript = %q, want %q", got, want)
	}
}
