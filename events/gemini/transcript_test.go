package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

const (
	jsonlFile    = "testdata/session.jsonl"
	documentFile = "testdata/session.json"
	proj         = "/home/dev/proj"
)

// scanOpts compares Scans without the per-message rows (checked through APICallCount).
var scanOpts = cmp.Options{cmpopts.IgnoreFields(agent.Scan{}, "Calls", "LastCall"), cmpopts.EquateEmpty()}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// lineEnds lists the offsets just after each '\n' of data.
func lineEnds(data []byte) []int64 {
	var ends []int64
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, int64(i+1))
		}
	}
	return ends
}

// wantJSONL is the scan of testdata/session.jsonl, written from the fixture by hand.
func wantJSONL(size int64) agent.Scan {
	return agent.Scan{
		Prompts: []string{
			"Add a --verbose flag to cmd/tool/main.go and document it in README.md",
			"Now run the tests. If the integration test needs AWS, use AKIAIOSFODNN7EXAMPLE.",
			"@docs/notes.md add a CHANGELOG entry",
		},
		ModifiedFiles: []string{proj + "/cmd/tool/main.go", proj + "/README.md", proj + "/CHANGELOG.md"},
		LastAssistant: "Added a CHANGELOG entry for the --verbose flag.",
		Usage:         events.TokenUsage{InputTokens: 42820, OutputTokens: 376, CacheReadTokens: 32768, APICallCount: 7},
		Actions: []agent.Action{
			{Tool: "read_file", Detail: proj + "/cmd/tool/main.go"},
			{Tool: "replace", Detail: proj + "/cmd/tool/main.go"},
			{Tool: "write_file", Detail: proj + "/README.md"},
			{Tool: "run_shell_command", Detail: "Run the test suite"},
			{Tool: "write_file", Detail: proj + "/CHANGELOG.md"},
			{Tool: "replace", Detail: proj + "/README.md"},
		},
		Lines:     18,
		EndOffset: size,
		LastUUID:  "c1d2e3f4-0011-4a00-8000-000000000011",
	}
}

// wantDocument is the scan of testdata/session.json, written from the fixture by hand.
func wantDocument(size int64) agent.Scan {
	return agent.Scan{
		Prompts: []string{
			"Rename the Config struct to Settings in internal/config/config.go",
			"Also update the callers. The deploy key is AKIAIOSFODNN7EXAMPLE; keep it out of the code.",
		},
		ModifiedFiles: []string{proj + "/internal/config/config.go", proj + "/cmd/app/main.go", proj + "/internal/config/config_test.go"},
		LastAssistant: "Updated the callers and the test.",
		Usage:         events.TokenUsage{InputTokens: 9900, OutputTokens: 153, CacheReadTokens: 3072, APICallCount: 3},
		Actions: []agent.Action{
			{Tool: "read_file", Detail: proj + "/internal/config/config.go"},
			{Tool: "replace", Detail: proj + "/internal/config/config.go"},
			{Tool: "edit_file", Detail: proj + "/cmd/app/main.go"},
			{Tool: "save_file", Detail: proj + "/internal/config/config_test.go"},
		},
		Lines:     7,
		EndOffset: size,
		LastUUID:  "m-7",
	}
}

func TestScanGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		want func(int64) agent.Scan
	}{{jsonlFile, wantJSONL}, {documentFile, wantDocument}} {
		t.Run(tc.file, func(t *testing.T) {
			data := readFixture(t, tc.file)
			want := tc.want(int64(len(data)))
			if diff := cmp.Diff(want, ScanBytes(data), scanOpts); diff != "" {
				t.Errorf("ScanBytes (-want +got):\n%s", diff)
			}
			got, err := Agent{}.ScanFile(tc.file, events.Transcript{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, scanOpts); diff != "" {
				t.Errorf("ScanFile (-want +got):\n%s", diff)
			}
			if len(got.Calls) != want.Usage.APICallCount {
				t.Errorf("%d usage rows, want %d", len(got.Calls), want.Usage.APICallCount)
			}
		})
	}
}

