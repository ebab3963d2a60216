package claudecode

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
)

func FuzzScanBytes(f *testing.F) {
	// One seed per transcript line keeps inputs small, so the fuzzer spends
	// its time mutating rather than minimizing a 20 KB file.
	if data, err := os.ReadFile(sessionFile); err == nil {
		for line := range bytes.Lines(data) {
			f.Add(line)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"type":"user","message":{"content":"<ide_x>a</ide_x>b"}}` + "\n"))
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","name":"Edit","input":{"file_path":"/a"}}],"usage":{"output_tokens":1e400}}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := ScanBytes(data)
		if n := bytes.Count(data, []byte("\n")); s.Lines != n {
			t.Fatalf("Lines = %d, input has %d newlines", s.Lines, n)
		}
		if want := int64(bytes.LastIndexByte(data, '\n') + 1); s.EndOffset != want {
			t.Fatalf("EndOffset = %d, want %d", s.EndOffset, want)
		}
		if s.Usage.APICallCount != len(s.Calls) || s.Usage.APICallCount < 0 {
			t.Fatalf("APICallCount = %d with %d ids", s.Usage.APICallCount, len(s.Calls))
		}
		seen := map[string]bool{}
		for i, f := range s.ModifiedFiles {
			if f == "" || seen[f] {
				t.Fatalf("ModifiedFiles[%d] = %q: empty or duplicated in %q", i, f, s.ModifiedFiles)
			}
			seen[f] = true
		}
		// Splitting anywhere at a line boundary and merging gives the same scan.
		if cut := bytes.IndexByte(data, '\n'); cut >= 0 {
			m := ScanBytes(data[:cut+1]).Merge(ScanBytes(data[cut+1:]))
			if m.Lines != s.Lines || m.EndOffset != s.EndOffset || m.Usage != s.Usage || len(m.Prompts) != len(s.Prompts) {
				t.Fatalf("merge of split scan differs: %+v vs %+v", m, s)
			}
		}
	})
}

func FuzzParseHookInput(f *testing.F) {
	for _, name := range []string{"testdata/stop.json", "testdata/post-tool-use.json"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("[]"))
	f.Add([]byte(`{"session_id":"\u0000","tool_input":{"a":[1,{"b":null}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseHookInput(data)
		if err != nil {
			if !reflect.ValueOf(in).IsZero() {
				t.Fatalf("error %v with non-zero input %+v", err, in)
			}
			return
		}
		if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
			t.Fatalf("accepted %q, which is not a JSON object", data)
		}
		for _, raw := range [][]byte{in.ToolInput, in.ToolResponse} {
			if raw != nil && !gjson.ValidBytes(raw) {
				t.Fatalf("raw field %q is not valid JSON", raw)
			}
		}
		_ = agent.ValidateSessionID(in.SessionID)
		if len(in.Prompt) > agent.MaxTextBytes+64 {
			t.Fatalf("prompt of %d bytes kept, over the cap of %d", len(in.Prompt), agent.MaxTextBytes)
		}
		_ = StripTags(in.Prompt)
		_ = agent.CommitSubject(in.Prompt)
	})
}

// FuzzCheckTranscript: whatever a transcript path holds, the check decides without panicking,
// and what it accepts opens like a transcript: empty, or a JSON object first line.
func FuzzCheckTranscript(f *testing.F) {
	if data, err := os.ReadFile(sessionFile); err == nil {
		f.Add(data[:min(len(data), 4096)])
	}
	f.Add([]byte(""))
	f.Add([]byte("root:x:0:0:root:/root:/bin/bash\n"))
	f.Add([]byte("{\n  \"a\": 1\n}\n"))
	f.Add([]byte("\x00\x01{"))
	path := filepath.Join(f.TempDir(), "t.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		err := agent.CheckTranscript(path)
		if err != nil && !errors.Is(err, agent.ErrNotTranscript) {
			t.Fatalf("unexpected error kind: %v", err)
		}
		if err != nil || len(data) == 0 {
			return
		}
		line, _, _ := bytes.Cut(data, []byte{'\n'})
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			t.Fatalf("accepted a first line that does not open a JSON object: %q", line)
		}
		if len(line) < 32<<10 && !gjson.ValidBytes(line) && !prettyDocument(data) {
			t.Fatalf("accepted an invalid JSON first line: %q", line)
		}
	})
}

// prettyDocument reports whether data opens a pretty-printed JSON object: a line "{", then a
// line that starts a key or closes the object.
func prettyDocument(data []byte) bool {
	lines := bytes.SplitN(data, []byte{'\n'}, 3)
	if len(lines) < 2 || string(bytes.TrimSpace(lines[0])) != "{" {
		return false
	}
	next := bytes.TrimSpace(lines[1])
	return len(next) > 0 && (next[0] == '"' || next[0] == '}')
}
