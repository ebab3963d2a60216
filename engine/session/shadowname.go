package session

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sync"
)

// ShadowBranch is the temporary-checkpoint branch for a base commit in a worktree (spec §1.1).
func ShadowBranch(base, worktreeID string) string {
	c := base
	if len(c) > 7 {
		c = c[:7]
	}
	return "entire/" + c + "-" + worktreeHash(worktreeID)
}

// RewindUndoPrefix begins the refs that keep each worktree's rewind undo snapshot.
const RewindUndoPrefix = "refs/entire/rewind-undo/"

// RewindUndoRef is the ref that keeps the snapshot `entire rewind --undo` puts back in the
// worktree worktreeID ("" for the main one) from garbage collection.
func RewindUndoRef(worktreeID string) string {
	return RewindUndoPrefix + worktreeHash(worktreeID)
}

// worktreeHash is the part of a worktree's ref names that tells it apart: the first six hex
// digits of the SHA-256 of its git name.
func worktreeHash(worktreeID string) string {
	sum := sha256.Sum256([]byte(worktreeID))
	return hex.EncodeToString(sum[:])[:6]
}

var shadowBranchRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^entire/[0-9a-fA-F]{7,}(-[0-9a-fA-F]{6})?$`)
})

// IsShadowBranch reports whether a short branch name is a shadow branch as the reference
// recognizes them (spec §1.1); entire/checkpoints/v1 is not one.
func IsShadowBranch(name string) bool { return shadowBranchRe().MatchString(name) }
