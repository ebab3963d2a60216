package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// messageGivenUnedited reports whether the git process running this commit-msg hook is a `git
// commit` given its message (-m, -F, -C) that it does not open in the editor (no -e, no -c)
// and that names no --cleanup mode: git's cleanup is then "whitespace" (unless commit.cleanup
// says otherwise), which keeps lines starting with the comment character as text. Where /proc
// is not available the answer is false.
func messageGivenUnedited() bool {
	return gitAncestor(func(args []string) (bool, bool) {
		commit, ok := gitSubcommandArgs(args[1:], "commit")
		return ok && givenUnedited(commit), ok
	})
}

// givenUnedited reads git commit's options for messageGivenUnedited.
func givenUnedited(args []string) bool {
	given, edit := false, false
	for _, o := range commitOptions(args) {
		switch o.name {
		case "message", "file", "reuse-message":
			given = true
		case "reedit-message":
			given, edit = true, true
		case "edit":
			edit = true
		case "no-edit":
			edit = false
		case "cleanup":
			return false // a mode of its own: the comment rule of commit-msg applies
		}
	}
	return given && !edit
}

// commitCleanupArg is the --cleanup mode the git commit running this commit-msg hook was given
// (the last one), "" when it was given none or /proc is not available.
func commitCleanupArg() string {
	mode := ""
	gitAncestor(func(args []string) (bool, bool) {
		commit, ok := gitSubcommandArgs(args[1:], "commit")
		if ok {
			mode = cleanupArg(commit)
		}
		return false, ok
	})
	return mode
}

// cleanupArg reads git commit's --cleanup option (the last one), "" without one.
func cleanupArg(args []string) string { return lastOption(args, "cleanup") }

// templateArg reads git commit's -t/--template option (the last one), "" without one.
func templateArg(args []string) string { return lastOption(args, "template") }

// lastOption is the value of git commit's option name (its long name) given last, "" when it
// is not given.
func lastOption(args []string, name string) string {
	v := ""
	for _, o := range commitOptions(args) {
		if o.name == name {
			v = o.value
		}
	}
	return v
}

// commitOption is one option of a git commit command line, short ones by their long name.
type commitOption struct{ name, value string }

// commitValued are git commit's options that take a value, given attached or as the next
// argument; commitShort its short options by long name.
var (
	commitValued = []string{"message", "file", "reuse-message", "reedit-message", "author", "date", "template", "trailer", "fixup", "squash", "pathspec-from-file", "cleanup"}
	commitShort  = map[byte]string{'m': "message", 'F': "file", 'C': "reuse-message", 'c': "reedit-message", 't': "template", 'e': "edit"}
)

// commitLong are git commit's long options (git 2.39's, positive forms; each but the no- ones
// may be given as --no-<name>), to resolve an abbreviated one as git does.
var commitLong = []string{"quiet", "verbose", "file", "author", "date", "message", "reedit-message", "reuse-message",
	"fixup", "squash", "reset-author", "trailer", "signoff", "template", "edit", "cleanup", "status", "gpg-sign",
	"all", "include", "interactive", "patch", "only", "no-verify", "verify", "dry-run", "short", "branch",
	"ahead-behind", "porcelain", "long", "null", "amend", "no-post-rewrite", "post-rewrite", "untracked-files",
	"pathspec-from-file", "pathspec-file-nul", "allow-empty", "allow-empty-message"}

// commitLongName is the long option name stands for: git takes a unique prefix of an option's
// name (--mes for --message, --no-ed for --no-edit) as that option. A name that is no prefix, or
// the prefix of several (git refuses it), is returned as it is.
func commitLongName(name string) string {
	found := ""
	for _, o := range commitLong {
		for _, full := range []string{o, "no-" + o} {
			if full == name {
				return full
			}
			if strings.HasPrefix(full, name) && full != found {
				if found != "" {
					return name // ambiguous
				}
				found = full
			}
		}
	}
	return cmp.Or(found, name)
}

// commitOptions reads git commit's options in order, up to "--" (what follows is paths). An
// option's value is skipped, never read as an option; short options may be bundled (-qam),
// and -S and -u take their optional value attached.
func commitOptions(args []string) []commitOption {
	var out []commitOption
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return out
		case strings.HasPrefix(a, "--"):
			name, val, hasValue := strings.Cut(a[2:], "=")
			name = commitLongName(name)
			if !hasValue && slices.Contains(commitValued, name) && i+1 < len(args) {
				i++
				val = args[i]
			}
			out = append(out, commitOption{name, val})
		case strings.HasPrefix(a, "-") && len(a) > 1:
		short:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'S', 'u':
					break short // an optional value, attached
				}
				name, ok := commitShort[a[j]]
				if !ok {
					continue
				}
				if !slices.Contains(commitValued, name) {
					out = append(out, commitOption{name: name})
					continue
				}
				val := a[j+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i]
				}
				out = append(out, commitOption{name, val})
				break short // the rest of this one is the value
			}
		}
	}
	return out
}

// commitTemplate is the template file the git commit running this commit-msg hook was given
// (-t, --template), as an absolute path; "" when it was given none, or /proc is not available.
// A relative path is git's user's: relative to the directory git was started in (its -C options
// applied), which git leaves for the work tree's root, so the one its parent process is in is
// tried first.
func commitTemplate() string {
	path := ""
	gitAncestorProc(func(pid int, args []string) (bool, bool) {
		commit, ok := gitSubcommandArgs(args[1:], "commit")
		if !ok {
			return false, false
		}
		p := templateArg(commit)
		if p == "" || filepath.IsAbs(p) {
			path = p
			return false, true
		}
		for _, proc := range []int{parentOf(pid), pid} {
			if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", proc)); err == nil {
				if proc != pid {
					cwd = gitStartDir(cwd, args[1:])
				}
				if _, err := os.Stat(filepath.Join(cwd, p)); err == nil {
					path = filepath.Join(cwd, p)
					break
				}
			}
		}
		return false, true
	})
	return path
}

// gitStartDir is the directory a git started in cwd with args works from: git's -C options
// (before the subcommand) each change to a directory, a relative one from the last.
func gitStartDir(cwd string, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" && i+1 < len(args):
			i++
			if args[i] != "" {
				cwd = filepath.Join(cwd, args[i])
				if filepath.IsAbs(args[i]) {
					cwd = args[i]
				}
			}
		case a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env":
			i++ // the option's value
		case !strings.HasPrefix(a, "-"):
			return cwd // the subcommand
		}
	}
	return cwd
}
