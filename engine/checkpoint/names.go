package checkpoint

import (
	"strings"

	"github.com/entirerec/entire/gitexec"
)

// StrategyManualCommit is the only strategy this tool records with.
const StrategyManualCommit = "manual-commit"

// MetadataBranch is the branch holding committed checkpoints.
const MetadataBranch = "entire/checkpoints/v1"

// MetaRef is the metadata branch's full ref name.
var MetaRef = gitexec.BranchRef(MetadataBranch)

// OriginMetaRef is origin's copy of the metadata branch as a clone or fetch keeps it, read when
// the local branch is missing (spec §1).
const OriginMetaRef gitexec.RefName = "refs/remotes/origin/" + MetadataBranch

// IsInfrastructure reports whether a worktree path is the recorder's own (.entire/), which
// checkpoints never take from the worktree.
func IsInfrastructure(p string) bool {
	return p == ".entire" || strings.HasPrefix(p, ".entire/")
}
