package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShadowCheckpointUnderIndexStates: whatever state the user leaves the index in while the
// agent works (a staged removal of a file kept on disk, intent-to-add, a staged rename, staged
// and unstaged edits of one file, a deletion, a type change), Stop writes the turn's temporary
// checkpoint, with the worktree's content.
func TestShadowCheckpointUnderIndexStates(t *testing.T) {
	bin, realGit := sessionTools(t, "plays a session per index state")
	cases := []struct {
		name string
		user []string          // shell commands the user runs during the turn
		want map[string]string // paths in the shadow tree and their content ("" = absent)
	}{
		{"staged removal, file kept", []string{"git rm -q --cached keep.txt"}, map[string]string{"keep.txt": "keep\n"}},
		{"staged removal, file gone", []string{"git rm -q keep.txt"}, map[string]string{"keep.txt": ""}},
		{"intent to add", []string{"echo new > new.txt", "git add -N new.txt"}, map[string]string{"new.txt": "new\n"}},
		{"staged rename", []string{"git mv keep.txt moved.txt"}, map[string]string{"moved.txt": "keep\n", "keep.txt": ""}},
		{"staged and unstaged edits", []string{"echo staged >> keep.txt", "git add keep.txt", "echo unstaged >> keep.txt"},
			map[string]string{"keep.txt": "keep\nstaged\nunstaged\n"}},
		{"deleted in the worktree only", []string{"rm keep.txt"}, map[string]string{"keep.txt": ""}},
		{"type change to a symlink", []string{"rm keep.txt", "ln -s other.txt keep.txt"}, map[string]string{"keep.txt": "other.txt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w, a, repo := sessionWorld(t, bin, realGit, "index-session", time.Minute)
			for name, content := range map[string]string{"keep.txt": "keep\n", "other.txt": "other\n"} {
				if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w.mustGit(repo, "add", "keep.txt", "other.txt")
			w.mustGit(repo, "commit", "-q", "-m", "files")
			must := func(err error) {
				t.Helper()
				if err != nil {
					w.dumpLogs()
					t.Fatal(err)
				}
			}
			must(a.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Write agent.txt"}}))
			must(a.hook("user-prompt-submit", map[string]any{"prompt": "Write agent.txt"}))
			must(a.edit("Write", "agent.txt", "agent\n"))
			for _, cmd := range c.user {
				if _, err := w.cmd(repo, nil, "sh", "-c", cmd); err != nil {
					t.Fatal(err)
				}
			}
			must(a.line(a.assistantLine(map[string]any{"type": "text", "text": "Done."})))
			must(a.hook("stop", map[string]any{"last_assistant_message": "Done."}))

			var shadow string
			for _, ref := range strings.Fields(w.mustGit(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/entire/")) {
				if ref != stressMetaBranch {
					shadow = ref
				}
			}
			if shadow == "" {
				w.dumpLogs()
				t.Fatal("Stop wrote no temporary checkpoint")
			}
			c.want["agent.txt"] = "agent\n"
			for path, want := range c.want {
				got, err := w.git(repo, "show", shadow+":"+path)
				switch {
				case want == "" && err == nil:
					t.Errorf("%s is in the checkpoint, want it absent", path)
				case want != "" && (err != nil || got != want):
					t.Errorf("%s in the checkpoint = %q (%v), want %q", path, got, err, want)
				}
			}
			if log, _ := os.ReadFile(filepath.Join(repo, ".entire", "logs", "entire.log")); strings.Contains(string(log), `"level":"ERROR"`) {
				t.Errorf("errors logged:\n%s", log)
			}
		})
	}
}
