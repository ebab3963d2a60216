package gitexec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// commentKeys are the keys, in lower case, that set the prefix of comment lines in commit
// messages: core.commentChar, and core.commentString (git 2.45), which sets the same value.
var commentKeys = []string{"commentchar", "commentstring"}

// CommentString returns the prefix git gives the comment lines of the commit messages it hands
// to its hooks, and strips from them: core.commentChar or core.commentString as git reads them
// here, "#" when neither is set. It may be "auto" (in any case): git then picks a character for
// each message.
//
// The commit hooks ask on every commit, so the configuration files are read here without a
// process: the system file (GIT_CONFIG_SYSTEM or /etc/gitconfig, unless GIT_CONFIG_NOSYSTEM),
// the global ones and the repository's. Git config answers instead when a file includes others,
// the worktree has its own file, a file holds syntax this reader leaves to git, or the key came
// from git's command line: `git -c core.commentChar=; commit` hands it to its hooks in
// GIT_CONFIG_PARAMETERS, which this one call passes on to its child.
func (r *Repo) CommentString(ctx context.Context) (string, error) {
	cmdline, mentioned := cmdlineConfig(os.Environ())
	if !mentioned {
		if v, ok := r.commentFromFiles(); ok {
			return v, nil
		}
	}
	out, err := r.git(ctx, call{env: cmdline}, "config", "-z", "--get-regexp", `^core\.comment(char|string)$`)
	if e, ok := asError(err); ok && e.ExitCode == 1 && strings.TrimSpace(e.Stderr) == "" {
		return "#", nil
	}
	if err != nil {
		return "", fmt.Errorf("read core.commentChar: %w", err)
	}
	entries := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	_, v, _ := strings.Cut(entries[len(entries)-1], "\n") // the last one read wins
	return v, nil
}

// CommitCleanup is commit.cleanup as the git commit running a hook reads it, configuration
// given on its command line included (git -c commit.cleanup=strip commit); "" when unset.
func (r *Repo) CommitCleanup(ctx context.Context) (string, error) {
	return r.commitConfig(ctx, "commit.cleanup")
}

// CommitTemplate is commit.template as the git commit running a hook reads it, a path ("~/"
// expanded; a relative one is git's, relative to where it ran); "" when unset.
func (r *Repo) CommitTemplate(ctx context.Context) (string, error) {
	return r.commitConfig(ctx, "commit.template", "--path")
}

// commitConfig reads key with the configuration given on git's command line too.
func (r *Repo) commitConfig(ctx context.Context, key string, opts ...string) (string, error) {
	cmdline, _ := cmdlineConfig(os.Environ())
	v, _, err := r.configValue(ctx, cmdline, key, opts...)
	return v, err
}

// cmdlineConfig picks from env the variables that carry configuration given on git's command
// line (git -c, --config-env, GIT_CONFIG_COUNT), and reports whether they mention a comment key.
func cmdlineConfig(env []string) (vars []string, mentioned bool) {
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if name == "GIT_CONFIG_PARAMETERS" || name == "GIT_CONFIG_COUNT" ||
			strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
			vars = append(vars, kv)
			if name != "GIT_CONFIG_COUNT" && !strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
				mentioned = mentioned || strings.Contains(strings.ToLower(val), "comment")
			}
		}
	}
	return vars, mentioned
}

// HooksDir is GitPath(ctx, "hooks"): the directory git runs this repository's hooks from.
// Every prompt checks Entire's hooks there, so where no configuration file can set
// core.hooksPath (none that git reads here mentions the key or includes another, and the
// worktree has no file of its own) the answer, the common git directory's hooks/, is given
// without starting git; otherwise git answers. Like GitPath, it leaves out configuration
// from git's command line, which gitexec does not pass on to its children.
func (r *Repo) HooksDir(ctx context.Context) (string, error) {
	if dir, ok := r.hooksDirFromFiles(); ok {
		return dir, nil
	}
	return r.GitPath(ctx, "hooks")
}

// hooksDirFromFiles is HooksDir from the configuration files alone; ok=false when git must be
// asked.
func (r *Repo) hooksDirFromFiles() (string, bool) {
	ok := r.scanConfigFiles(append(r.configSources(), r.otherSystemConfigs()...), func(_, low string) bool {
		return !strings.Contains(low, "hookspath")
	})
	if !ok {
		return "", false
	}
	return filepath.Join(r.CommonDir, "hooks"), true
}

// scanConfigFiles reads the configuration files, in order, for an answer from the files
// alone: false when git must be asked, because the worktree has a file of its own, a file
// cannot be read or includes another, or visit (given each file's text and its lowercase)
// says so. Missing files are skipped.
func (r *Repo) scanConfigFiles(files []string, visit func(data, low string) bool) bool {
	if _, err := os.Lstat(filepath.Join(r.GitDir, "config.worktree")); !errors.Is(err, os.ErrNotExist) {
		return false
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return false
		}
		low := strings.ToLower(string(data))
		if strings.Contains(low, "include") || !visit(string(data), low) {
			return false
		}
	}
	return true
}

