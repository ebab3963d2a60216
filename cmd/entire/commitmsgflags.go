package main

import "strings"

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
