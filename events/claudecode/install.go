package claudecode

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entirerec/entire/events/agent"
)

// ClaudeSettingsFile is Claude Code's project settings file, relative to the worktree root.
const ClaudeSettingsFile = ".claude/settings.json"

// MetadataDenyRule keeps Claude from reading Entire's metadata (§8.1).
const MetadataDenyRule = "Read(./.entire/metadata/**)"

// Command prefixes that mark a Claude hook as Entire's (§8.1): uninstall and --force remove
// every hook whose command starts with one of them.
const (
	entireCommandPrefix   = "entire "
	localDevCommandPrefix = "go run ${CLAUDE_PROJECT_DIR}/cmd/entire/main.go "
)

// claudeHook is one hook entry Entire installs.
type claudeHook struct {
	Event, Matcher, Command string
}

// claudeHooks are the seven entries of §8.1 plus three additions (the Agent matchers and
// SubagentStop), in installation order.
var claudeHooks = []claudeHook{
	{"SessionStart", "", "entire hooks claude-code session-start"},
	{"SessionEnd", "", "entire hooks claude-code session-end"},
	{"Stop", "", "entire hooks claude-code stop"},
	{"UserPromptSubmit", "", "entire hooks claude-code user-prompt-submit"},
	{"PreToolUse", "Task", "entire hooks claude-code pre-task"},
	{"PostToolUse", "Task", "entire hooks claude-code post-task"},
	{"PostToolUse", "TodoWrite", "entire hooks claude-code post-todo"},
	// Beyond the reference: the subagent tool is named Agent in current Claude Code, and
	// background subagents only report completion through SubagentStop (agent-hooks §1.3).
	{"PreToolUse", "Agent", "entire hooks claude-code pre-task"},
	{"PostToolUse", "Agent", "entire hooks claude-code post-task"},
	{"SubagentStop", "", "entire hooks claude-code subagent-stop"},
}

// stopCommands are the Stop commands that count as "installed", current and legacy.
var stopCommands = []string{
	"entire hooks claude-code stop",
	localDevCommandPrefix + "hooks claude-code stop",
	"entire hooks claudecode stop",
	localDevCommandPrefix + "hooks claudecode stop",
	"entire rewind claude-hook --stop",
	localDevCommandPrefix + "rewind claude-hook --stop",
}

// isEntireCommand reports whether a Claude hook command belongs to Entire (§8.1).
func isEntireCommand(c string) bool {
	return strings.HasPrefix(c, entireCommandPrefix) || strings.HasPrefix(c, localDevCommandPrefix)
}

// readClaudeSettings parses .claude/settings.json; a missing or empty file is an empty object.
func readClaudeSettings(topLevel string) (*agent.ConfigDoc, error) {
	return agent.ReadConfig(filepath.Join(topLevel, ClaudeSettingsFile))
}

// addHook adds one of Entire's hooks unless its command is already there.
func addHook(hooks map[string]any, h claudeHook) (bool, error) {
	return agent.AddGroupedHook(hooks, agent.GroupedHook{Event: h.Event, Matcher: h.Matcher,
		Entry: map[string]any{"type": "command", "command": h.Command}}, false)
}

// installHooks adds the §8.1 hooks and deny rule to .claude/settings.json and returns
// how many hook entries were added. With force, existing Entire entries are removed first.
func installHooks(topLevel string, force bool) (int, error) {
	d, err := readClaudeSettings(topLevel)
	if err != nil {
		return 0, err
	}
	hooks, err := agent.Object(d.Root, "hooks", true)
	if err != nil {
		return 0, fmt.Errorf("claude settings: %w", err)
	}
	if force {
		agent.RemoveGroupedHooks(hooks, isEntireCommand)
	}
	added := 0
	for _, h := range claudeHooks {
		ok, err := addHook(hooks, h)
		if err != nil {
			return 0, fmt.Errorf("claude settings: %w", err)
		}
		if ok {
			added++
		}
	}
	perms, err := agent.Object(d.Root, "permissions", true)
	if err != nil {
		return 0, fmt.Errorf("claude settings: %w", err)
	}
	deny, err := agent.Array(perms, "deny")
	if err != nil {
		return 0, fmt.Errorf("claude settings: permissions: %w", err)
	}
	if !slices.ContainsFunc(deny, isDenyRule) {
		perms["deny"] = append(deny, MetadataDenyRule)
	}
	return added, d.Save()
}
