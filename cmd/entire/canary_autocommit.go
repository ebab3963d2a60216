package main

import (
	"os"
	"path/filepath"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// canaryAutoCommit is the capture self-test under the auto-commit strategy, which writes no
// temporary checkpoint and links no user commit: the turn becomes a commit on the branch with
// the Entire-Checkpoint trailer, and its checkpoint is on the record's branch when Stop
// returns. The user's own commits must still go through the installed hooks, and pre-push
// pushes the record as under manual-commit.
func canaryAutoCommit(e *env, repo *gitexec.Repo, link func(string, error) bool) {
	before, _, _ := repo.Head(e.ctx)
	id, err := "", canaryTurn(e, repo)
	if err == nil {
		id, err = canaryTurnCommit(e, repo, before)
	}
	if !link("the agent hook committed the turn (auto-commit)", err) {
		return
	}
	if !link("the turn's checkpoint is on "+checkpoint.MetadataBranch, canaryCheckpoint(e, repo, id)) {
		return
	}
	if err := os.WriteFile(filepath.Join(repo.TopLevel, "user.txt"), []byte("user\n"), 0o644); err != nil {
		link("git commit with the hooks", err)
		return
	}
	if _, err := repo.Run(e.ctx, nil, "add", "user.txt"); err != nil {
		link("git add", err)
		return
	}
	_, err = repo.Run(e.ctx, nil, "commit", "-q", "-m", "Canary")
	if !link("git commit with the hooks", err) {
		return
	}
	canaryPrePush(e, repo, link)
}

// canaryTurnCommit returns the checkpoint ID of the commit the turn made on the branch.
func canaryTurnCommit(e *env, repo *gitexec.Repo, before gitexec.OID) (string, error) {
	head, _, err := repo.Head(e.ctx)
	if err != nil {
		return "", err
	}
	if head == before {
		return "", canaryMissing(repo, "no commit")
	}
	msg, err := repo.CommitMessage(e.ctx, string(head))
	if err != nil {
		return "", err
	}
	id, ok := checkpoint.ParseCheckpointTrailer(msg)
	if !ok {
		return "", canaryMissing(repo, "the turn's commit has no Entire-Checkpoint trailer")
	}
	return id, nil
}
