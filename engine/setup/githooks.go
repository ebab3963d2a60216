package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/entirerec/entire/events/agent"
)

// HookMarker is the line content that identifies a git hook written by Entire (§8.3).
const HookMarker = "Entire CLI hooks"

// BackupSuffix is appended to a pre-existing foreign hook's name when Entire takes its place.
const BackupSuffix = ".pre-entire"

// gitHook is one of the git hooks: the four of §8.3, and post-rewrite and post-merge, which
// relink commits whose trailer a rewrite lost. Command is the binding command line.
type gitHook struct {
	Name, Comment, Command string
	// Guard is shell (builtins only) that decides, before any process starts, whether the
	// command has anything to do; the command runs inside `if <guard>; then ... fi`.
	Guard string
	// Relinks names the git operations after which this hook links again the commits left
	// without their trailer, for this tool's extra hooks (post-rewrite, post-merge), which the
	// reference does not write: commits are still linked without them. Empty for the four
	// hooks of §8.3, without which commits are not linked.
	Relinks string
	// Stdin: git writes a list on the hook's stdin that the command reads (post-rewrite's
	// rewritten commits). Alone, the command reads it from git; chained, the script reads it
	// first, with builtins, and gives it to the command and to the chained hook alike.
	Stdin bool
}

// stdinRead keeps git's stdin for the command and a chained hook (gitHook.Stdin). Only a
// chained hook needs it: the loop's appends cost time in the square of the list's length (a
// second for a rebase of 5,000 commits), which a hook alone does not pay.
const stdinRead = `# git's list on stdin, read with builtins: entire and a chained hook both get it.
_entire_stdin=
while IFS= read -r _entire_line || [ -n "$_entire_line" ]; do
    _entire_stdin="$_entire_stdin$_entire_line
"
done`

// idleGuard: a commit hook has nothing to do when no session may matter to the commit: none
// was ever recorded (no entire-sessions in the common git directory), or every session's
// marker (engine/session/live.go) says it has ended with nothing left and was based on another
// commit than HEAD. In the main worktree git runs hooks with GIT_DIR unset and the directories
// are .git; in a linked one it sets GIT_DIR to the worktree's git directory, whose commondir
// file names the common one. The test uses shell builtins only; anything else (GIT_DIR without
// a commondir, debug logging, a HEAD it cannot read, markers that do not cover every state
// file) falls back to the binary, which decides exactly.
const idleGuard = `# Started only when a recorded session may matter to this commit. The test below starts no
# process: it reads HEAD and the session markers' names (engine/session/live.go).
_entire_count() { _entire_n=$#; [ -e "$1" ] || _entire_n=0; }
_entire_run=1
_entire_git=
_entire_common=
if [ -z "$GIT_DIR" ]; then
    [ -d .git ] && _entire_git=.git && _entire_common=.git
elif [ -f "$GIT_DIR/commondir" ]; then
    _entire_c=
    { read -r _entire_c < "$GIT_DIR/commondir"; } 2>/dev/null
    case $_entire_c in
        /*) _entire_git=$GIT_DIR; _entire_common=$_entire_c ;;
        ?*) _entire_git=$GIT_DIR; _entire_common=$GIT_DIR/$_entire_c ;;
    esac
fi
if [ -n "$_entire_git" ] && [ -z "$ENTIRE_LOG_LEVEL" ]; then
    if [ ! -e "$_entire_common/entire-sessions" ]; then
        _entire_run=
    elif [ -d "$_entire_common/entire-sessions/live" ]; then
        _entire_head=
        { read -r _entire_head < "$_entire_git/HEAD"; } 2>/dev/null
        case $_entire_head in
            "ref: refs/heads/"*) _entire_ref=${_entire_head#ref: }; _entire_head=
                { read -r _entire_head < "$_entire_common/$_entire_ref"; } 2>/dev/null ;;
            "ref: "*) _entire_head= ;;
        esac
        _entire_count "$_entire_common"/entire-sessions/*.json
        _entire_states=$_entire_n
        _entire_count "$_entire_common"/entire-sessions/live/*@*
        if [ -n "$_entire_head" ] && [ "$_entire_n" = "$_entire_states" ]; then
            _entire_count "$_entire_common"/entire-sessions/live/*@live
            _entire_live=$_entire_n
            _entire_count "$_entire_common"/entire-sessions/live/*@"$_entire_head"
            [ "$_entire_live" = 0 ] && [ "$_entire_n" = 0 ] && _entire_run=
        fi
    fi
fi
if [ -n "$_entire_run" ]; then`

