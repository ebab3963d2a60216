package engine

import (
	"testing"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
)

// Pending work is done condensations first, then auto-commits in the order of their turns: a
// commit that was held (a git hook runs) or already tried in this hook holds back the later
// ones, so the branch never gets turn 2's commit before turn 1's.
func TestNextPendingKeepsCommitsInOrder(t *testing.T) {
	var s session.State
	s.Recorder.Pending = []session.Condense{{Commit: events.GitCommitted{CheckpointID: "c0"}}}
	s.Recorder.Commits = []session.AutoCommit{{CheckpointID: "c1"}, {CheckpointID: "c2"}}
	tests := []struct {
		name string
		done []string
		hold bool
		want string
	}{
		{"condensation first", nil, false, "c0"},
		{"then the oldest commit", []string{"c0"}, false, "commit:c1"},
		{"a tried commit holds back the next", []string{"c0", "commit:c1"}, false, ""},
		{"a git hook holds every commit", nil, true, "c0"},
		{"a git hook, condensation done", []string{"c0"}, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := map[string]bool{}
			for _, k := range tc.done {
				done[k] = true
			}
			_, key := nextPending(s, done, tc.hold)
			if key != tc.want {
				t.Errorf("next = %q, want %q", key, tc.want)
			}
		})
	}
}
