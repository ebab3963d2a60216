package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRewindListRacesShadowDeletion: a shadow branch is deleted (its session's work was
// committed, and post-commit deletes the emptied branch) after `entire rewind --list` resolved
// it and before it read the branch's checkpoints. The listing failed with git's "bad revision"
// and exited 1; clean's preview lists temporary checkpoints the same way.
func TestRewindListRacesShadowDeletion(t *testing.T) {
	bin, w, _, repo := raceTurn(t, "plays a session while entire rewind --list runs")
	head := strings.TrimSpace(w.mustGit(repo, "rev-parse", "HEAD"))
	shadow := "refs/heads/entire/" + head[:7] + "-e3b0c4"
	w.mustGit(repo, "rev-parse", "-q", "--verify", shadow)
	raceTouch(w, "race-armed", "templog")
	list := raceStart(w, repo, bin, "rewind", "--list")
	raceWait(w, "race-held") // rewind resolved the branch and is about to read its checkpoints
	w.mustGit(repo, "update-ref", "-d", shadow)
	raceTouch(w, "race-release", "")
	out, err := list()
	os.Remove(filepath.Join(w.root, "race-armed"))
	if err != nil {
		t.Fatalf("entire rewind --list: %v\n%s", err, out)
	}
}
