package main

import (
	"context"

	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/gitexec"
)

// unsignedCommitsWarning is the warning status, doctor and enable give when auto-commit is on
// where git is told to sign every commit (commit.gpgSign): the turn commits auto-commit puts on
// the user's branch are not signed (a hook must not wait for a passphrase or a key's touch),
// so the setting does not hold for them. "" when it does not apply or cannot be read.
func unsignedCommitsWarning(ctx context.Context, repo *gitexec.Repo, s setup.Settings) string {
	if !s.Enabled || s.Strategy != setup.AutoCommitStrategy {
		return ""
	}
	if sign, err := repo.ConfigBool(ctx, "commit.gpgSign"); err != nil || !sign {
		return ""
	}
	return "Warning: commit.gpgSign is set, but the commits auto-commit makes on your branch are not signed " +
		"(a hook cannot wait for a passphrase or a key); a remote that requires signed commits rejects them. " +
		"With `entire enable --strategy manual-commit` every commit on your branch is your own, signed by git."
}
