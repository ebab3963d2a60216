package gemini

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
)

const (
	fixtureSession    = "3f9a1c2e-7b4d-4e8f-a1b2-c3d4e5f60718"
	fixtureTranscript = "/home/dev/.gemini/tmp/proj/chats/session-2026-05-04T09-12-3f9a1c2e.jsonl"
	secretPrompt      = "Now run the tests. If the integration test needs AWS, use AKIAIOSFODNN7EXAMPLE."
)

func TestParseFixtures(t *testing.T) {
	base := agent.Hook{SessionID: fixtureSession, TranscriptPath: fixtureTranscript, Cwd: "/home/dev/proj"}
	with := func(f func(*agent.Hook)) agent.Hook {
		h := base
		f(&h)
		return h
	}
	tests := []struct {
		verb, file string
		want       agent.Hook
	}{
		{"session-start", "session-start.json", with(func(h *agent.Hook) { h.Kind, h.Source = agent.SessionStart, "startup" })},
		{"before-agent", "before-agent.json", with(func(h *agent.Hook) { h.Kind, h.Prompt = agent.TurnStart, secretPrompt })},
		{"after-agent", "after-agent.json", with(func(h *agent.Hook) {
			h.Kind, h.Prompt = agent.TurnEnd, secretPrompt
			h.LastMessage = "All tests pass. The integration test did not need AWS credentials."
		})},
		{"before-model", "before-model.json", with(func(h *agent.Hook) { h.Kind, h.Model = agent.Ignore, "gemini-2.5-pro" })},
		{"after-tool", "after-tool.json", with(func(h *agent.Hook) {
			h.Kind, h.ToolName = agent.Ignore, "write_file"
			h.ToolInput = []byte(`{"file_path":"/home/dev/proj/README.md","content":"# tool\n"}`)
		})},
		{"session-end", "session-end.json", with(func(h *agent.Hook) { h.Kind, h.Reason = agent.SessionEnd, "exit" })},
	}
	for _, tt := range tests {
		t.Run(tt.verb, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Agent{}.Parse(tt.verb, data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%s) (-want +got):\n%s", tt.verb, diff)
			}
		})
	}
}

func TestParseVerbKinds(t *testing.T) {
	want := map[string]agent.Kind{
		"session-start": agent.SessionStart, "session-end": agent.SessionEnd,
		"before-agent": agent.TurnStart, "after-agent": agent.TurnEnd,
		"before-model": agent.Ignore, "after-model": agent.Ignore, "before-tool-selection": agent.Ignore,
		"before-tool": agent.Ignore, "after-tool": agent.Ignore, "pre-compress": agent.Ignore,
		"notification": agent.Ignore,
	}
	for verb, kind := range want {
		h, err := Agent{}.Parse(verb, []byte(`{}`))
		if err != nil || h.Kind != kind {
			t.Errorf("Parse(%q, {}) = %v, %v; want kind %v", verb, h.Kind, err, kind)
		}
		if _, err := (Agent{}).Parse(verb, []byte(`[]`)); err == nil {
			t.Errorf("Parse(%q, []) accepted a non-object", verb)
		}
	}
	if len(verbs) != len(want) {
		t.Errorf("verbs has %d entries, want %d", len(verbs), len(want))
	}
	for _, verb := range []string{"stop", "BeforeAgent", "user-prompt-submit", "", "after_agent"} {
		if _, err := (Agent{}).Parse(verb, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "unknown gemini hook") {
			t.Errorf("Parse(%q) error = %v, want unknown hook", verb, err)
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
		{in: " \n", wantErr: "empty"},
		{in: "{", wantErr: "not valid JSON"},
		{in: `{"a":1} {}`, wantErr: "not valid JSON"},
		{in: "[]", wantErr: "JSON array"},
		{in: `"x"`, wantErr: "JSON string"},
		{in: "7", wantErr: "JSON number"},
		{in: "false", wantErr: "JSON boolean"},
		{in: "null", wantErr: "JSON null"},
		{in: "{}"},
		{in: `{"session_id":42,"prompt":["x"],"source":null,"reason":{"r":1},"tool_input":null,"llm_request":"gemini-2.5-pro"}`},
		{in: `{"llm_request":{"model":7}}`},
		{in: `{"llm_request":{"model":"gemini-2.5-flash"},"tool_input":"raw","tool_name":"replace"}`,
			want: HookInput{Model: "gemini-2.5-flash", ToolName: "replace", ToolInput: []byte(`"raw"`)}},
		{in: `{"session_id":"s","cwd":"/r","hook_event_name":"AfterAgent","timestamp":"t","prompt_response":"done\n"}`,
			want: HookInput{SessionID: "s", Cwd: "/r", HookEventName: "AfterAgent", Timestamp: "t", PromptResponse: "done\n"}},
	}
	for _, tt := range tests {
		got, err := ParseHookInput([]byte(tt.in))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseHookInput(%q) error = %v, want %q", tt.in, err, tt.wantErr)
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

func TestParseTruncatesLongText(t *testing.T) {
	long := strings.Repeat("é", agent.MaxTextBytes) // 2 bytes a rune: twice the cap
	data, _ := json.Marshal(map[string]string{"prompt": long, "prompt_response": long})
	h, err := Agent{}.Parse("after-agent", data)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"Prompt": h.Prompt, "LastMessage": h.LastMessage} {
		if !strings.HasPrefix(s, strings.Repeat("é", agent.MaxTextBytes/2)+"\n[entire: truncated, ") {
			t.Errorf("%s not truncated at the cap: %d bytes, ends %q", name, len(s), s[len(s)-40:])
		}
	}
}

func TestReply(t *testing.T) {
	a := Agent{}
	msg := "\n\nPowered by Entire:\n  This conversation will be linked to your next commit."
	got := string(a.Reply(agent.Hook{Kind: agent.SessionStart}, msg))
	want := `{"systemMessage":"\n\nPowered by Entire:\n  This conversation will be linked to your next commit."}` + "\n"
	if got != want {
		t.Errorf("Reply(SessionStart) = %q, want %q", got, want)
	}
	if got := a.Reply(agent.Hook{Kind: agent.SessionStart}, ""); got != nil {
		t.Errorf("Reply(SessionStart, \"\") = %q, want nothing", got)
	}
	for _, k := range []agent.Kind{agent.Ignore, agent.TurnStart, agent.TurnEnd, agent.SessionEnd} {
		if got := a.Reply(agent.Hook{Kind: k}, msg); got != nil {
			t.Errorf("Reply(%v) = %q, want nothing", k, got)
		}
	}
}

func TestTableEntry(t *testing.T) {
	a := Agent{}
	got := []string{a.Name(), strings.Join(a.Aliases(), ","), a.Type(), a.ConfigDir(), a.ConfigFile(), a.ResumeCommand("abc-1")}
	want := []string{"gemini", "gemini-cli,geminicli", "Gemini CLI", ".gemini", ".gemini/settings.json", "gemini --resume abc-1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table entry (-want +got):\n%s", diff)
	}
	var ag agent.Agent = a
	if u, ok := ag.(agent.TurnEndUnreliable); !ok || !u.TurnEndUnreliable() {
		t.Error("Gemini must declare its turn end unreliable")
	}
}
