package opencode

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
)

var safeIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func FuzzParse(f *testing.F) {
	names := slices.Sorted(func(yield func(string) bool) {
		for v := range verbs {
			if !yield(v) {
				return
			}
		}
	})
	for i, v := range names {
		if data, err := os.ReadFile("testdata/hooks/" + v + ".json"); err == nil {
			f.Add(uint8(i), data)
		}
	}
	f.Add(uint8(0), []byte(""))
	f.Add(uint8(1), []byte("[]"))
	f.Add(uint8(2), []byte(`{"session_id":"\u0000","tool_use_id":"a|b\nc","subagent_id":"../x"}`))
	f.Add(uint8(200), []byte(`{}`))
	f.Fuzz(func(t *testing.T, pick uint8, data []byte) {
		verb := "unknown-verb"
		if int(pick) < len(names) {
			verb = names[pick]
		}
		h, err := Agent{}.Parse(verb, data)
		if err != nil {
			if !reflect.ValueOf(h).IsZero() {
				t.Fatalf("error %v with non-zero hook %+v", err, h)
			}
			return
		}
		if verb == "unknown-verb" {
			t.Fatal("accepted an unknown verb")
		}
		if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
			t.Fatalf("accepted %q, which is not a JSON object", data)
		}
		if h.Kind != verbs[verb] {
			t.Fatalf("kind %v for verb %s", h.Kind, verb)
		}
		for _, id := range []string{h.ToolUseID, h.SubagentID} {
			if id != "" && !safeIDRe.MatchString(id) {
				t.Fatalf("id %q is not a safe file name", id)
			}
		}
		if len(h.Prompt) > agent.MaxTextBytes+64 {
			t.Fatalf("prompt of %d bytes kept, over the cap of %d", len(h.Prompt), agent.MaxTextBytes)
		}
		if (Agent{}).Reply(h, "x") != nil {
			t.Fatal("Reply printed something")
		}
	})
}

func FuzzScan(f *testing.F) {
	// One seed per transcript line keeps inputs small.
	if data, err := os.ReadFile(sessionFile); err == nil {
		for line := range bytes.Lines(data) {
			f.Add(line)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"info":{"id":"a","role":"assistant","tokens":{"input":-1,"output":1e400,"reasoning":"x"}},"parts":[{"type":"tool","tool":"apply_patch","state":{"input":"*** Add File: \n*** Update File: a\n"}}]}` + "\n"))
	f.Add([]byte(`{"info":{"role":"user"},"parts":[{"type":"text","text":" "}]}` + "\n" + `{"info":{"id":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := ScanBytes(data)
		if n := bytes.Count(data, []byte("\n")); s.Lines != n {
			t.Fatalf("Lines = %d, input has %d newlines", s.Lines, n)
		}
		if want := int64(bytes.LastIndexByte(data, '\n') + 1); s.EndOffset != want || s.StartOffset != 0 {
			t.Fatalf("offsets [%d,%d), want [0,%d)", s.StartOffset, s.EndOffset, want)
		}
		if s.Usage.APICallCount < len(s.Calls) {
			t.Fatalf("APICallCount = %d with %d ids", s.Usage.APICallCount, len(s.Calls))
		}
		seen := map[string]bool{}
		for i, f := range s.ModifiedFiles {
			if f == "" || seen[f] {
				t.Fatalf("ModifiedFiles[%d] = %q: empty or duplicated in %q", i, f, s.ModifiedFiles)
			}
			seen[f] = true
		}
		for _, p := range s.Prompts {
			if p == "" {
				t.Fatal("empty prompt kept")
			}
		}
		// Splitting at the first line boundary and merging gives the same scan.
		if cut := bytes.IndexByte(data, '\n'); cut >= 0 {
			m := ScanBytes(data[:cut+1]).Merge(ScanBytes(data[cut+1:]))
			if m.Lines != s.Lines || m.EndOffset != s.EndOffset || m.Usage != s.Usage ||
				!slices.Equal(m.Prompts, s.Prompts) || !slices.Equal(m.ModifiedFiles, s.ModifiedFiles) ||
				m.LastAssistant != s.LastAssistant || m.LastUUID != s.LastUUID {
				t.Fatalf("merge of split scan differs: %+v vs %+v", m, s)
			}
		}
	})
}

// FuzzMergeLines: whatever the old file holds, the materialized file has one line per
// exported message, each holding that message's id.
func FuzzMergeLines(f *testing.F) {
	u := []byte(`{"info":{"id":"u","role":"user"},"parts":[]}` + "\n")
	a := []byte(`{"info":{"id":"a","role":"assistant","time":{"completed":1}},"parts":[]}` + "\n")
	f.Add(slices.Concat(u, a), slices.Concat(u, a, u))
	f.Add(u, slices.Concat(a, u))
	f.Add([]byte("x\n\n{"), []byte(`{"info":{"id":"a","role":"user"}}`))
	f.Fuzz(func(t *testing.T, old, fresh []byte) {
		var lines [][]byte
		for _, l := range bytes.Split(fresh, []byte{'\n'}) {
			if len(l) > 0 {
				lines = append(lines, l)
			}
		}
		out := mergeLines(old, lines)
		got := bytes.Split(bytes.TrimSuffix(out, []byte{'\n'}), []byte{'\n'})
		if len(lines) == 0 {
			if len(out) != 0 {
				t.Fatalf("nothing exported, wrote %q", out)
			}
			return
		}
		if len(got) != len(lines) || out[len(out)-1] != '\n' {
			t.Fatalf("%d lines out for %d messages: %q", len(got), len(lines), out)
		}
		for i := range lines {
			if messageID(got[i]) != messageID(lines[i]) {
				t.Fatalf("line %d holds message %q, want %q", i, messageID(got[i]), messageID(lines[i]))
			}
		}
	})
}
