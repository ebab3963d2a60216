package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/entirerec/entire/gitexec/gittest"
)

// TestCommandLineParses: every command and flag the reference documents (entire-cli.md §3)
// parses, in its short and long forms.
func TestCommandLineParses(t *testing.T) {
	lines := []string{
		"enable", "enable --agent claude-code", "enable --agent gemini", "enable --agent cursor,codex --agent droid",
		"enable --strategy manual-commit", "enable --strategy auto-commit", "enable --local", "enable --project",
		"enable -f", "enable --force", "enable --skip-push-sessions", "enable --telemetry=false", "enable --telemetry",
		"disable", "disable --project", "disable --uninstall", "disable --uninstall --force",
		"status", "status --detailed",
		"explain", "explain --session s1", "explain --commit HEAD", "explain -c abc", "explain --checkpoint abc",
		"explain -c abc -s", "explain -c abc --short", "explain -c abc --full", "explain -c abc --raw-transcript",
		"explain -c abc --generate", "explain -c abc --generate --force", "explain --no-pager", "explain --search-all",
		"rewind", "rewind --list", "rewind --to abcdef1", "rewind --to abcdef1 --logs-only", "rewind --to abcdef1 --reset",
		"resume feature", "resume feature -f", "resume feature --force",
		"clean", "clean -f", "clean --force", "doctor", "doctor -f", "doctor --force",
		"reset", "reset -f", "reset --force", "reset --session s1", "version",
		"push --dry-run", "push --dry-run upstream", "relink", "relink main~5..main",
	}
	for _, line := range lines {
		var c cli
		p, err := kong.New(&c, kong.Name("entire"), kong.Exit(func(int) { t.Fatalf("%q: kong exited", line) }))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Parse(strings.Fields(line)); err != nil {
			t.Errorf("entire %s: %v", line, err)
		}
	}
}

// TestCommandLineRefusals: flag combinations the reference refuses fail with its message
// (substrings scripts may match), those it would ignore (disable --force) with ours, and write
// nothing; usage errors exit 1.
func TestCommandLineRefusals(t *testing.T) {
	repo := gittest.Repo(t)
	t.Chdir(repo.TopLevel)
	for _, tc := range []struct{ line, want string }{
		{"explain --commit HEAD -c abc", "cannot specify multiple of --session, --commit, --checkpoint"},
		{"explain --session s -c abc", "cannot specify multiple of --session, --commit, --checkpoint"},
		{"explain -c abc --short --raw-transcript", "if any flags in the group [short full raw-transcript] are set none of the others can be; [raw-transcript short] were all set"},
		{"explain -c abc --generate --raw-transcript", "if any flags in the group [generate raw-transcript] are set none of the others can be"},
		{"explain --generate", "--generate requires --checkpoint/-c flag"},
		{"explain --force", "--force requires --generate flag"},
		{"explain foo", `unexpected argument "foo"`},
		{"explain --raw-transcript", "--raw-transcript requires --checkpoint/-c flag"},
		{"enable --strategy sideways", "unknown strategy: sideways (use manual-commit or auto-commit)"},
		{"enable --agent vim", `Unknown agent "vim". Available agents:`},
		{"enable --agent=", "Missing agent name. Available agents:"},
		{"enable --agent", "Missing agent name. Available agents:"},
		{"enable --agent --strategy manual-commit", "Missing agent name. Available agents:"},
		{"enable --local --project", "cannot specify both --project and --local"},
		{"rewind --no-such-flag", "Invalid usage: unknown flag --no-such-flag"},
		{"disable --force", "--force only goes with --uninstall"},
	} {
		var out, errb bytes.Buffer
		code := run(strings.Fields(tc.line), strings.NewReader(""), &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("entire %s: exit %d, stderr %q; want exit 1 and %q", tc.line, code, errb.String(), tc.want)
		}
	}
	if st := gittest.Git(t, repo.TopLevel, "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("refused commands left files behind:\n%s", st)
	}
	// Outside a repository, in the reference's words.
	t.Chdir(t.TempDir())
	for line, want := range map[string]string{
		"enable":              "Not a git repository. Please run 'entire enable' from within a git repository.",
		"disable --uninstall": "Not a git repository. Nothing to uninstall.",
	} {
		var out, errb bytes.Buffer
		if code := run(strings.Fields(line), strings.NewReader(""), &out, &errb); code != 1 || strings.TrimSpace(errb.String()) != want {
			t.Errorf("entire %s outside a repository: exit %d, stderr %q; want 1 and %q", line, code, errb.String(), want)
		}
	}
}

// TestHelpCommand: `entire help [command]` (a visible command of the reference) prints what
// --help prints, and exits 0; an unknown command is a usage error.
func TestHelpCommand(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"help", "Usage: entire <command>"},
		{"help status", "Usage: entire status [flags]"},
		{"help rewind", "--logs-only"},
	} {
		var out, errb bytes.Buffer
		if code := run(strings.Fields(tc.line), strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("entire %s: exit %d, stdout %q, stderr %q; want exit 0 and %q", tc.line, code, out.String(), errb.String(), tc.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"help", "bogus"}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "bogus") {
		t.Errorf("entire help bogus: exit %d, stderr %q; want exit 1 naming bogus", code, errb.String())
	}
}

// TestUsageErrors: a command line kong refuses is said in the reference's words (spec §1): a
// first word that names no command is an unknown command, kong's suggestion stays outside the
// quotes, and for an unknown command or flag the usage comes first, all on stderr; exit 1.
func TestUsageErrors(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct{ line, usage, last string }{
		{"bogus", "Usage: entire <command>", `Error: Invalid usage: unknown command "bogus" for "entire"`},
		{"rewnd --list", "Usage: entire <command>", `Error: Invalid usage: unknown command "rewnd" for "entire"; did you mean "rewind"?`},
		{"help bogus", "Usage: entire <command>", `Error: Invalid usage: unknown command "bogus" for "entire"`},
		{"rewind --no-such-flag", "Usage: entire rewind [flags]", "Error: Invalid usage: unknown flag --no-such-flag"},
		{"status extra", "", `Error: Invalid usage: unexpected argument "extra"`},
	} {
		var out, errb bytes.Buffer
		code := run(strings.Fields(tc.line), strings.NewReader(""), &out, &errb)
		lines := strings.Split(strings.TrimRight(errb.String(), "\n"), "\n")
		if code != 1 || out.Len() != 0 || lines[len(lines)-1] != tc.last {
			t.Errorf("entire %s: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, last line %q", tc.line, code, out.String(), errb.String(), tc.last)
		}
		if got := strings.HasPrefix(errb.String(), tc.usage); tc.usage != "" && !got || tc.usage == "" && len(lines) != 1 {
			t.Errorf("entire %s: stderr %q; want the usage %q first (none if empty)", tc.line, errb.String(), tc.usage)
		}
	}
}
