package engine

import (
	"os"
	"path/filepath"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec"
)

// GitHookIdle reports, without starting git, that a commit hook in the worktree at dir has
// nothing to do: every session recorded for this worktree has ended, holds no uncondensed
// work, and is not based on HEAD (which an amend would restore the trailer from). A
// repository without sessions costs its commits one directory read.
func GitHookIdle(dir string) bool {
	gitDir, commonDir, ok := gitexec.GitDirs(dir)
	if !ok {
		return false
	}
	entries, err := os.ReadDir(filepath.Join(commonDir, "entire-sessions"))
	if os.IsNotExist(err) {
		return true
	}
	if err != nil {
		return false
	}
	if len(entries) == 0 {
		return true
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	head, ok := gitexec.HeadFromFiles(gitDir, commonDir)
	if !ok || head == "" {
		return false
	}
	live, err := session.NewStore(commonDir).AnyWhere(func(b session.Brief) bool { return b.Live(root, head) })
	return err == nil && !live
}
