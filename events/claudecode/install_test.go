package claudecode

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

// freshClaudeSettings is .claude/settings.json as Enable writes it into an empty repository.
const freshClaudeSettings = `{
  "hooks": {
    "PostToolUse": [
      {
        "hooks": [
          {
            "command": "entire hooks claude-code post-task",
            "type": "command"
          }
        ],
        "matcher": "Task"
      },
      {
        "hooks": [
          {
            "command": "entire hooks claude-code post-todo",
            "type": "command"
          }
        ],
        "matcher": "TodoWrite"
      },
      {
        "hooks": [
          {
            "command": "entire hooks claude-code post-task",
            "type": "command"
          }
        ],
        "matcher": "Agent"
      }
    ],
    "PreToolUse": [
      {
        "hooks": [
          {
            "command": "entire hooks claude-code pre-task",
            "type": "command"
          }
        ],
        "matcher": "Task"
      },
      {
        "hooks": [
          {
            "command": "entire hooks claude-code pre-task",
            "type": "command"
          }
        ],
        "matcher": "Agent"
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "command": "entire hooks claude-code session-end",
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
            "command": "entire hooks claude-code session-start",
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
            "command": "entire hooks claude-code stop",
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
            "command": "entire hooks claude-code subagent-stop",
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
            "command": "entire hooks claude-code user-prompt-submit",
            "type": "command"
          }
        ],
        "matcher": ""
      }
    ]
  },
  "permissions": {
    "deny": [
      "Read(./.entire/metadata/**)"
    ]
  }
}
`

func claudePath(top string) string { return filepath.Join(top, ClaudeSettingsFile) }

func TestInstallClaudeHooksFreshGolden(t *testing.T) {
	top := t.TempDir()
	added, err := installHooks(top, false)
	if err != nil {
		t.Fatal(err)
	}
	if added != 10 {
		t.Errorf("added = %d, want 10", added)
	}
	if diff := cmp.Diff(freshClaudeSettings, agenttest.ReadFile(t, claudePath(top))); diff != "" {
		t.Errorf(".claude/settings.json (-want +got):\n%s", diff)
	}
	info, err := os.Stat(claudePath(top))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("mode = %v, want 0600", got)
	}
	if !hooksInstalled(top) {
		t.Error("claudeHooksInstalled = false after install")
	}
}

// foreignClaudeSettings has foreign hooks in an event Entire uses (with an existing ""
// group and an extra key on an entry), an event Entire does not use, other permissions
// and unknown top-level keys.
const foreignClaudeSettings = `{
  "model": "opus",
  "env": {"A": "<b>", "N": 1.50},
  "permissions": {"allow": ["Bash(ls)"], "deny": ["Read(./secret)"], "defaultMode": "plan"},
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done", "timeout": 30}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-bash"}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
  }
}`

