package setup

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var goldenHooks = map[string]string{
	"post-rewrite": `#!/bin/sh
# Entire CLI hooks
# Finds, by content, the checkpoints of rewritten commits that lost their trailer (entire relink),
# and keeps those of commits a rebase folded into another (a fixup's).
# Started only where there may be a record to link to (the shell test starts no process).
if [ -n "$GIT_DIR" ] || [ ! -d .git ] || [ -e .git/refs/heads/entire/checkpoints/v1 ] ||
    [ -e .git/refs/remotes/origin/entire/checkpoints/v1 ] || [ -e .git/packed-refs ]; then
entire hooks git post-rewrite "$1" 2>/dev/null || true
fi
`,
	"post-merge": `#!/bin/sh
# Entire CLI hooks
# Finds, by content, the checkpoints of merged-in commits that lost their trailer (entire relink).
# Started only where there may be a record to link to (the shell test starts no process).
if [ -n "$GIT_DIR" ] || [ ! -d .git ] || [ -e .git/refs/heads/entire/checkpoints/v1 ] ||
    [ -e .git/refs/remotes/origin/entire/checkpoints/v1 ] || [ -e .git/packed-refs ]; then
entire hooks git post-merge </dev/null 2>/dev/null || true
fi
`,
	"prepare-commit-msg": `#!/bin/sh
# Entire CLI hooks
# Adds the Entire-Checkpoint trailer when agent work is pending; never blocks the commit.
# Started only when a recorded session may matter to this commit. The test below starts no
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
if [ -n "$_entire_run" ]; then
entire hooks git prepare-commit-msg "$1" "$2" 2>/dev/null || true
fi
`,
	"commit-msg": `#!/bin/sh
# Entire CLI hooks
# Removes the trailer's explanatory comment, and a lone trailer so that an emptied message aborts.
# Only a message holding the explanatory comment, or an Entire-Checkpoint trailer with no text
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
if [ -n "$_entire_help" ] || { [ -n "$_entire_trailer" ] && [ -z "$_entire_content" ]; }; then
entire hooks git commit-msg "$1" || exit 1
fi
`,
	"post-commit": `#!/bin/sh
# Entire CLI hooks
# Condenses the session onto entire/checkpoints/v1 when the new commit carries a trailer.
# Started only when a recorded session may matter to this commit. The test below starts no
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
if [ -n "$_entire_run" ]; then
entire hooks git post-commit 2>/dev/null || true
fi
`,
	"pre-push": `#!/bin/sh
# Entire CLI hooks
# Pushes the session logs along with the user's push; $1 names the remote.
entire hooks git pre-push "$1" || true
`,
}

const chainedCommitMsg = `#!/bin/sh
# Entire CLI hooks
# Removes the trailer's explanatory comment, and a lone trailer so that an emptied message aborts.
# Only a message holding the explanatory comment, or an Entire-Checkpoint trailer with no text
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
if [ -n "$_entire_help" ] || { [ -n "$_entire_trailer" ] && [ -z "$_entire_content" ]; }; then
entire hooks git commit-msg "$1" || exit 1
fi
# Chain: run pre-existing hook
_entire_hook_dir="$(dirname "$0")"
if [ -x "$_entire_hook_dir/commit-msg.pre-entire" ]; then
    "$_entire_hook_dir/commit-msg.pre-entire" "$@"
    exit $?
fi
`

const chainedPrePush = `#!/bin/sh
# Entire CLI hooks
# Pushes the session logs along with the user's push; $1 names the remote.
# Keep git's ref list on stdin for the chained hook below.
{
entire hooks git pre-push "$1" || true
} </dev/null
# Chain: run pre-existing hook
_entire_hook_dir="$(dirname "$0")"
if [ -x "$_entire_hook_dir/pre-push.pre-entire" ]; then
    "$_entire_hook_dir/pre-push.pre-entire" "$@"
    exit $?
fi
`

func TestInstallGitHooksGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "custom", "hooks") // created on demand
	lines, err := InstallGitHooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Installed git hooks: prepare-commit-msg, commit-msg, post-commit, pre-push, post-rewrite, post-merge"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	for name, golden := range goldenHooks {
		path := filepath.Join(dir, name)
		if diff := cmp.Diff(golden, readFile(t, path)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
		if info, _ := os.Stat(path); info.Mode().Perm() != 0o755 {
			t.Errorf("%s mode = %v, want 0755", name, info.Mode().Perm())
		}
	}
	if !GitHooksInstalled(dir) {
		t.Error("GitHooksInstalled = false after install")
	}
	lines, err = InstallGitHooks(dir)
	if err != nil || len(lines) != 0 {
		t.Errorf("second install: lines %q, err %v; want none", lines, err)
	}
}

func TestGitHooksInstalledNeedsAllFourMarked(t *testing.T) {
	dir := t.TempDir()
	if _, err := InstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "post-commit"), "#!/bin/sh\necho mine\n", 0o755)
	if GitHooksInstalled(dir) {
		t.Error("GitHooksInstalled = true with an unmarked post-commit")
	}
	if err := os.Remove(filepath.Join(dir, "post-commit")); err != nil {
		t.Fatal(err)
	}
	if GitHooksInstalled(dir) {
		t.Error("GitHooksInstalled = true with post-commit missing")
	}
}

// Without this tool's extra hooks (post-rewrite, post-merge), as the reference installs them,
// commits are still linked: the problem is reported apart, naming each hook and what it costs.
func TestGitHooksProblemsSplitsLinkingFromRelinking(t *testing.T) {
	dir := t.TempDir()
	if _, err := InstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"post-rewrite", "post-merge"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	link, relink := GitHooksProblems(dir)
	if link != "" {
		t.Errorf("link = %q, want none: the four hooks that link are in place", link)
	}
	want := "the post-rewrite and post-merge hooks are missing from " + dir +
		": a commit that an amend or a rebase, or a merge, leaves without its trailer is not linked again to its checkpoint"
	if relink != want {
		t.Errorf("relink = %q\nwant     %q", relink, want)
	}
	if GitHooksInstalled(dir) {
		t.Error("GitHooksInstalled = true without post-rewrite and post-merge")
	}

	writeFile(t, filepath.Join(dir, "post-rewrite"), "#!/bin/sh\necho mine\n", 0o755)
	if err := os.Remove(filepath.Join(dir, "commit-msg")); err != nil {
		t.Fatal(err)
	}
	link, relink = GitHooksProblems(dir)
	if want := "the commit-msg hook is missing from " + dir; link != want {
		t.Errorf("link = %q, want %q", link, want)
	}
	if !strings.HasPrefix(relink, "the post-merge hook is missing from "+dir+"; the post-rewrite hook in "+dir+" is another tool's: a commit that an amend or a rebase, or a merge,") {
		t.Errorf("relink = %q", relink)
	}
	if got := GitHooksProblem(dir); got != link {
		t.Errorf("GitHooksProblem = %q, want the linking problem first", got)
	}
}

// foreignHook records its arguments and stdin in $HOOK_LOG and exits with $FOREIGN_EXIT.
const foreignHook = `#!/bin/sh
echo "foreign $*" >> "$HOOK_LOG"
while read -r line; do echo "stdin $line" >> "$HOOK_LOG"; done
exit "${FOREIGN_EXIT:-0}"
`

// entireStub stands in for the entire binary: it records its argv and stdin and exits with
// $ENTIRE_EXIT.
const entireStub = `#!/bin/sh
echo "entire $*" >> "$HOOK_LOG"
while read -r line; do echo "entire stdin $line" >> "$HOOK_LOG"; done
exit "${ENTIRE_EXIT:-0}"
`

// runHook executes hook with /bin/sh and the stub entire first on PATH, in a directory that
// is not a repository and holds the message file MSG (with a trailer). It returns the recorded
// log lines and the exit code.
func runHook(t *testing.T, hook string, stdin string, env []string, args ...string) ([]string, int) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "MSG"), "\n# Please enter the commit message\nEntire-Checkpoint: 0123456789ab\n", 0o644)
	return runHookIn(t, dir, hook, stdin, env, args...)
}