// recordGuard: relinking needs a record to link to; a main worktree without the metadata
// branch (as a loose ref, and no packed refs that might hold it) starts no process.
const recordGuard = `# Started only where there may be a record to link to (the shell test starts no process).
if [ -n "$GIT_DIR" ] || [ ! -d .git ] || [ -e .git/refs/heads/entire/checkpoints/v1 ] ||
    [ -e .git/refs/remotes/origin/entire/checkpoints/v1 ] || [ -e .git/packed-refs ]; then`

// trailerGuard: commit-msg removes the explanatory comment prepare-commit-msg wrote (cleanup
// modes other than git's default keep comments), and drops a trailer that is the message's only
// content. A message with neither needs no process. Which lines are comments depends on
// core.commentChar, which the shell cannot read without a process: a line that does not start
// with a letter or a digit may be one, so the test errs towards starting entire. Git ignores
// what follows its scissors line (the status, or the diff of commit -v), and so does the test.
// The comment follows the trailer, which goes before git's first comment line: once the message
// has text, the test stops at the first line that starts with a character git may take for its
// comment prefix, instead of reading a status that may list thousands of files.
const trailerGuard = `# Only a message holding the explanatory comment, or an Entire-Checkpoint trailer with no text
# beside it (above git's scissors line), needs entire; shell builtins read it, starting no process.
_entire_trailer=
_entire_content=
_entire_help=
while IFS= read -r _entire_line || [ -n "$_entire_line" ]; do
    case $_entire_line in
        *" ------------------------ >8 ------------------------") break ;;
        *" Remove the Entire-Checkpoint trailer above if you don't want to link this commit to "*)
            _entire_help=1; break ;;
        "#"* | ";"* | "@"* | "!"* | '$'* | "%"* | "^"* | "&"* | "|"* | ":"*)
            [ -n "$_entire_content" ] && break ;;
    esac
    _entire_line=${_entire_line#"${_entire_line%%[![:space:]]*}"}
    case $_entire_line in
        Entire-Checkpoint:*) _entire_trailer=1 ;;
        "Signed-off-by: "*) ;;
        [[:alnum:]]*) _entire_content=1 ;;
    esac
done < "$1"
if [ -n "$_entire_help" ] || { [ -n "$_entire_trailer" ] && [ -z "$_entire_content" ]; }; then`

var gitHooks = []gitHook{
	{
		Name:    "prepare-commit-msg",
		Comment: "# Adds the Entire-Checkpoint trailer when agent work is pending; never blocks the commit.",
		Command: `entire hooks git prepare-commit-msg "$1" "$2" 2>/dev/null || true`,
		Guard:   idleGuard,
	},
	{
		Name:    "commit-msg",
		Comment: "# Removes the trailer's explanatory comment, and a lone trailer so that an emptied message aborts.",
		Command: `entire hooks git commit-msg "$1" || exit 1`,
		Guard:   trailerGuard,
	},
	{
		Name:    "post-commit",
		Comment: "# Condenses the session onto entire/checkpoints/v1 when the new commit carries a trailer.",
		Command: `entire hooks git post-commit 2>/dev/null || true`,
		Guard:   idleGuard,
	},
	{
		Name:    "pre-push",
		Comment: "# Pushes the session logs along with the user's push; $1 names the remote.",
		Command: `entire hooks git pre-push "$1" || true`,
	},
	{
		Name: "post-rewrite",
		Comment: "# Finds, by content, the checkpoints of rewritten commits that lost their trailer (entire relink),\n" +
			"# and keeps those of commits a rebase folded into another (a fixup's).",
		Command: `entire hooks git post-rewrite "$1" 2>/dev/null || true`,
		Guard:   recordGuard,
		Relinks: "an amend or a rebase",
		Stdin:   true,
	},
	{
		Name:    "post-merge",
		Comment: "# Finds, by content, the checkpoints of merged-in commits that lost their trailer (entire relink).",
		Command: `entire hooks git post-merge </dev/null 2>/dev/null || true`,
		Guard:   recordGuard,
		Relinks: "a merge",
	},
}

