package codex

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
	rolloutFile = "testdata/rollout.jsonl"
	itemsFile   = "testdata/rollout-items.jsonl"
	// rolloutLines is the number of lines of rolloutFile.
	rolloutLines = 43
)

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

const (
	prompt1 = "Add a --verbose flag to cmd/tool/main.go and document it in README.md"
	prompt2 = "Also put AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE in .env.example, add a CHANGELOG entry,\nand move the flags to cmd/tool/flags.go."
	prompt3 = "Ask a reviewer subagent to check the change."
)

func TestScanGolden(t *testing.T) {
	data := readFile(t, rolloutFile)
	got := ScanBytes(data)
	js, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	agenttest.Golden(t, "rollout.scan.json", append(js, '\n'), *update)

	// The golden file is reviewed once; these hand-derived facts keep it honest.
	want := agent.Scan{
		Prompts: []string{prompt1, prompt2, prompt3},
		ModifiedFiles: []string{
			"cmd/tool/main.go", "README.md", // custom_tool_call apply_patch
			".env.example", "CHANGELOG.md", // heredoc in a shell argv
			"cmd/tool/old_flags.go", "cmd/tool/flags.go", "cmd/tool/unused.go", // function_call apply_patch
		},
		Cwd:           "/home/u/src/repo", // the turn_context's: the patches' paths are relative to it
		LastAssistant: "The reviewer found no problems.",
		// The per-response last_token_usage rows, the repeated token_count counted once; their
		// sum is the rollout's last total_token_usage (57000 in, 45000 of them cached, 1400 out).
		Usage: events.TokenUsage{InputTokens: 3000 + 1500 + 2500 + 2500 + 2500, CacheReadTokens: 45000, OutputTokens: 1400, APICallCount: 5},
		Actions: []agent.Action{
			{Tool: "exec_command", Detail: `rg -n "flag\." cmd/tool`},
			{Tool: "apply_patch", Detail: "cmd/tool/main.go"},
			{Tool: "shell", Detail: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: .env.example\n+AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n*** Add File: CHANGELOG.md\n+## Unreleased\n+- `--verbose` flag.\n*** End Patch\nEOF\n"},
			{Tool: "apply_patch", Detail: "cmd/tool/old_flags.go"},
			{Tool: "spawn_agent"},
		},
		Lines:     rolloutLines,
		EndOffset: int64(len(data)),
		LastUUID:  "019a2b3c-5000-7000-8000-000000000003",
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(agent.Scan{}, "Calls", "LastCall"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("ScanBytes(rollout) mismatch (-want +got):\n%s", diff)
	}
}

// TestScanTurns scans each turn from the offset the recorder keeps at its start.
func TestScanTurns(t *testing.T) {
	data := readFile(t, rolloutFile)
	tests := []struct {
		from, to int // line numbers: task_started of the turn, and of the next one
		prompt   string
		files    []string
		usage    events.TokenUsage
		last     string
	}{
		{4, 20, prompt1, []string{"cmd/tool/main.go", "README.md"},
			events.TokenUsage{InputTokens: 4500, CacheReadTokens: 15000, OutputTokens: 700, APICallCount: 2},
			"Added --verbose to cmd/tool/main.go and documented it in README.md."},
		{20, 33, prompt2, []string{".env.example", "CHANGELOG.md", "cmd/tool/old_flags.go", "cmd/tool/flags.go", "cmd/tool/unused.go", "README.md"},
			events.TokenUsage{InputTokens: 5000, CacheReadTokens: 19000, OutputTokens: 550, APICallCount: 2},
			"Done: .env.example and CHANGELOG.md are added and the flags live in cmd/tool/flags.go."},
		{33, rolloutLines, prompt3, nil,
			events.TokenUsage{InputTokens: 2500, CacheReadTokens: 11000, OutputTokens: 150, APICallCount: 1},
			"The reviewer found no problems."},
	}
	for _, tt := range tests {
		got := ScanBytes(data[agenttest.LineOffset(t, data, tt.from):agenttest.LineOffset(t, data, tt.to)])
		if diff := cmp.Diff([]string{tt.prompt}, got.Prompts); diff != "" {
			t.Errorf("turn at line %d prompts (-want +got):\n%s", tt.from, diff)
		}
		if diff := cmp.Diff(tt.files, got.ModifiedFiles, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("turn at line %d files (-want +got):\n%s", tt.from, diff)
		}
		if diff := cmp.Diff(tt.usage, got.Usage); diff != "" {
			t.Errorf("turn at line %d usage (-want +got):\n%s", tt.from, diff)
		}
		if got.LastAssistant != tt.last {
			t.Errorf("turn at line %d LastAssistant = %q, want %q", tt.from, got.LastAssistant, tt.last)
		}
	}
}

// TestMerge splits the rollout at every line and merges the two scans. Everything equals one
// scan, except at the cut between the first prompt's response_item and its user_message event,
// where the documented limit shows: the first part has no user_message, falls back to the
// response_item, and the prompt is counted twice. At the same cut in later turns the first
// part has seen user_message events and does not fall back.
func TestMerge(t *testing.T) {
	data := readFile(t, rolloutFile)
	full := ScanBytes(data)
	torn := map[int]string{7: prompt1} // cut before the first user_message line
	for line := 0; line <= rolloutLines; line++ {
		off := agenttest.LineOffset(t, data, line)
		merged := ScanBytes(data[:off]).Merge(ScanBytes(data[off:]))
		want := full
		if p, ok := torn[line]; ok {
			want.Prompts = nil
			for _, q := range full.Prompts {
				want.Prompts = append(want.Prompts, q)
				if q == p {
					want.Prompts = append(want.Prompts, q)
				}
			}
		}
		if diff := cmp.Diff(want, merged, scanOpts); diff != "" {
			t.Errorf("split at line %d (-want +merged):\n%s", line, diff)
		}
	}
	// A ScanFile continuation has an absolute frame; the result is the same, except that the
	// continuation, which starts with the repeated token_count, says its usage may count a
	// response before it (for a caller that has no scan of the lines before: Merge has).
	off := agenttest.LineOffset(t, data, 16) // between the two copies of a token_count
	rest, err := ScanFile(rolloutFile, off)
	if err != nil {
		t.Fatal(err)
	}
	if !rest.UsageBeforeStart {
		t.Errorf("a scan from a repeated token_count: UsageBeforeStart false")
	}
	// A scan from a turn's start reads the model's answer before its token_count: nothing
	// before the scan can be repeated, and it costs no scan of what lies before.
	if turn2, err := ScanFile(rolloutFile, agenttest.LineOffset(t, data, 20)); err != nil || turn2.UsageBeforeStart {
		t.Errorf("a scan from a turn's start: UsageBeforeStart %v (%v)", turn2.UsageBeforeStart, err)
	}
	want := full
	want.UsageBeforeStart = true
	if diff := cmp.Diff(want, ScanBytes(data[:off]).Merge(rest), scanOpts); diff != "" {
		t.Errorf("ScanBytes+ScanFile merge (-full +merged):\n%s", diff)
	}
}

// TestScanItemsOnly reads a rollout without user_message events: the prompts come from the
// response_item user messages, without the ones Codex writes itself.
func TestScanItemsOnly(t *testing.T) {
	data := readFile(t, itemsFile)
	got := ScanBytes(data)
	want := agent.Scan{
		Prompts:       []string{"Rename util.go to helpers.go\n\nkeep the package name", "Now delete old.txt"},
		ModifiedFiles: []string{"util.go", "helpers.go", "old.txt"},
		Cwd:           "/w/app",
		LastAssistant: "Deleted old.txt.",
		Actions: []agent.Action{
			{Tool: "apply_patch", Detail: "util.go"},
			{Tool: "shell", Detail: "apply_patch *** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n"},
		},
		Lines:     12,
		EndOffset: int64(len(data)),
		LastUUID:  "2",
	}
	if diff := cmp.Diff(want, got, scanOpts); diff != "" {
		t.Errorf("ScanBytes(items) (-want +got):\n%s", diff)
	}
	for line := 0; line <= 12; line++ {
		off := agenttest.LineOffset(t, data, line)
		if diff := cmp.Diff(got, ScanBytes(data[:off]).Merge(ScanBytes(data[off:])), scanOpts); diff != "" {
			t.Errorf("split at line %d (-full +merged):\n%s", line, diff)
		}
	}
}

func TestScanLineShapes(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		check func(agent.Scan) bool
	}{
		{"developer message is no prompt", `{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"hi"}]}}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"event prompt wins over items", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"item"}]}}` + "\n" +
			`{"type":"event_msg","payload":{"type":"user_message","message":" event "}}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "event" }},
		{"empty user_message still decides", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"item"}]}}` + "\n" +
			`{"type":"event_msg","payload":{"type":"user_message","message":"  "}}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"output_text in a user message is no prompt", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"output_text","text":"x"}]}}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 0 }},
		{"null info is no call", `{"type":"event_msg","payload":{"type":"token_count","info":null}}`,
			func(s agent.Scan) bool { return s.Usage.IsZero() }},
		{"cached over input clamps", `{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":5,"cached_input_tokens":9,"output_tokens":1}}}}`,
			func(s agent.Scan) bool {
				return s.Usage == events.TokenUsage{CacheReadTokens: 9, OutputTokens: 1, APICallCount: 1}
			}},
		{"no total: every event counts", strings.Repeat(`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"output_tokens":2}}}}`+"\n", 2),
			func(s agent.Scan) bool { return s.Usage.OutputTokens == 4 && s.Usage.APICallCount == 2 }},
		{"task_started id", `{"type":"event_msg","payload":{"type":"task_started","turn_id":"t9"}}`,
			func(s agent.Scan) bool { return s.LastUUID == "t9" }},
		{"numeric turn id ignored", `{"type":"turn_context","payload":{"turn_id":5}}`,
			func(s agent.Scan) bool { return s.LastUUID == "" && s.Lines == 1 }},
		{"function_call without patch", `{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat p.diff\"}"}}`,
			func(s agent.Scan) bool { return len(s.ModifiedFiles) == 0 && s.Actions[0].Detail == "cat p.diff" }},
		{"patch text without apply_patch is not applied", `{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"cat\",\"*** Begin Patch\\n*** Add File: a\\n*** End Patch\"]}"}}`,
			func(s agent.Scan) bool { return len(s.ModifiedFiles) == 0 }},
		{"other custom tool", `{"type":"response_item","payload":{"type":"custom_tool_call","name":"grep","input":"*** Begin Patch\n*** Add File: a\n"}}`,
			func(s agent.Scan) bool { return len(s.ModifiedFiles) == 0 && len(s.Actions) == 1 }},
		{"bare legacy line skipped", `{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 0 && s.Lines == 1 }},
		{"not json", `{"type":`, func(s agent.Scan) bool { return s.Lines == 1 && s.EndOffset == 9 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScanBytes([]byte(tt.lines + "\n"))
			if !tt.check(s) {
				t.Errorf("ScanBytes(%s) = %+v", tt.lines, s)
			}
		})
	}
}

func TestScanTornLastLine(t *testing.T) {
	data := readFile(t, rolloutFile)
	last := agenttest.LineOffset(t, data, rolloutLines-1)
	torn := data[:len(data)-10] // the final line lost its end and its '\n'
	got := ScanBytes(torn)
	if got.Lines != rolloutLines-1 || got.EndOffset != last {
		t.Errorf("torn scan: Lines=%d EndOffset=%d, want %d and %d", got.Lines, got.EndOffset, rolloutLines-1, last)
	}
	// Complete JSON without its '\n' is not consumed either.
	got = ScanBytes(data[:len(data)-1])
	if got.Lines != rolloutLines-1 || got.EndOffset != last {
		t.Errorf("unterminated scan: Lines=%d EndOffset=%d, want %d and %d", got.Lines, got.EndOffset, rolloutLines-1, last)
	}

	// The same through a file; the next scan from EndOffset picks the line up.
	path := filepath.Join(t.TempDir(), "r.jsonl")
	cut := agenttest.LineOffset(t, data, 18) + 20 // inside the last agent_message of turn 1
	if err := os.WriteFile(path, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := ScanFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if first.EndOffset != agenttest.LineOffset(t, data, 18) || first.Lines != 18 {
		t.Fatalf("ScanFile(torn) = Lines %d EndOffset %d, want 18 and %d", first.Lines, first.EndOffset, agenttest.LineOffset(t, data, 18))
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
	// A 3 MB tool output, far beyond the reader's buffer, then a prompt, then a torn line.
	big := strings.Repeat("x", 3<<20)
	data := []byte(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"` + big + `"}}` + "\n" +
		`{"type":"event_msg","payload":{"type":"user_message","message":"after the big line"}}` + "\n" +
		`{"type":"event_msg","payload":{"type":"user_message","message":"` + big + `"`)
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
	if got.Lines != 2 || len(got.Prompts) != 1 || got.Prompts[0] != "after the big line" {
		t.Errorf("got Lines=%d Prompts=%q", got.Lines, got.Prompts)
	}
}

// TestScanContract: what the engine relies on from the scanner (agenttest.ScanContract).
func TestScanContract(t *testing.T) {
	data, err := os.ReadFile(rolloutFile)
	if err != nil {
		t.Fatal(err)
	}
	agenttest.ScanContract(t, Agent{}, data)
}

// ScanSteps lists the prompts and tool calls the scan reports, in its order, among the texts:
// the response_item prompts only when the rollout has no user_message event (an older Codex),
// as ScanBytes takes them.
func TestScanStepsMatchScan(t *testing.T) {
	for _, name := range []string{rolloutFile, itemsFile} {
		data := readFile(t, name)
		sc, steps := ScanSteps(data)
		if diff := cmp.Diff(ScanBytes(data), sc, scanOpts); diff != "" {
			t.Errorf("%s: ScanSteps' scan (-ScanBytes +ScanSteps):\n%s", name, diff)
		}
		var prompts []string
		var actions []agent.Action
		texts := 0
		for _, st := range steps {
			switch st.Kind {
			case "user":
				prompts = append(prompts, st.Text)
			case "tool":
				actions = append(actions, agent.Action{Tool: st.Tool, Detail: st.Text})
			case "assistant":
				texts++
			}
		}
		if diff := cmp.Diff(sc.Prompts, prompts, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: step prompts (-scan +steps):\n%s", name, diff)
		}
		if diff := cmp.Diff(sc.Actions, actions, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: step tool calls (-scan +steps):\n%s", name, diff)
		}
		if texts == 0 || steps[len(steps)-1].Kind != "assistant" || steps[len(steps)-1].Text != sc.LastAssistant {
			t.Errorf("%s: steps end with %+v, want the last answer %q", name, steps[len(steps)-1], sc.LastAssistant)
		}
	}
}