// runHookIn is runHook in the working directory dir.
func runHookIn(t *testing.T, dir, hook string, stdin string, env []string, args ...string) ([]string, int) {
	t.Helper()
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "entire"), entireStub, 0o755)
	logPath := filepath.Join(t.TempDir(), "log")
	cmd := exec.Command("/bin/sh", append([]string{hook}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOOK_LOG="+logPath)
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	code := 0
	if out, err := cmd.CombinedOutput(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("run %s: %v\n%s", hook, err, out)
		}
		code = exit.ExitCode()
	}
	data, _ := os.ReadFile(logPath)
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"), code
}

func TestForeignHookBackedUpChainedAndRun(t *testing.T) {
	tests := []struct {
		hook  string
		args  []string
		stdin string
		env   []string
		want  []string
		code  int
	}{
		{"prepare-commit-msg", []string{"MSG", "message"}, "", nil,
			[]string{"entire hooks git prepare-commit-msg MSG message", "foreign MSG message"}, 0},
		{"prepare-commit-msg", []string{"MSG"}, "", []string{"FOREIGN_EXIT=3"},
			[]string{"entire hooks git prepare-commit-msg MSG ", "foreign MSG"}, 3},
		{"prepare-commit-msg", []string{"MSG"}, "", []string{"ENTIRE_EXIT=1"},
			[]string{"entire hooks git prepare-commit-msg MSG ", "foreign MSG"}, 0},
		{"commit-msg", []string{"MSG"}, "", nil,
			[]string{"entire hooks git commit-msg MSG", "foreign MSG"}, 0},
		{"commit-msg", []string{"MSG"}, "", []string{"FOREIGN_EXIT=4"},
			[]string{"entire hooks git commit-msg MSG", "foreign MSG"}, 4},
		{"commit-msg", []string{"MSG"}, "", []string{"ENTIRE_EXIT=2"},
			[]string{"entire hooks git commit-msg MSG"}, 1},
		{"post-commit", nil, "", []string{"FOREIGN_EXIT=5"},
			[]string{"entire hooks git post-commit", "foreign "}, 5},
		{"pre-push", []string{"origin", "git@x:y.git"}, "refs/heads/a 111 refs/heads/a 000\n", []string{"FOREIGN_EXIT=6"},
			[]string{"entire hooks git pre-push origin", "foreign origin git@x:y.git", "stdin refs/heads/a 111 refs/heads/a 000"}, 6},
		// git's list of rewritten commits reaches entire and the chained hook alike.
		{"post-rewrite", []string{"rebase"}, "111 222\n333 222\n444 555", []string{"FOREIGN_EXIT=7"},
			[]string{"entire hooks git post-rewrite rebase", "entire stdin 111 222", "entire stdin 333 222", "entire stdin 444 555",
				"foreign rebase", "stdin 111 222", "stdin 333 222", "stdin 444 555"}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.hook+strings.Join(tt.env, ","), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, tt.hook), foreignHook, 0o755)
			lines, err := InstallGitHooks(dir)
			if err != nil {
				t.Fatal(err)
			}
			backupLine := "Backed up existing " + tt.hook + " hook to " + tt.hook + ".pre-entire"
			if len(lines) == 0 || lines[0] != backupLine {
				t.Errorf("lines = %q, want first %q", lines, backupLine)
			}
			if got := readFile(t, filepath.Join(dir, tt.hook+BackupSuffix)); got != foreignHook {
				t.Errorf("backup content = %q", got)
			}
			log, code := runHook(t, filepath.Join(dir, tt.hook), tt.stdin, tt.env, tt.args...)
			if diff := cmp.Diff(tt.want, log); diff != "" {
				t.Errorf("run order (-want +got):\n%s", diff)
			}
			if code != tt.code {
				t.Errorf("exit code = %d, want %d", code, tt.code)
			}
		})
	}
}

func TestChainedHookGoldenAndIdempotent(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "commit-msg"), foreignHook, 0o755)
	writeFile(t, filepath.Join(dir, "pre-push"), foreignHook, 0o755)
	if _, err := InstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(chainedCommitMsg, readFile(t, filepath.Join(dir, "commit-msg"))); diff != "" {
		t.Errorf("commit-msg (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(chainedPrePush, readFile(t, filepath.Join(dir, "pre-push"))); diff != "" {
		t.Errorf("pre-push (-want +got):\n%s", diff)
	}
	lines, err := InstallGitHooks(dir)
	if err != nil || len(lines) != 0 {
		t.Errorf("re-install: lines %q, err %v; want none", lines, err)
	}
	if got := readFile(t, filepath.Join(dir, "commit-msg.pre-entire")); got != foreignHook {
		t.Errorf("re-install replaced the backup with %q", got)
	}
	if exists(filepath.Join(dir, "commit-msg.pre-entire.1")) {
		t.Error("re-install backed up Entire's own hook")
	}
}

