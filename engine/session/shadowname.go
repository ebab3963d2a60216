package session

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sync"
)

// ShadowBranch is the temporary-checkpoint branch for a base commit in a worktree (spec §1.1).
func ShadowBranch(base, worktreeID string) string {
	sum := sha256.Sum256([]byte(worktreeID))
	c := base
	if len(c) > 7 {
		c = c[:7]
	}
	return "entire/" + c + "-" + hex.EncodeToString(sum[:])[:6]
}

var shadowBranchRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^entire/[0-9a-fA-F]{7,}(-[0-9a-fA-F]{6})?$`)
})

// IsShadowBranch reports whether a short branch name is a shadow branch as the reference
// recognizes them (spec §1.1); entire/checkpoints/v1 is not one.
func IsShadowBranch(name string) bool { return shadowBranchRe().MatchString(name) }
