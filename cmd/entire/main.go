// Command entire records AI coding-agent sessions into git.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"
)

// cli is the command tree. Each command lives in its own file.
type cli struct {
	Enable  enableCmd  `cmd:"" help:"Install the agent and git hooks and turn recording on."`
	Disable disableCmd `cmd:"" help:"Turn recording off, or remove everything with --uninstall."`
	Status  statusCmd  `cmd:"" help:"Show whether recording is on and list the sessions."`
	Replay  replayCmd  `cmd:"" help:"Replay a session's journal event by event (debugging)."`
	Explain explainCmd `cmd:"" help:"Show the checkpoints of this branch, or what happened in one checkpoint."`
	Resume  resumeCmd  `cmd:"" help:"Check out a branch and restore its sessions' transcripts to continue them."`
	Clean   cleanCmd   `cmd:"" help:"Preview, or with --force delete, orphaned shadow branches and session states."`
	Doctor  doctorCmd  `cmd:"" help:"Find stuck sessions and condense, discard or skip them."`
	Reset   resetCmd   `cmd:"" help:"Delete the sessions based on HEAD and HEAD's shadow branch (--session: one)."`
	Rewind  rewindCmd  `cmd:"" help:"Go back to a checkpoint's files and transcript (--undo: put back what the last rewind replaced)."`
	Push    pushCmd    `cmd:"" help:"Preview (--dry-run) what the next git push sends of the record."`
	Forget  forgetCmd  `cmd:"" help:"Preview, or with --force do, removing a session's transcripts, prompts and context from the record's whole history."`
	Relink  relinkCmd  `cmd:"" help:"Record the checkpoints of commits whose trailer a rewrite lost, found by content."`
	Version versionCmd `cmd:"" help:"Print the version."`
	Help    helpCmd    `cmd:"" help:"Show the help of entire or of one of its commands."`
	Hooks   hooksCmd   `cmd:"" hidden:"" help:"Entry points called by agents and git."`
}

// env is what every command receives: the process's streams and working directory.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer // a user command's: control characters made visible (safeText)
	stderr io.Writer
	raw    io.Writer // stdout as it is, for machine output (--json, --raw-transcript)
	cwd    string
}

// kongExit is the exit code kong asked for after printing help (-1: none); run returns it
// instead of running a command.
type kongExit struct{ code int }

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "entire:", err)
		return 1
	}
	e := &env{ctx: context.Background(), stdin: stdin, stdout: stdout, stderr: stderr, raw: stdout, cwd: cwd}
	if h, ok := hookArgs(args); ok {
		// Hooks run on every prompt and commit: skip building the whole command-line model.
		return finish(stderr, h.Run(e))
	}
	var c cli
	exited := &kongExit{code: -1}
	parser, err := kong.New(&c,
		kong.Name("entire"),
		kong.Description("Record AI coding-agent sessions into git, link them to commits, and explain them later."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exited.code = code }),
		kong.Bind(e, exited),
	)
	if err != nil {
		fmt.Fprintln(stderr, "entire:", err)
		return 1
	}
	if len(args) == 0 {
		args = []string{"--help"}
	}
	kctx, err := parser.Parse(args)
	if exited.code >= 0 {
		return exited.code
	}
	if err != nil {
		if len(args) > 0 && args[0] == "hooks" {
			// A hook must never block the agent or git over a usage problem.
			logHookUsage(e, args, err)
			return 0
		}
		fmt.Fprintf(stderr, "Error: Invalid usage: %s\n", usageError(err, stderr))
		return 1
	}
	if kctx.Command() == "" || len(args) == 0 {
		return 0
	}
	if args[0] != "hooks" {
		e.stdout, e.stderr, stderr = safeText{stdout}, safeText{stderr}, safeText{stderr}
	}
	return finish(stderr, kctx.Run())
}

// usageError is the message of a command line kong refused, in the reference's words: a first
// word that names no command is an unknown command. For an unknown command or flag the usage
// (of the command, when one was named) is printed to stderr first, as the reference does.
func usageError(err error, stderr io.Writer) string {
	msg := err.Error()
	var pe *kong.ParseError
	ctx := (*kong.Context)(nil)
	if errors.As(err, &pe) {
		ctx = pe.Context
	}
	if a, ok := strings.CutPrefix(msg, "unexpected argument "); ok {
		arg, hint, _ := strings.Cut(a, ", did you mean ") // kong's suggestion, kept outside the quotes
		msg = fmt.Sprintf("unexpected argument %q", arg)
		if ctx != nil && ctx.Selected() == nil {
			msg = fmt.Sprintf("unknown command %q for \"entire\"", arg)
		}
		if hint != "" {
			msg += "; did you mean " + hint
		}
	}
	if ctx != nil && (strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag")) {
		ctx.Stdout = stderr
		_ = ctx.PrintUsage(true)
		fmt.Fprintln(stderr)
	}
	return msg
}

// finish turns a command's error into its message and exit code.
func finish(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "Error:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "Error:", err)
	return 1
}

// hookArgs recognizes `hooks <who> <verb> [args...]` as kong would parse it (the args after the
// verb pass through as they are); anything else, flags included, goes through kong.
func hookArgs(args []string) (*hooksCmd, bool) {
	if len(args) < 3 || args[0] != "hooks" || args[1] == "" || args[2] == "" ||
		strings.HasPrefix(args[1], "-") || strings.HasPrefix(args[2], "-") {
		return nil, false
	}
	return &hooksCmd{Agent: args[1], Verb: args[2], Args: args[3:]}, true
}
