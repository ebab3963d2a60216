package gitexec

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// fsyncConfig is whether the configuration may ask git to fsync, read once per Repo.
type fsyncConfig struct {
	once sync.Once
	may  bool
}

// FsyncsCommits reports whether git may be configured here to fsync what a commit writes. By
// default git fsyncs packs and their indexes only (core.fsync): a commit's loose objects and
// the refs it moves are left to the page cache, durable against a crash of the process, not
// of the machine. The answer is conservative: true when the environment or any configuration
// file git reads here (and the files they include) mentions fsync at all (core.fsync,
// core.fsyncMethod, core.fsyncObjectFiles, whatever their value), or cannot be read.
func (r *Repo) FsyncsCommits() bool {
	c := &r.fsync
	c.once.Do(func() { c.may = r.configMayMention("fsync") })
	return c.may
}

// configMayMention reports whether word may appear in the configuration: in a variable of
// this process's environment that carries configuration to git (git -c, GIT_CONFIG_COUNT;
// git children of entire do not get them), in a configuration file, or in a file one
// includes. An include it cannot follow counts as a mention.
func (r *Repo) configMayMention(word string) bool {
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if k == "GIT_CONFIG_PARAMETERS" || strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_") {
			if mentions([]byte(v), word) {
				return true
			}
		}
	}
	seen := map[string]bool{}
	var visit func(path string, depth int) bool
	visit = func(path string, depth int) bool {
		if seen[path] {
			return false
		}
		seen[path] = true
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false // git skips a missing file, included or not
		case err != nil || depth > 10 || mentions(data, word):
			return true
		}
		includes, ok := includedFiles(data, filepath.Dir(path), envValue(r.env, "HOME"))
		if !ok {
			return true
		}
		for _, inc := range includes {
			if visit(inc, depth+1) {
				return true
			}
		}
		return false
	}
	// Unless GIT_CONFIG_SYSTEM names it, the system file is where git was built to look:
	// /etc/gitconfig for a system's git, under its prefix for one installed elsewhere.
	// GIT_CONFIG_NOSYSTEM leaves it out.
	files := r.configFiles()
	switch strings.ToLower(envValue(r.env, "GIT_CONFIG_NOSYSTEM")) {
	case "1", "true", "yes", "on":
		files = files[1:] // configFiles lists the system file first
	default:
		if envValue(r.env, "GIT_CONFIG_SYSTEM") == "" {
			files = append(files, "/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig")
		}
	}
	for _, f := range files {
		if visit(f, 0) {
			return true
		}
	}
	return false
}

// mentions reports whether data holds word in any letter case.
func mentions(data []byte, word string) bool {
	return bytes.Contains(bytes.ToLower(data), []byte(word))
}

// includedFiles lists the files a configuration file includes ([include] and [includeIf]
// sections, whatever their condition): their "path" values, "~/" taken from home and a
// relative path from dir. ok=false when a line about includes is not of the plain forms read
// here (a quoted or escaped value, a variable on the section's line, a continued line).
func includedFiles(data []byte, dir, home string) (files []string, ok bool) {
	if !mentions(data, "include") {
		return nil, true
	}
	inInclude := false
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 || strings.TrimSpace(line[end+1:]) != "" && !strings.HasPrefix(strings.TrimSpace(line[end+1:]), "#") && !strings.HasPrefix(strings.TrimSpace(line[end+1:]), ";") {
				return nil, false
			}
			name, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(line[1:end])), " ")
			inInclude = name == "include" || name == "includeif"
			continue
		}
		if !inInclude {
			if mentions([]byte(line), "include") && strings.HasSuffix(line, "\\") {
				return nil, false
			}
			continue
		}
		key, value, found := strings.Cut(line, "=")
		if !found || !strings.EqualFold(strings.TrimSpace(key), "path") {
			continue
		}
		value = strings.TrimSpace(value)
		if value == "" || strings.ContainsAny(value, "\"\\;#") {
			return nil, false
		}
		switch {
		case strings.HasPrefix(value, "~/"):
			if home == "" {
				return nil, false
			}
			value = filepath.Join(home, value[2:])
		case strings.HasPrefix(value, "~"):
			return nil, false // another user's home
		case !filepath.IsAbs(value):
			value = filepath.Join(dir, value)
		}
		files = append(files, value)
	}
	return files, true
}