// hookScript renders a hook. With chain, the backed-up foreign hook runs after Entire's
// command with the hook's own arguments, and its exit status becomes the hook's status.
// When Entire's commit-msg command fails the script has already exited 1 (the commit is
// aborted either way). For pre-push, git's ref list on stdin is kept for the foreign hook.
func hookScript(h gitHook, chain bool) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# " + HookMarker + "\n" + h.Comment + "\n")
	command := h.Command
	if h.Stdin && chain {
		b.WriteString(stdinRead + "\n")
		command = `printf '%s' "$_entire_stdin" | ` + command
	}
	if chain && h.Name == "pre-push" {
		// Entire does not read stdin; git's ref list is left for the chained hook.
		b.WriteString("# Keep git's ref list on stdin for the chained hook below.\n{\n")
		b.WriteString(command + "\n} </dev/null\n")
	} else if h.Guard != "" {
		b.WriteString(h.Guard + "\n" + command + "\nfi\n")
	} else {
		b.WriteString(command + "\n")
	}
	if chain {
		backup := `"$_entire_hook_dir/` + h.Name + BackupSuffix + `"`
		b.WriteString("# Chain: run pre-existing hook\n")
		b.WriteString(`_entire_hook_dir="$(dirname "$0")"` + "\n")
		b.WriteString("if [ -x " + backup + " ]; then\n")
		if h.Stdin {
			b.WriteString(`    printf '%s' "$_entire_stdin" | ` + backup + ` "$@"` + "\n")
		} else {
			b.WriteString("    " + backup + ` "$@"` + "\n")
		}
		b.WriteString("    exit $?\n")
		b.WriteString("fi\n")
	}
	return b.String()
}

// isOurs reports whether hook file content carries the Entire marker.
func isOurs(data []byte) bool {
	return bytes.Contains(data, []byte(HookMarker))
}

// GitHooksInstalled reports whether git would run every hook from hooksDir: each exists, carries
// the marker and is executable.
func GitHooksInstalled(hooksDir string) bool { return GitHooksProblem(hooksDir) == "" }

// GitHooksCurrent reports whether every hook in hooksDir is this version's script, executable:
// a hook written by an older version (say, a commit-msg without a later fix) is not.
func GitHooksCurrent(hooksDir string) bool {
	for _, h := range gitHooks {
		path := filepath.Join(hooksDir, h.Name)
		data, err := os.ReadFile(path)
		if err != nil || string(data) != hookScript(h, exists(path+BackupSuffix)) || !isExecutable(path) {
			return false
		}
	}
	return true
}

// GitHooksProblem says why git would not run one of Entire's hooks from hooksDir (the
// directory git uses, core.hooksPath included), or "" when it would run them all. A problem
// with a hook that links commits comes first.
func GitHooksProblem(hooksDir string) string {
	link, relink := GitHooksProblems(hooksDir)
	if link != "" {
		return link
	}
	return relink
}

// GitHooksProblems splits what GitHooksProblem reports. link says why git would not run one
// of the four hooks that link commits to checkpoints (§8.3; the first such hook): commits are
// then not linked. relink names each of this tool's extra hooks git would not run, and what is
// lost, when the four are fine or not: commits are linked, but those a rewrite or a merge
// leaves without their trailer are not linked again. Both are "" when git runs every hook.
func GitHooksProblems(hooksDir string) (link, relink string) {
	var lost []string
	relinkHooks := map[hookFault][]string{} // the extra hooks git would not run, by fault
	for _, h := range gitHooks {
		fault := hookProblem(hooksDir, h.Name)
		switch {
		case fault == hookOK:
		case h.Relinks == "":
			if link == "" {
				link = fault.say([]string{h.Name}, hooksDir)
			}
		default:
			relinkHooks[fault] = append(relinkHooks[fault], h.Name)
			lost = append(lost, h.Relinks)
		}
	}
	if len(lost) == 0 {
		return link, ""
	}
	var whys []string
	for _, f := range []hookFault{hookMissing, hookForeign, hookNotExecutable} {
		if names := relinkHooks[f]; len(names) > 0 {
			whys = append(whys, f.say(names, hooksDir))
		}
	}
	ops := strings.Join(lost, ", or ")
	if len(lost) > 1 {
		ops += ","
	}
	return link, strings.Join(whys, "; ") + ": a commit that " + ops + " leaves without its trailer is not linked again to its checkpoint"
}

// hookFault is why git would not run a hook.
type hookFault int

const (
	hookOK hookFault = iota
	hookMissing
	hookForeign
	hookNotExecutable
)

// say words the fault of the named hooks in hooksDir ("the post-commit hook is missing from
// .git/hooks", "the post-rewrite and post-merge hooks are missing from ...").
func (f hookFault) say(names []string, hooksDir string) string {
	subject, verb := "the "+names[0]+" hook", "is"
	if len(names) > 1 {
		subject = "the " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " hooks"
		verb = "are"
	}
	switch f {
	case hookMissing:
		return fmt.Sprintf("%s %s missing from %s", subject, verb, hooksDir)
	case hookForeign:
		return fmt.Sprintf("%s in %s %s another tool's", subject, hooksDir, verb)
	case hookNotExecutable:
		return fmt.Sprintf("%s in %s %s not executable", subject, hooksDir, verb)
	}
	return ""
}

