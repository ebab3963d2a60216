package engine

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteMessageReplacesWhole: the message file is replaced by a complete copy, never
// truncated and rewritten in place, so a hook killed half-way leaves git the old message. A
// reader holding the old file sees it whole; the path has the new message, with the old mode.
func TestWriteMessageReplacesWhole(t *testing.T) {
	file := filepath.Join(t.TempDir(), "COMMIT_EDITMSG")
	if err := os.WriteFile(file, []byte("Add a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := writeMessage(file, "Add a\n\nEntire-Checkpoint: 0123456789ab\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(old); string(b) != "Add a\n" {
		t.Errorf("the old message file was rewritten in place: %q", b)
	}
	if b, _ := os.ReadFile(file); string(b) != "Add a\n\nEntire-Checkpoint: 0123456789ab\n" {
		t.Errorf("message = %q", b)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, %v; want 0600", fi.Mode(), err)
	}
	if m, _ := filepath.Glob(file + ".entire-*"); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
