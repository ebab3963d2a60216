package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDoctorRacesPostCommit: `entire doctor` runs (from another worktree, whose pending work it
// does not wait for when it opens) while a commit's post-commit is condensing: the commit is
// journaled, its checkpoint not written yet. Doctor read the session mid-hook: it said the
// session "has pending work git would not do", exit 1, and read in the other order (the record
// before the sessions) a checkpoint written meanwhile was missing. It now reads each session
// once its running hook is done, then the record.
func TestDoctorRacesPostCommit(t *testing.T) {
	bin, w, a, repo := raceTurn(t, "plays a session while entire doctor runs")
	other := filepath.Join(w.root, "other")
	w.mustGit(repo, "worktree", "add", "-q", "-b", "other", other)

	w.mustGit(repo, "add", "-A", "s0")
	raceTouch(w, "race-armed", "metaref")
	commit := raceStart(w, repo, "git", "commit", "-q", "-m", "the turn's work")
	raceWait(w, "race-held") // post-commit journaled the commit and holds the session
	doctor := raceStart(w, other, bin, "doctor")
	done := make(chan struct{})
	var out string
	var err error
	go func() { out, err = doctor(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second): // doctor waits for the hook: let it finish
	}
	raceTouch(w, "race-release", "")
	<-done
	if cout, cerr := commit(); cerr != nil {
		t.Fatalf("git commit: %v\n%s", cerr, cout)
	}
	os.Remove(filepath.Join(w.root, "race-armed"))
	if err != nil || strings.Contains(out, "pending work git would not do") ||
		!strings.Contains(out, "Every Entire-Checkpoint trailer names a checkpoint.\n") {
		t.Fatalf("entire doctor while a post-commit ran: %v\n%s", err, out)
	}
	id := stressTrailer(w.mustGit(repo, "show", "-s", "--format=%B", "HEAD"))
	if slots, ok := w.checkpoint(repo, id); !ok || len(slots) != 1 || slots[0].SessionID != a.id {
		t.Errorf("checkpoint %q: %+v", id, slots)
	}
}