// Scanning [0,a) and then [a,end) finds what one scan finds, at every line boundary.
func TestScanSplitEqualsWhole(t *testing.T) {
	data := readFixture(t, jsonlFile)
	whole := ScanBytes(data)
	for _, a := range lineEnds(data) {
		first := ScanBytes(data[:a])
		rest, err := ScanFile(jsonlFile, events.Transcript{Offset: a, Lines: first.Lines})
		if err != nil {
			t.Fatal(err)
		}
		if rest.StartOffset != a {
			t.Fatalf("split %d: StartOffset = %d", a, rest.StartOffset)
		}
		m := first.Merge(rest)
		for _, c := range []struct {
			what      string
			got, want any
		}{
			{"Prompts", m.Prompts, whole.Prompts},
			{"ModifiedFiles", m.ModifiedFiles, whole.ModifiedFiles},
			{"Usage", m.Usage, whole.Usage},
			{"LastAssistant", m.LastAssistant, whole.LastAssistant},
			{"LastUUID", m.LastUUID, whole.LastUUID},
			{"Lines", m.Lines, whole.Lines},
			{"EndOffset", m.EndOffset, whole.EndOffset},
		} {
			if diff := cmp.Diff(c.want, c.got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("split at %d: %s (-whole +merged):\n%s", a, c.what, diff)
			}
		}
	}
}

// Gemini CLI appends a message again as it changes (its tokens among what changes): a range
// that starts between two records of one message does not count that message's usage again.
// Split anywhere, the usage of the part before plus the range usage of the part after
// (agent.RangeUsage, as the recorder computes a checkpoint's delta) is the whole file's usage.
func TestScanRangeUsageSplitEqualsWhole(t *testing.T) {
	data := readFixture(t, jsonlFile)
	whole := ScanBytes(data)
	scanTo := func(end int64) (agent.Scan, bool) {
		sc, err := ScanFileTo(jsonlFile, events.Transcript{}, end)
		return sc, err == nil
	}
	for _, a := range lineEnds(data) {
		rest, err := ScanFile(jsonlFile, events.Transcript{Offset: a})
		if err != nil {
			t.Fatal(err)
		}
		got := ScanBytes(data[:a]).Usage.Add(agent.RangeUsage(rest, a, scanTo))
		if diff := cmp.Diff(whole.Usage, got); diff != "" {
			t.Errorf("split at %d: usage before + range usage after (-whole +got):\n%s", a, diff)
		}
	}
}

// A message re-appended after the boundary lists its tool calls again: the documented limit.
func TestScanSplitRepeatsActionsOfRewrittenMessage(t *testing.T) {
	data := readFixture(t, jsonlFile)
	a := lineEnds(data)[6] // after the first record of message 0003, before its rewrite
	m := ScanBytes(data[:a]).Merge(ScanBytes(data[a:]))
	if got, want := len(m.Actions), len(ScanBytes(data).Actions)+1; got != want {
		t.Errorf("merged actions = %d, want %d (replace listed twice)", got, want)
	}
}

func TestScanLegacySplitByMessageCount(t *testing.T) {
	data := readFixture(t, documentFile)
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	msgs := doc["messages"].([]any)
	path := filepath.Join(t.TempDir(), "session-2025-11-20T14-02-7a6b5c4d.json")
	whole := ScanBytes(data)
	for k := range len(msgs) + 1 {
		doc["messages"] = msgs[:k]
		early, _ := json.MarshalIndent(doc, "", "  ")
		if err := os.WriteFile(path, early, 0o600); err != nil {
			t.Fatal(err)
		}
		first, err := ScanFile(path, events.Transcript{})
		if err != nil {
			t.Fatal(err)
		}
		if first.Lines != k || first.EndOffset != int64(len(early)) {
			t.Fatalf("%d messages: Lines %d EndOffset %d", k, first.Lines, first.EndOffset)
		}
		// Gemini rewrites the file in place with the later messages.
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		rest, err := ScanFile(path, events.Transcript{Lines: first.Lines, Offset: first.EndOffset})
		if err != nil {
			t.Fatal(err)
		}
		if rest.Lines != len(msgs)-k || rest.StartOffset != first.EndOffset || rest.EndOffset != int64(len(data)) {
			t.Errorf("after %d: Lines %d Start %d End %d", k, rest.Lines, rest.StartOffset, rest.EndOffset)
		}
		m := first.Merge(rest)
		if diff := cmp.Diff(whole, m, scanOpts); diff != "" {
			t.Errorf("split after message %d (-whole +merged):\n%s", k, diff)
		}
	}
}

