package engine

import (
	"context"
	"strings"

	"github.com/entirerec/entire/gitexec"
)

// onDefaultBranch reports whether HEAD is on the repository's default branch (defaultBranch),
// where a subagent's todo steps get no checkpoint of their own (format §9.1 post-todo,
// entire-cli.md §5 Subagents): under auto-commit each would be a commit on that branch.
func (en *Engine) onDefaultBranch(ctx context.Context) bool {
	branch, attached, err := en.Repo.HeadBranch(ctx)
	if err != nil || !attached {
		return false
	}
	def := en.defaultBranch(ctx)
	return def != "" && branch == def
}

// defaultBranch is the default branch's name as the reference finds it: the branch origin's
// HEAD names, else main, else master when it exists (locally or at origin); "" when none does.
func (en *Engine) defaultBranch(ctx context.Context) string {
	if ref, ok, err := en.Repo.SymbolicRef(ctx, "refs/remotes/origin/HEAD"); err == nil && ok {
		if name, ok := strings.CutPrefix(string(ref), "refs/remotes/origin/"); ok && name != "" {
			return name
		}
	}
	for _, name := range []string{"main", "master"} {
		for _, ref := range []gitexec.RefName{gitexec.BranchRef(name), gitexec.RefName("refs/remotes/origin/" + name)} {
			if _, ok, err := en.Repo.ResolveRef(ctx, ref); err == nil && ok {
				return name
			}
		}
	}
	return ""
}
