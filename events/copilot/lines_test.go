package copilot

import (
	"testing"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

func TestScanLineShapes(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		check func(agent.Scan) bool
	}{
		{"content trimmed", `{"type":"user.message","data":{"content":"  hi  ","transformedContent":"other"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "hi" }},
		{"wrappers only", `{"type":"user.message","data":{"content":"","transformedContent":"<current_datetime>x</current_datetime> <reminder>y</reminder>"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"content not string", `{"type":"user.message","data":{"content":["x"],"transformedContent":"y"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "y" }},
		{"type not string", `{"type":1,"id":"u","data":{"content":"x"}}`, func(s agent.Scan) bool { return len(s.Prompts) == 0 && s.LastUUID == "u" }},
		{"numeric id ignored", `{"type":"x","id":5}`, func(s agent.Scan) bool { return s.LastUUID == "" && s.Lines == 1 }},
		{"not json", `{"type":`, func(s agent.Scan) bool { return s.Lines == 1 && s.EndOffset == 9 }},
		{"view is not a modification", `{"type":"assistant.message","data":{"toolRequests":[{"name":"view","arguments":{"path":"/a"}}]}}`, func(s agent.Scan) bool {
			return len(s.ModifiedFiles) == 0 && len(s.Actions) == 1 && s.Actions[0].Detail == "/a"
		}},
		{"string arguments", `{"type":"assistant.message","data":{"toolRequests":[{"name":"create","arguments":"{\"path\":\"/n\"}"}]}}`, func(s agent.Scan) bool {
			return len(s.ModifiedFiles) == 1 && s.ModifiedFiles[0] == "/n"
		}},
		{"bad filePaths", `{"type":"tool.execution_complete","data":{"toolTelemetry":{"properties":{"filePaths":"[\"/a\", 3, \"\""}}}}`, func(s agent.Scan) bool { return len(s.ModifiedFiles) == 0 }},
		{"filePaths with junk", `{"type":"tool.execution_complete","data":{"toolTelemetry":{"properties":{"filePaths":"[\"/a\", 3, \"\", \"/a\"]"}}}}`, func(s agent.Scan) bool {
			return len(s.ModifiedFiles) == 1 && s.ModifiedFiles[0] == "/a"
		}},
		{"filePaths not a string", `{"type":"tool.execution_complete","data":{"toolTelemetry":{"properties":{"filePaths":["/a"]}}}}`, func(s agent.Scan) bool { return len(s.ModifiedFiles) == 0 }},
		{"empty content keeps last", `{"type":"assistant.message","data":{"content":"one"}}` + "\n" + `{"type":"assistant.message","data":{"content":""}}`, func(s agent.Scan) bool { return s.LastAssistant == "one" }},
		{"message id falls back to line id", `{"type":"assistant.message","id":"L","data":{"outputTokens":4}}` + "\n" + `{"type":"assistant.message","id":"L","data":{"outputTokens":6}}`, func(s agent.Scan) bool {
			return s.Usage == events.TokenUsage{OutputTokens: 6, APICallCount: 1}
		}},
		{"outputTokens not a number", `{"type":"assistant.message","data":{"messageId":"m","outputTokens":"5"}}`, func(s agent.Scan) bool { return s.Usage.IsZero() }},
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
