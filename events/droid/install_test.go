package droid

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

// freshHooks is .factory/hooks.json as Install writes it into an empty repository.
const freshHooks = `{
  "hooks": {
    "PostToolUse": [
      {
        "hooks": [
          {
            "command": "entire hooks droid post-task",
            "type": "command"
          }
        ],
        "matcher": "Task"
      }
    ],
    "PreToolUse": [
      {
        "hooks": [
          {
            "command": "entire hooks droid pre-task",
            "type": "command"
          }
        ],
        "matcher": "Task"
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "command": "entire hooks droid session-end",
            "type": "command"
          }
        ],
        "matcher": ""
      }
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "command": "entire hooks droid session-start",
            "type": "command"
          }
        ],
        "matcher": ""
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "command": "entire hooks droid stop",
            "type": "command"
          }
        ],
        "matcher": ""
      }
    ],
    "SubagentStop": [
      {
        "hooks": [
          {
            "command": "entire hooks droid subagent-stop",
            "type": "command"
          }
        ],
        "matcher": ""
      }
    ],
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "command": "entire hooks droid user-prompt-submit",
            "type": "command"
          }
        ],
        "matcher": ""
      }
    ]
  }
}
`

func hooksPath(top string) string { return filepath.Join(top, ".factory", "hooks.json") }

func TestInstallFreshGolden(t *testing.T) {
	top := t.TempDir()
	added, err := Agent{}.Install(top, false)
	if err != nil {
		t.Fatal(err)
	}
	if added != 7 {
		t.Errorf("added = %d, want 7", added)
	}
	if diff := cmp.Diff(freshHooks, agenttest.ReadFile(t, hooksPath(top))); diff != "" {
		t.Errorf(".factory/hooks.json (-want +got):\n%s", diff)
	}
	if info, err := os.Stat(hooksPath(top)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("stat = %v, %v; want mode 0600", info, err)
	}
	if !(Agent{}).Installed(top) {
		t.Error("Installed = false after install")
	}
}

// foreignHooks has a foreign Stop entry with an extra key, a foreign PreToolUse group for
// another tool, a foreign entry in the Task group, an event Entire does not use, and unknown
// top-level keys.
const foreignHooks = `{
  "$schema": "https://example.com/hooks.schema.json",
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done", "timeout": 30}]}],
    "PreToolUse": [
      {"matcher": "Execute", "hooks": [{"type": "command", "command": "guard-exec"}]},
      {"matcher": "Task", "hooks": [{"type": "command", "command": "log-task"}]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send <hi>"}]}]
  }
}`

func TestInstallKeepsForeignAndIsIdempotent(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, hooksPath(top), foreignHooks, 0o644)
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	first := agenttest.ReadFile(t, hooksPath(top))
	got, err := agent.DecodeObject([]byte(first))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := agent.DecodeObject([]byte(`{
  "$schema": "https://example.com/hooks.schema.json",
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done", "timeout": 30}, {"type": "command", "command": "entire hooks droid stop"}]}],
    "PreToolUse": [
      {"matcher": "Execute", "hooks": [{"type": "command", "command": "guard-exec"}]},
      {"matcher": "Task", "hooks": [{"type": "command", "command": "log-task"}, {"type": "command", "command": "entire hooks droid pre-task"}]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send <hi>"}]}],
    "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks droid session-start"}]}],
    "UserPromptSubmit": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks droid user-prompt-submit"}]}],
    "SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks droid session-end"}]}],
    "PostToolUse": [{"matcher": "Task", "hooks": [{"type": "command", "command": "entire hooks droid post-task"}]}],
    "SubagentStop": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks droid subagent-stop"}]}]
  }
}`))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged hooks (-want +got):\n%s", diff)
	}
	if info, _ := os.Stat(hooksPath(top)); info.Mode().Perm() != 0o644 {
		t.Errorf("existing file mode changed to %v", info.Mode().Perm())
	}
	if added, err := (Agent{}).Install(top, false); err != nil || added != 0 {
		t.Errorf("second install added %d, %v; want 0", added, err)
	}
	if diff := cmp.Diff(first, agenttest.ReadFile(t, hooksPath(top))); diff != "" {
		t.Errorf("second install changed bytes (-first +second):\n%s", diff)
	}
	if added, err := (Agent{}).Install(top, true); err != nil || added != 7 {
		t.Errorf("forced install added %d, %v; want 7", added, err)
	}
	if diff := cmp.Diff(first, agenttest.ReadFile(t, hooksPath(top))); diff != "" {
		t.Errorf("forced install changed bytes (-first +second):\n%s", diff)
	}
}

