package main

import (
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
	for _, step := range steps {
		if err := step(); err != nil {
			w.dumpLogs()
			t.Fatal(err)
		}
	}
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
