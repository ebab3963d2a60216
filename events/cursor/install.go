package cursor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entirerec/entire/events/agent"
)

// entireCommandPrefix marks a hook entry as Entire's: uninstall and --force remove every entry
// whose command starts with it.
const entireCommandPrefix = "entire "

// cursorHook is one hook entry Entire installs.
type cursorHook struct{ Event, Command string }

// cursorHooks are the entries Install writes, in installation order: the lifecycle events only.
var cursorHooks = []cursorHook{
	{"sessionStart", "entire hooks cursor session-start"},
	{"sessionEnd", "entire hooks cursor session-end"},
	{"beforeSubmitPrompt", "entire hooks cursor before-submit-prompt"},
	{"stop", "entire hooks cursor stop"},
	{"subagentStart", "entire hooks cursor subagent-start"},
	{"subagentStop", "entire hooks cursor subagent-stop"},
}

func isEntireCommand(c string) bool { return strings.HasPrefix(c, entireCommandPrefix) }

func configPath(repoRoot string) string { return filepath.Join(repoRoot, ConfigFile) }

// installHooks adds Entire's entries to .cursor/hooks.json and returns how many it added. With
// force, Entire's existing entries are removed first. A file of the wrong shape is an error and
// is left as it is.
func installHooks(repoRoot string, force bool) (int, error) {
	d, err := agent.ReadConfig(configPath(repoRoot))
	if err != nil {
		return 0, err
	}
	hooks, err := agent.Object(d.Root, "hooks", true)
	if err != nil {
		return 0, fmt.Errorf("cursor hooks: %w", err)
	}
	if force {
		removeEntries(hooks, isEntireCommand)
	}
	added := 0
	for _, h := range cursorHooks {
		ok, err := addEntry(hooks, h)
		if err != nil {
			return 0, fmt.Errorf("cursor hooks: %w", err)
		}
		if ok {
			added++
		}
	}
	if _, ok := d.Root["version"]; !ok {
		d.Root["version"] = json.Number("1")
	}
	return added, d.Save()
}

// uninstallHooks removes Entire's entries from .cursor/hooks.json and returns how many went. The
// lists and hooks object this empties are dropped; a file left with nothing but its version is
// deleted, and .cursor/ with it when empty.
func uninstallHooks(repoRoot string) (int, error) {
	d, err := agent.ReadConfig(configPath(repoRoot))
	if err != nil || !d.Exists {
		return 0, err
	}
	hooks, _ := d.Root["hooks"].(map[string]any)
	if hooks == nil {
		return 0, nil
	}
	removed := removeEntries(hooks, isEntireCommand)
	if removed == 0 {
		return 0, nil
	}
	if len(hooks) == 0 {
		delete(d.Root, "hooks")
	}
	if _, hasVersion := d.Root["version"]; len(d.Root) == 0 || (len(d.Root) == 1 && hasVersion) {
		if err := os.Remove(d.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove cursor hooks: %w", err)
		}
		_ = os.Remove(filepath.Dir(d.Path)) // only succeeds when .cursor/ is now empty
		return removed, nil
	}
	return removed, d.Save()
}

// hooksInstalled reports whether any entry Install writes is in .cursor/hooks.json under its
// event. An unreadable file counts as not installed.
func hooksInstalled(repoRoot string) bool {
	d, err := agent.ReadConfig(configPath(repoRoot))
	if err != nil {
		return false
	}
	hooks, _ := d.Root["hooks"].(map[string]any)
	for _, h := range cursorHooks {
		if list, _ := hooks[h.Event].([]any); hasEntry(list, h.Command) {
			return true
		}
	}
	return false
}

// addEntry appends {"command": h.Command} to hooks[h.Event] unless an entry there runs it.
func addEntry(hooks map[string]any, h cursorHook) (bool, error) {
	return agent.AddFlatHook(hooks, h.Event, map[string]any{"command": h.Command}, runs(h.Command))
}

// runs matches an entry running command.
func runs(command string) func(entry any) bool {
	return func(e any) bool { return agent.CommandOf(e) == command }
}

// hasEntry reports whether a flat entry list holds an entry running command.
func hasEntry(list []any, command string) bool { return slices.ContainsFunc(list, runs(command)) }

// removeEntries deletes every entry whose command ours accepts, then the lists this emptied.
func removeEntries(hooks map[string]any, ours func(command string) bool) int {
	return agent.RemoveFlatHooks(hooks, func(e any) bool { return ours(agent.CommandOf(e)) })
}
