package main

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestLogKeyOrder: every line starts with session_id, component and agent, in the spec's order
// (entire-cli.md §2), each once: a child logger's component and a call's session_id replace the
// parent's, and the other attributes keep their order after them.
func TestLogKeyOrder(t *testing.T) {
	t.Setenv("ENTIRE_LOG_LEVEL", "")
	var buf bytes.Buffer
	hooks := newLogger(&buf, "info", io.Discard).With("component", "hooks", "agent", "git", "hook", "post-commit")
	hooks.Info("post-commit", "hook_type", "git")
	hooks.With("session_id", "s1").With("component", "checkpoint").Info("checkpoint saved", "files", 2, "session_id", "s2")
	hooks.With("component", "session").Debug("filtered out", "session_id", "s1")

	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		`"level":"INFO","msg":"post-commit","component":"hooks","agent":"git","hook":"post-commit","hook_type":"git"}`,
		`"level":"INFO","msg":"checkpoint saved","session_id":"s2","component":"checkpoint","agent":"git","hook":"post-commit","files":2}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("log:\n%s\nwant %d lines", buf.String(), len(want))
	}
	stamp := regexp.MustCompile(`^\{"time":"[^"]+",`)
	for i, l := range lines {
		if got := stamp.ReplaceAllString(l, ""); got != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got, want[i])
		}
	}
}
