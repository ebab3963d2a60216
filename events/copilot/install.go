package copilot

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
// whose bash or powershell command starts with it.
const entireCommandPrefix = "entire "

// timeoutSec is the timeout written on each entry: Copilot's default, stated so the file says it.
const timeoutSec = "30"

// copilotHook is one hook entry Entire installs.
type copilotHook struct{ Event, Command string }

// copilotHooks are the entries Install writes, in installation order: the lifecycle events only.
var copilotHooks = []copilotHook{
	{"sessionStart", "entire hooks copilot session-start"},
	{"sessionEnd", "entire hooks copilot session-end"},
	{"userPromptSubmitted", "entire hooks copilot user-prompt-submitted"},
	{"agentStop", "entire hooks copilot agent-stop"},
	{"subagentStart", "entire hooks copilot subagent-start"},
	{"subagentStop", "entire hooks copilot subagent-stop"},
}

func configPath(repoRoot string) string { return filepath.Join(repoRoot, ConfigFile) }

// shellCommands are the commands of an entry: its bash and powershell strings.
func shellCommands(entry any) []string {
	e, _ := entry.(map[string]any)
	var out []string
	for _, k := range []string{"bash", "powershell"} {
		if c, ok := e[k].(string); ok {
			out = append(out, c)
		}
	}
	return out
}

// isOurs reports whether an entry is Entire's: one of its commands starts with "entire ".
func isOurs(entry any) bool {
	return slices.ContainsFunc(shellCommands(entry), func(c string) bool { return strings.HasPrefix(c, entireCommandPrefix) })
}

// installHooks adds Entire's entries to .github/hooks/entire.json and returns how many it added.
// With force, Entire's existing entries are removed first. A file of the wrong shape is an
// error and is left as it is.
func installHooks(repoRoot string, force bool) (int, error) {
	d, err := agent.ReadConfig(configPath(repoRoot))
	if err != nil {
		return 0, err
	}
	hooks, err := agent.Object(d.Root, "hooks", true)
	if err != nil {
		return 0, fmt.Errorf("copilot hooks: %w", err)
	}
	if force {
		removeEntries(hooks)
	}
	added := 0
	for _, h := range copilotHooks {
		ok, err := addEntry(hooks, h)
		if err != nil {
			return 0, fmt.Errorf("copilot hooks: %w", err)
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

// uninstallHooks removes Entire's entries from .github/hooks/entire.json and returns how many
// went. The lists and hooks object this empties are dropped; a file left with nothing but its
// version is deleted, and .github/hooks/ then .github/ with it when they are empty.
func uninstallHooks(repoRoot string) (int, error) {
	d, err := agent.ReadConfig(configPath(repoRoot))
	if err != nil || !d.Exists {
		return 0, err
	}
	hooks, _ := d.Root["hooks"].(map[string]any)
	if hooks == nil {
		return 0, nil
	}
	removed := removeEntries(hooks)
	if removed == 0 {
		return 0, nil
	}
	if len(hooks) == 0 {
		delete(d.Root, "hooks")
	}
	if _, hasVersion := d.Root["version"]; len(d.Root) == 0 || (len(d.Root) == 1 && hasVersion) {
		if err := os.Remove(d.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove copilot hooks: %w", err)
		}
		// Each only succeeds when the directory is now empty.
		if os.Remove(filepath.Dir(d.Path)) == nil {
			_ = os.Remove(filepath.Dir(filepath.Dir(d.Path)))
		}
		return removed, nil
	}
	return removed, d.Save()
}

// hooksInstalled reports whether any entry Install writes is in .github/hooks/entire.json under
// its event. An unreadable file counts as not installed.
func hooksInstalled(repoRoot string) bool {
	d, err := agent.ReadConfig(configPath(repoRoot))
	if err != nil {
		return false
	}
	hooks, _ := d.Root["hooks"].(map[string]any)
	for _, h := range copilotHooks {
		if list, _ := hooks[h.Event].([]any); hasEntry(list, h.Command) {
			return true
		}
	}
	return false
}

// addEntry appends Entire's entry for h to hooks[h.Event] unless an entry there runs it (as its
// bash command).
func addEntry(hooks map[string]any, h copilotHook) (bool, error) {
	entry := map[string]any{"type": "command", "bash": h.Command, "powershell": h.Command, "timeoutSec": json.Number(timeoutSec)}
	return agent.AddFlatHook(hooks, h.Event, entry, runs(h.Command))
}

// runs matches an entry whose bash command is command.
func runs(command string) func(entry any) bool {
	return func(e any) bool {
		m, _ := e.(map[string]any)
		c, _ := m["bash"].(string)
		return c == command
	}
}

// hasEntry reports whether a flat entry list holds an entry whose bash command is command.
func hasEntry(list []any, command string) bool { return slices.ContainsFunc(list, runs(command)) }

// removeEntries deletes Entire's entries, then the lists this emptied.
func removeEntries(hooks map[string]any) int { return agent.RemoveFlatHooks(hooks, isOurs) }
