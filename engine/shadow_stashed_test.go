package engine

import (
	"context"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec"
	"github.com/entirerec/entire/gitexec/gittest"
)

// TestStashedFiles: only session files that left the worktree before the turn, and that the
// turn did not write, keep the last checkpoint's content, and only where it differs from HEAD.
func TestStashedFiles(t *testing.T) {
	repo := gittest.Repo(t)
	ctx := context.Background()
	head := gittest.Commit(t, repo, "refs/heads/main", "", "init", map[string]string{
		"tracked.txt": "base\n", "same.txt": "same\n",
	})
	last := rwShadow(t, repo, head, "", "entire/shadow", "checkpoint", map[string]string{
		"tracked.txt":                    "agent\n", // stashed: the worktree is back at HEAD's
		"new.txt":                        "N\n",     // stashed: missing
		"sub/deep.txt":                   "D\n",     // stashed: missing, in a directory
		"gone.txt":                       "G\n",     // removed during the turn (changed at turn start)
		"edited.txt":                     "E\n",     // written by the agent in this turn
		"dirty.txt":                      "old\n",   // changed in the worktree now
		".entire/metadata/s1/full.jsonl": "{}\n",
	})
	s := session.State{SessionID: "s1",
		FilesTouched: []string{"dirty.txt", "edited.txt", "gone.txt", "new.txt", "never.txt", "same.txt", "sub/deep.txt", "tracked.txt"},
		Recorder:     session.Recorder{LastShadowCommit: string(last), DirtyAtTurnStart: []string{"gone.txt"}},
	}
	en := &Engine{Repo: repo}
	got, err := en.stashedFiles(ctx, s, string(head), []string{"dirty.txt"}, []string{"edited.txt"})
	if err != nil {
		t.Fatal(err)
	}
	oids, err := repo.HashBlobs(ctx, [][]byte{[]byte("N\n"), []byte("D\n"), []byte("agent\n")})
	if err != nil {
		t.Fatal(err)
	}
	want := []gitexec.TreeChange{
		{Path: "new.txt", Mode: "100644", OID: oids[0]},
		{Path: "sub/deep.txt", Mode: "100644", OID: oids[1]},
		{Path: "tracked.txt", Mode: "100644", OID: oids[2]},
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Path < got[j].Path })
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stashedFiles (-want +got):\n%s", d)
	}

	s.Recorder.LastShadowCommit = ""
	if got, err := en.stashedFiles(ctx, s, string(head), nil, nil); err != nil || len(got) != 0 {
		t.Errorf("without a last checkpoint: %v, %v; want nothing", got, err)
	}
}

// rwShadow commits files on top of base's tree as a shadow checkpoint of session s1.
func rwShadow(t *testing.T, repo *gitexec.Repo, base, parent gitexec.OID, branch, msg string, files map[string]string) gitexec.OID {
	t.Helper()
	msg += "\n\nEntire-Metadata: .entire/metadata/s1\nEntire-Session: s1\nEntire-Strategy: manual-commit\n"
	return gittest.CommitOn(t, repo, string(gitexec.BranchRef(branch)), base, parent, msg, files)
}
