package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOversizedPromptIsCapped: a 1 MB prompt is kept in session state, the journal and the
// checkpoint's prompt.txt cut to the documented cap with a marker saying how much was dropped;
// the transcript stored with the checkpoint keeps it whole.
func TestOversizedPromptIsCapped(t *testing.T) {
	bin, realGit := sessionTools(t, "plays a session")
	w, a, repo := sessionWorld(t, bin, realGit, "big-prompt", time.Minute)
	prompt := "Write a.txt " + strings.Repeat("x", 1<<20)
	steps := []func() error{
		func() error {
			return a.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
		},
		func() error { return a.hook("user-prompt-submit", map[string]any{"prompt": prompt}) },
		func() error { return a.edit("Write", "a.txt", "a\n") },
		func() error { return a.line(a.assistantLine(map[string]any{"type": "text", "text": "Done."})) },
		func() error { return a.hook("stop", map[string]any{"last_assistant_message": "Done."}) },
		func() error { _, err := w.git(repo, "add", "a.txt"); return err },
		func() error { _, err := w.git(repo, "commit", "-q", "-m", "a"); return err },
	}
	playSteps(t, w, steps)
	const limit = 4 * 64 << 10 // a few copies of the capped prompt, not one of the megabyte
	for _, f := range []string{"big-prompt.jsonl", "big-prompt.json"} {
		fi, err := os.Stat(filepath.Join(w.common, "entire-sessions", f))
		if err != nil || fi.Size() > limit {
			t.Errorf("%s: %v bytes (%v), want at most %d", f, fi.Size(), err, limit)
		}
	}
	id := stressTrailer(w.mustGit(repo, "log", "-1", "--format=%B"))
	if id == "" {
		t.Fatal("the commit has no trailer")
	}
	cp := stressMetaBranch + ":" + id[:2] + "/" + id[2:] + "/0/"
	text := w.mustGit(repo, "show", cp+"prompt.txt")
	if !strings.Contains(text, "[entire: truncated, ") || len(text) > 2*64<<10 {
		t.Errorf("prompt.txt is %d bytes, want the capped prompt with its marker", len(text))
	}
	if full := w.mustGit(repo, "show", cp+"full.jsonl"); !strings.Contains(full, strings.Repeat("x", 1<<20)) {
		t.Error("the stored transcript lost the prompt")
	}
}

// TestLongPromptListLeavesTheSnapshot: past 32 KiB of prompts the session-state file stops
// carrying them (every hook reads and writes it), and each checkpoint's prompt.txt still holds
// every prompt of the session, got back from the journal.
func TestLongPromptListLeavesTheSnapshot(t *testing.T) {
	bin, realGit := sessionTools(t, "plays a session")
	w, a, repo := sessionWorld(t, bin, realGit, "long-prompts", time.Minute)
	var prompts []string
	turn := func(i int) []func() error {
		prompt := fmt.Sprintf("Write f%d.txt. %s", i, strings.Repeat(fmt.Sprintf("context %d ", i), 2000))
		prompts = append(prompts, strings.TrimSpace(prompt)) // as prompt.txt holds them
		name := fmt.Sprintf("f%d.txt", i)
		return []func() error{
			func() error {
				return a.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
			},
			func() error { return a.hook("user-prompt-submit", map[string]any{"prompt": prompt}) },
			func() error { return a.edit("Write", name, name+"\n") },
			func() error { return a.line(a.assistantLine(map[string]any{"type": "text", "text": "Done."})) },
			func() error { return a.hook("stop", map[string]any{"last_assistant_message": "Done."}) },
		}
	}
	commit := func(msg string) []func() error {
		return []func() error{
			func() error { _, err := w.git(repo, "add", "-A"); return err },
			func() error { _, err := w.git(repo, "commit", "-q", "-m", msg); return err },
		}
	}
	run := func(steps []func() error) { t.Helper(); playSteps(t, w, steps) }
	check := func(n int) {
		t.Helper()
		id := stressTrailer(w.mustGit(repo, "log", "-1", "--format=%B"))
		if id == "" {
			t.Fatal("the commit has no trailer")
		}
		got := w.mustGit(repo, "show", stressMetaBranch+":"+id[:2]+"/"+id[2:]+"/0/prompt.txt")
		if want := strings.Join(prompts[:n], "\n\n---\n\n"); got != want {
			t.Errorf("prompt.txt after %d turns: %d bytes, want the %d prompts (%d bytes)", n, len(got), n, len(want))
		}
	}
	for i := 1; i <= 3; i++ {
		run(turn(i))
	}
	state := filepath.Join(w.common, "entire-sessions", "long-prompts.json")
	// The current turn's prompt stays (turn_prompt); the list of all of them does not.
	if fi, err := os.Stat(state); err != nil || fi.Size() > int64(len(prompts[2]))+8<<10 {
		t.Fatalf("session state after %d KB of prompts: %v bytes (%v), want the list left out", 3*len(prompts[0])>>10, fi.Size(), err)
	}
	run(commit("three turns"))
	check(3)
	run(turn(4))
	run(commit("fourth turn"))
	check(4)
}

// playSteps runs a session's steps in order, showing the logs at the first failure.
func playSteps(t *testing.T, w *stressWorld, steps []func() error) {
	t.Helper()
	for _, step := range steps {
		if err := step(); err != nil {
			w.dumpLogs()
			t.Fatal(err)
		}
	}
}
