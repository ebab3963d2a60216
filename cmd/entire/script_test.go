package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/entirerec/entire/engine/redact"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"entire": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

var update = flag.Bool("update", false, "rewrite the scenarios' cmp golden files from the actual output")

// TestScripts runs the scenarios in testdata/scripts through the real binary and real git.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		UpdateScripts:       *update,
		Dir:                 filepath.Join("..", "..", "testdata", "scripts"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               setupScript,
		Cmds:                scriptCmds,
	})
}

// setupScript makes every scenario hermetic: its own HOME, no system git config, fixed
// identities and dates, and no terminal (an agent) unless the script says otherwise.
func setupScript(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test User",
		"GIT_AUTHOR_EMAIL":    "user@example.com",
		"GIT_COMMITTER_NAME":  "Test User",
		"GIT_COMMITTER_EMAIL": "user@example.com",
		"GIT_AUTHOR_DATE":     "2026-01-02T03:04:05Z",
		"GIT_COMMITTER_DATE":  "2026-01-02T03:04:05Z",
		"ENTIRE_TEST_TTY":     "0",
		"TZ":                  "UTC",
	} {
		env.Setenv(k, v)
	}
	return nil
}

// scriptCmds are the scenario commands beyond testscript's own, sorted by name:
//
//	agent SESSION ACTION ...  play a Claude Code session (see cmdAgent)
//	cmp-redacted stdout FILE  stdout equals FILE after secret redaction (what checkpoints store)
//	expand file...            replace $VAR / ${VAR} in files with the script's environment
//	shadow VAR                set VAR to the one shadow branch that exists (! shadow: none exists)
//	trailer VAR               set VAR to HEAD's Entire-Checkpoint ID and VAR_PATH to its tree path
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"agent":        cmdAgent,
	"cmp-redacted": cmdCmpRedacted,
	"expand":       cmdExpand,
	"shadow":       cmdShadow,
	"trailer":      cmdTrailer,
}

func cmdShadow(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) > 1 || (!neg && len(args) != 1) {
		ts.Fatalf("usage: shadow VAR")
	}
	ts.Check(ts.Exec("git", "for-each-ref", "--format=%(refname:short)", "refs/heads/entire/"))
	var found []string
	for _, l := range strings.Split(ts.ReadFile("stdout"), "\n") {
		if l != "" && l != "entire/checkpoints/v1" {
			found = append(found, l)
		}
	}
	if neg {
		if len(found) > 0 {
			ts.Fatalf("shadow branches exist: %v", found)
		}
		return
	}
	if len(found) != 1 {
		ts.Fatalf("want exactly one shadow branch, have %v", found)
	}
	ts.Setenv(args[0], found[0])
}

func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expand file...")
	}
	for _, f := range args {
		p := ts.MkAbs(f)
		data, err := os.ReadFile(p)
		ts.Check(err)
		ts.Check(os.WriteFile(p, []byte(os.Expand(string(data), ts.Getenv)), 0o644))
	}
}

func cmdTrailer(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: trailer VAR")
	}
	ts.Check(ts.Exec("git", "log", "-1", "--format=%B"))
	msg := ts.ReadFile("stdout")
	id := ""
	for _, l := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			id = strings.TrimSpace(v)
		}
	}
	if neg {
		if id != "" {
			ts.Fatalf("HEAD has trailer %s, want none", id)
		}
		return
	}
	if len(id) != 12 {
		ts.Fatalf("HEAD has no Entire-Checkpoint trailer:\n%s", msg)
	}
	ts.Setenv(args[0], id)
	ts.Setenv(args[0]+"_PATH", fmt.Sprintf("%s/%s", id[:2], id[2:]))
}

func cmdCmpRedacted(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || args[0] != "stdout" {
		ts.Fatalf("usage: cmp-redacted stdout FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	want := string(redact.JSONL(data))
	got := ts.ReadFile("stdout")
	if (got == want) == neg {
		ts.Fatalf("stdout and redacted %s: equal=%v, want %v\nstdout:\n%s\nwant:\n%s", args[1], got == want, !neg, got, want)
	}
}