func TestUnchainedHookExitStatus(t *testing.T) {
	dir := t.TempDir()
	if _, err := InstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	fail := []string{"ENTIRE_EXIT=9"}
	if _, code := runHook(t, filepath.Join(dir, "post-commit"), "", fail); code != 0 {
		t.Errorf("post-commit exit = %d, want 0", code)
	}
	if _, code := runHook(t, filepath.Join(dir, "commit-msg"), "", fail, "MSG"); code != 1 {
		t.Errorf("commit-msg exit = %d, want 1", code)
	}
}

func TestNonExecutableBackupIsSkipped(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "commit-msg"), foreignHook, 0o644)
	if _, err := InstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	log, code := runHook(t, filepath.Join(dir, "commit-msg"), "", []string{"FOREIGN_EXIT=4"}, "MSG")
	if diff := cmp.Diff([]string{"entire hooks git commit-msg MSG"}, log); diff != "" || code != 0 {
		t.Errorf("exit %d, log (-want +got):\n%s", code, diff)
	}
}

func TestSecondForeignHookMovedAsideNotLost(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "post-commit.pre-entire"), "#!/bin/sh\necho first\n", 0o755)
	writeFile(t, filepath.Join(dir, "post-commit"), "#!/bin/sh\necho second\n", 0o755)
	lines, err := InstallGitHooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "post-commit.pre-entire.1")); got != "#!/bin/sh\necho second\n" {
		t.Errorf("second hook = %q", got)
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "Warning: post-commit.pre-entire already exists") {
		t.Errorf("lines = %q, want a warning first", lines)
	}
}

func TestRemoveGitHooksRestoresBackups(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "commit-msg"), foreignHook, 0o755)
	writeFile(t, filepath.Join(dir, "pre-push"), foreignHook, 0o755)
	if _, err := InstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	other := "#!/bin/sh\necho newer\n"
	writeFile(t, filepath.Join(dir, "pre-push"), other, 0o755) // a foreign tool took the name since
	lines, err := RemoveGitHooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"✓ Removed git hooks: prepare-commit-msg, commit-msg, post-commit, post-rewrite, post-merge",
		"Restored commit-msg.pre-entire to commit-msg",
		"Kept pre-push.pre-entire: another pre-push hook is in place",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if got := readFile(t, filepath.Join(dir, "commit-msg")); got != foreignHook {
		t.Errorf("commit-msg = %q, want the restored foreign hook", got)
	}
	if got := readFile(t, filepath.Join(dir, "pre-push")); got != other {
		t.Errorf("pre-push = %q, want the newer foreign hook", got)
	}
	for _, name := range []string{"prepare-commit-msg", "post-commit", "commit-msg.pre-entire"} {
		if exists(filepath.Join(dir, name)) {
			t.Errorf("%s still exists", name)
		}
	}
}