// otherSystemConfigs are where a git built with another prefix than /usr may keep its system
// configuration, which configSources takes to be /etc/gitconfig: <prefix>/etc/gitconfig of the
// git that PATH names (as found, and with its links resolved), /usr/local and Homebrew's. None
// when the system file is named or turned off.
func (r *Repo) otherSystemConfigs() []string {
	if system, off := systemConfig(r.env); off || system != "" {
		return nil
	}
	out := []string{"/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig"}
	if exe, err := exec.LookPath("git"); err == nil {
		real, err := filepath.EvalSymlinks(exe)
		if err != nil {
			real = exe
		}
		for _, p := range []string{exe, real} {
			out = append(out, filepath.Join(filepath.Dir(filepath.Dir(p)), "etc", "gitconfig"))
		}
	}
	return out
}

// commentFromFiles is CommentString read from the configuration files; ok=false when git must
// be asked.
func (r *Repo) commentFromFiles() (string, bool) {
	value := "#"
	ok := r.scanConfigFiles(r.configSources(), func(data, low string) bool {
		if !strings.Contains(low, "comment") {
			return true
		}
		vals, ok := coreValues(data, commentKeys)
		if ok && len(vals) > 0 {
			value = vals[len(vals)-1]
		}
		return ok
	})
	return value, ok
}

// configSources are the configuration files git reads here, in its order (a later value wins),
// the worktree's own file aside.
func (r *Repo) configSources() []string {
	var files []string
	switch system, off := systemConfig(r.env); {
	case off:
	case system != "":
		files = append(files, system)
	default:
		files = append(files, "/etc/gitconfig")
	}
	files = append(files, r.globalConfigFiles()...)
	return append(files, filepath.Join(r.CommonDir, "config"))
}

// systemConfig is the system configuration file env names (GIT_CONFIG_SYSTEM), and whether
// env turns it off (GIT_CONFIG_NOSYSTEM).
func systemConfig(env []string) (file string, off bool) {
	switch nosystem := strings.ToLower(envValue(env, "GIT_CONFIG_NOSYSTEM")); {
	case nosystem != "" && nosystem != "0" && nosystem != "false" && nosystem != "no" && nosystem != "off":
		return "", true
	default:
		return envValue(env, "GIT_CONFIG_SYSTEM"), false
	}
}

// globalConfigFiles are the user's configuration files, in git's order: GIT_CONFIG_GLOBAL, or
// the XDG file then ~/.gitconfig.
func (r *Repo) globalConfigFiles() []string {
	if global := envValue(r.env, "GIT_CONFIG_GLOBAL"); global != "" {
		return []string{global}
	}
	var files []string
	home := envValue(r.env, "HOME")
	xdg := envValue(r.env, "XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	return files
}

// coreValues returns the values a configuration file's text gives to keys (lower-case names) of
// section core, in order. ok=false when the text holds what this reader leaves to git: a line
// ending in a backslash (a value continued on the next line), a key on the line of a section
// header, a header or key git would reject, one of keys without a value.
func coreValues(text string, keys []string) (vals []string, ok bool) {
	inCore := false
	for _, line := range strings.Split(strings.TrimPrefix(text, "\ufeff"), "\n") {
		t := strings.TrimLeft(strings.TrimSuffix(line, "\r"), " \t")
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if strings.HasSuffix(strings.TrimRight(t, " \t"), `\`) {
			return nil, false
		}
		if t[0] == '[' {
			end := strings.IndexByte(t, ']')
			if end < 0 {
				return nil, false
			}
			if rest := strings.TrimLeft(t[end+1:], " \t"); rest != "" && rest[0] != '#' && rest[0] != ';' {
				return nil, false
			}
			inCore = strings.EqualFold(t[1:end], "core")
			continue
		}
		if !inCore {
			continue
		}
		n := 0
		for n < len(t) && (isAlnum(t[n]) || t[n] == '-') {
			n++
		}
		if n == 0 {
			return nil, false
		}
		if !slices.Contains(keys, strings.ToLower(t[:n])) {
			continue
		}
		rest, hasValue := strings.CutPrefix(strings.TrimLeft(t[n:], " \t"), "=")
		if !hasValue {
			return nil, false
		}
		v, ok := configValue(rest)
		if !ok {
			return nil, false
		}
		vals = append(vals, v)
	}
	return vals, true
}

// configValue decodes a value as git's config parser does, for a value on one line: blanks
// around it dropped, those inside kept, double quotes keeping blanks and comment characters,
// the escapes \\ \" \n \t \b, a comment from an unquoted # or ;. ok=false for an escape git
// rejects or an open quote.
func configValue(s string) (string, bool) {
	var b strings.Builder
	quote, space := false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !quote {
			if c == ' ' || c == '\t' || c == '\r' {
				if b.Len() > 0 {
					space++
				}
				continue
			}
			if c == '#' || c == ';' {
				break
			}
		}
		for ; space > 0; space-- {
			b.WriteByte(' ')
		}
		switch c {
		case '"':
			quote = !quote
		case '\\':
			if i++; i == len(s) {
				return "", false
			}
			switch s[i] {
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case '\\', '"':
				b.WriteByte(s[i])
			default:
				return "", false
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), !quote
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
