package copilot

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
)

var fileNameID = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func FuzzParse(f *testing.F) {
	seeds := map[string]string{
		"user-prompt-submitted": "user-prompt-submitted.json", "session-start": "session-start.json",
		"agent-stop": "agent-stop.json", "session-end": "session-end.json", "subagent-start": "subagent-start.json",
		"subagent-stop": "subagent-stop.json", "post-tool-use": "post-tool-use.json", "pre-tool-use": "pre-tool-use-snake.json",
	}
	for verb, file := range seeds {
		if data, err := os.ReadFile("testdata/" + file); err == nil {
			f.Add(verb, data)
		}
	}
	f.Add("agent-stop", []byte(""))
	f.Add("notification", []byte("[]"))
	f.Add("subagent-stop", []byte(`{"agentName":"a\u0000 b/c","toolArgs":"{\"x\":[1,"}`))
	f.Add("stop", []byte(`{}`))
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
		if h.ToolInput != nil && !gjson.ValidBytes(h.ToolInput) {
			t.Fatalf("ToolInput %q is not JSON", h.ToolInput)
		}
		if len(h.Prompt) > agent.MaxTextBytes+64 {
			t.Fatalf("prompt of %d bytes kept", len(h.Prompt))
		}
		if out := (Agent{}).Reply(h, "m"); out != nil {
			t.Fatalf("Reply printed %q", out)
		}
	})
}

func FuzzScan(f *testing.F) {
	if data, err := os.ReadFile(eventsFile); err == nil {
		for line := range bytes.Lines(data) {
			f.Add(line)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"type":"assistant.message","id":"a","data":{"messageId":"m","outputTokens":1e400,"toolRequests":[{"name":"edit","arguments":"{\"path\":\"/p\"}"}]}}` + "\n" +
		`{"type":"session.shutdown","data":{"modelMetrics":{"m":{"requests":{"count":-1},"usage":{"inputTokens":"9"}}}}}` + "\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := ScanBytes(data)
		if n := bytes.Count(data, []byte("\n")); s.Lines != n || s.Lines < 0 {
			t.Fatalf("Lines = %d, input has %d newlines", s.Lines, n)
		}
		if want := int64(bytes.LastIndexByte(data, '\n') + 1); s.EndOffset != want || s.EndOffset > int64(len(data)) {
			t.Fatalf("EndOffset = %d, want %d", s.EndOffset, want)
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
				m.Lines != s.Lines || m.EndOffset != s.EndOffset || m.LastAssistant != s.LastAssistant || m.LastUUID != s.LastUUID {
				t.Fatalf("split scan differs:\n%+v\n%+v", m, s)
			}
			if !bytes.Contains(data, []byte("session.shutdown")) && m.Usage != s.Usage {
				t.Fatalf("split scan usage %+v, one scan %+v", m.Usage, s.Usage)
			}
		}
	})
}
