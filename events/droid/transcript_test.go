package droid

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

// scanOpts compares Scans including their per-response rows.
var scanOpts = cmp.Options{cmp.AllowUnexported(agent.Scan{}), cmpopts.EquateEmpty()}

const (
	sessionFile = "testdata/session.jsonl"
	// sessionLines is the number of lines of sessionFile.
	sessionLines = 20
)

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
			"Add a /healthz endpoint to server.go and a test for it.",
			"Now document it in README.md and record the change in notes/CHANGES.md please",
			"Have a worker review the handler.",
		},
		ModifiedFiles: []string{
			"/home/u/src/svc/server.go",
			"/home/u/src/svc/server_test.go",
			"/home/u/src/svc/README.md",
			"notes/CHANGES.md",
		},
		LastAssistant: "The review worker is running; I will report back.",
		// Eight responses; msg_01B is written over two lines and counts once, with output 95.
		Usage: events.TokenUsage{
			InputTokens:         12 + 3 + 2 + 2 + 4 + 3 + 2 + 3 + 2,
			CacheCreationTokens: 2048 + 150 + 300 + 120 + 200 + 80 + 90 + 60 + 40,
			CacheReadTokens:     9000 + 11048 + 11198 + 11498 + 11618 + 11818 + 11898 + 11988 + 12048,
			OutputTokens:        40 + 95 + 25 + 30 + 22 + 60 + 15 + 35 + 14,
			APICallCount:        9,
		},
		Actions: []agent.Action{
			{Tool: "Read", Detail: "/home/u/src/svc/server.go"},
			{Tool: "Edit", Detail: "/home/u/src/svc/server.go"},
			{Tool: "Create", Detail: "/home/u/src/svc/server_test.go"},
			{Tool: "Execute", Detail: "go test ./..."},
			{Tool: "Grep", Detail: "/home/u/src/svc"},
			{Tool: "MultiEdit", Detail: "/home/u/src/svc/README.md"},
			{Tool: "Write", Detail: "notes/CHANGES.md"},
			{Tool: "Task", Detail: "Review healthz"},
		},
		Lines:     sessionLines,
		EndOffset: int64(len(data)),
		LastUUID:  "m19-4a1b",
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(agent.Scan{}, "Calls", "LastCall"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("ScanBytes(session) mismatch (-want +got):\n%s", diff)
	}
	if row := got.Calls["msg_01B"]; row.OutputTokens != 95 {
		t.Errorf("msg_01B kept output_tokens %d, want the larger streamed row 95", row.OutputTokens)
	}
}

func TestScanSecondTurn(t *testing.T) {
	data := readSession(t)
	got, err := ScanFile(sessionFile, agenttest.LineOffset(t, data, 10))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Now document it in README.md and record the change in notes/CHANGES.md please", "Have a worker review the handler."}
	if diff := cmp.Diff(want, got.Prompts); diff != "" {
		t.Errorf("prompts from line 10 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/home/u/src/svc/README.md", "notes/CHANGES.md"}, got.ModifiedFiles); diff != "" {
		t.Errorf("files from line 10 (-want +got):\n%s", diff)
	}
	wantUsage := events.TokenUsage{InputTokens: 14, CacheCreationTokens: 470, CacheReadTokens: 59370, OutputTokens: 146, APICallCount: 5}
	if diff := cmp.Diff(wantUsage, got.Usage); diff != "" {
		t.Errorf("usage from line 10 (-want +got):\n%s", diff)
	}
}

func TestMerge(t *testing.T) {
	data := readSession(t)
	full := ScanBytes(data)
	// Every split point, including the one inside msg_01B (lines 4 and 5).
	for line := 0; line <= sessionLines; line++ {
		off := agenttest.LineOffset(t, data, line)
		merged := ScanBytes(data[:off]).Merge(ScanBytes(data[off:]))
		if diff := cmp.Diff(full, merged, scanOpts); diff != "" {
			t.Errorf("split at line %d (-full +merged):\n%s", line, diff)
		}
	}
	off := agenttest.LineOffset(t, data, 5)
	rest, err := ScanFile(sessionFile, off)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(full, ScanBytes(data[:off]).Merge(rest), scanOpts); diff != "" {
		t.Errorf("ScanBytes+ScanFile merge (-full +merged):\n%s", diff)
	}
}