func TestInstallClaudeHooksPreservesForeignAndIsIdempotent(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, claudePath(top), foreignClaudeSettings, 0o644)
	if _, err := installHooks(top, false); err != nil {
		t.Fatal(err)
	}
	first := agenttest.ReadFile(t, claudePath(top))
	got, err := agent.DecodeObject([]byte(first))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := agent.DecodeObject([]byte(foreignClaudeSettings))
	hooks := want["hooks"].(map[string]any)
	entry := func(c string) any { return map[string]any{"type": "command", "command": c} }
	group := func(m string, cs ...string) any {
		var hs []any
		for _, c := range cs {
			hs = append(hs, entry(c))
		}
		return map[string]any{"matcher": m, "hooks": hs}
	}
	stop := hooks["Stop"].([]any)[0].(map[string]any)
	stop["hooks"] = append(stop["hooks"].([]any), entry("entire hooks claude-code stop"))
	hooks["PreToolUse"] = append(hooks["PreToolUse"].([]any), group("Task", "entire hooks claude-code pre-task"), group("Agent", "entire hooks claude-code pre-task"))
	hooks["PostToolUse"] = []any{group("Task", "entire hooks claude-code post-task"), group("TodoWrite", "entire hooks claude-code post-todo"), group("Agent", "entire hooks claude-code post-task")}
	hooks["SubagentStop"] = []any{group("", "entire hooks claude-code subagent-stop")}
	hooks["SessionStart"] = []any{group("", "entire hooks claude-code session-start")}
	hooks["SessionEnd"] = []any{group("", "entire hooks claude-code session-end")}
	hooks["UserPromptSubmit"] = []any{group("", "entire hooks claude-code user-prompt-submit")}
	perms := want["permissions"].(map[string]any)
	perms["deny"] = append(perms["deny"].([]any), MetadataDenyRule)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged settings (-want +got):\n%s", diff)
	}
	if info, _ := os.Stat(claudePath(top)); info.Mode().Perm() != 0o644 {
		t.Errorf("existing file mode changed to %v", info.Mode().Perm())
	}

	added, err := installHooks(top, false)
	if err != nil {
		t.Fatal(err)
	}
	if added != 0 {
		t.Errorf("second install added %d hooks", added)
	}
	if diff := cmp.Diff(first, agenttest.ReadFile(t, claudePath(top))); diff != "" {
		t.Errorf("second install changed bytes (-first +second):\n%s", diff)
	}
	if added, _ := installHooks(top, true); added != 10 {
		t.Errorf("forced install added %d, want 10", added)
	}
	if diff := cmp.Diff(first, agenttest.ReadFile(t, claudePath(top))); diff != "" {
		t.Errorf("forced install changed bytes (-first +second):\n%s", diff)
	}
}

func TestInstallClaudeHooksRejectsWrongShapes(t *testing.T) {
	for name, content := range map[string]string{
		"not json":      `{"hooks": `,
		"array at top":  `[]`,
		"hooks array":   `{"hooks": []}`,
		"event object":  `{"hooks": {"Stop": {}}}`,
		"deny is a map": `{"permissions": {"deny": {}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			top := t.TempDir()
			agenttest.WriteFile(t, claudePath(top), content, 0o600)
			if _, err := installHooks(top, false); err == nil {
				t.Fatalf("install accepted %s", content)
			}
			if got := agenttest.ReadFile(t, claudePath(top)); got != content {
				t.Errorf("file rewritten to %s", got)
			}
		})
	}
}

func TestUninstallClaudeHooksKeepsForeign(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, claudePath(top), foreignClaudeSettings, 0o600)
	if _, err := installHooks(top, false); err != nil {
		t.Fatal(err)
	}
	removed, err := uninstallHooks(top)
	if err != nil {
		t.Fatal(err)
	}
	if removed != 10 {
		t.Errorf("removed = %d, want 10", removed)
	}
	got, err := agent.DecodeObject([]byte(agenttest.ReadFile(t, claudePath(top))))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := agent.DecodeObject([]byte(foreignClaudeSettings))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after uninstall (-want +got):\n%s", diff)
	}
	if hooksInstalled(top) {
		t.Error("claudeHooksInstalled = true after uninstall")
	}
}

func TestUninstallClaudeHooksDeletesFileItCreated(t *testing.T) {
	top := t.TempDir()
	if _, err := installHooks(top, false); err != nil {
		t.Fatal(err)
	}
	if _, err := uninstallHooks(top); err != nil {
		t.Fatal(err)
	}
	if agenttest.Exists(filepath.Join(top, ".claude")) {
		t.Error(".claude still exists after uninstalling hooks from a file Entire created")
	}
}

func TestClaudeHooksInstalledLegacyStop(t *testing.T) {
	top := t.TempDir()
	agenttest.WriteFile(t, claudePath(top), `{"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "entire rewind claude-hook --stop"}]}]}}`, 0o600)
	if !hooksInstalled(top) {
		t.Error("legacy stop hook not recognised")
	}
	agenttest.WriteFile(t, claudePath(top), `{"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks claude-code stop --x"}]}]}}`, 0o600)
	if hooksInstalled(top) {
		t.Error("a different stop command counted as installed")
	}
}
