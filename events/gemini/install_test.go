package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

func freshSettings(t *testing.T) string {
	t.Helper()
	return string(readFixture(t, "testdata/fresh-settings.json"))
}

func TestInstallFreshGolden(t *testing.T) {
	top := t.TempDir()
	a := Agent{}
	if a.Installed(top) {
		t.Fatal("Installed before install")
	}
	added, err := a.Install(top, false)
	if err != nil {
		t.Fatal(err)
	}
	if added != 12 {
		t.Errorf("added = %d, want 12", added)
	}
	got := agenttest.ReadFile(t, settingsPath(top))
	if diff := cmp.Diff(freshSettings(t), got); diff != "" {
		t.Errorf(".gemini/settings.json (-want +got):\n%s", diff)
	}
	if strings.HasSuffix(got, "\n") {
		t.Error("settings end in a newline")
	}
	info, err := os.Stat(settingsPath(top))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
	if !a.Installed(top) {
		t.Error("Installed = false after install")
	}
	// Idempotent: nothing added, nothing written.
	if added, err := a.Install(top, false); err != nil || added != 0 {
		t.Errorf("second install = %d, %v; want 0", added, err)
	}
	if after := agenttest.ReadFile(t, settingsPath(top)); after != got {
		t.Error("second install changed the file")
	}
	// Force removes and re-adds the same set.
	if added, err := a.Install(top, true); err != nil || added != 12 {
		t.Errorf("forced install = %d, %v; want 12", added, err)
	}
	if diff := cmp.Diff(freshSettings(t), agenttest.ReadFile(t, settingsPath(top))); diff != "" {
		t.Errorf("after force (-want +got):\n%s", diff)
	}
}

// foreignSettings has unknown top-level keys, hooksConfig keys of the user's, a foreign
// group under an event Entire uses (matcher-less, so Entire's entry joins it), a foreign
// matcher group, an event Entire does not use, and stale Entire entries.
const foreignSettings = `{
  "model": {"name": "gemini-2.5-pro"},
  "ui": {"theme": "<dark>", "ratio": 1.50},
  "hooksConfig": {"enabled": false, "disabled": ["lint-hook"]},
  "hooks": {
    "AfterAgent": [{"hooks": [{"name": "notify", "type": "command", "command": "notify-send done", "timeout": 5000}]}],
    "BeforeTool": [
      {"matcher": "write_file|replace", "sequential": true, "hooks": [{"name": "lint-hook", "type": "command", "command": "lint"}]},
      {"matcher": "*", "hooks": [{"name": "old", "type": "command", "command": "entire hooks gemini before-tool --old"}]}
    ],
    "SessionStart": [{"hooks": [
      {"name": "greet", "type": "command", "command": "echo hi"},
      {"name": "dev", "type": "command", "command": "go run ${GEMINI_PROJECT_DIR}/cmd/entire/main.go hooks gemini session-start"}
    ]}],
    "Custom": [{"hooks": [{"type": "command", "command": "entire-lookalike but foreign"}]}]
  }
}`

