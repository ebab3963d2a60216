package droid

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
)

var safeIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]*$`)

func FuzzParse(f *testing.F) {
	for _, verb := range []string{"session-start", "user-prompt-submit", "stop", "pre-task", "post-task", "subagent-stop"} {
		if data, err := os.ReadFile("testdata/" + verb + ".json"); err == nil {
			f.Add(verb, data)
		}
	}
	f.Add("post-task", []byte(`{"tool_name":"Task","tool_response":"agentId: ../../x"}`))
	f.Add("pre-task", []byte(`{"tool_name":"Task","tool_input":"not an object"}`))
	f.Add("nope", []byte(`{}`))
	f.Fuzz(func(t *testing.T, verb string, data []byte) {
		h, err := Agent{}.Parse(verb, data)
		if err != nil {
			if !reflect.ValueOf(h).IsZero() {
				t.Fatalf("error %v with non-zero hook %+v", err, h)
			}
			return
		}
		if _, known := verbs[verb]; !known {
			t.Fatalf("unknown verb %q accepted", verb)
		}
		if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
			t.Fatalf("accepted %q, which is not a JSON object", data)
		}
		if !safeIDRe.MatchString(h.ToolUseID) || !safeIDRe.MatchString(h.SubagentID) {
			t.Fatalf("unsafe ids %q / %q", h.ToolUseID, h.SubagentID)
		}
		if h.Kind == agent.SubagentStart && h.ToolUseID == "" {
			t.Fatalf("a Task PreToolUse without a ToolUseID: %+v", h)
		}
		if h.ToolInput != nil && !gjson.ValidBytes(h.ToolInput) {
			t.Fatalf("tool input %q is not valid JSON", h.ToolInput)
		}
		if len(h.Prompt) > agent.MaxTextBytes+64 {
			t.Fatalf("prompt of %d bytes kept", len(h.Prompt))
		}
		if out := (Agent{}).Reply(h, "m"); out != nil && !gjson.ValidBytes(out) {
			t.Fatalf("reply %q is not JSON", out)
		}
	})
}

func FuzzScan(f *testing.F) {
	if data, err := os.ReadFile(sessionFile); err == nil {
		for line := range bytes.Lines(data) {
			f.Add(line)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"type":"message","id":"a","message":{"role":"user","content":"<system-reminder>x</system-reminder>b"}}` + "\n"))
	f.Add([]byte(`{"type":"message","message":{"role":"assistant","id":"m","content":[{"type":"tool_use","name":"Create","input":{"path":"/a"}}],"usage":{"output_tokens":1e400}}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := ScanBytes(data)
		if n := bytes.Count(data, []byte("\n")); s.Lines != n {
			t.Fatalf("Lines = %d, input has %d newlines", s.Lines, n)
		}
		if want := int64(bytes.LastIndexByte(data, '\n') + 1); s.EndOffset != want || s.StartOffset != 0 {
			t.Fatalf("offsets %d-%d, want 0-%d", s.StartOffset, s.EndOffset, want)
		}
		if s.Usage.APICallCount < len(s.Calls) || s.Usage.APICallCount < 0 {
			t.Fatalf("APICallCount = %d with %d keyed calls", s.Usage.APICallCount, len(s.Calls))
		}
		seen := map[string]bool{}
		for i, p := range s.ModifiedFiles {
			if p == "" || seen[p] {
				t.Fatalf("ModifiedFiles[%d] = %q: empty or duplicated in %q", i, p, s.ModifiedFiles)
			}
			seen[p] = true
		}
		if cut := bytes.IndexByte(data, '\n'); cut >= 0 {
			m := ScanBytes(data[:cut+1]).Merge(ScanBytes(data[cut+1:]))
			if m.Lines != s.Lines || m.EndOffset != s.EndOffset || m.Usage != s.Usage ||
				!reflect.DeepEqual(m.ModifiedFiles, s.ModifiedFiles) || !reflect.DeepEqual(m.Prompts, s.Prompts) {
				t.Fatalf("merge of split scan differs: %+v vs %+v", m, s)
			}
		}
	})
}