func TestInstallForceReplacesStaleEntries(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"PostToolUse": [{"matcher": "Task", "hooks": [{"type": "command", "command": "entire hooks factoryai-droid post-tool-use"}]}]}}`, 0o600)
	if added, err := (Agent{}).Install(top, false); err != nil || added != 7 {
		t.Fatalf("install added %d, %v", added, err)
	}
	if _, err := (Agent{}).Install(top, true); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(freshHooks, agenttest.ReadFile(t, hooksPath(top))); diff != "" {
		t.Errorf("after forced install (-want +got):\n%s", diff)
	}
}

func TestInstallRejectsWrongShapes(t *testing.T) {
	for name, content := range map[string]string{
		"not json":     `{"hooks": `,
		"array at top": `[]`,
		"hooks string": `{"hooks": "entire"}`,
		"event object": `{"hooks": {"PreToolUse": {"matcher": "Task"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			top := t.TempDir()
			agenttest.WriteFile(t, hooksPath(top), content, 0o600)
			for _, force := range []bool{false, true} {
				if _, err := (Agent{}).Install(top, force); err == nil {
					t.Fatalf("install (force=%v) accepted %s", force, content)
				}
			}
			if got := agenttest.ReadFile(t, hooksPath(top)); got != content {
				t.Errorf("file rewritten to %s", got)
			}
		})
	}
}

// TestInstallKeepsSettingsHooksRunning: Droid reads settings hooks only while hooks.json does not
// exist, so Install will not create it over them.
func TestInstallKeepsSettingsHooksRunning(t *testing.T) {
	for _, name := range []string{"settings.json", "settings.local.json"} {
		t.Run(name, func(t *testing.T) {
			top := t.TempDir()
			settings := `{"model": "x", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}`
			agenttest.WriteFile(t, filepath.Join(top, ".factory", name), settings, 0o600)
			if _, err := (Agent{}).Install(top, false); !errors.Is(err, ErrSettingsHooks) {
				t.Fatalf("err = %v, want ErrSettingsHooks", err)
			}
			if agenttest.Exists(hooksPath(top)) {
				t.Error("hooks.json created")
			}
			if got := agenttest.ReadFile(t, filepath.Join(top, ".factory", name)); got != settings {
				t.Errorf("settings rewritten to %s", got)
			}
			// An existing hooks.json already shadows them: installing there is fine.
			agenttest.WriteFile(t, hooksPath(top), `{}`, 0o600)
			if _, err := (Agent{}).Install(top, false); err != nil {
				t.Errorf("install into an existing hooks.json: %v", err)
			}
		})
	}
	// Settings without hooks, or that cannot be read as JSON, do not block.
	for _, settings := range []string{`{"model": "x", "hooks": {}}`, "// comment\n{\"hooks\": {\"Stop\": []}}"} {
		top := t.TempDir()
		agenttest.WriteFile(t, filepath.Join(top, ".factory", "settings.json"), settings, 0o600)
		if _, err := (Agent{}).Install(top, false); err != nil {
			t.Errorf("settings %q blocked the install: %v", settings, err)
		}
	}
}

func TestUninstallKeepsForeign(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, hooksPath(top), foreignHooks, 0o600)
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	removed, err := (Agent{}).Uninstall(top)
	if err != nil || removed != 7 {
		t.Errorf("removed %d, %v; want 7", removed, err)
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
}

func TestUninstallDeletesWhatItCreated(t *testing.T) {
	top := t.TempDir()
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	if removed, err := (Agent{}).Uninstall(top); err != nil || removed != 7 {
		t.Fatalf("removed %d, %v", removed, err)
	}
	if agenttest.Exists(filepath.Join(top, ".factory")) {
		t.Error(".factory still exists after uninstalling from a file Entire created")
	}
	if removed, err := (Agent{}).Uninstall(top); err != nil || removed != 0 || agenttest.Exists(hooksPath(top)) {
		t.Errorf("uninstall without a file: %d, %v", removed, err)
	}
}

func TestInstalledNeedsTheExactStopCommand(t *testing.T) {
	top := t.TempDir()
	if (Agent{}).Installed(top) {
		t.Error("Installed without a file")
	}
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "entire hooks factoryai-droid stop"}]}]}}`, 0o600)
	if (Agent{}).Installed(top) {
		t.Error("a different stop command counted as installed")
	}
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "entire hooks droid stop"}]}]}}`, 0o600)
	if !(Agent{}).Installed(top) {
		t.Error("stop hook not recognised")
	}
}
