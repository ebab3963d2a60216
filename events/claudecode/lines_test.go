package claudecode

import (
	"testing"
	"time"

	"github.com/entirerec/entire/events/agent"
)

func TestScanLineShapes(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		check func(agent.Scan) bool
	}{
		{"prompt string", `{"type":"user","message":{"content":"  hi  "}}`, func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "hi" }},
		{"human type", `{"type":"human","message":{"content":"hi"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 1 }},
		{"tool result only", `{"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}`, func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"text blocks joined", `{"type":"user","message":{"content":[{"type":"text","text":"a"},{"type":"tool_result","content":"x"},{"type":"text","text":"b"}]}}`, func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "a\n\nb" }},
		{"tags only", `{"type":"user","message":{"content":"<system-reminder>x</system-reminder>"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"system type ignored", `{"type":"system","message":{"content":"hi"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"numeric type", `{"type":7,"uuid":"u"}`, func(s agent.Scan) bool { return s.LastUUID == "u" && s.Lines == 1 }},
		{"array line", `[1,2]`, func(s agent.Scan) bool { return s.Lines == 1 && s.EndOffset == 6 }},
		{"no id no usage", `{"type":"assistant","message":{"usage":{"output_tokens":5}}}`, func(s agent.Scan) bool { return s.Usage.IsZero() }},
		{"notebook_path", `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"NotebookEdit","input":{"notebook_path":"/n.ipynb"}}]}}`, func(s agent.Scan) bool { return len(s.ModifiedFiles) == 1 && s.ModifiedFiles[0] == "/n.ipynb" }},
		{"read is not a modification", `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/a"}}]}}`, func(s agent.Scan) bool {
			return len(s.ModifiedFiles) == 0 && len(s.Actions) == 1 && s.Actions[0].Detail == "/a"
		}},
		{"empty text keeps last", `{"type":"assistant","message":{"content":[{"type":"text","text":"one"},{"type":"text","text":""}]}}`, func(s agent.Scan) bool { return s.LastAssistant == "one" }},
		{"command before file_path", `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"X","input":{"file_path":"/f","command":"ls"}}]}}`, func(s agent.Scan) bool { return s.Actions[0].Detail == "ls" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScanBytes([]byte(tt.line + "\n"))
			if !tt.check(s) {
				t.Errorf("ScanBytes(%s) = %+v", tt.line, s)
			}
		})
	}
}

func TestLastTimestamp(t *testing.T) {
	const a, b = `{"timestamp":"2026-01-02T03:00:01.000Z"}`, `{"timestamp":"2026-01-02T03:00:02.5Z"}`
	for _, tc := range []struct {
		name, data, want string // want "" = none
	}{
		{"last line", a + "\n" + b + "\n", "2026-01-02T03:00:02.5Z"},
		{"no final newline", a + "\n" + b, "2026-01-02T03:00:02.5Z"},
		{"trailing empty lines", a + "\n\n\n", "2026-01-02T03:00:01Z"},
		{"skips lines without one", a + "\n{\"type\":\"x\"}\n{\"timestamp\":\"soon\"}\nnot json\n", "2026-01-02T03:00:01Z"},
		{"single line", a, "2026-01-02T03:00:01Z"},
		{"none", "{}\n[]\n", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := LastTimestamp([]byte(tc.data))
			if tc.want == "" {
				if ok {
					t.Fatalf("LastTimestamp = %v, want none", got)
				}
				return
			}
			if !ok || got.UTC().Format(time.RFC3339Nano) != tc.want {
				t.Fatalf("LastTimestamp = %v %v, want %s", got, ok, tc.want)
			}
		})
	}
}
