package gemini

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/entirerec/entire/events/agent"
)

// Command prefixes that mark a Gemini hook as Entire's (entire-format.md §8.2): uninstall and
// reinstall remove every hook whose command starts with one of them.
const (
	entireCommandPrefix   = "entire "
	localDevCommandPrefix = "go run ${GEMINI_PROJECT_DIR}/cmd/entire/main.go "
	hookCommandPrefix     = "entire hooks gemini "
)

// hookSpec is one hook entry Entire installs.
type hookSpec struct {
	Event, Matcher, Name, Verb string
}

// hookSpecs are the entries of entire-format.md §8.2, in installation order. SessionEnd is
// matched on exit and logout only: a /clear also ends the session in Gemini CLI's terms, but
// the same session goes on.
var hookSpecs = []hookSpec{
	{"SessionStart", "", "entire-session-start", "session-start"},
	{"SessionEnd", "exit", "entire-session-end-exit", "session-end"},
	{"SessionEnd", "logout", "entire-session-end-logout", "session-end"},
	{"BeforeAgent", "", "entire-before-agent", "before-agent"},
	{"AfterAgent", "", "entire-after-agent", "after-agent"},
	{"BeforeModel", "", "entire-before-model", "before-model"},
	{"AfterModel", "", "entire-after-model", "after-model"},
	{"BeforeToolSelection", "", "entire-before-tool-selection", "before-tool-selection"},
	{"BeforeTool", "*", "entire-before-tool", "before-tool"},
	{"AfterTool", "*", "entire-after-tool", "after-tool"},
	{"PreCompress", "", "entire-pre-compress", "pre-compress"},
	{"Notification", "", "entire-notification", "notification"},
}

// isEntireCommand reports whether a hook command belongs to Entire.
func isEntireCommand(c string) bool {
	return strings.HasPrefix(c, entireCommandPrefix) || strings.HasPrefix(c, localDevCommandPrefix)
}

func settingsPath(repoRoot string) string { return filepath.Join(repoRoot, SettingsFile) }

// installHooks writes the §8.2 hooks and hooksConfig.enabled into .gemini/settings.json and
// returns how many entries it added. Unless force, nothing is done when the first Entire
// SessionStart command is already the expected one; otherwise every Entire hook is removed
// and the full set added again. A file of the wrong shape is an error and stays untouched.
func installHooks(repoRoot string, force bool) (int, error) {
	d, err := agent.ReadConfig(settingsPath(repoRoot))
	if err != nil {
		return 0, err
	}
	hooks, err := agent.Object(d.Root, "hooks", true)
	if err != nil {
		return 0, fmt.Errorf("gemini settings: %w", err)
	}
	if !force && firstEntireCommand(hooks, "SessionStart") == hookCommandPrefix+"session-start" {
		return 0, nil
	}
	cfg, err := agent.Object(d.Root, "hooksConfig", true)
	if err != nil {
		return 0, fmt.Errorf("gemini settings: %w", err)
	}
	cfg["enabled"] = true
	agent.RemoveGroupedHooks(hooks, isEntireCommand)
	added := 0
	for _, h := range hookSpecs {
		ok, err := agent.AddGroupedHook(hooks, agent.GroupedHook{Event: h.Event, Matcher: h.Matcher,
			Entry: map[string]any{"name": h.Name, "type": "command", "command": hookCommandPrefix + h.Verb}}, true)
		if err != nil {
			return 0, fmt.Errorf("gemini settings: %w", err)
		}
		if ok {
			added++
		}
	}
	return added, save(d)
}

// firstEntireCommand is the first Entire command among the groups of event ("" if none).
func firstEntireCommand(hooks map[string]any, event string) string {
	groups, _ := hooks[event].([]any)
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		list, _ := gm["hooks"].([]any)
		for _, e := range list {
			if c := agent.CommandOf(e); isEntireCommand(c) {
				return c
			}
		}
	}
	return ""
}

// save writes the document as Gemini's settings are written by Entire: 2-space indent, keys
// sorted, no trailing newline; a new file gets mode 0600, an existing one keeps its mode.
// An unchanged document is not written.
func save(d *agent.ConfigDoc) error {
	if d.Exists && reflect.DeepEqual(d.Root, d.Before) {
		return nil
	}
	data, err := agent.EncodeJSON(d.Root)
	if err != nil {
		return fmt.Errorf("encode %s: %w", d.Path, err)
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	if err := os.MkdirAll(filepath.Dir(d.Path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(d.Path), err)
	}
	if err := agent.WriteFileAtomic(d.Path, data, d.Mode); err != nil {
		return fmt.Errorf("write %s: %w", d.Path, err)
	}
	return nil
}
