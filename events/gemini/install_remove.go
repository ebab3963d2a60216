package gemini

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirerec/entire/events/agent"
)

// uninstallHooks removes every Entire hook from .gemini/settings.json and returns how many
// entries went. Groups and events this empties are dropped; so is a hooksConfig of exactly
// {"enabled": true} once no hook at all is left. A file left as an empty object is deleted,
// and .gemini/ with it when empty.
func uninstallHooks(repoRoot string) (int, error) {
	d, err := agent.ReadConfig(settingsPath(repoRoot))
	if err != nil || !d.Exists {
		return 0, err
	}
	hooks, _ := d.Root["hooks"].(map[string]any)
	if hooks == nil {
		return 0, nil
	}
	removed := agent.RemoveGroupedHooks(hooks, isEntireCommand)
	if removed == 0 {
		return 0, nil
	}
	if len(hooks) == 0 {
		delete(d.Root, "hooks")
		if cfg, ok := d.Root["hooksConfig"].(map[string]any); ok && len(cfg) == 1 && cfg["enabled"] == true {
			delete(d.Root, "hooksConfig")
		}
	}
	if len(d.Root) == 0 {
		if err := os.Remove(d.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove gemini settings: %w", err)
		}
		_ = os.Remove(filepath.Dir(d.Path)) // only succeeds when .gemini/ is now empty
		return removed, nil
	}
	return removed, save(d)
}

// installedCommands are the commands whose presence under AfterAgent or BeforeAgent means the
// hooks are installed, in their production and local-dev spellings.
var installedCommands = map[string][]string{
	"AfterAgent":  {hookCommandPrefix + "after-agent", localDevCommandPrefix + "hooks gemini after-agent"},
	"BeforeAgent": {hookCommandPrefix + "before-agent", localDevCommandPrefix + "hooks gemini before-agent"},
}

// hooksInstalled reports whether AfterAgent or BeforeAgent runs Entire's hook. An unreadable
// file counts as not installed.
func hooksInstalled(repoRoot string) bool {
	d, err := agent.ReadConfig(settingsPath(repoRoot))
	if err != nil {
		return false
	}
	hooks, _ := d.Root["hooks"].(map[string]any)
	for event, commands := range installedCommands {
		groups, _ := hooks[event].([]any)
		for _, c := range commands {
			if agent.HasCommandWhere(groups, c, func(string) bool { return true }) {
				return true
			}
		}
	}
	return false
}
