package gemini

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

func FuzzParse(f *testing.F) {
	for verb, file := range map[string]string{
		"session-start": "session-start.json", "before-agent": "before-agent.json", "after-agent": "after-agent.json",
		"before-model": "before-model.json", "after-tool": "after-tool.json", "session-end": "session-end.json",
	} {
		if data, err := os.ReadFile(filepath.Join("testdata", file)); err == nil {
			f.Add(verb, data)
		}
	}
	f.Add("notification", []byte(`{"notification_type":"ToolPermission","details":{"a":[1]}}`))
	f.Add("pre-compress", []byte(""))
	f.Add("bogus", []byte("{}"))
	f.Add("before-tool", []byte(`{"tool_input":null,"llm_request":{"model":["x"]}}`))
	f.Fuzz(func(t *testing.T, verb string, data []byte) {
		h, err := Agent{}.Parse(verb, data)
		_, known := verbs[verb]
		if err != nil {
			if h.Kind != agent.Ignore || h.SessionID != "" {
				t.Fatalf("error %v with a filled hook %+v", err, h)
			}
			return
		}
		if !known {
			t.Fatalf("accepted unknown verb %q", verb)
		}
		if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
			t.Fatalf("accepted %q, which is not a JSON object", data)
		}
		if h.Kind != verbs[verb] {
			t.Fatalf("kind %v for %q", h.Kind, verb)
		}
		if h.ToolInput != nil && !gjson.ValidBytes(h.ToolInput) {
			t.Fatalf("tool input %q is not JSON", h.ToolInput)
		}
		if len(h.Prompt) > agent.MaxTextBytes+64 || len(h.LastMessage) > agent.MaxTextBytes+64 {
			t.Fatalf("text over the cap kept: %d, %d bytes", len(h.Prompt), len(h.LastMessage))
		}
		out := Agent{}.Reply(h, "hello <world> & \"you\"")
		if out != nil && (!bytes.HasSuffix(out, []byte("\n")) || !gjson.ValidBytes(out) || bytes.Count(out, []byte("\n")) != 1) {
			t.Fatalf("reply is not one JSON line: %q", out)
		}
	})
}

func FuzzScan(f *testing.F) {
	// One seed per line of the JSONL fixture keeps inputs small; the legacy document whole.
	if data, err := os.ReadFile(jsonlFile); err == nil {
		for line := range bytes.Lines(data) {
			f.Add(line)
		}
	}
	if data, err := os.ReadFile(documentFile); err == nil {
		f.Add(data)
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n{\n"))
	f.Add([]byte(`{"messages":[{"id":"a","type":"gemini","tokens":{"input":1e400}}]}`))
	f.Add([]byte("{}\n" + `{"$rewindTo":"x"}` + "\n" + `{"id":"x","type":"user","content":[{"text":"p"}]}` + "\n"))
	path := filepath.Join(f.TempDir(), "chat")
	f.Fuzz(func(t *testing.T, data []byte) {
		s := ScanBytes(data)
		if s.Lines < 0 || s.StartOffset != 0 || s.EndOffset < 0 || s.EndOffset > int64(len(data)) {
			t.Fatalf("Lines %d, offsets %d..%d for %d bytes", s.Lines, s.StartOffset, s.EndOffset, len(data))
		}
		if detectBytes(data) == formatJSONL {
			if n := bytes.Count(data, []byte("\n")); s.Lines != n {
				t.Fatalf("Lines = %d, input has %d newlines", s.Lines, n)
			}
			if want := int64(bytes.LastIndexByte(data, '\n') + 1); s.EndOffset != want {
				t.Fatalf("EndOffset = %d, want %d", s.EndOffset, want)
			}
		}
		if s.Usage.APICallCount < len(s.Calls) {
			t.Fatalf("APICallCount = %d with %d ids", s.Usage.APICallCount, len(s.Calls))
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
		// The file scan agrees with the memory scan.
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		fs, err := ScanFile(path, events.Transcript{})
		if err != nil {
			if errors.Is(err, ErrPositionPastEnd) || s.Lines != 0 {
				t.Fatalf("ScanFile from 0: %v (memory scan read %d)", err, s.Lines)
			}
			return
		}
		if diff := cmp.Diff(s, fs, scanOpts); diff != "" {
			t.Fatalf("ScanFile differs from ScanBytes (-bytes +file):\n%s", diff)
		}
	})
}