func TestScanTornLastLine(t *testing.T) {
	data := readFixture(t, jsonlFile)
	torn := `{"id":"c1d2e3f4-0012-4a00-8000-000000000012","type":"user","content":"half writ`
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, append(bytes.Clone(data), torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	want := wantJSONL(int64(len(data)))
	got, err := ScanFile(path, events.Transcript{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, scanOpts); diff != "" {
		t.Errorf("torn tail (-want +got):\n%s", diff)
	}
	// Once the line is complete, the next scan reads it from where the last one stopped.
	if err := os.WriteFile(path, append(append(bytes.Clone(data), torn...), "ten\"}\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	next, err := ScanFile(path, events.Transcript{Offset: got.EndOffset, Lines: got.Lines})
	if err != nil {
		t.Fatal(err)
	}
	if next.Lines != 1 || len(next.Prompts) != 1 || next.Prompts[0] != "half written" {
		t.Errorf("completed line: %+v", next)
	}
}

func TestScanFileErrors(t *testing.T) {
	dir := t.TempDir()
	jsonl := readFixture(t, jsonlFile)
	doc := readFixture(t, documentFile)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	j, d := write("c.jsonl", jsonl), write("c.json", doc)
	bad := write("bad.json", doc[:len(doc)/2])
	tests := []struct {
		name     string
		path     string
		from     events.Transcript
		pastEnd  bool
		contains string
	}{
		{"jsonl offset past end", j, events.Transcript{Offset: int64(len(jsonl)) + 1}, true, "offset"},
		{"document count past end", d, events.Transcript{Lines: 8}, true, "message 8 of 7"},
		{"negative offset", j, events.Transcript{Offset: -1}, false, "negative"},
		{"negative lines", d, events.Transcript{Lines: -1}, false, "negative"},
		{"missing file", filepath.Join(dir, "none.jsonl"), events.Transcript{}, false, "no such file"},
		{"document cut mid-rewrite", bad, events.Transcript{}, false, "not valid JSON"},
	}
	for _, tt := range tests {
		_, err := ScanFile(tt.path, tt.from)
		if err == nil || !strings.Contains(err.Error(), tt.contains) || errors.Is(err, ErrPositionPastEnd) != tt.pastEnd {
			t.Errorf("%s: err = %v, want one containing %q (past end %v)", tt.name, err, tt.contains, tt.pastEnd)
		}
	}
	// At the very end is fine: nothing new.
	s, err := ScanFile(j, events.Transcript{Offset: int64(len(jsonl)), Lines: 18})
	if err != nil || s.Lines != 0 || s.EndOffset != int64(len(jsonl)) {
		t.Errorf("scan at end: %+v, %v", s, err)
	}
	s, err = ScanFile(d, events.Transcript{Lines: 7, Offset: int64(len(doc))})
	if err != nil || s.Lines != 0 || len(s.Prompts) != 0 || s.EndOffset != int64(len(doc)) {
		t.Errorf("document scan at end: %+v, %v", s, err)
	}
	if s := ScanBytes(doc[:len(doc)/2]); s.Lines != 0 || s.EndOffset != 0 {
		t.Errorf("ScanBytes of a cut document = %+v, want empty", s)
	}
}

func TestScanFileLongLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	data := `{"sessionId":"s","projectHash":"h"}` + "\n" +
		`{"id":"u","type":"user","content":"` + long + `"}` + "\n" +
		`{"id":"g","type":"gemini","content":"ok"}` + "\n"
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := ScanFile(path, events.Transcript{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Lines != 3 || s.EndOffset != int64(len(data)) || len(s.Prompts) != 1 || s.LastAssistant != "ok" {
		t.Fatalf("long line scan: Lines %d End %d prompts %d last %q", s.Lines, s.EndOffset, len(s.Prompts), s.LastAssistant)
	}
	if !strings.HasPrefix(s.Prompts[0], long[:agent.MaxTextBytes]+"\n[entire: truncated") {
		t.Errorf("prompt not truncated to the cap: %d bytes", len(s.Prompts[0]))
	}
}
