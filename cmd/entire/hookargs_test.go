package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/alecthomas/kong"
)

// The hooks' fast path reads its arguments as kong would, and leaves everything else to kong.
func TestHookArgsMatchKong(t *testing.T) {
	for _, args := range [][]string{
		{"hooks", "git", "prepare-commit-msg", ".git/COMMIT_EDITMSG", "message"},
		{"hooks", "git", "prepare-commit-msg", ".git/COMMIT_EDITMSG"},
		{"hooks", "git", "post-commit"},
		{"hooks", "git", "pre-push", "origin", "https://example.com/r.git"},
		{"hooks", "claude-code", "user-prompt-submit"},
	} {
		fast, ok := hookArgs(args)
		if !ok {
			t.Errorf("%q: not taken by the fast path", args)
			continue
		}
		var c cli
		parser, err := kong.New(&c, kong.Exit(func(int) {}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.Parse(args); err != nil {
			t.Fatalf("%q: kong: %v", args, err)
		}
		got := []any{fast.Agent, fast.Verb, len(fast.Args)}
		want := []any{c.Hooks.Agent, c.Hooks.Verb, len(c.Hooks.Args)}
		if !reflect.DeepEqual(got, want) || len(fast.Args) > 0 && !reflect.DeepEqual(fast.Args, c.Hooks.Args) {
			t.Errorf("%q: fast path %+v, kong %+v", args, fast, c.Hooks)
		}
	}
	// An argument that looks like a flag is git's to pass, and passes as it is (kong splits
	// "-abc" into short flags even in a passthrough argument).
	if h, ok := hookArgs([]string{"hooks", "git", "commit-msg", "-odd-name"}); !ok || !reflect.DeepEqual(h.Args, []string{"-odd-name"}) {
		t.Errorf("a flag-like hook argument: %+v, %v", h, ok)
	}
	for _, args := range [][]string{{"hooks"}, {"hooks", "git"}, {"hooks", "--help"}, {"hooks", "git", "--help"}, {"status"}, {"hooks", "", "stop"}} {
		if _, ok := hookArgs(args); ok {
			t.Errorf("%q: taken by the fast path; kong should parse it", args)
		}
	}
}

// A hook process's own start-up cost beyond the runtime's: the commit-msg hook on a message
// with no trailer (the cheapest hook).
func BenchmarkRunCommitMsgHook(b *testing.B) {
	f := filepath.Join(b.TempDir(), "msg")
	if err := os.WriteFile(f, []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		run([]string{"hooks", "git", "commit-msg", f}, nil, io.Discard, io.Discard)
	}
}
