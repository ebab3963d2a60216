package copilot

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

var scanOpts = cmp.Options{cmpopts.EquateEmpty()}

const (
	eventsFile = "testdata/events.jsonl"
	eventLines = 22
	// shutdownLine is the 0-based line of the session.shutdown event (the last one).
	shutdownLine = 21
	app          = "/home/u/src/app"
)

// perMessage is the usage the assistant messages of the fixture carry: 7 messages, their
// outputTokens 48+132+96+40+31+110+15.
var perMessage = events.TokenUsage{OutputTokens: 472, APICallCount: 7}

// shutdownTotals are the fixture's session.shutdown modelMetrics.
var shutdownTotals = events.TokenUsage{InputTokens: 41230, CacheCreationTokens: 2048, CacheReadTokens: 30112, OutputTokens: 472, APICallCount: 7}

func readEvents(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(eventsFile)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestScanGolden(t *testing.T) {
	data := readEvents(t)
	got := ScanBytes(data)
	js, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	agenttest.Golden(t, "events.scan.json", append(js, '\n'), *update)

	// Hand-derived from the fixture, independent of the golden file.
	want := agent.Scan{
		Prompts: []string{
			"Add input validation to src/validate.ts and a test. The CI token AKIAIOSFODNN7EXAMPLE must not end up in the code.",
			"Also describe the rule in the README.",
		},
		ModifiedFiles: []string{app + "/src/validate.ts", app + "/test/validate.test.ts", app + "/README.md", "docs/rules.md"},
		LastAssistant: "README.md now describes the rule.",
		Usage:         shutdownTotals,
		// The shutdown's totals cover a run that may have begun before the scan.
		UsageBeforeStart: true,
		Actions: []agent.Action{
			{Tool: "view", Detail: app + "/src/validate.ts"},
			{Tool: "edit", Detail: app + "/src/validate.ts"},
			{Tool: "create", Detail: app + "/test/validate.test.ts"},
			{Tool: "bash", Detail: "Run the tests"},
			{Tool: "grep", Detail: app},
			{Tool: "edit", Detail: app + "/README.md"},
		},
		Lines:     eventLines,
		EndOffset: int64(len(data)),
		LastUUID:  "00000016-0000-4000-8000-000000000016",
	}
	if diff := cmp.Diff(want, got, scanOpts); diff != "" {
		t.Errorf("ScanBytes(events) (-want +got):\n%s", diff)
	}
}

func TestScanUsageBeforeShutdown(t *testing.T) {
	data := readEvents(t)
	got := ScanBytes(data[:agenttest.LineOffset(t, data, shutdownLine)])
	if diff := cmp.Diff(perMessage, got.Usage); diff != "" {
		t.Errorf("usage without session.shutdown (-want +got):\n%s", diff)
	}
	if len(got.Calls) != 7 || got.Calls["m-2"].OutputTokens != 132 {
		t.Errorf("per-message rows: %v", got.Calls)
	}
	// Turn 2 alone: m-6 and m-7.
	turn2, err := ScanFile(eventsFile, agenttest.LineOffset(t, data, 14))
	if err != nil {
		t.Fatal(err)
	}
	turn2Before := ScanBytes(data[agenttest.LineOffset(t, data, 14):agenttest.LineOffset(t, data, shutdownLine)])
	if want := (events.TokenUsage{OutputTokens: 125, APICallCount: 2}); turn2Before.Usage != want {
		t.Errorf("turn 2 usage before shutdown = %+v, want %+v", turn2Before.Usage, want)
	}
	// Reading the shutdown, the scan reports the session totals.
	if turn2.Usage != shutdownTotals || len(turn2.Calls) != 0 {
		t.Errorf("turn 2 with shutdown: usage %+v, calls %v; want the totals and no rows", turn2.Usage, turn2.Calls)
	}
	if diff := cmp.Diff([]string{"Also describe the rule in the README."}, turn2.Prompts); diff != "" {
		t.Errorf("turn 2 prompts (-want +got):\n%s", diff)
	}
}

func TestScanUsageAfterShutdown(t *testing.T) {
	// A resumed session: messages after a shutdown count on top of its totals.
	data := append(readEvents(t), []byte(
		`{"type":"user.message","data":{"content":"again"},"id":"r1"}`+"\n"+
			`{"type":"assistant.message","data":{"messageId":"m-8","content":"ok","outputTokens":9},"id":"r2"}`+"\n"+
			`{"type":"assistant.message","data":{"messageId":"m-8","content":"ok","outputTokens":12},"id":"r3"}`+"\n"+
			`{"type":"assistant.message","data":{"content":"no id","outputTokens":3},"id":"r4"}`+"\n"+
			`{"type":"assistant.message","data":{"content":"no tokens"},"id":"r5"}`+"\n")...)
	got := ScanBytes(data)
	want := shutdownTotals.Add(events.TokenUsage{OutputTokens: 15, APICallCount: 2})
	if got.Usage != want {
		t.Errorf("usage = %+v, want %+v", got.Usage, want)
	}
	// A second shutdown closes that run too; an empty one changes nothing.
	data = append(data, []byte(
		`{"type":"session.shutdown","data":{"modelMetrics":{}},"id":"r6"}`+"\n"+
			`{"type":"session.shutdown","data":{"modelMetrics":{"gpt-5":{"requests":{"count":2},"inputTokens":100,"outputTokens":15},"bad":7}},"id":"r7"}`+"\n")...)
	got = ScanBytes(data)
	want = shutdownTotals.Add(events.TokenUsage{InputTokens: 100, OutputTokens: 15, APICallCount: 2})
	if got.Usage != want || len(got.Calls) != 0 || got.LastUUID != "r7" {
		t.Errorf("usage = %+v, calls %v, last %q; want %+v", got.Usage, got.Calls, got.LastUUID, want)
	}
}

func TestSplitScanEqualsOneScan(t *testing.T) {
	data := readEvents(t)
	full := ScanBytes(data)
	// Without the shutdown line, usage merges exactly too.
	beforeShutdown := data[:agenttest.LineOffset(t, data, shutdownLine)]
	fullBefore := ScanBytes(beforeShutdown)
	for line := 0; line <= eventLines; line++ {
		off := agenttest.LineOffset(t, data, line)
		rest, err := ScanFile(eventsFile, off)
		if err != nil {
			t.Fatal(err)
		}
		merged := ScanBytes(data[:off]).Merge(rest)
		if diff := cmp.Diff(full, merged, scanOpts, cmpopts.IgnoreFields(agent.Scan{}, "Usage", "Calls", "LastCall")); diff != "" {
			t.Errorf("split at line %d (-full +merged):\n%s", line, diff)
		}
		if line <= shutdownLine {
			m := ScanBytes(beforeShutdown[:off]).Merge(ScanBytes(beforeShutdown[off:]))
			if diff := cmp.Diff(fullBefore, m, scanOpts); diff != "" {
				t.Errorf("split at line %d, no shutdown (-full +merged):\n%s", line, diff)
			}
		}
	}
	// The documented limit: a split before the shutdown counts the first part's output twice.
	off := agenttest.LineOffset(t, data, 14)
	merged := ScanBytes(data[:off]).Merge(ScanBytes(data[off:]))
	if want := shutdownTotals.Add(events.TokenUsage{OutputTokens: 347, APICallCount: 5}); merged.Usage != want {
		t.Errorf("merged usage across a shutdown = %+v, want %+v", merged.Usage, want)
	}
}

func TestScanTornLastLine(t *testing.T) {
	data := readEvents(t)
	last := agenttest.LineOffset(t, data, eventLines-1)
	torn := data[:len(data)-20]
	for name, in := range map[string][]byte{"torn": torn, "unterminated": data[:len(data)-1]} {
		got := ScanBytes(in)
		if got.Lines != eventLines-1 || got.EndOffset != last || got.Usage != perMessage {
			t.Errorf("%s: Lines=%d EndOffset=%d Usage=%+v, want %d, %d and the shutdown unread",
				name, got.Lines, got.EndOffset, got.Usage, eventLines-1, last)
		}
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, torn, 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := ScanFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if first.EndOffset != last || first.LastUUID != "00000015-0000-4000-8000-000000000015" {
		t.Fatalf("ScanFile(torn): EndOffset %d, LastUUID %q", first.EndOffset, first.LastUUID)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	rest, err := ScanFile(path, first.EndOffset)
	if err != nil {
		t.Fatal(err)
	}
	if rest.Lines != 1 || rest.Usage != shutdownTotals || rest.LastUUID != "00000016-0000-4000-8000-000000000016" {
		t.Errorf("continuation: %+v", rest)
	}
	merged := first.Merge(rest)
	if diff := cmp.Diff(ScanBytes(data), merged, scanOpts, cmpopts.IgnoreFields(agent.Scan{}, "Usage", "Calls", "LastCall")); diff != "" {
		t.Errorf("torn scan merged with its continuation (-full +merged):\n%s", diff)
	}
}

func TestScanFileLongLine(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	data := []byte(`{"type":"tool.execution_complete","id":"a","data":{"result":{"content":"` + big + `"},"toolTelemetry":{"properties":{"filePaths":"[\"/big.txt\"]"}}}}` + "\n" +
		`{"type":"user.message","id":"b","data":{"content":"after the big line"}}` + "\n" +
		`{"type":"user.message","id":"c","data":{"content":"` + big + `"`)
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
	if got.Lines != 2 || got.LastUUID != "b" || len(got.Prompts) != 1 || got.Prompts[0] != "after the big line" || len(got.ModifiedFiles) != 1 {
		t.Errorf("got Lines=%d LastUUID=%q Prompts=%q Files=%q", got.Lines, got.LastUUID, got.Prompts, got.ModifiedFiles)
	}
}

func TestDefaultTranscript(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(sessionStateEnv, "")
	t.Setenv(copilotHomeEnv, "")
	if got, want := (Agent{}).DefaultTranscript("/home/u/src/app", sess), filepath.Join(home, ".copilot", "session-state", sess, "events.jsonl"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Copilot run with COPILOT_HOME keeps its sessions there; its hooks inherit the variable.
	copilotHome := t.TempDir()
	t.Setenv(copilotHomeEnv, copilotHome)
	if got, want := (Agent{}).DefaultTranscript("/home/u/src/app", sess), filepath.Join(copilotHome, "session-state", sess, "events.jsonl"); got != want {
		t.Errorf("COPILOT_HOME: got %q, want %q", got, want)
	}
	override := t.TempDir()
	t.Setenv(sessionStateEnv, override)
	if got, want := (Agent{}).DefaultTranscript("", sess), filepath.Join(override, sess, "events.jsonl"); got != want {
		t.Errorf("override: got %q, want %q", got, want)
	}
	for _, bad := range []string{"", ".", "../x"} {
		if got := (Agent{}).DefaultTranscript("/r", bad); got != "" {
			t.Errorf("DefaultTranscript(%q) = %q, want \"\"", bad, got)
		}
	}
}

func TestAgentTable(t *testing.T) {
	a := Agent{}
	if a.Name() != "copilot" || a.Type() != "Copilot CLI" || a.ConfigDir() != ".github/hooks" || a.ConfigFile() != ".github/hooks/entire.json" ||
		!cmp.Equal(a.Aliases(), []string{"copilot-cli", "github-copilot"}) {
		t.Errorf("table entry: %q %q %q %q %q", a.Name(), a.Type(), a.ConfigDir(), a.ConfigFile(), a.Aliases())
	}
	if _, ok := any(a).(agent.TurnEndUnreliable); ok {
		t.Error("Copilot sends agentStop; it should not claim an unreliable turn end")
	}
	if got := a.ResumeCommand(sess); got != "copilot --resume "+sess {
		t.Errorf("ResumeCommand = %q", got)
	}
}

// TestScanContract: what the engine relies on from the scanner (agenttest.ScanContract).
func TestScanContract(t *testing.T) {
	data, err := os.ReadFile(eventsFile)
	if err != nil {
		t.Fatal(err)
	}
	agenttest.ScanContract(t, Agent{}, data)
}
