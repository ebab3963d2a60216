package droid

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirerec/entire/events/agent"
)

// hook is one entry Install writes into .factory/hooks.json.
type hook struct {
	Event, Matcher, Verb string
}

// hooks are the entries Install writes, in order: Claude Code's layout and verbs, with the
// subagent tool Task matched on the tool events.
var hooks = []hook{
	{"SessionStart", "", "session-start"},
	{"UserPromptSubmit", "", "user-prompt-submit"},
	{"Stop", "", "stop"},
	{"SessionEnd", "", "session-end"},
	{"PreToolUse", subagentTool, "pre-task"},
	{"PostToolUse", subagentTool, "post-task"},
	{"SubagentStop", "", "subagent-stop"},
}

func command(verb string) string { return "entire hooks droid " + verb }

// isEntireCommand reports whether a hook command is Entire's.
func isEntireCommand(c string) bool { return strings.HasPrefix(c, "entire ") }

func configPath(repoRoot string) string { return filepath.Join(repoRoot, ConfigFile) }

// settingsFiles are the project settings files whose "hooks" Droid reads only while
// .factory/hooks.json does not exist.
var settingsFiles = []string{".factory/settings.json", ".factory/settings.local.json"}

// ErrSettingsHooks is returned (wrapped) by Install when creating .factory/hooks.json would
// silently switch off hooks the user keeps in .factory/settings.json or settings.local.json:
// Droid reads those only while no hooks.json exists.
var ErrSettingsHooks = errors.New("droid reads no settings hooks once .factory/hooks.json exists")

// installHooks adds the hooks to .factory/hooks.json, keeping everything else in the file, and
// returns how many it added. With force, Entire's entries are removed first. A file whose
// shape is not the expected one is an error and is left as it is.
func installHooks(repoRoot string, force bool) (int, error) {
	d, err := agent.ReadConfig(configPath(repoRoot))
	if err != nil {
		return 0, err
	}
	if !d.Exists {
		if err := checkSettingsHooks(repoRoot); err != nil {
			return 0, err
		}
	}
	events, err := agent.Object(d.Root, "hooks", true)
	if err != nil {
		return 0, fmt.Errorf("droid hooks: %w", err)
	}
	if force {
		agent.RemoveGroupedHooks(events, isEntireCommand)
	}
	added := 0
	for _, h := range hooks {
		entry := map[string]any{"type": "command", "command": command(h.Verb)}
		ok, err := agent.AddGroupedHook(events, agent.GroupedHook{Event: h.Event, Matcher: h.Matcher, Entry: entry}, false)
		if err != nil {
			return 0, fmt.Errorf("droid hooks: %w", err)
		}
		if ok {
			added++
		}
	}
	return added, d.Save()
}

// checkSettingsHooks refuses to create .factory/hooks.json while a project settings file
// declares hooks that its existence would disable. A settings file that is missing or not
// plain JSON (it may hold comments) cannot be judged and does not block.
func checkSettingsHooks(repoRoot string) error {
	for _, name := range settingsFiles {
		d, err := agent.ReadConfig(filepath.Join(repoRoot, name))
		if err != nil {
			continue
		}
		if h, ok := d.Root["hooks"].(map[string]any); ok && len(h) > 0 {
			return fmt.Errorf("%s declares hooks; move them to %s first: %w", name, ConfigFile, ErrSettingsHooks)
		}
	}
	return nil
}

// uninstallHooks removes every hook entry whose command starts with "entire " and returns how
// many went. Groups and events this empties are dropped; a file left as an empty object is
// deleted, and .factory/ with it when empty.
func uninstallHooks(repoRoot string) (int, error) {
	d, err := agent.ReadConfig(configPath(repoRoot))
	if err != nil || !d.Exists {
		return 0, err
	}
	events, _ := d.Root["hooks"].(map[string]any)
	if events == nil {
		return 0, nil
	}
	removed := agent.RemoveGroupedHooks(events, isEntireCommand)
	if removed == 0 {
		return 0, nil
	}
	if len(events) == 0 {
		delete(d.Root, "hooks")
	}
	if len(d.Root) == 0 {
		if err := os.Remove(d.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove droid hooks: %w", err)
		}
		_ = os.Remove(filepath.Dir(d.Path)) // only succeeds when .factory/ is now empty
		return removed, nil
	}
	return removed, d.Save()
}

// hooksInstalled reports whether the Stop event runs Entire's stop hook. An unreadable file
// counts as not installed.
func hooksInstalled(repoRoot string) bool {
	d, err := agent.ReadConfig(configPath(repoRoot))
	if err != nil {
		return false
	}
	events, _ := d.Root["hooks"].(map[string]any)
	groups, _ := events["Stop"].([]any)
	return agent.HasCommandWhere(groups, command("stop"), func(string) bool { return true })
}
