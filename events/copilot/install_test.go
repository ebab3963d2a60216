package copilot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

// freshHooks is .github/hooks/entire.json as Install writes it into an empty repository.
const freshHooks = `{
  "hooks": {
    "agentStop": [
      {
        "bash": "entire hooks copilot agent-stop",
        "powershell": "entire hooks copilot agent-stop",
        "timeoutSec": 30,
        "type": "command"
      }
    ],
    "sessionEnd": [
      {
        "bash": "entire hooks copilot session-end",
        "powershell": "entire hooks copilot session-end",
        "timeoutSec": 30,
        "type": "command"
      }
    ],
    "sessionStart": [
      {
        "bash": "entire hooks copilot session-start",
        "powershell": "entire hooks copilot session-start",
        "timeoutSec": 30,
        "type": "command"
      }
    ],
    "subagentStart": [
      {
        "bash": "entire hooks copilot subagent-start",
        "powershell": "entire hooks copilot subagent-start",
        "timeoutSec": 30,
        "type": "command"
      }
    ],
    "subagentStop": [
      {
        "bash": "entire hooks copilot subagent-stop",
        "powershell": "entire hooks copilot subagent-stop",
        "timeoutSec": 30,
        "type": "command"
      }
    ],
    "userPromptSubmitted": [
      {
        "bash": "entire hooks copilot user-prompt-submitted",
        "powershell": "entire hooks copilot user-prompt-submitted",
        "timeoutSec": 30,
        "type": "command"
      }
    ]
  },
  "version": 1
}
`

func hooksPath(top string) string { return filepath.Join(top, ".github", "hooks", "entire.json") }

func ourEntry(verb string) any {
	c := "entire hooks copilot " + verb
	return map[string]any{"type": "command", "bash": c, "powershell": c, "timeoutSec": json.Number("30")}
}

func TestInstallFreshGolden(t *testing.T) {
	top := t.TempDir()
	if (Agent{}).Installed(top) {
		t.Error("Installed = true before install")
	}
	added, err := Agent{}.Install(top, false)
	if err != nil {
		t.Fatal(err)
	}
	if added != 6 {
		t.Errorf("added = %d, want 6", added)
	}
	if diff := cmp.Diff(freshHooks, agenttest.ReadFile(t, hooksPath(top))); diff != "" {
		t.Errorf("entire.json (-want +got):\n%s", diff)
	}
	if info, err := os.Stat(hooksPath(top)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("stat: %v, %v; want mode 0600", info, err)
	}
	if !(Agent{}).Installed(top) {
		t.Error("Installed = false after install")
	}
}

// foreignHooks has a foreign entry (with cwd, env, comment) under an event Entire uses, a
// PascalCase event, a non-object entry, another version and an unknown top-level key.
const foreignHooks = `{
  "version": 1,
  "owner": "platform-team",
  "hooks": {
    "agentStop": [{"type": "command", "bash": "./scripts/lint.sh", "powershell": ".\\scripts\\lint.ps1", "cwd": "tools", "env": {"A": "<b>"}, "timeoutSec": 12.5, "comment": "lint"}],
    "PreToolUse": [{"type": "command", "bash": "./guard.sh", "matcher": "bash|powershell"}],
    "sessionStart": [{"type": "prompt", "prompt": "Read CONTRIBUTING.md first."}, 7]
  }
}`

func TestInstallKeepsForeignAndIsIdempotent(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, hooksPath(top), foreignHooks, 0o644)
	if added, err := (Agent{}).Install(top, false); err != nil || added != 6 {
		t.Fatalf("install: added %d, %v", added, err)
	}
	first := agenttest.ReadFile(t, hooksPath(top))
	got, err := agent.DecodeObject([]byte(first))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := agent.DecodeObject([]byte(foreignHooks))
	hooks := want["hooks"].(map[string]any)
	hooks["agentStop"] = append(hooks["agentStop"].([]any), ourEntry("agent-stop"))
	hooks["sessionStart"] = append(hooks["sessionStart"].([]any), ourEntry("session-start"))
	hooks["sessionEnd"] = []any{ourEntry("session-end")}
	hooks["userPromptSubmitted"] = []any{ourEntry("user-prompt-submitted")}
	hooks["subagentStart"] = []any{ourEntry("subagent-start")}
	hooks["subagentStop"] = []any{ourEntry("subagent-stop")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged hooks (-want +got):\n%s", diff)
	}
	if info, _ := os.Stat(hooksPath(top)); info.Mode().Perm() != 0o644 {
		t.Errorf("existing file mode changed to %v", info.Mode().Perm())
	}
	if added, err := (Agent{}).Install(top, false); err != nil || added != 0 {
		t.Errorf("second install: added %d, %v; want 0", added, err)
	}
	if diff := cmp.Diff(first, agenttest.ReadFile(t, hooksPath(top))); diff != "" {
		t.Errorf("second install changed bytes (-first +second):\n%s", diff)
	}
	if added, err := (Agent{}).Install(top, true); err != nil || added != 6 {
		t.Errorf("forced install: added %d, %v; want 6", added, err)
	}
	if diff := cmp.Diff(first, agenttest.ReadFile(t, hooksPath(top))); diff != "" {
		t.Errorf("forced install changed bytes (-first +second):\n%s", diff)
	}
}

