package agent

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
)

// ConfigDoc is a parsed JSON configuration file, kept generic so unknown keys survive.
type ConfigDoc struct {
	Path   string
	Root   map[string]any
	Before map[string]any // an untouched copy, to skip writing when nothing changed
	Mode   fs.FileMode
	Exists bool
}

// ReadConfig parses the JSON object at path; a missing or empty file is an empty object.
func ReadConfig(path string) (*ConfigDoc, error) {
	d := &ConfigDoc{Path: path, Mode: 0o600}
	data, err := os.ReadFile(d.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.Root, d.Before = map[string]any{}, map[string]any{}
		return d, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	d.Exists = true
	if info, err := os.Stat(d.Path); err == nil {
		d.Mode = info.Mode().Perm()
	}
	if d.Root, err = DecodeObject(data); err != nil {
		return nil, parseError(d.Path, data, err)
	}
	d.Before, _ = DecodeObject(data)
	return d, nil
}

// parseError names the line of a syntax error and what to do: agents such as Gemini CLI accept
// comments and trailing commas in their settings, which a rewrite through encoding/json would
// drop, so such a file is left as it is.
func parseError(path string, data []byte, err error) error {
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	line := 1 + bytes.Count(data[:max(0, min(int(syn.Offset)-1, len(data)))], []byte("\n"))
	return fmt.Errorf("parse %s: line %d: %w (the file is left unchanged: Entire edits plain JSON only; remove comments and trailing commas, then run the command again)", path, line, err)
}

// DecodeObject decodes a JSON object keeping numbers as written.
func DecodeObject(data []byte) (map[string]any, error) {
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

// Save writes the document back (2-space indent, keys sorted) unless nothing changed.
// A new file gets mode 0600; an existing one keeps its mode.
func (d *ConfigDoc) Save() error {
	if d.Exists && reflect.DeepEqual(d.Root, d.Before) {
		return nil
	}
	data, err := EncodeJSON(d.Root)
	if err != nil {
		return fmt.Errorf("encode %s: %w", d.Path, err)
	}
	if err := os.MkdirAll(filepath.Dir(d.Path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(d.Path), err)
	}
	if err := WriteFileAtomic(d.Path, data, d.Mode); err != nil {
		return fmt.Errorf("write %s: %w", d.Path, err)
	}
	return nil
}

// Object returns m[key] as an object, creating it when absent and create is set.
// It returns nil when absent and not created; a non-object value is an error.
func Object(m map[string]any, key string, create bool) (map[string]any, error) {
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

// Array returns m[key] as an array (nil when absent); a non-array value is an error.
func Array(m map[string]any, key string) ([]any, error) {
	switch v := m[key].(type) {
	case []any:
		return v, nil
	case nil:
		return nil, nil
	default:
		return nil, fmt.Errorf("%q is not a JSON array", key)
	}
}

// CommandOf returns the command of a hook entry, or "".
func CommandOf(entry any) string {
	e, _ := entry.(map[string]any)
	c, _ := e["command"].(string)
	return c
}

// HasCommand reports whether any matcher group of an event runs command.
func HasCommand(groups []any, matcher, command string) bool {
	return HasCommandWhere(groups, command, func(m string) bool { return m == matcher })
}

// HasCommandWhere reports whether command is in a group whose matcher satisfies keep.
func HasCommandWhere(groups []any, command string, keep func(matcher string) bool) bool {
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		if m, _ := gm["matcher"].(string); !keep(m) {
			continue
		}
		hooks, _ := gm["hooks"].([]any)
		if slices.ContainsFunc(hooks, func(e any) bool { return CommandOf(e) == command }) {
			return true
		}
	}
	return false
}

// GroupedHook is one hook entry in the layout Claude Code and several other agents share:
// hooks.<Event> is a list of {"matcher", "hooks": [entry...]} groups.
type GroupedHook struct {
	Event, Matcher string
	Entry          map[string]any // must hold "command"
}

// AddGroupedHook adds h unless its exact command is already under its event and matcher. It
// joins an existing group with the same matcher (a group without "matcher" counts as ""),
// else appends a group; a group gets no "matcher" key when omitEmpty and the matcher is "".
func AddGroupedHook(hooks map[string]any, h GroupedHook, omitEmpty bool) (bool, error) {
	command, _ := h.Entry["command"].(string)
	groups, err := Array(hooks, h.Event)
	if err != nil {
		return false, fmt.Errorf("hooks: %w", err)
	}
	if HasCommand(groups, h.Matcher, command) {
		return false, nil
	}
	entry := h.Entry
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
	group := map[string]any{"matcher": h.Matcher, "hooks": []any{entry}}
	if omitEmpty && h.Matcher == "" {
		delete(group, "matcher")
	}
	hooks[h.Event] = append(groups, group)
	return true, nil
}

// RemoveGroupedHooks deletes every hook entry whose command ours accepts, then the matcher
// groups and events that this emptied. Foreign entries, groups and events are left as they are.
func RemoveGroupedHooks(hooks map[string]any, ours func(command string) bool) int {
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
			rest := slices.DeleteFunc(slices.Clone(list), func(e any) bool { return ours(CommandOf(e)) })
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

// EncodeJSON renders v the way every Entire file is written (§0): encoding/json,
// 2-space indent, HTML escaping on, one trailing newline.
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFileAtomic replaces path with data through a temporary file in the same
// directory, so a reader never sees a half-written file. The result has exactly perm.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// AddFlatHook appends entry to hooks[event], a flat list of entries (the layout of Cursor's and
// Copilot's hook files), unless an entry there satisfies has. A non-list value is an error.
func AddFlatHook(hooks map[string]any, event string, entry map[string]any, has func(entry any) bool) (bool, error) {
	list, err := Array(hooks, event)
	if err != nil {
		return false, fmt.Errorf("hooks: %w", err)
	}
	if slices.ContainsFunc(list, has) {
		return false, nil
	}
	hooks[event] = append(list, entry)
	return true, nil
}

// RemoveFlatHooks deletes every entry ours accepts from the flat lists of hooks, then the lists
// this emptied, and returns how many entries went. Foreign entries and lists (and non-list
// values) stay.
func RemoveFlatHooks(hooks map[string]any, ours func(entry any) bool) int {
	removed := 0
	for event, v := range hooks {
		list, ok := v.([]any)
		if !ok {
			continue
		}
		rest := slices.DeleteFunc(slices.Clone(list), ours)
		if len(rest) == len(list) {
			continue
		}
		removed += len(list) - len(rest)
		if len(rest) == 0 {
			delete(hooks, event)
		} else {
			hooks[event] = rest
		}
	}
	return removed
}