// The guards start no process when the answer is known from files: a main worktree whose
// repository never recorded a session (no .git/entire-sessions), and a commit message without
// the trailer. Anything else runs entire.
func TestHookGuardsSkipTheBinary(t *testing.T) {
	hooks := t.TempDir()
	if _, err := InstallGitHooks(hooks); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	writeFile(t, filepath.Join(repo, "plain"), "Just a message\nEntire-Checkpointer: no\n", 0o644)
	writeFile(t, filepath.Join(repo, "linked"), "Add a\n\nEntire-Checkpoint: 0123456789ab\n", 0o644)
	writeFile(t, filepath.Join(repo, "lone"), "\n  Entire-Checkpoint: 0123456789ab\n# a comment\n", 0o644)
	// The explanatory comment, whatever the comment prefix, is removed even beside text.
	writeFile(t, filepath.Join(repo, "help"), "Add a\n\nEntire-Checkpoint: 0123456789ab\n"+
		"; Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n", 0o644)
	// Comments of another prefix than #, a sign-off, and a diff below the scissors line (commit -v)
	// are no text beside the trailer.
	writeFile(t, filepath.Join(repo, "lone-v"), "\nEntire-Checkpoint: 0123456789ab\n\nSigned-off-by: A <a@b>\n; Please enter\n"+
		"; ------------------------ >8 ------------------------\ndiff --git a/a b/a\n", 0o644)
	// Text, then git's comments (a status of any length): the test reads no further than their
	// first line.
	writeFile(t, filepath.Join(repo, "status"), "Add a\n\n# Please enter\nEntire-Checkpoint: 0123456789ab\n"+
		"# Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n", 0o644)
	// Below the scissors line is git's; an explanatory comment there is never committed.
	writeFile(t, filepath.Join(repo, "linked-v"), "Add a\n\nEntire-Checkpoint: 0123456789ab\n"+
		"# ------------------------ >8 ------------------------\n"+
		"+# Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n", 0o644)
	run := func(hook string, env []string, args ...string) []string {
		log, code := runHookIn(t, repo, filepath.Join(hooks, hook), "", env, args...)
		if code != 0 {
			t.Errorf("%s: exit %d", hook, code)
		}
		return slices.DeleteFunc(log, func(l string) bool { return l == "" })
	}
	if log := run("post-commit", nil); len(log) != 0 {
		t.Errorf("post-commit without sessions ran %q", log)
	}
	if log := run("prepare-commit-msg", nil, "plain", "message"); len(log) != 0 {
		t.Errorf("prepare-commit-msg without sessions ran %q", log)
	}
	if log := run("commit-msg", nil, "plain"); len(log) != 0 {
		t.Errorf("commit-msg without a trailer ran %q", log)
	}
	if log := run("commit-msg", nil, "linked"); len(log) != 0 {
		t.Errorf("commit-msg with text and a trailer ran %q", log)
	}
	if log := run("commit-msg", nil, "lone"); len(log) != 1 {
		t.Errorf("commit-msg with a lone trailer ran %q, want entire once", log)
	}
	if log := run("commit-msg", nil, "help"); len(log) != 1 {
		t.Errorf("commit-msg with the explanatory comment ran %q, want entire once", log)
	}
	if log := run("commit-msg", nil, "lone-v"); len(log) != 1 {
		t.Errorf("commit-msg with a lone trailer above a diff ran %q, want entire once", log)
	}
	if log := run("commit-msg", nil, "linked-v"); len(log) != 0 {
		t.Errorf("commit-msg with text and a trailer above a diff ran %q", log)
	}
	if log := run("commit-msg", nil, "status"); len(log) != 0 {
		t.Errorf("commit-msg read past git's first comment line after text: ran %q", log)
	}
	if log := run("post-commit", []string{"GIT_DIR=" + filepath.Join(repo, ".git")}); len(log) != 1 {
		t.Errorf("post-commit with GIT_DIR set to a directory without commondir ran %q, want entire once", log)
	}
	if log := run("post-commit", []string{"ENTIRE_LOG_LEVEL=debug"}); len(log) != 1 {
		t.Errorf("post-commit with debug logging ran %q, want entire once", log)
	}
	sessions := filepath.Join(repo, ".git", "entire-sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	if log := run("post-commit", nil); len(log) != 1 {
		t.Errorf("post-commit with sessions but no markers ran %q, want entire once", log)
	}
	// Markers: two ended sessions based on other commits than HEAD need nothing.
	head := strings.Repeat("a", 40)
	writeFile(t, filepath.Join(repo, ".git", "refs", "heads", "main"), head+"\n", 0o644)
	for _, id := range []string{"s1", "s2"} {
		writeFile(t, filepath.Join(sessions, id+".json"), "{}", 0o644)
		writeFile(t, filepath.Join(sessions, "live", id+"@"+strings.Repeat("b", 40)), "", 0o644)
	}
	if log := run("post-commit", nil); len(log) != 0 {
		t.Errorf("post-commit with only ended sessions elsewhere ran %q", log)
	}
	if log := run("prepare-commit-msg", nil, "plain", "message"); len(log) != 0 {
		t.Errorf("prepare-commit-msg with only ended sessions elsewhere ran %q", log)
	}
	writeFile(t, filepath.Join(sessions, "s3.json"), "{}", 0o644)
	if log := run("post-commit", nil); len(log) != 1 {
		t.Errorf("post-commit with a state file that has no marker ran %q, want entire once", log)
	}
	writeFile(t, filepath.Join(sessions, "live", "s3@"+head), "", 0o644)
	if log := run("post-commit", nil); len(log) != 1 {
		t.Errorf("post-commit with a session based on HEAD ran %q, want entire once", log)
	}
	if err := os.Rename(filepath.Join(sessions, "live", "s3@"+head), filepath.Join(sessions, "live", "s3@live")); err != nil {
		t.Fatal(err)
	}
	if log := run("post-commit", nil); len(log) != 1 {
		t.Errorf("post-commit with a live session ran %q, want entire once", log)
	}
}

