package cursor

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var scanOpts = cmp.Options{cmpopts.EquateEmpty()}

const (
	sessionFile  = "testdata/session.jsonl"
	sessionLines = 14
	shop         = "/home/u/src/shop"
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

	// Hand-derived from the fixture, independent of the golden file.
	want := agent.Scan{
		Prompts: []string{
			"Add a retry helper to fetch.go. The staging key is AKIAIOSFODNN7EXAMPLE, keep it out of the code.",
			"Now document it in the README and add a test for retry.",
			"Thanks, that's all.",
		},
		ModifiedFiles: []string{shop + "/fetch.go", shop + "/retry.go", shop + "/retry_test.go", shop + "/README.md"},
		LastAssistant: "You're welcome.",
		Actions: []agent.Action{
			{Tool: "Read", Detail: shop + "/fetch.go"},
			{Tool: "StrReplace", Detail: shop + "/fetch.go"},
			{Tool: "Write", Detail: shop + "/retry.go"},
			{Tool: "Shell", Detail: "Run the tests"},
			{Tool: "Grep", Detail: shop},
			{Tool: "Glob", Detail: "**/*_test.go"},
			{Tool: "Write", Detail: shop + "/retry_test.go"},
			{Tool: "StrReplace", Detail: shop + "/README.md"},
			{Tool: "StrReplace", Detail: shop + "/fetch.go"},
		},
		Lines:     sessionLines,
		EndOffset: int64(len(data)),
	}
	if diff := cmp.Diff(want, got, scanOpts); diff != "" {
		t.Errorf("ScanBytes(session) (-want +got):\n%s", diff)
	}
	if !got.Usage.IsZero() || got.LastUUID != "" {
		t.Errorf("Cursor transcripts carry no usage or ids; got %+v, %q", got.Usage, got.LastUUID)
	}
}

func TestScanSecondTurn(t *testing.T) {
	data := readSession(t)
	got, err := ScanFile(sessionFile, agenttest.LineOffset(t, data, 6))
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{shop + "/retry_test.go", shop + "/README.md", shop + "/fetch.go"}
	if diff := cmp.Diff(wantFiles, got.ModifiedFiles); diff != "" {
		t.Errorf("turn 2 files (-want +got):\n%s", diff)
	}
	if got.Prompts[0] != "Now document it in the README and add a test for retry." || got.Lines != sessionLines-6 {
		t.Errorf("turn 2: prompts %q, %d lines", got.Prompts, got.Lines)
	}
}

func TestSplitScanEqualsOneScan(t *testing.T) {
	data := readSession(t)
	full := ScanBytes(data)
	for line := 0; line <= sessionLines; line++ {
		off := agenttest.LineOffset(t, data, line)
		first := ScanBytes(data[:off])
		rest, err := ScanFile(sessionFile, off)
		if err != nil {
			t.Fatal(err)
		}
		merged := first.Merge(rest)
		if diff := cmp.Diff(full, merged, scanOpts); diff != "" {
			t.Errorf("split at line %d (-full +merged):\n%s", line, diff)
		}
	}
}

func TestScanTornLastLine(t *testing.T) {
	data := readSession(t)
	last := agenttest.LineOffset(t, data, sessionLines-1)
	torn := data[:len(data)-12]
	for name, in := range map[string][]byte{"torn": torn, "unterminated": data[:len(data)-1]} {
		got := ScanBytes(in)
		if got.Lines != sessionLines-1 || got.EndOffset != last || got.LastAssistant == "You're welcome." {
			t.Errorf("%s: Lines=%d EndOffset=%d LastAssistant=%q, want %d, %d and the last line unread",
				name, got.Lines, got.EndOffset, got.LastAssistant, sessionLines-1, last)
		}
	}
	// Through a file: the next scan from EndOffset reads the completed line.
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
		t.Errorf("torn scan merged with its continuation (-full +merged):\n%s", diff)
	}
}

func TestScanFileLongLine(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	data := []byte(`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"path":"/big.txt","contents":"` + big + `"}}]}}` + "\n" +
		`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>after the big line</user_query>"}]}}` + "\n" +
		`{"role":"user","message":{"content":"` + big + `"`)
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
	if got.Lines != 2 || len(got.Prompts) != 1 || got.Prompts[0] != "after the big line" || len(got.ModifiedFiles) != 1 {
		t.Errorf("got Lines=%d Prompts=%q Files=%q", got.Lines, got.Prompts, got.ModifiedFiles)
	}
}

func TestDefaultTranscript(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(projectDirEnv, "")
	dir := filepath.Join(home, ".cursor", "projects", "home-u-src-my-shop-v2", "agent-transcripts")
	if got, want := (Agent{}).DefaultTranscript("/home/u/src/my.shop_v2", conv), filepath.Join(dir, conv+".jsonl"); got != want {
		t.Errorf("flat: got %q, want %q", got, want)
	}
	nested := filepath.Join(dir, conv, conv+".jsonl")
	if err := os.MkdirAll(filepath.Dir(nested), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nested, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := (Agent{}).DefaultTranscript("/home/u/src/my.shop_v2", conv); got != nested {
		t.Errorf("nested: got %q, want %q", got, nested)
	}
	override := t.TempDir()
	t.Setenv(projectDirEnv, override)
	if got, want := (Agent{}).DefaultTranscript("/home/u/src/my.shop_v2", conv), filepath.Join(override, conv+".jsonl"); got != want {
		t.Errorf("override: got %q, want %q", got, want)
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if got := (Agent{}).DefaultTranscript("/r", bad); got != "" {
			t.Errorf("DefaultTranscript(%q) = %q, want \"\"", bad, got)
		}
	}
}

func TestSanitizeWorkspace(t *testing.T) {
	for in, want := range map[string]string{
		"/home/u/src/shop":   "home-u-src-shop",
		"/Users/ann/My App":  "Users-ann-My-App",
		"/srv/café/x.y":      "srv-caf--x-y",
		"C:\\work\\repo":     "C--work-repo",
		"//double/lead":      "-double-lead",
		"/a/b-c_d.e/1":       "a-b-c-d-e-1",
		"relative/dir":       "relative-dir",
		"/tmp/with\nnewline": "tmp-with-newline",
	} {
		if got := SanitizeWorkspace(in); got != want {
			t.Errorf("SanitizeWorkspace(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAgentTable(t *testing.T) {
	a := Agent{}
	if a.Name() != "cursor" || a.Type() != "Cursor" || a.ConfigDir() != ".cursor" || a.ConfigFile() != ".cursor/hooks.json" ||
		!cmp.Equal(a.Aliases(), []string{"cursor-agent"}) || !a.TurnEndUnreliable() {
		t.Errorf("table entry: %q %q %q %q %q", a.Name(), a.Type(), a.ConfigDir(), a.ConfigFile(), a.Aliases())
	}
	if got := a.ResumeCommand(conv); got != "cursor-agent --resume "+conv {
		t.Errorf("ResumeCommand = %q", got)
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
