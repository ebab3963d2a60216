package cursor

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"testing"

	"github.com/entirerec/entire/events/agent"
)

var fileNameID = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func FuzzParse(f *testing.F) {
	for _, name := range []string{"session-start", "before-submit-prompt", "stop", "session-end", "subagent-start", "subagent-stop", "after-file-edit"} {
		if data, err := os.ReadFile("testdata/" + name + ".json"); err == nil {
			f.Add(name, data)
		}
	}
	f.Add("stop", []byte(""))
	f.Add("pre-compact", []byte("[]"))
	f.Add("subagent-start", []byte(`{"subagent_id":"a\u0000b/c","tool_use_id":"x\ny","tool_input":{"a":[1]}}`))
	f.Add("nope", []byte(`{}`))
	f.Fuzz(func(t *testing.T, verb string, data []byte) {
		h, err := Agent{}.Parse(verb, data)
		if err != nil {
			if !reflect.ValueOf(h).IsZero() {
				t.Fatalf("error %v with a non-zero hook %+v", err, h)
			}
			return
		}
		if _, known := verbs[verb]; !known {
			t.Fatalf("unknown verb %q accepted", verb)
		}
		for _, id := range []string{h.ToolUseID, h.SubagentID} {
			if id != "" && !fileNameID.MatchString(id) {
				t.Fatalf("id %q is not a safe file name", id)
			}
		}
		if len(h.Prompt) > agent.MaxTextBytes+64 || len(h.LastMessage) > agent.MaxTextBytes+64 {
			t.Fatalf("text over the cap kept: %d, %d bytes", len(h.Prompt), len(h.LastMessage))
		}
		if out := (Agent{}).Reply(h, "m"); out != nil {
			t.Fatalf("Reply printed %q", out)
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
	f.Add([]byte(`{"role":"user","message":{"content":"<timestamp>t</timestamp><user_query></user_query>"}}` + "\n"))
	f.Add([]byte(`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"path":"/a"}},{"type":"tool_use","name":"Write","input":{"path":"/a"}}]}}` + "\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := ScanBytes(data)
		if n := bytes.Count(data, []byte("\n")); s.Lines != n || s.Lines < 0 {
			t.Fatalf("Lines = %d, input has %d newlines", s.Lines, n)
		}
		if want := int64(bytes.LastIndexByte(data, '\n') + 1); s.EndOffset != want || s.EndOffset > int64(len(data)) {
			t.Fatalf("EndOffset = %d, want %d", s.EndOffset, want)
		}
		if !s.Usage.IsZero() || s.LastUUID != "" {
			t.Fatalf("usage or id from a format that has none: %+v %q", s.Usage, s.LastUUID)
		}
		seen := map[string]bool{}
		for _, f := range s.ModifiedFiles {
			if f == "" || seen[f] {
				t.Fatalf("ModifiedFiles %q: empty or duplicated", s.ModifiedFiles)
			}
			seen[f] = true
		}
		for _, p := range s.Prompts {
			if p == "" || len(p) > agent.MaxTextBytes+64 {
				t.Fatalf("prompt of %d bytes", len(p))
			}
		}
		if cut := bytes.IndexByte(data, '\n'); cut >= 0 {
			m := ScanBytes(data[:cut+1]).Merge(ScanBytes(data[cut+1:]))
			if !reflect.DeepEqual(m.Prompts, s.Prompts) || !reflect.DeepEqual(m.ModifiedFiles, s.ModifiedFiles) ||
				m.Lines != s.Lines || m.EndOffset != s.EndOffset || m.LastAssistant != s.LastAssistant {
				t.Fatalf("split scan differs:\n%+v\n%+v", m, s)
			}
		}
	})
}