// hookProblem says why git would not run the hook name from hooksDir.
func hookProblem(hooksDir, name string) hookFault {
	path := filepath.Join(hooksDir, name)
	data, err := os.ReadFile(path)
	switch {
	case err != nil:
		return hookMissing
	case !isOurs(data):
		return hookForeign
	case !isExecutable(path):
		return hookNotExecutable
	}
	return hookOK
}

// InstallGitHooks writes the hooks into hooksDir (created if missing) and returns
// report lines. A foreign hook is renamed to <name>.pre-entire and chained; when that
// backup name is taken it is moved to the first free <name>.pre-entire.N instead (not
// chained) with a warning. Re-running changes nothing and reports nothing.
func InstallGitHooks(hooksDir string) ([]string, error) {
	if err := os.MkdirAll(hooksDir, 0o755); err != nil {
		return nil, fmt.Errorf("create hooks directory: %w", err)
	}
	var lines, written []string
	for _, h := range gitHooks {
		path := filepath.Join(hooksDir, h.Name)
		backup := path + BackupSuffix
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return lines, fmt.Errorf("read %s hook: %w", h.Name, err)
		case !isOurs(data):
			line, err := moveAside(path, backup, h.Name)
			if err != nil {
				return lines, err
			}
			lines = append(lines, line)
			data = nil
		}
		want := hookScript(h, exists(backup))
		if string(data) == want && isExecutable(path) {
			continue
		}
		if err := agent.WriteFileAtomic(path, []byte(want), 0o755); err != nil {
			return lines, fmt.Errorf("write %s hook: %w", h.Name, err)
		}
		written = append(written, h.Name)
	}
	if len(written) > 0 {
		lines = append(lines, "Installed git hooks: "+strings.Join(written, ", "))
	}
	return lines, nil
}

// moveAside renames a foreign hook to its backup name, or to a numbered name when a
// backup already exists, and returns the line that reports it.
func moveAside(path, backup, name string) (string, error) {
	if !exists(backup) {
		if err := os.Rename(path, backup); err != nil {
			return "", fmt.Errorf("back up %s hook: %w", name, err)
		}
		return fmt.Sprintf("Backed up existing %s hook to %s%s", name, name, BackupSuffix), nil
	}
	for n := 1; ; n++ {
		spare := backup + "." + strconv.Itoa(n)
		if exists(spare) {
			continue
		}
		if err := os.Rename(path, spare); err != nil {
			return "", fmt.Errorf("move aside %s hook: %w", name, err)
		}
		return fmt.Sprintf("Warning: %s%s already exists; moved the existing %s hook to %s (it will not run)",
			name, BackupSuffix, name, filepath.Base(spare)), nil
	}
}

// isExecutable reports whether path is a regular file with an execute bit set.
func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}

// anyGitHookOurs reports whether hooksDir holds at least one of Entire's hooks.
func anyGitHookOurs(hooksDir string) bool {
	for _, h := range gitHooks {
		if data, err := os.ReadFile(filepath.Join(hooksDir, h.Name)); err == nil && isOurs(data) {
			return true
		}
	}
	return false
}

// RemoveGitHooks deletes the hooks that carry the marker and renames each
// <name>.pre-entire back to <name> when that name is free. It returns report lines.
func RemoveGitHooks(hooksDir string) ([]string, error) {
	var lines, removed []string
	var errs []error
	for _, h := range gitHooks {
		path := filepath.Join(hooksDir, h.Name)
		backup := path + BackupSuffix
		if data, err := os.ReadFile(path); err == nil && isOurs(data) {
			if err := os.Remove(path); err != nil {
				errs = append(errs, fmt.Errorf("remove %s hook: %w", h.Name, err))
				continue
			}
			removed = append(removed, h.Name)
		}
		if !exists(backup) {
			continue
		}
		if exists(path) {
			lines = append(lines, fmt.Sprintf("Kept %s%s: another %s hook is in place", h.Name, BackupSuffix, h.Name))
			continue
		}
		if err := os.Rename(backup, path); err != nil {
			errs = append(errs, fmt.Errorf("restore %s hook: %w", h.Name, err))
			continue
		}
		lines = append(lines, fmt.Sprintf("Restored %s%s to %s", h.Name, BackupSuffix, h.Name))
	}
	if len(removed) > 0 {
		lines = append([]string{"✓ Removed git hooks: " + strings.Join(removed, ", ")}, lines...)
	}
	return lines, errors.Join(errs...)
}
