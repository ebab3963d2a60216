package codex

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

// freshHooks is .codex/hooks.json as Install writes it into an empty repository.
const freshHooks = `{
  "hooks": {
    "Interrupt": [
      {
        "hooks": [
          {
            "command": "entire hooks codex interrupt",
            "timeout": 3,
            "type": "command"
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "command": "entire hooks codex session-end",
            "timeout": 3,
            "type": "command"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "command": "entire hooks codex session-start",
            "type": "command"
          }
        ],
        "matcher": "startup|resume|clear"
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "command": "entire hooks codex stop",
            "type": "command"
          }
        ]
      }
    ],
    "StopFailure": [
      {
        "hooks": [
          {
            "command": "entire hooks codex stop-failure",
            "type": "command"
          }
        ]
      }
    ],
    "SubagentStart": [
      {
        "hooks": [
          {
            "command": "entire hooks codex subagent-start",
            "type": "command"
          }
        ]
      }
    ],
    "SubagentStop": [
      {
        "hooks": [
          {
            "command": "entire hooks codex subagent-stop",
            "type": "command"
          }
        ]
      }
    ],
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "command": "entire hooks codex user-prompt-submit",
            "type": "command"
          }
        ]
      }
    ]
  }
}
`

func hooksPath(top string) string { return filepath.Join(top, ".codex", "hooks.json") }

func TestInstallFreshGolden(t *testing.T) {
	top := t.TempDir()
	added, err := Agent{}.Install(top, false)
	if err != nil {
		t.Fatal(err)
	}
	if added != 8 {
		t.Errorf("added = %d, want 8", added)
	}
	if diff := cmp.Diff(freshHooks, agenttest.ReadFile(t, hooksPath(top))); diff != "" {
		t.Errorf(".codex/hooks.json (-want +got):\n%s", diff)
	}
	if info, err := os.Stat(hooksPath(top)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("stat = %v, %v; want mode 0600", info, err)
	}
	if !(Agent{}).Installed(top) {
		t.Error("Installed = false after install")
	}
	if got := (Agent{}).ConfigFile(); filepath.Join(top, got) != hooksPath(top) {
		t.Errorf("ConfigFile = %q", got)
	}
}

// foreignHooks has a foreign entry in an event Entire uses (a group without matcher, with an
// extra key on the entry), a foreign SessionStart group with another matcher, an event Entire
// does not use, and an unknown top-level key.
const foreignHooks = `{
  "version": 2,
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "say done", "timeout": 30}]}],
    "SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "echo compacted"}]}],
    "PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "lint-bash", "statusMessage": "<lint>"}]}]
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
	// The expectation: the foreign file plus Entire's entries, written out by hand.
	want, _ := agent.DecodeObject([]byte(`{
  "version": 2,
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "say done", "timeout": 30}, {"type": "command", "command": "entire hooks codex stop"}]}],
    "SessionStart": [
      {"matcher": "compact", "hooks": [{"type": "command", "command": "echo compacted"}]},
      {"matcher": "startup|resume|clear", "hooks": [{"type": "command", "command": "entire hooks codex session-start"}]}
    ],
    "PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "lint-bash", "statusMessage": "<lint>"}]}],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "entire hooks codex user-prompt-submit"}]}],
    "StopFailure": [{"hooks": [{"type": "command", "command": "entire hooks codex stop-failure"}]}],
    "Interrupt": [{"hooks": [{"type": "command", "command": "entire hooks codex interrupt", "timeout": 3}]}],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "entire hooks codex session-end", "timeout": 3}]}],
    "SubagentStart": [{"hooks": [{"type": "command", "command": "entire hooks codex subagent-start"}]}],
    "SubagentStop": [{"hooks": [{"type": "command", "command": "entire hooks codex subagent-stop"}]}]
  }
}`))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged hooks (-want +got):\n%s", diff)
	}
	if info, _ := os.Stat(hooksPath(top)); info.Mode().Perm() != 0o644 {
		t.Errorf("existing file mode changed to %v", info.Mode().Perm())
	}

	added, err := (Agent{}).Install(top, false)
	if err != nil || added != 0 {
		t.Errorf("second install added %d, %v; want 0", added, err)
	}
	if diff := cmp.Diff(first, agenttest.ReadFile(t, hooksPath(top))); diff != "" {
		t.Errorf("second install changed bytes (-first +second):\n%s", diff)
	}
	// force reinstalls: the same bytes, so Codex's trust (a hash of each definition) holds.
	if added, err := (Agent{}).Install(top, true); err != nil || added != 8 {
		t.Errorf("forced install added %d, %v; want 8", added, err)
	}
	if diff := cmp.Diff(first, agenttest.ReadFile(t, hooksPath(top))); diff != "" {
		t.Errorf("forced install changed bytes (-first +second):\n%s", diff)
	}
}

func TestInstallForceReplacesStaleEntries(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "entire hooks codex stop --old"}]}]}}`, 0o600)
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
		"hooks array":  `{"hooks": []}`,
		"event object": `{"hooks": {"Stop": {}}}`,
		"event string": `{"hooks": {"SubagentStop": "entire"}}`,
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

func TestUninstallKeepsForeign(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, hooksPath(top), foreignHooks, 0o600)
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	removed, err := (Agent{}).Uninstall(top)
	if err != nil || removed != 8 {
		t.Errorf("removed %d, %v; want 8", removed, err)
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
		t.Errorf("second uninstall removed %d, %v", removed, err)
	}
}

func TestUninstallDeletesWhatItCreated(t *testing.T) {
	top := t.TempDir()
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	if _, err := (Agent{}).Uninstall(top); err != nil {
		t.Fatal(err)
	}
	if agenttest.Exists(filepath.Join(top, ".codex")) {
		t.Error(".codex still exists after uninstalling from a file Entire created")
	}
	// .codex/ holding other files stays.
	agenttest.WriteFile(t, filepath.Join(top, ".codex", "config.toml"), "model = \"o3\"\n", 0o600)
	if _, err := (Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	if _, err := (Agent{}).Uninstall(top); err != nil {
		t.Fatal(err)
	}
	if agenttest.Exists(hooksPath(top)) || !agenttest.Exists(filepath.Join(top, ".codex", "config.toml")) {
		t.Error("uninstall removed the wrong files")
	}
	// Nothing to uninstall: no file appears.
	if removed, err := (Agent{}).Uninstall(top); err != nil || removed != 0 || agenttest.Exists(hooksPath(top)) {
		t.Errorf("uninstall without a file: %d, %v", removed, err)
	}
}

func TestInstalledNeedsTheExactStopCommand(t *testing.T) {
	top := t.TempDir()
	if (Agent{}).Installed(top) {
		t.Error("Installed without a file")
	}
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"Stop": [{"matcher": "*", "hooks": [{"type": "command", "command": "entire hooks codex stop"}]}]}}`, 0o600)
	if !(Agent{}).Installed(top) {
		t.Error("stop hook in a matcher group not recognised")
	}
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "entire hooks claude-code stop"}]}]}}`, 0o600)
	if (Agent{}).Installed(top) {
		t.Error("another agent's stop command counted as installed")
	}
	agenttest.WriteFile(t, hooksPath(top), `{"hooks": `, 0o600)
	if (Agent{}).Installed(top) {
		t.Error("unreadable file counted as installed")
	}
}
