package main

import "strings"

// pushDryRun reports whether the git process running this pre-push hook is a `git push
// --dry-run` (or -n). Git runs pre-push on a dry run too and does not tell the hook, so we look
// at the ancestor processes' command lines, as amending does. Where /proc is not available the
// answer is false.
func pushDryRun() bool {
	return gitAncestor(func(args []string) (bool, bool) {
		push, ok := gitSubcommandArgs(args[1:], "push")
		return ok && dryRunFlag(push), ok
	})
}

// gitSubcommandArgs skips git's own options and returns the arguments after the subcommand
// when it is sub.
func gitSubcommandArgs(args []string, sub string) ([]string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env":
			i++ // the option's value
		case strings.HasPrefix(a, "-"):
		default:
			return args[i+1:], a == sub
		}
	}
	return nil, false
}

// dryRunFlag reads git push's options: --dry-run (or a prefix of it down to --dr), -n alone
// or among bundled short options, the last of it and --no-dry-run winning. Options taking a
// value as the next argument skip it, and the arguments after "--" are refspecs.
func dryRunFlag(args []string) bool {
	dry := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return dry
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			switch {
			case len(name) >= 2 && strings.HasPrefix("dry-run", name):
				dry = true
			case len(name) >= 5 && strings.HasPrefix("no-dry-run", name):
				dry = false
			case !hasValue && (name == "push-option" || name == "repo" || name == "receive-pack" || name == "exec" || name == "recurse-submodules"):
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				if a[j] == 'n' {
					dry = true
				}
				if a[j] == 'o' { // -o <option>: the rest, or the next argument, is its value
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return dry
}
