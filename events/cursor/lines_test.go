package cursor

import (
	"testing"

	"github.com/entirerec/entire/events/agent"
)

func TestScanLineShapes(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		check func(agent.Scan) bool
	}{
		{"string content", `{"role":"user","message":{"content":"  <user_query> hi </user_query> "}}`, func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "hi" }},
		{"no wrapper", `{"role":"user","message":{"content":[{"type":"text","text":" plain "}]}}`, func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "plain" }},
		{"timestamp without query", `{"role":"user","message":{"content":"<timestamp>Mon 10:04</timestamp>\n plain"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "plain" }},
		{"timestamp only stripped at start", `{"role":"user","message":{"content":"see <timestamp>x</timestamp>"}}`, func(s agent.Scan) bool {
			return len(s.Prompts) == 1 && s.Prompts[0] == "see <timestamp>x</timestamp>"
		}},
		{"query quoting the tag", `{"role":"user","message":{"content":"<user_query>a </user_query> b</user_query>"}}`, func(s agent.Scan) bool {
			return len(s.Prompts) == 1 && s.Prompts[0] == "a </user_query> b"
		}},
		{"unclosed query is text", `{"role":"user","message":{"content":"<user_query>a"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "<user_query>a" }},
		{"text blocks joined", `{"role":"user","message":{"content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}`, func(s agent.Scan) bool {
			return len(s.Prompts) == 1 && s.Prompts[0] == "a\n\nb"
		}},
		{"no text blocks", `{"role":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}`, func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"role not string", `{"role":["user"],"message":{"content":"hi"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 0 && s.Lines == 1 }},
		{"system role", `{"role":"system","message":{"content":"hi"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"not json", `{"role":`, func(s agent.Scan) bool { return s.Lines == 1 && s.EndOffset == 9 }},
		{"assistant string", `{"role":"assistant","message":{"content":"done"}}`, func(s agent.Scan) bool { return s.LastAssistant == "done" }},
		{"empty text keeps last", `{"role":"assistant","message":{"content":[{"type":"text","text":"one"},{"type":"text","text":""}]}}`, func(s agent.Scan) bool { return s.LastAssistant == "one" }},
		{"read is not a modification", `{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"path":"/a"}}]}}`, func(s agent.Scan) bool {
			return len(s.ModifiedFiles) == 0 && len(s.Actions) == 1 && s.Actions[0].Detail == "/a"
		}},
		{"file_path fallback", `{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":"/b"}}]}}`, func(s agent.Scan) bool {
			return len(s.ModifiedFiles) == 1 && s.ModifiedFiles[0] == "/b"
		}},
		{"edit without path", `{"role":"assistant","message":{"content":[{"type":"tool_use","name":"StrReplace","input":{"path":5}}]}}`, func(s agent.Scan) bool {
			return len(s.ModifiedFiles) == 0 && len(s.Actions) == 1
		}},
		{"tool name not string", `{"role":"assistant","message":{"content":[{"type":"tool_use","name":{"x":1},"input":{}}]}}`, func(s agent.Scan) bool {
			return len(s.Actions) == 1 && s.Actions[0].Tool == ""
		}},
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