func TestInstallKeepsForeignAndReplacesStaleEntire(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, settingsPath(top), foreignSettings, 0o644)
	added, err := (Agent{}).Install(top, false)
	if err != nil {
		t.Fatal(err)
	}
	if added != 12 {
		t.Errorf("added = %d, want 12", added)
	}
	got, err := agent.DecodeObject([]byte(agenttest.ReadFile(t, settingsPath(top))))
	if err != nil {
		t.Fatal(err)
	}
	// The expected document, spelled out: foreign content as it was, Entire's entries added.
	want, err := agent.DecodeObject([]byte(`{
  "model": {"name": "gemini-2.5-pro"},
  "ui": {"theme": "<dark>", "ratio": 1.50},
  "hooksConfig": {"enabled": true, "disabled": ["lint-hook"]},
  "hooks": {
    "AfterAgent": [{"hooks": [
      {"name": "notify", "type": "command", "command": "notify-send done", "timeout": 5000},
      {"name": "entire-after-agent", "type": "command", "command": "entire hooks gemini after-agent"}
    ]}],
    "AfterModel": [{"hooks": [{"name": "entire-after-model", "type": "command", "command": "entire hooks gemini after-model"}]}],
    "AfterTool": [{"matcher": "*", "hooks": [{"name": "entire-after-tool", "type": "command", "command": "entire hooks gemini after-tool"}]}],
    "BeforeAgent": [{"hooks": [{"name": "entire-before-agent", "type": "command", "command": "entire hooks gemini before-agent"}]}],
    "BeforeModel": [{"hooks": [{"name": "entire-before-model", "type": "command", "command": "entire hooks gemini before-model"}]}],
    "BeforeTool": [
      {"matcher": "write_file|replace", "sequential": true, "hooks": [{"name": "lint-hook", "type": "command", "command": "lint"}]},
      {"matcher": "*", "hooks": [{"name": "entire-before-tool", "type": "command", "command": "entire hooks gemini before-tool"}]}
    ],
    "BeforeToolSelection": [{"hooks": [{"name": "entire-before-tool-selection", "type": "command", "command": "entire hooks gemini before-tool-selection"}]}],
    "Notification": [{"hooks": [{"name": "entire-notification", "type": "command", "command": "entire hooks gemini notification"}]}],
    "PreCompress": [{"hooks": [{"name": "entire-pre-compress", "type": "command", "command": "entire hooks gemini pre-compress"}]}],
    "SessionEnd": [
      {"matcher": "exit", "hooks": [{"name": "entire-session-end-exit", "type": "command", "command": "entire hooks gemini session-end"}]},
      {"matcher": "logout", "hooks": [{"name": "entire-session-end-logout", "type": "command", "command": "entire hooks gemini session-end"}]}
    ],
    "SessionStart": [{"hooks": [
      {"name": "greet", "type": "command", "command": "echo hi"},
      {"name": "entire-session-start", "type": "command", "command": "entire hooks gemini session-start"}
    ]}],
    "Custom": [{"hooks": [{"type": "command", "command": "entire-lookalike but foreign"}]}]
  }
}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	info, _ := os.Stat(settingsPath(top))
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want the file's own 0644", info.Mode().Perm())
	}

	// Uninstall removes exactly Entire's 12 entries; the foreign ones stay where they were.
	removed, err := (Agent{}).Uninstall(top)
	if err != nil || removed != 12 {
		t.Fatalf("Uninstall = %d, %v; want 12", removed, err)
	}
	after, err := agent.DecodeObject([]byte(agenttest.ReadFile(t, settingsPath(top))))
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := agent.DecodeObject([]byte(foreignSettings))
	origHooks := orig["hooks"].(map[string]any)
	origHooks["BeforeTool"] = origHooks["BeforeTool"].([]any)[:1]
	ss := origHooks["SessionStart"].([]any)[0].(map[string]any)
	ss["hooks"] = ss["hooks"].([]any)[:1]
	orig["hooksConfig"].(map[string]any)["enabled"] = true // install's switch stays on
	if diff := cmp.Diff(orig, after); diff != "" {
		t.Errorf("after uninstall (-want +got):\n%s", diff)
	}
	if (Agent{}).Installed(top) {
		t.Error("Installed after uninstall")
	}
	if removed, err := (Agent{}).Uninstall(top); err != nil || removed != 0 {
		t.Errorf("second Uninstall = %d, %v; want 0", removed, err)
	}
}

func TestInstallSkipsWhenSessionStartIsCurrent(t *testing.T) {
	top := t.TempDir()
	partial := `{"hooks": {"SessionStart": [{"hooks": [{"name": "entire-session-start", "type": "command", "command": "entire hooks gemini session-start"}]}]}}`
	agenttest.WriteFile(t, settingsPath(top), partial, 0o600)
	if added, err := (Agent{}).Install(top, false); err != nil || added != 0 {
		t.Errorf("Install = %d, %v; want 0 (the reference skips)", added, err)
	}
	if got := agenttest.ReadFile(t, settingsPath(top)); got != partial {
		t.Errorf("skipped install wrote the file:\n%s", got)
	}
	if added, err := (Agent{}).Install(top, true); err != nil || added != 12 {
		t.Errorf("forced Install = %d, %v; want 12", added, err)
	}
	if diff := cmp.Diff(freshSettings(t), agenttest.ReadFile(t, settingsPath(top))); diff != "" {
		t.Errorf("after force (-want +got):\n%s", diff)
	}
}

func TestUninstallFreshDeletesFileAndDir(t *testing.T) {
	top := t.TempDir()
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	removed, err := (Agent{}).Uninstall(top)
	if err != nil || removed != 12 {
		t.Fatalf("Uninstall = %d, %v; want 12", removed, err)
	}
	if agenttest.Exists(filepath.Join(top, ".gemini")) {
		t.Error(".gemini/ left behind")
	}
	// A directory holding something else stays.
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	agenttest.WriteFile(t, filepath.Join(top, ".gemini", "GEMINI.md"), "notes", 0o644)
	if _, err := (Agent{}).Uninstall(top); err != nil {
		t.Fatal(err)
	}
	if agenttest.Exists(settingsPath(top)) || !agenttest.Exists(filepath.Join(top, ".gemini", "GEMINI.md")) {
		t.Error("uninstall should delete settings.json and keep GEMINI.md")
	}
	if removed, err := (Agent{}).Uninstall(t.TempDir()); err != nil || removed != 0 {
		t.Errorf("Uninstall without a file = %d, %v", removed, err)
	}
}

func TestInstallWrongShapes(t *testing.T) {
	for _, content := range []string{
		`[]`,
		`{"hooks": []}`,
		`{"hooks": "x"}`,
		`{"hooks": {"AfterAgent": {"hooks": []}}}`,
		`{"hooks": {"SessionEnd": 3}}`,
		`{"hooksConfig": true}`,
		`{"hooks": {}`,
		`{"a": 1} {"b": 2}`,
	} {
		top := t.TempDir()
		agenttest.WriteFile(t, settingsPath(top), content, 0o600)
		if _, err := (Agent{}).Install(top, false); err == nil {
			t.Errorf("Install over %s: no error", content)
		}
		if _, err := (Agent{}).Install(top, true); err == nil {
			t.Errorf("forced Install over %s: no error", content)
		}
		if got := agenttest.ReadFile(t, settingsPath(top)); got != content {
			t.Errorf("Install over %s changed the file to %s", content, got)
		}
		if (Agent{}).Installed(top) {
			t.Errorf("Installed over %s", content)
		}
	}
}

func TestInstalled(t *testing.T) {
	for _, tc := range []struct {
		content string
		want    bool
	}{
		{`{"hooks": {"AfterAgent": [{"hooks": [{"command": "entire hooks gemini after-agent"}]}]}}`, true},
		{`{"hooks": {"BeforeAgent": [{"matcher": "*", "hooks": [{"command": "entire hooks gemini before-agent"}]}]}}`, true},
		{`{"hooks": {"AfterAgent": [{"hooks": [{"command": "go run ${GEMINI_PROJECT_DIR}/cmd/entire/main.go hooks gemini after-agent"}]}]}}`, true},
		{`{"hooks": {"SessionStart": [{"hooks": [{"command": "entire hooks gemini session-start"}]}]}}`, false},
		{`{"hooks": {"AfterAgent": [{"hooks": [{"command": "entire hooks claude-code stop"}]}]}}`, false},
		{`{"hooks": {"AfterAgent": "entire hooks gemini after-agent"}}`, false},
	} {
		top := t.TempDir()
		agenttest.WriteFile(t, settingsPath(top), tc.content, 0o600)
		if got := (Agent{}).Installed(top); got != tc.want {
			t.Errorf("Installed(%s) = %v, want %v", tc.content, got, tc.want)
		}
	}
}
