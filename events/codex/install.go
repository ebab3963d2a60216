package codex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirerec/entire/events/agent"
)

// hook is one entry Install writes into .codex/hooks.json.
type hook struct {
	Event, Matcher, Verb string
	Timeout              int // seconds; 0 leaves Codex's default
}

// hooks are the entries Install writes, in order. Only SessionStart has a matcher (tested
// against source; "compact" is left out: compaction keeps the session). Codex caps SessionEnd
// and Interrupt hooks at 3 s and warns at every start about a configuration asking for more,
// so those two ask for exactly 3. Events an older Codex does not know are ignored by it.
var hooks = []hook{
	{Event: "SessionStart", Matcher: "startup|resume|clear", Verb: "session-start"},
	{Event: "UserPromptSubmit", Verb: "user-prompt-submit"},
	{Event: "Stop", Verb: "stop"},
	{Event: "StopFailure", Verb: "stop-failure"},
	{Event: "Interrupt", Verb: "interrupt", Timeout: 3},
	{Event: "SessionEnd", Verb: "session-end", Timeout: 3},
	{Event: "SubagentStart", Verb: "subagent-start"},
	{Event: "SubagentStop", Verb: "subagent-stop"},
}

func command(verb string) string { return "entire hooks codex " + verb }

// isEntireCommand reports whether a hook command is Entire's.
func isEntireCommand(c string) bool { return strings.HasPrefix(c, "entire ") }

func configPath(repoRoot string) string { return filepath.Join(repoRoot, ConfigFile) }

// installHooks adds the hooks to .codex/hooks.json, keeping everything else in the file, and
// returns how many it added. With force, Entire's entries are removed first. A file whose
// shape is not the expected one is an error and is left as it is.
func installHooks(repoRoot string, force bool) (int, error) {
	d, err := agent.ReadConfig(configPath(repoRoot))
	if err != nil {
		return 0, err
	}
	events, err := agent.Object(d.Root, "hooks", true)
	if err != nil {
		return 0, fmt.Errorf("codex hooks: %w", err)
	}
	if force {
		agent.RemoveGroupedHooks(events, isEntireCommand)
	}
	added := 0
	for _, h := range hooks {
		entry := map[string]any{"type": "command", "command": command(h.Verb)}
		if h.Timeout > 0 {
			entry["timeout"] = h.Timeout
		}
		ok, err := agent.AddGroupedHook(events, agent.GroupedHook{Event: h.Event, Matcher: h.Matcher, Entry: entry}, true)
		if err != nil {
			return 0, fmt.Errorf("codex hooks: %w", err)
		}
		if ok {
			added++
		}
	}
	return added, d.Save()
}

// uninstallHooks removes every hook entry whose command starts with "entire " and returns how
// many went. Groups and events this empties are dropped; a file left as an empty object is
// deleted, and .codex/ with it when empty.
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
			return removed, fmt.Errorf("remove codex hooks: %w", err)
		}
		_ = os.Remove(filepath.Dir(d.Path)) // only succeeds when .codex/ is now empty
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