// In a linked worktree git runs the hooks with GIT_DIR set to the worktree's git directory;
// its commondir file leads the guard to the sessions and branches of the common one, so an
// idle commit there starts no process either.
func TestHookGuardsInLinkedWorktree(t *testing.T) {
	hooks := t.TempDir()
	if _, err := InstallGitHooks(hooks); err != nil {
		t.Fatal(err)
	}
	main := t.TempDir()
	wt := filepath.Join(t.TempDir(), "wt")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "init"},
		{"worktree", "add", "-q", "-b", "side", wt},
	} {
		if out, err := exec.Command("git", append([]string{"-C", main}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitDir := filepath.Join(main, ".git", "worktrees", "wt")
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err != nil || filepath.IsAbs(strings.TrimSpace(string(data))) {
		t.Fatalf("commondir = %q, %v; want git's relative path", data, err)
	}
	out, err := exec.Command("git", "-C", wt, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(string(out))
	env := []string{"GIT_DIR=" + gitDir}
	run := func() []string {
		log, code := runHookIn(t, wt, filepath.Join(hooks, "post-commit"), "", env)
		if code != 0 {
			t.Errorf("post-commit: exit %d", code)
		}
		return slices.DeleteFunc(log, func(l string) bool { return l == "" })
	}
	if log := run(); len(log) != 0 {
		t.Errorf("post-commit in a linked worktree, no sessions, ran %q", log)
	}
	sessions := filepath.Join(main, ".git", "entire-sessions")
	for _, id := range []string{"s1", "s2"} {
		writeFile(t, filepath.Join(sessions, id+".json"), "{}", 0o644)
		writeFile(t, filepath.Join(sessions, "live", id+"@"+strings.Repeat("b", 40)), "", 0o644)
	}
	if log := run(); len(log) != 0 {
		t.Errorf("post-commit in a linked worktree, only ended sessions elsewhere, ran %q", log)
	}
	writeFile(t, filepath.Join(gitDir, "commondir"), filepath.Join(main, ".git")+"\n", 0o644)
	if log := run(); len(log) != 0 {
		t.Errorf("post-commit with an absolute commondir, only ended sessions elsewhere, ran %q", log)
	}
	writeFile(t, filepath.Join(sessions, "s3.json"), "{}", 0o644)
	writeFile(t, filepath.Join(sessions, "live", "s3@"+head), "", 0o644)
	if log := run(); len(log) != 1 {
		t.Errorf("post-commit with a session based on the worktree's HEAD ran %q, want entire once", log)
	}
	if err := os.Rename(filepath.Join(sessions, "live", "s3@"+head), filepath.Join(sessions, "live", "s3@live")); err != nil {
		t.Fatal(err)
	}
	if log := run(); len(log) != 1 {
		t.Errorf("post-commit with a live session ran %q, want entire once", log)
	}
	if err := os.Remove(filepath.Join(gitDir, "commondir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(sessions, "live", "s3@live")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sessions, "live", "s3@"+strings.Repeat("c", 40)), "", 0o644)
	if log := run(); len(log) != 1 {
		t.Errorf("post-commit with GIT_DIR but no commondir ran %q, want entire once", log)
	}
}