func TestScanLineShapes(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		check func(agent.Scan) bool
	}{
		{"string prompt trimmed", `{"type":"message","id":"a","message":{"role":"user","content":"  hi  "}}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "hi" && s.LastUUID == "a" }},
		{"claude-style line is not droid's", `{"type":"user","uuid":"u","message":{"role":"user","content":"hi"}}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 0 && s.LastUUID == "" }},
		{"tool results only", `{"type":"message","message":{"role":"user","content":[{"type":"tool_result","content":"x"}]}}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"reminder only", `{"type":"message","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"}]}}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"session_start skipped", `{"type":"session_start","id":"s","title":"t"}`,
			func(s agent.Scan) bool { return s.Lines == 1 && s.LastUUID == "" }},
		{"no usage no call", `{"type":"message","id":"a","message":{"role":"assistant","id":"m","content":[{"type":"text","text":"x"}]}}`,
			func(s agent.Scan) bool { return s.Usage.IsZero() && s.LastAssistant == "x" }},
		{"usage keyed by line id without message id", `{"type":"message","id":"l1","message":{"role":"assistant","usage":{"output_tokens":3}}}` + "\n" +
			`{"type":"message","id":"l1","message":{"role":"assistant","usage":{"output_tokens":5}}}`,
			func(s agent.Scan) bool { return s.Usage.OutputTokens == 5 && s.Usage.APICallCount == 1 }},
		{"notebook_path", `{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","name":"NotebookEdit","input":{"notebook_path":"/n.ipynb"}}]}}`,
			func(s agent.Scan) bool { return len(s.ModifiedFiles) == 1 && s.ModifiedFiles[0] == "/n.ipynb" }},
		{"claude's mcp write is not droid's", `{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","name":"mcp__acp__Write","input":{"file_path":"/a"}}]}}`,
			func(s agent.Scan) bool { return len(s.ModifiedFiles) == 0 && s.Actions[0].Detail == "/a" }},
		{"blank text keeps last", `{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"one"},{"type":"text","text":"  "}]}}`,
			func(s agent.Scan) bool { return s.LastAssistant == "one" }},
		{"numeric id", `{"type":"message","id":7,"message":{"role":"user","content":"x"}}`,
			func(s agent.Scan) bool { return s.LastUUID == "" && len(s.Prompts) == 1 }},
		{"not json", `{"type":"message",`, func(s agent.Scan) bool { return s.Lines == 1 && s.EndOffset == 19 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScanBytes([]byte(tt.line + "\n"))
			if !tt.check(s) {
				t.Errorf("ScanBytes(%s) = %+v", tt.line, s)
			}
		})
	}
}

func TestScanTornLastLine(t *testing.T) {
	data := readSession(t)
	last := agenttest.LineOffset(t, data, sessionLines-1)
	got := ScanBytes(data[:len(data)-10])
	if got.Lines != sessionLines-1 || got.EndOffset != last || got.LastUUID == "m19-4a1b" {
		t.Errorf("torn scan: Lines=%d EndOffset=%d LastUUID=%q, want %d, %d and not the last line's", got.Lines, got.EndOffset, got.LastUUID, sessionLines-1, last)
	}
	got = ScanBytes(data[:len(data)-1])
	if got.Lines != sessionLines-1 || got.EndOffset != last {
		t.Errorf("unterminated scan: Lines=%d EndOffset=%d", got.Lines, got.EndOffset)
	}

	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, data[:len(data)-10], 0o600); err != nil {
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

func TestScanFileLongLine(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	data := []byte(`{"type":"message","id":"u1","message":{"role":"user","content":[{"type":"tool_result","content":"` + big + `"}]}}` + "\n" +
		`{"type":"message","id":"u2","message":{"role":"user","content":"after the big line"}}` + "\n" +
		`{"type":"message","id":"u3","message":{"role":"user","content":"` + big + `"`)
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

func TestStripReminders(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"  <system-reminder>todo: none</system-reminder>\nfix it ", "fix it"},
		{"a<system-reminder>x</system-reminder>b<system-reminder>y\nz</system-reminder>c", "abc"},
		{"<system-reminder>unclosed", "<system-reminder>unclosed"},
		{"</system-reminder>stray", "</system-reminder>stray"},
		{"<system-reminder>a</system-reminder><system-reminder>b", "<system-reminder>b"},
		{"<ide_selection>kept</ide_selection> x", "<ide_selection>kept</ide_selection> x"},
	}
	for _, tt := range tests {
		if got := stripReminders(tt.in); got != tt.want {
			t.Errorf("stripReminders(%q) = %q, want %q", tt.in, got, tt.want)
		}
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