func TestInstallForceReplacesStaleEntries(t *testing.T) {
	top := t.TempDir()
	// An old entry of ours with only a powershell command, and one with an older bash command.
	agenttest.WriteFile(t, hooksPath(top), `{"version": 1, "hooks": {"agentStop": [
	  {"type": "command", "powershell": "entire hooks copilot-cli agent-stop"},
	  {"type": "command", "bash": "echo stop"},
	  {"type": "command", "bash": "entire hooks copilot-cli agent-stop"}]}}`, 0o600)
	if added, err := (Agent{}).Install(top, true); err != nil || added != 6 {
		t.Fatalf("forced install: added %d, %v", added, err)
	}
	got, _ := agent.DecodeObject([]byte(agenttest.ReadFile(t, hooksPath(top))))
	stop := got["hooks"].(map[string]any)["agentStop"]
	want := []any{map[string]any{"type": "command", "bash": "echo stop"}, ourEntry("agent-stop")}
	if diff := cmp.Diff(want, stop); diff != "" {
		t.Errorf("agentStop after forced install (-want +got):\n%s", diff)
	}
}

func TestInstallRejectsWrongShapes(t *testing.T) {
	for name, content := range map[string]string{
		"not json":     `{"version": 1,`,
		"array at top": `[{"version": 1}]`,
		"hooks array":  `{"hooks": [{"bash": "x"}]}`,
		"hooks number": `{"hooks": 5}`,
		"event object": `{"hooks": {"agentStop": {"bash": "x"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			top := t.TempDir()
			agenttest.WriteFile(t, hooksPath(top), content, 0o600)
			if _, err := (Agent{}).Install(top, false); err == nil {
				t.Fatalf("install accepted %s", content)
			}
			if got := agenttest.ReadFile(t, hooksPath(top)); got != content {
				t.Errorf("file rewritten to %s", got)
			}
			_, _ = Agent{}.Uninstall(top)
			if got := agenttest.ReadFile(t, hooksPath(top)); got != content {
				t.Errorf("uninstall rewrote the file to %s", got)
			}
		})
	}
}

func TestUninstallRemovesExactlyOurs(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, hooksPath(top), foreignHooks, 0o600)
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	removed, err := Agent{}.Uninstall(top)
	if err != nil || removed != 6 {
		t.Fatalf("uninstall: removed %d, %v; want 6", removed, err)
	}
	got, err := agent.DecodeObject([]byte(agenttest.ReadFile(t, hooksPath(top))))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := agent.DecodeObject([]byte(foreignHooks))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after uninstall (-want +got):\n%s", diff)
	}
	if (Agent{}).Installed(top) {
		t.Error("Installed = true after uninstall")
	}
	if removed, err := (Agent{}).Uninstall(top); err != nil || removed != 0 {
		t.Errorf("second uninstall: removed %d, %v", removed, err)
	}
}

func TestUninstallDeletesWhatItEmptied(t *testing.T) {
	top := t.TempDir()
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	if removed, err := (Agent{}).Uninstall(top); err != nil || removed != 6 {
		t.Fatalf("uninstall: removed %d, %v", removed, err)
	}
	if agenttest.Exists(filepath.Join(top, ".github")) {
		t.Error(".github still exists after uninstalling from a file Entire created")
	}

	// Other hook files and workflows keep their directories.
	agenttest.WriteFile(t, filepath.Join(top, ".github", "hooks", "team.json"), `{"version": 1, "hooks": {}}`, 0o600)
	agenttest.WriteFile(t, filepath.Join(top, ".github", "workflows", "ci.yml"), "on: push\n", 0o600)
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	if _, err := (Agent{}).Uninstall(top); err != nil {
		t.Fatal(err)
	}
	if agenttest.Exists(hooksPath(top)) || !agenttest.Exists(filepath.Join(top, ".github", "hooks", "team.json")) ||
		!agenttest.Exists(filepath.Join(top, ".github", "workflows", "ci.yml")) {
		t.Error("uninstall should delete entire.json only")
	}
}

func TestUninstallWithoutFile(t *testing.T) {
	top := t.TempDir()
	if removed, err := (Agent{}).Uninstall(top); err != nil || removed != 0 {
		t.Errorf("uninstall without a file: %d, %v", removed, err)
	}
	if agenttest.Exists(filepath.Join(top, ".github")) {
		t.Error("uninstall created .github")
	}
}

func TestInstalledNeedsExactCommand(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"agentStop": [{"bash": "entire hooks copilot agent-stop --x"}], "sessionEnd": [{"bash": "entire hooks copilot agent-stop"}]}}`, 0o600)
	if (Agent{}).Installed(top) {
		t.Error("a different command, or ours under the wrong event, counted as installed")
	}
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"agentStop": [{"type": "command", "bash": "entire hooks copilot agent-stop"}]}}`, 0o600)
	if !(Agent{}).Installed(top) {
		t.Error("our agent-stop entry not recognised")
	}
}
