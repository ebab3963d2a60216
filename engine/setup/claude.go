package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
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

// claudeDoc is a parsed .claude/settings.json, kept generic so unknown keys survive.
type claudeDoc struct {
	path   string
	root   map[string]any
	before map[string]any // an untouched copy, to skip writing when nothing changed
	mode   fs.FileMode
	exists bool
}

// readClaudeSettings parses .claude/settings.json; a missing or empty file is an empty object.
func readClaudeSettings(topLevel string) (*claudeDoc, error) {
	d := &claudeDoc{path: filepath.Join(topLevel, ClaudeSettingsFile), mode: 0o600}
	data, err := os.ReadFile(d.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.root, d.before = map[string]any{}, map[string]any{}
		return d, nil
	case err != nil:
		return nil, fmt.Errorf("read claude settings: %w", err)
	}
	d.exists = true
	if info, err := os.Stat(d.path); err == nil {
		d.mode = info.Mode().Perm()
	}
	if d.root, err = decodeObject(data); err != nil {
		return nil, fmt.Errorf("parse %s: %w", d.path, err)
	}
	d.before, _ = decodeObject(data)
	return d, nil
}

// decodeObject decodes a JSON object keeping numbers as written.
func decodeObject(data []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON object")
	}
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("top level is not a JSON object")
	}
	return m, nil
}

// save writes the document back (2-space indent, keys sorted) unless nothing changed.
// A new file gets mode 0600; an existing one keeps its mode.
func (d *claudeDoc) save() error {
	if d.exists && reflect.DeepEqual(d.root, d.before) {
		return nil
	}
	data, err := encodeJSON(d.root)
	if err != nil {
		return fmt.Errorf("encode claude settings: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(d.path), 0o755); err != nil {
		return fmt.Errorf("create .claude directory: %w", err)
	}
	if err := writeFileAtomic(d.path, data, d.mode); err != nil {
		return fmt.Errorf("write claude settings: %w", err)
	}
	return nil
}

// object returns m[key] as an object, creating it when absent and create is set.
// It returns nil when absent and not created; a non-object value is an error.
func object(m map[string]any, key string, create bool) (map[string]any, error) {
	switch v := m[key].(type) {
	case map[string]any:
		return v, nil
	case nil:
		if !create {
			return nil, nil
		}
		o := map[string]any{}
		m[key] = o
		return o, nil
	default:
		return nil, fmt.Errorf("%q is not a JSON object", key)
	}
}

// array returns m[key] as an array (nil when absent); a non-array value is an error.
func array(m map[string]any, key string) ([]any, error) {
	switch v := m[key].(type) {
	case []any:
		return v, nil
	case nil:
		return nil, nil
	default:
		return nil, fmt.Errorf("%q is not a JSON array", key)
	}
}

// commandOf returns the command of a hook entry, or "".
func commandOf(entry any) string {
	e, _ := entry.(map[string]any)
	c, _ := e["command"].(string)
	return c
}

// isEntireCommand reports whether a Claude hook command belongs to Entire (§8.1).
func isEntireCommand(c string) bool {
	return strings.HasPrefix(c, entireCommandPrefix) || strings.HasPrefix(c, localDevCommandPrefix)
}

// hasCommand reports whether any matcher group of an event runs command.
func hasCommand(groups []any, matcher, command string) bool {
	return hasCommandWhere(groups, command, func(m string) bool { return m == matcher })
}

// hasCommandWhere reports whether command is in a group whose matcher satisfies keep.
func hasCommandWhere(groups []any, command string, keep func(matcher string) bool) bool {
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		if m, _ := gm["matcher"].(string); !keep(m) {
			continue
		}
		hooks, _ := gm["hooks"].([]any)
		if slices.ContainsFunc(hooks, func(e any) bool { return commandOf(e) == command }) {
			return true
		}
	}
	return false
}

// addHook adds h unless its exact command is already under its event. It joins an existing
// group with the same matcher (a group without "matcher" counts as ""), else appends a group.
func addHook(hooks map[string]any, h claudeHook) (bool, error) {
	groups, err := array(hooks, h.Event)
	if err != nil {
		return false, fmt.Errorf("hooks: %w", err)
	}
	if hasCommand(groups, h.Matcher, h.Command) {
		return false, nil
	}
	entry := map[string]any{"type": "command", "command": h.Command}
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		if !ok {
			continue
		}
		m, present := gm["matcher"]
		if s, isString := m.(string); (present && !isString) || s != h.Matcher {
			continue
		}
		list, ok := gm["hooks"].([]any)
		if gm["hooks"] != nil && !ok {
			continue
		}
		gm["hooks"] = append(list, entry)
		return true, nil
	}
	hooks[h.Event] = append(groups, map[string]any{"matcher": h.Matcher, "hooks": []any{entry}})
	return true, nil
}

// removeEntireHooks deletes every Entire hook entry, then the matcher groups and events
// that this emptied. Foreign entries, groups and events are left as they are.
func removeEntireHooks(hooks map[string]any) int {
	removed := 0
	for event, v := range hooks {
		groups, ok := v.([]any)
		if !ok {
			continue
		}
		kept, n := make([]any, 0, len(groups)), 0
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			list, _ := gm["hooks"].([]any)
			rest := slices.DeleteFunc(slices.Clone(list), func(e any) bool { return isEntireCommand(commandOf(e)) })
			switch {
			case len(rest) == len(list):
				kept = append(kept, g)
			case len(rest) > 0:
				gm["hooks"] = rest
				kept = append(kept, gm)
			}
			n += len(list) - len(rest)
		}
		if n == 0 {
			continue
		}
		removed += n
		if len(kept) == 0 {
			delete(hooks, event)
		} else {
			hooks[event] = kept
		}
	}
	return removed
}

// installClaudeHooks adds the §8.1 hooks and deny rule to .claude/settings.json and returns
// how many hook entries were added. With force, existing Entire entries are removed first.
func installClaudeHooks(topLevel string, force bool) (int, error) {
	d, err := readClaudeSettings(topLevel)
	if err != nil {
		return 0, err
	}
	hooks, err := object(d.root, "hooks", true)
	if err != nil {
		return 0, fmt.Errorf("claude settings: %w", err)
	}
	if force {
		removeEntireHooks(hooks)
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
	perms, err := object(d.root, "permissions", true)
	if err != nil {
		return 0, fmt.Errorf("claude settings: %w", err)
	}
	deny, err := array(perms, "deny")
	if err != nil {
		return 0, fmt.Errorf("claude settings: permissions: %w", err)
	}
	if !slices.ContainsFunc(deny, isDenyRule) {
		perms["deny"] = append(deny, MetadataDenyRule)
	}
	return added, d.save()
}
