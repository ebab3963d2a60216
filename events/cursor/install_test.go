package cursor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

// freshHooks is .cursor/hooks.json as Install writes it into an empty repository.
const freshHooks = `{
  "hooks": {
    "beforeSubmitPrompt": [
      {
        "command": "entire hooks cursor before-submit-prompt"
      }
    ],
    "sessionEnd": [
      {
        "command": "entire hooks cursor session-end"
      }
    ],
    "sessionStart": [
      {
        "command": "entire hooks cursor session-start"
      }
    ],
    "stop": [
      {
        "command": "entire hooks cursor stop"
      }
    ],
    "subagentStart": [
      {
        "command": "entire hooks cursor subagent-start"
      }
    ],
    "subagentStop": [
      {
        "command": "entire hooks cursor subagent-stop"
      }
    ]
  },
  "version": 1
}
`

func hooksPath(top string) string { return filepath.Join(top, ".cursor", "hooks.json") }

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
		t.Errorf(".cursor/hooks.json (-want +got):\n%s", diff)
	}
	if info, err := os.Stat(hooksPath(top)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("stat: %v, %v; want mode 0600", info, err)
	}
	if !(Agent{}).Installed(top) {
		t.Error("Installed = false after install")
	}
}

// foreignHooks has a foreign entry (with extra keys) under an event Entire uses, an event Entire
// does not use, a non-object entry, another version and unknown top-level keys.
const foreignHooks = `{
  "version": 2,
  "team": {"policy": "<strict>", "n": 1.50},
  "hooks": {
    "stop": [{"command": "./scripts/notify.sh", "loop_limit": 3}],
    "beforeShellExecution": [{"command": "./scripts/guard.sh", "matcher": "rm"}],
    "afterFileEdit": ["not an entry", {"command": "prettier --write"}]
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
	entry := func(verb string) any { return map[string]any{"command": "entire hooks cursor " + verb} }
	hooks["stop"] = append(hooks["stop"].([]any), entry("stop"))
	hooks["sessionStart"] = []any{entry("session-start")}
	hooks["sessionEnd"] = []any{entry("session-end")}
	hooks["beforeSubmitPrompt"] = []any{entry("before-submit-prompt")}
	hooks["subagentStart"] = []any{entry("subagent-start")}
	hooks["subagentStop"] = []any{entry("subagent-stop")}
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
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"stop": [{"command": "entire hooks cursor stop --old"}, {"command": "say hi"}]}}`, 0o600)
	if added, err := (Agent{}).Install(top, true); err != nil || added != 6 {
		t.Fatalf("forced install: added %d, %v", added, err)
	}
	got, _ := agent.DecodeObject([]byte(agenttest.ReadFile(t, hooksPath(top))))
	stop := got["hooks"].(map[string]any)["stop"]
	want := []any{map[string]any{"command": "say hi"}, map[string]any{"command": "entire hooks cursor stop"}}
	if diff := cmp.Diff(want, stop); diff != "" {
		t.Errorf("stop after forced install (-want +got):\n%s", diff)
	}
}

func TestInstallRejectsWrongShapes(t *testing.T) {
	for name, content := range map[string]string{
		"not json":     `{"hooks": `,
		"array at top": `[]`,
		"hooks array":  `{"hooks": []}`,
		"hooks string": `{"hooks": "x"}`,
		"event object": `{"hooks": {"stop": {"command": "x"}}}`,
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
			if _, err := (Agent{}).Uninstall(top); err != nil && name != "not json" && name != "array at top" {
				t.Errorf("uninstall of %s: %v", content, err)
			}
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

func TestUninstallDeletesFileItEmptied(t *testing.T) {
	top := t.TempDir()
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	if removed, err := (Agent{}).Uninstall(top); err != nil || removed != 6 {
		t.Fatalf("uninstall: removed %d, %v", removed, err)
	}
	if agenttest.Exists(filepath.Join(top, ".cursor")) {
		t.Error(".cursor still exists after uninstalling from a file Entire created")
	}

	// Another file in .cursor/ keeps the directory.
	agenttest.WriteFile(t, filepath.Join(top, ".cursor", "rules", "go.mdc"), "rule", 0o600)
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	if _, err := (Agent{}).Uninstall(top); err != nil {
		t.Fatal(err)
	}
	if agenttest.Exists(hooksPath(top)) || !agenttest.Exists(filepath.Join(top, ".cursor", "rules", "go.mdc")) {
		t.Error("uninstall should delete hooks.json and keep .cursor/rules")
	}
}

func TestUninstallWithoutFile(t *testing.T) {
	top := t.TempDir()
	if removed, err := (Agent{}).Uninstall(top); err != nil || removed != 0 {
		t.Errorf("uninstall without a file: %d, %v", removed, err)
	}
	if agenttest.Exists(filepath.Join(top, ".cursor")) {
		t.Error("uninstall created .cursor")
	}
}

func TestInstalledNeedsExactCommand(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"stop": [{"command": "entire hooks cursor stop --x"}], "sessionStart": [{"command": "entire hooks cursor stop"}]}}`, 0o600)
	if (Agent{}).Installed(top) {
		t.Error("a different command, or ours under the wrong event, counted as installed")
	}
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"sessionStart": [{"command": "entire hooks cursor session-start"}]}}`, 0o600)
	if !(Agent{}).Installed(top) {
		t.Error("our session-start entry not recognised")
	}
}
