package main

import (
	"fmt"
	"os"
	"path/filepath"
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

// givenUnedited reads git commit's options for messageGivenUnedited. Options taking a value as
// the next argument skip it, and the arguments after "--" are paths.
func givenUnedited(args []string) bool {
	given, edit := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return given && !edit
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			switch name {
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
			switch name {
			case "message", "file", "reuse-message", "reedit-message", "author", "date", "template", "trailer", "fixup", "squash", "pathspec-from-file":
				if !hasValue {
					i++
				}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
		short:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'e':
					edit = true
				case 'm', 'F', 'C', 'c', 't':
					given = given || a[j] != 't'
					edit = edit || a[j] == 'c'
					if j == len(a)-1 {
						i++ // the value is the next argument
					}
					break short // else the rest of this one
				case 'S', 'u':
					break short // an optional value, attached
				}
			}
		}
	}
	return given && !edit
}

// commitTemplate is the template file the git commit running this commit-msg hook was given
// (-t, --template), as an absolute path; "" when it was given none, or /proc is not available.
// A relative path is git's user's: relative to the directory git was started in, which git
// leaves for the work tree's root, so the one its parent process is in is tried first.
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

// templateArg reads git commit's -t/--template option (the last one), "" without one.
func templateArg(args []string) string {
	tmpl := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return tmpl
		case strings.HasPrefix(a, "--"):
			name, val, hasValue := strings.Cut(a[2:], "=")
			switch name {
			case "template":
				if !hasValue && i+1 < len(args) {
					i++
					val = args[i]
				}
				tmpl = val
			case "message", "file", "reuse-message", "reedit-message", "author", "date", "trailer", "fixup", "squash", "pathspec-from-file", "cleanup":
				if !hasValue {
					i++
				}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
		short:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'm', 'F', 'C', 'c', 't':
					val := a[j+1:]
					if val == "" && i+1 < len(args) {
						i++
						val = args[i]
					}
					if a[j] == 't' {
						tmpl = val
					}
					break short
				case 'S', 'u':
					break short
				}
			}
		}
	}
	return tmpl
}
