package opencode

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirerec/entire/events/agent"
)

// PluginFile is the plugin module Install writes, relative to the repository root. OpenCode
// loads every module in .opencode/plugins/ at startup.
const PluginFile = ".opencode/plugins/entire.ts"

// pluginSource is the plugin module, byte for byte as Install writes it (never modify it).
//
//go:embed entire.ts
var pluginSource []byte

// markerPrefix starts the first line of every plugin module Entire writes. A file whose first
// line does not start with it is the user's, and Entire neither overwrites nor removes it.
const markerPrefix = "// Entire session recorder for OpenCode"

// isOurs reports whether a plugin module's first line is Entire's marker.
func isOurs(data []byte) bool {
	first, _, _ := bytes.Cut(data, []byte{'\n'})
	return bytes.HasPrefix(first, []byte(markerPrefix))
}

// readPlugin returns the plugin file's content; exists=false when there is none. Anything but
// a regular file at the path is an error.
func readPlugin(path string) (data []byte, exists bool, err error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read opencode plugin: %w", err)
	case !fi.Mode().IsRegular():
		return nil, true, fmt.Errorf("read opencode plugin: %s is not a regular file", path)
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, true, fmt.Errorf("read opencode plugin: %w", err)
	}
	return data, true, nil
}

// installPlugin writes pluginSource to PluginFile (mode 0644) when the file is absent or holds
// another version of Entire's plugin, and returns 1 when it wrote, 0 when the file was already
// current. force rewrites Entire's file even when current. A file without Entire's marker line
// is never overwritten, even with force: that is an error.
func installPlugin(repoRoot string, force bool) (int, error) {
	path := filepath.Join(repoRoot, PluginFile)
	data, exists, err := readPlugin(path)
	switch {
	case err != nil:
		return 0, err
	case exists && !isOurs(data):
		return 0, fmt.Errorf("install opencode plugin: %s was not written by Entire (its first line is not %q); "+
			"it is left as it is: move it away and run again to install Entire's plugin", PluginFile, markerPrefix)
	case exists && !force && bytes.Equal(data, pluginSource):
		return 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, fmt.Errorf("install opencode plugin: %w", err)
	}
	if err := agent.WriteFileAtomic(path, pluginSource, 0o644); err != nil {
		return 0, fmt.Errorf("install opencode plugin: %w", err)
	}
	return 1, nil
}

// uninstallPlugin deletes PluginFile when Entire wrote it (marker line) and returns 1, then the
// plugins directory and .opencode/ if that left them empty. Any other file stays: 0, no error.
func uninstallPlugin(repoRoot string) (int, error) {
	path := filepath.Join(repoRoot, PluginFile)
	data, exists, err := readPlugin(path)
	if err != nil || !exists || !isOurs(data) {
		return 0, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("uninstall opencode plugin: %w", err)
	}
	// os.Remove only deletes empty directories: a foreign plugin or config keeps them.
	plugins := filepath.Dir(path)
	if os.Remove(plugins) == nil {
		_ = os.Remove(filepath.Dir(plugins))
	}
	return 1, nil
}

// pluginInstalled reports whether PluginFile exists with Entire's marker line.
func pluginInstalled(repoRoot string) bool {
	data, exists, err := readPlugin(filepath.Join(repoRoot, PluginFile))
	return err == nil && exists && isOurs(data)
}
