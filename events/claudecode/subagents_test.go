package claudecode

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

func TestScanSubagentIDs(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string
	}{
		{"text blocks of a tool_result", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"Wrote R.md\nagentId: a1b2c3 (for resuming)"}]}]}}`, []string{"a1b2c3"}},
		{"string content", `{"type":"user","message":{"content":[{"type":"tool_result","content":"agentId: abc123 done"}]}}`, []string{"abc123"}},
		{"several, first-seen, once each", `{"type":"user","message":{"content":[{"type":"tool_result","content":"agentId: b2 agentId: a1"},{"type":"tool_result","content":[{"type":"text","text":"agentId: b2"},{"type":"image","text":"agentId: zz"},{"type":"text","text":"agentId: c3"}]}]}}`, []string{"b2", "a1", "c3"}},
		{"the ID ends at the first other byte", `{"type":"user","message":{"content":[{"type":"tool_result","content":"agentId: ab/../../x"}]}}`, []string{"ab"}},
		{"no ID after the key", `{"type":"user","message":{"content":[{"type":"tool_result","content":"agentId: ../x"}]}}`, nil},
		{"a prompt's text is no result", `{"type":"user","message":{"content":[{"type":"text","text":"agentId: a1"}]}}`, nil},
		{"a string prompt is no result", `{"type":"user","message":{"content":"agentId: a1"}}`, nil},
		{"an assistant's text is no result", `{"type":"assistant","message":{"content":[{"type":"text","text":"agentId: a1"}]}}`, nil},
		{"the toolUseResult envelope alone is not read", `{"type":"user","message":{"content":[{"type":"tool_result","content":"done"}]},"toolUseResult":{"agentId":"a1"}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScanBytes([]byte(tt.line + "\n")).SubagentIDs; !slices.Equal(got, tt.want) {
				t.Errorf("SubagentIDs = %q, want %q", got, tt.want)
			}
		})
	}
	// Split across two scans, an ID is kept once.
	a := ScanBytes([]byte(tests[1].line + "\n"))
	if got := a.Merge(a).SubagentIDs; !slices.Equal(got, []string{"abc123"}) {
		t.Errorf("merged SubagentIDs = %q", got)
	}
}

func TestSubagentUsage(t *testing.T) {
	const sid = "11111111-2222-3333-4444-555555555559"
	dir := t.TempDir()
	transcript := filepath.Join(dir, sid+".jsonl")
	write := func(path string, lines ...string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		var data []byte
		for _, l := range lines {
			data = append(data, l+"\n"...)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	call := func(id string, in, out int) string {
		return `{"type":"assistant","isSidechain":true,"message":{"id":"` + id + `","usage":{"input_tokens":` + strconv.Itoa(in) + `,"output_tokens":` + strconv.Itoa(out) + `}}}`
	}
	subagents := filepath.Join(dir, sid, "subagents")
	// Current layout, with a streamed duplicate of its one response.
	write(filepath.Join(subagents, "agent-a1b2c3.jsonl"), `{"type":"user","isSidechain":true,"message":{"role":"user","content":"write R.md"}}`, call("msg_s1", 500, 20), call("msg_s1", 500, 50))
	// Legacy sibling layout.
	write(filepath.Join(dir, "agent-old1.jsonl"), call("msg_o1", 7, 3))
	// In both: the current layout wins.
	write(filepath.Join(subagents, "agent-both.jsonl"), call("msg_b1", 1, 1))
	write(filepath.Join(dir, "agent-both.jsonl"), call("msg_b2", 1000, 1000))
	// No API call.
	write(filepath.Join(subagents, "agent-idle.jsonl"), `{"type":"user","message":{"content":"hi"}}`)
	// A file the unchecked ID "/../../agent-x" would reach from the current layout.
	write(filepath.Join(dir, sid, "agent-x.jsonl"), call("msg_x", 9000, 9000))

	tests := []struct {
		name string
		sid  string
		ids  []string
		want *events.TokenUsage
	}{
		{"current layout", sid, []string{"a1b2c3"}, &events.TokenUsage{InputTokens: 500, OutputTokens: 50, APICallCount: 1}},
		{"legacy layout", sid, []string{"old1"}, &events.TokenUsage{InputTokens: 7, OutputTokens: 3, APICallCount: 1}},
		{"current layout first", sid, []string{"both"}, &events.TokenUsage{InputTokens: 1, OutputTokens: 1, APICallCount: 1}},
		{"summed", sid, []string{"a1b2c3", "old1", "missing"}, &events.TokenUsage{InputTokens: 507, OutputTokens: 53, APICallCount: 2}},
		{"no API call", sid, []string{"idle", "missing"}, nil},
		{"none", sid, nil, nil},
		{"IDs that are not alphanumeric name no file", sid, []string{"/../../agent-x", "x.jsonl", "", "a1b2c3/"}, nil},
		{"an unusable session ID leaves the legacy layout", "../" + sid, []string{"a1b2c3", "old1"}, &events.TokenUsage{InputTokens: 7, OutputTokens: 3, APICallCount: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, SubagentUsage(transcript, tt.sid, tt.ids)); diff != "" {
				t.Errorf("SubagentUsage(%q) (-want +got):\n%s", tt.ids, diff)
			}
		})
	}
	if got := SubagentUsage("", sid, []string{"a1b2c3"}); got != nil {
		t.Errorf("without a transcript path: %+v", got)
	}
	var counter agent.SubagentCounter = Agent{}
	if got := counter.SubagentUsage(transcript, sid, []string{"a1b2c3"}); got == nil || got.InputTokens != 500 {
		t.Errorf("Agent.SubagentUsage = %+v", got)
	}
}
