package opencode

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

// sessionLines is the number of messages (lines) in testdata/session.jsonl.
const sessionLines = 10

func readSession(t testing.TB) []byte {
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

	// Facts derived by hand from the fixture, independent of the golden file.
	want := agent.Scan{
		Prompts: []string{
			"Add a Greet function to greet.go and a test for it.",
			"Use this key for the deploy script: AKIAIOSFODNN7EXAMPLE, and update the README.",
			"Thanks — one more: add a CHANGELOG entry.",
		},
		ModifiedFiles: []string{
			"/home/u/src/repo/greet.go",
			"/home/u/src/repo/greet_test.go",
			"README.md",
			"scripts/deploy.sh",
			"/home/u/src/repo/CHANGELOG.md",
		},
		Cwd:           "/home/u/src/repo", // the assistant messages' info.path.cwd
		LastAssistant: "Added the CHANGELOG entry.",
		Usage: events.TokenUsage{
			InputTokens: 3520, OutputTokens: 850, CacheReadTokens: 61100, CacheCreationTokens: 1220,
			APICallCount: 6,
		},
		Actions: []agent.Action{
			{Tool: "write", Detail: "/home/u/src/repo/greet.go"},
			{Tool: "edit", Detail: "/home/u/src/repo/main.go"},
			{Tool: "write", Detail: "/home/u/src/repo/greet_test.go"},
			{Tool: "bash", Detail: "Run the tests"},
			{Tool: "apply_patch", Detail: "README.md"},
			{Tool: "edit", Detail: "/home/u/src/repo/greet.go"},
			{Tool: "grep", Detail: `Greet\(`},
			{Tool: "task", Detail: "Review the patch"},
			{Tool: "edit", Detail: "/home/u/src/repo/CHANGELOG.md"},
		},
		Lines:     sessionLines,
		EndOffset: int64(len(data)),
		LastUUID:  "msg_9a3c2f1e7010Qk7WbX4yZ2rT5u",
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(agent.Scan{}, "Calls", "LastCall"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("ScanBytes(session) mismatch (-want +got):\n%s", diff)
	}
	row := got.Calls["msg_9a3c2f1e7006Qk7WbX4yZ2rT5u"]
	if want := (events.TokenUsage{InputTokens: 2100, OutputTokens: 520, CacheReadTokens: 10200, CacheCreationTokens: 800, APICallCount: 1}); row != want {
		t.Errorf("row of the patching message = %+v, want %+v (output includes reasoning)", row, want)
	}
}

func TestScanFileEqualsScanBytes(t *testing.T) {
	data := readSession(t)
	for line := 0; line <= sessionLines; line++ {
		off := agenttest.LineOffset(t, data, line)
		got, err := ScanFile(sessionFile, off)
		if err != nil {
			t.Fatal(err)
		}
		want := ScanBytes(data[off:])
		want.StartOffset, want.EndOffset = off, off+want.EndOffset
		if diff := cmp.Diff(want, got, scanOpts); diff != "" {
			t.Errorf("ScanFile(offset of line %d) mismatch (-want +got):\n%s", line, diff)
		}
		if got.Lines != sessionLines-line {
			t.Errorf("ScanFile(offset of line %d).Lines = %d, want %d", line, got.Lines, sessionLines-line)
		}
	}
}

// Scanning [0,a) then [a,end) and merging gives what one scan gives, at every line boundary.
func TestSplitScanEqualsWholeScan(t *testing.T) {
	data := readSession(t)
	whole := ScanBytes(data)
	for line := 0; line <= sessionLines; line++ {
		off := agenttest.LineOffset(t, data, line)
		first := ScanBytes(data[:off])
		rest, err := ScanFile(sessionFile, off)
		if err != nil {
			t.Fatal(err)
		}
		if first.EndOffset != off || rest.StartOffset != off {
			t.Fatalf("split at line %d: first ends at %d, rest starts at %d, want %d", line, first.EndOffset, rest.StartOffset, off)
		}
		if diff := cmp.Diff(whole, first.Merge(rest), scanOpts); diff != "" {
			t.Errorf("split at line %d: merged scan differs (-whole +merged):\n%s", line, diff)
		}
	}
}

func TestScanSecondTurn(t *testing.T) {
	data := readSession(t)
	got, err := ScanFile(sessionFile, agenttest.LineOffset(t, data, 4))
	if err != nil {
		t.Fatal(err)
	}
	wantPrompts := []string{
		"Use this key for the deploy script: AKIAIOSFODNN7EXAMPLE, and update the README.",
		"Thanks — one more: add a CHANGELOG entry.",
	}
	if diff := cmp.Diff(wantPrompts, got.Prompts); diff != "" {
		t.Errorf("Prompts from line 4 (-want +got):\n%s", diff)
	}
	wantFiles := []string{"README.md", "scripts/deploy.sh", "/home/u/src/repo/greet.go", "/home/u/src/repo/CHANGELOG.md"}
	if diff := cmp.Diff(wantFiles, got.ModifiedFiles); diff != "" {
		t.Errorf("ModifiedFiles from line 4 (-want +got):\n%s", diff)
	}
	if got.Usage.APICallCount != 3 || got.Lines != 6 {
		t.Errorf("from line 4: %d calls over %d lines, want 3 over 6", got.Usage.APICallCount, got.Lines)
	}
}

func TestScanTornLastLine(t *testing.T) {
	data := readSession(t)
	last := agenttest.LineOffset(t, data, sessionLines-1)
	torn := data[:len(data)-40] // the last message without its end and its '\n'
	path := filepath.Join(t.TempDir(), "torn.jsonl")
	if err := os.WriteFile(path, torn, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ScanFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.EndOffset != last || got.Lines != sessionLines-1 {
		t.Errorf("torn file: EndOffset %d over %d lines, want %d over %d", got.EndOffset, got.Lines, last, sessionLines-1)
	}
	if got.LastAssistant != "Updated README.md and added scripts/deploy.sh.\n\nI did not store the key anywhere else." {
		t.Errorf("torn file: LastAssistant = %q, want the text of the message before the torn one", got.LastAssistant)
	}
	if b := ScanBytes(torn); b.EndOffset != last || len(b.Prompts) != 3 {
		t.Errorf("ScanBytes(torn): EndOffset %d, %d prompts; want %d, 3", b.EndOffset, len(b.Prompts), last)
	}
	// Once the line is complete, the next scan from EndOffset reads it whole.
	next, err := ScanFile(sessionFile, got.EndOffset)
	if err != nil {
		t.Fatal(err)
	}
	if next.Lines != 1 || next.LastAssistant != "Added the CHANGELOG entry." || next.LastUUID != "msg_9a3c2f1e7010Qk7WbX4yZ2rT5u" {
		t.Errorf("scan after the torn line completed = %+v", next)
	}
}

func TestScanLastAssistantJoinsParts(t *testing.T) {
	data := readSession(t)
	got := ScanBytes(data[:agenttest.LineOffset(t, data, 7)])
	if want := "Updated README.md and added scripts/deploy.sh.\n\nI did not store the key anywhere else."; got.LastAssistant != want {
		t.Errorf("LastAssistant = %q, want %q", got.LastAssistant, want)
	}
}

// A line longer than the reader's buffer is read whole.
func TestScanFileLongLine(t *testing.T) {
	output := strings.Repeat("x", 200<<10)
	line := `{"info":{"id":"msg_long","role":"assistant","tokens":{"input":1,"output":2}},"parts":[` +
		`{"type":"tool","tool":"write","state":{"status":"completed","input":{"filePath":"big.txt"},"output":"` + output + `"}},` +
		`{"type":"text","text":"done"}]}` + "\n"
	data := append(readSession(t), line...)
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ScanFile(path, agenttest.LineOffset(t, data, sessionLines))
	if err != nil {
		t.Fatal(err)
	}
	if got.Lines != 1 || got.EndOffset != int64(len(data)) || got.LastAssistant != "done" ||
		!cmp.Equal(got.ModifiedFiles, []string{"big.txt"}) || got.LastUUID != "msg_long" {
		t.Errorf("long line scan = lines %d, end %d/%d, %q, %q, %q", got.Lines, got.EndOffset, len(data), got.LastAssistant, got.ModifiedFiles, got.LastUUID)
	}
}

func TestScanOddLines(t *testing.T) {
	data := strings.Join([]string{
		``,
		`not json`,
		`[1,2]`,
		`{"info":{"id":"u1","role":"user"},"parts":{"type":"text","text":"parts is not a list"}}`,
		`{"info":{"id":7,"role":"user"},"parts":[{"type":"text","text":"  spaced prompt \n"},{"type":"text","text":"second part"}]}`,
		`{"info":{"id":"u2","role":"user"},"parts":[{"type":"text","text":"   "},{"type":"file","url":"file:///x"}]}`,
		`{"info":{"id":"a1","role":"assistant"},"parts":[{"type":"tool","tool":"edit","state":{"status":"running","input":{"path":"rel/x.go"}}},{"type":"tool","tool":"patch","state":{"status":"completed","input":"*** Begin Patch\n  *** Delete File: old.go\n*** Update File: a.go\n*** Move to: b.go\n*** End Patch"}}]}`,
		`{"info":{"id":"a2","role":"assistant","tokens":{"input":5}},"parts":[{"type":"text","text":"partial","synthetic":true}]}`,
		``,
	}, "\n")
	got := ScanBytes([]byte(data))
	want := agent.Scan{
		Prompts:       []string{"spaced prompt \n\n\nsecond part"},
		ModifiedFiles: []string{"rel/x.go", "old.go", "a.go", "b.go"},
		Actions:       []agent.Action{{Tool: "edit", Detail: "rel/x.go"}, {Tool: "patch", Detail: "old.go"}},
		Usage:         events.TokenUsage{InputTokens: 5, APICallCount: 1},
		Lines:         8,
		EndOffset:     int64(len(data)),
		LastUUID:      "a2",
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(agent.Scan{}, "Calls", "LastCall"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("ScanBytes(odd lines) mismatch (-want +got):\n%s", diff)
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
