package codex

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
	for _, name := range []string{"session-start", "user-prompt-submit", "stop", "stop-subagent-thread", "subagent-start", "subagent-stop", "post-tool-use"} {
		if data, err := os.ReadFile("testdata/" + name + ".json"); err == nil {
			f.Add("stop", data)
		}
	}
	f.Add("subagent-stop", []byte(`{"agent_id":"a\nb","tool_use_id":"../x"}`))
	f.Add("interrupt", []byte(`{"session_id":"s","transcript_path":"rollout-1-t.jsonl"}`))
	f.Add("nope", []byte(`{}`))
	f.Add("stop", []byte(""))
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
		if h.ToolInput != nil && !gjson.ValidBytes(h.ToolInput) {
			t.Fatalf("tool input %q is not valid JSON", h.ToolInput)
		}
		if len(h.Prompt) > agent.MaxTextBytes+64 {
			t.Fatalf("prompt of %d bytes kept", len(h.Prompt))
		}
		if h.Kind != verbs[verb] && h.Kind != agent.Ignore {
			t.Fatalf("verb %q gave kind %v", verb, h.Kind)
		}
		_ = (Agent{}).Reply(h, "m")
	})
}

func FuzzScan(f *testing.F) {
	// One seed per rollout line keeps inputs small.
	for _, name := range []string{rolloutFile, itemsFile} {
		if data, err := os.ReadFile(name); err == nil {
			for line := range bytes.Lines(data) {
				f.Add(line)
			}
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1e400},"last_token_usage":{"input_tokens":-5,"cached_input_tokens":1e30}}}}` + "\n"))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call","name":"apply_patch","arguments":"[[[[\"*** Begin Patch\\n*** Add File: a\"]]]]"}}` + "\n"))
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
		for _, p := range s.Prompts {
			if p == "" || len(p) > agent.MaxTextBytes+64 {
				t.Fatalf("prompt of %d bytes", len(p))
			}
		}
		// Split at the first line boundary: files, usage and lines survive the merge.
		if cut := bytes.IndexByte(data, '\n'); cut >= 0 {
			m := ScanBytes(data[:cut+1]).Merge(ScanBytes(data[cut+1:]))
			if m.Lines != s.Lines || m.EndOffset != s.EndOffset || m.Usage != s.Usage || !reflect.DeepEqual(m.ModifiedFiles, s.ModifiedFiles) {
				t.Fatalf("merge of split scan differs: %+v vs %+v", m, s)
			}
		}
	})
}
