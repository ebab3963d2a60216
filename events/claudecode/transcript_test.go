package claudecode

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// scanOpts compares Scans including their per-message rows.
var scanOpts = cmp.Options{cmp.AllowUnexported(agent.Scan{}), cmpopts.EquateEmpty()}

const sessionFile = "testdata/session.jsonl"

func readSession(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(sessionFile)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestScanGolden(t *testing.T) {
	data := readSession(t)
	got := ScanBytes(data)
	js, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	agenttest.Golden(t, "session.scan.json", append(js, '\n'), *update)

	// The golden file is reviewed once; these hand-derived facts keep it honest.
	want := agent.Scan{
		Prompts: []string{
			"Can you add a greeting function to main.go and a test for it?",
			"Please please update the README and the analysis notebook too?",
			"Thanks — one more: add a CHANGELOG entry.",
		},
		ModifiedFiles: []string{
			"/home/u/src/repo/main.go",
			"/home/u/src/repo/main_test.go",
			"/home/u/src/repo/README.md",
			"/home/u/src/repo/notebooks/analysis.ipynb",
			"/tmp/scratch/notes.txt",
		},
		LastAssistant: "Updated README.md, the notebook and added the CHANGELOG entry.",
		Usage: events.TokenUsage{
			InputTokens: 13, CacheCreationTokens: 3390, CacheReadTokens: 163090,
			OutputTokens: 925, APICallCount: 10,
		},
		Actions: []agent.Action{
			{Tool: "Edit", Detail: "/home/u/src/repo/main.go"},
			{Tool: "Write", Detail: "/home/u/src/repo/main_test.go"},
			{Tool: "Bash", Detail: "Run the tests"},
			{Tool: "MultiEdit", Detail: "/home/u/src/repo/README.md"},
			{Tool: "NotebookEdit", Detail: ""},
			{Tool: "Edit", Detail: "/home/u/src/repo/main.go"},
			{Tool: "Grep", Detail: `Greet\(`},
			{Tool: "mcp__acp__Write", Detail: "/tmp/scratch/notes.txt"},
		},
		Lines:     38,
		EndOffset: int64(len(data)),
		LastUUID:  "00000021-0000-4000-8000-000000000021",
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(agent.Scan{}, "Calls", "LastCall"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("ScanBytes(session) mismatch (-want +got):\n%s", diff)
	}
	if row := got.Calls["msg_01A"]; row.OutputTokens != 187 {
		t.Errorf("msg_01A kept output_tokens %d, want the largest streaming row 187", row.OutputTokens)
	}
}

func TestScanSecondTurn(t *testing.T) {
	data := readSession(t)
	got, err := ScanFile(sessionFile, agenttest.LineOffset(t, data, 16))
	if err != nil {
		t.Fatal(err)
	}
	wantPrompts := []string{
		"Please please update the README and the analysis notebook too?",
		"Thanks — one more: add a CHANGELOG entry.",
	}
	if diff := cmp.Diff(wantPrompts, got.Prompts); diff != "" {
		t.Errorf("turn 2 prompts (-want +got):\n%s", diff)
	}
	wantUsage := events.TokenUsage{InputTokens: 7, CacheCreationTokens: 1320, CacheReadTokens: 102350, OutputTokens: 372, APICallCount: 6}
	if diff := cmp.Diff(wantUsage, got.Usage); diff != "" {
		t.Errorf("turn 2 usage (-want +got):\n%s", diff)
	}
}

func TestScanTornLastLine(t *testing.T) {
	data := readSession(t)
	last := agenttest.LineOffset(t, data, 37)
	torn := data[:len(data)-10] // the final line lost its end and its '\n'
	got := ScanBytes(torn)
	if got.Lines != 37 || got.EndOffset != last {
		t.Errorf("torn scan: Lines=%d EndOffset=%d, want 37 and %d", got.Lines, got.EndOffset, last)
	}
	if got.LastUUID == "00000021-0000-4000-8000-000000000021" {
		t.Error("torn last line was consumed")
	}

	// Complete JSON without its '\n' is not consumed either.
	got = ScanBytes(data[:len(data)-1])
	if got.Lines != 37 || got.EndOffset != last {
		t.Errorf("unterminated scan: Lines=%d EndOffset=%d, want 37 and %d", got.Lines, got.EndOffset, last)
	}

	// The same through a file; the next scan from EndOffset picks the line up.
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, torn, 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := ScanFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if first.EndOffset != last {
		t.Fatalf("ScanFile(torn).EndOffset = %d, want %d", first.EndOffset, last)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	rest, err := ScanFile(path, first.EndOffset)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ScanBytes(data), first.Merge(rest), scanOpts); diff != "" {
		t.Errorf("scan of torn file merged with its continuation (-full +merged):\n%s", diff)
	}
}

func TestMerge(t *testing.T) {
	data := readSession(t)
	full := ScanBytes(data)
	// Every split point, including ones inside an API response written as
	// several lines (msg_01A on lines 4-6, msg_01D on 12-13, msg_02A on 20-21).
	for line := 0; line <= 38; line++ {
		off := agenttest.LineOffset(t, data, line)
		merged := ScanBytes(data[:off]).Merge(ScanBytes(data[off:]))
		if diff := cmp.Diff(full, merged, scanOpts); diff != "" {
			t.Errorf("split at line %d (-full +merged):\n%s", line, diff)
		}
	}
	// A ScanFile continuation has an absolute frame; the result is the same.
	off := agenttest.LineOffset(t, data, 5)
	rest, err := ScanFile(sessionFile, off)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(full, ScanBytes(data[:off]).Merge(rest), scanOpts); diff != "" {
		t.Errorf("ScanBytes+ScanFile merge (-full +merged):\n%s", diff)
	}
}

func TestMergeHandBuiltUsageIsAdded(t *testing.T) {
	sub := events.TokenUsage{OutputTokens: 5, APICallCount: 1}
	a := agent.Scan{Usage: events.TokenUsage{InputTokens: 1, OutputTokens: 2, APICallCount: 1, SubagentTokens: &sub}, EndOffset: 10, StartOffset: 0}
	b := ScanBytes([]byte(`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":3,"output_tokens":4}}}` + "\n"))
	got := a.Merge(b)
	want := events.TokenUsage{InputTokens: 4, OutputTokens: 6, APICallCount: 2, SubagentTokens: &sub}
	if diff := cmp.Diff(want, got.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if got.EndOffset != 10+b.EndOffset {
		t.Errorf("EndOffset = %d, want %d", got.EndOffset, 10+b.EndOffset)
	}
}

func TestScanFileLongLine(t *testing.T) {
	// A 3 MB tool result, far beyond the reader's buffer, then a prompt.
	big := strings.Repeat("x", 3<<20)
	data := []byte(`{"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"` + big + `"}]}}` + "\n" +
		`{"type":"user","uuid":"u2","message":{"role":"user","content":"after the big line"}}` + "\n" +
		`{"type":"user","uuid":"u3","message":{"role":"user","content":"` + big + `"`)
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ScanFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ScanBytes(data), got, scanOpts); diff != "" {
		t.Errorf("ScanFile vs ScanBytes (-bytes +file):\n%s", diff)
	}
	if got.Lines != 2 || got.LastUUID != "u2" || len(got.Prompts) != 1 || got.Prompts[0] != "after the big line" {
		t.Errorf("got Lines=%d LastUUID=%q Prompts=%q", got.Lines, got.LastUUID, got.Prompts)
	}
}

// TestScanContract: what the engine relies on from the scanner (agenttest.ScanContract).
func TestScanContract(t *testing.T) {
	data, err := os.ReadFile(sessionFile)
	if err != nil {
		t.Fatal(err)
	}
	agenttest.ScanContract(t, Agent{}, data)
}

// The line Claude Code writes when the user interrupts a turn is no prompt; a prompt that only
// mentions it is one.
func TestScanInterruptMarkerIsNoPrompt(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"Write a.txt"}}`,
		`{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`,
		`{"type":"user","uuid":"u3","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`,
		`{"type":"user","uuid":"u4","message":{"role":"user","content":"Why did you stop? [Request interrupted by user]"}}`,
		`{"type":"user","uuid":"u5","message":{"role":"user","content":"[Request interrupted by user] and [then this]"}}`,
	}
	got := ScanBytes([]byte(strings.Join(lines, "\n") + "\n"))
	want := []string{"Write a.txt", "Why did you stop? [Request interrupted by user]", "[Request interrupted by user] and [then this]"}
	if diff := cmp.Diff(want, got.Prompts); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
}
