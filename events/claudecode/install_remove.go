package claudecode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/entirerec/entire/events/agent"
)

// isDenyRule reports whether a permissions.deny element is Entire's rule.
func isDenyRule(v any) bool {
	s, ok := v.(string)
	return ok && s == MetadataDenyRule
}

// uninstallHooks removes Entire's hook entries and deny rule from
// .claude/settings.json and returns how many hook entries went. Containers this empties
// are dropped; a file left as an empty object is deleted, and .claude/ with it when empty.
func uninstallHooks(topLevel string) (int, error) {
	d, err := readClaudeSettings(topLevel)
	if err != nil || !d.Exists {
		return 0, err
	}
	removed := 0
	if hooks, _ := d.Root["hooks"].(map[string]any); hooks != nil {
		removed = agent.RemoveGroupedHooks(hooks, isEntireCommand)
		if removed > 0 && len(hooks) == 0 {
			delete(d.Root, "hooks")
		}
	}
	if perms, _ := d.Root["permissions"].(map[string]any); perms != nil {
		if deny, ok := perms["deny"].([]any); ok && slices.ContainsFunc(deny, isDenyRule) {
			deny = slices.DeleteFunc(deny, isDenyRule)
			perms["deny"] = deny
			if len(deny) == 0 {
				delete(perms, "deny")
			}
			if len(perms) == 0 {
				delete(d.Root, "permissions")
			}
		}
	}
	if len(d.Root) == 0 && len(d.Before) > 0 {
		if err := os.Remove(d.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove claude settings: %w", err)
		}
		_ = os.Remove(filepath.Dir(d.Path)) // only succeeds when .claude/ is now empty
		return removed, nil
	}
	return removed, d.Save()
}

// hooksInstalled reports whether the Stop event runs Entire's stop hook (§8.1),
// in its current, local-dev or legacy spelling. An unreadable file counts as not installed.
func hooksInstalled(topLevel string) bool {
	d, err := readClaudeSettings(topLevel)
	if err != nil {
		return false
	}
	hooks, _ := d.Root["hooks"].(map[string]any)
	groups, _ := hooks["Stop"].([]any)
	for _, c := range stopCommands {
		if agent.HasCommandWhere(groups, c, func(string) bool { return true }) {
			return true
		}
	}
	return false
}
