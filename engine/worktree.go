package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec"
)

// WorktreeGone reports a session of a linked worktree git no longer has: its directory under
// the common dir's worktrees/ is gone (git worktree remove or prune deleted it). A moved
// repository or a worktree git still lists is not gone: its sessions may go on.
func (en *Engine) WorktreeGone(s session.State) bool {
	if s.WorktreeID == "" || !filepath.IsLocal(s.WorktreeID) {
		return false
	}
	dir := filepath.Join(en.Repo.CommonDir, "worktrees", s.WorktreeID)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if s.Recorder.WorktreeMark == "" {
		return false
	}
	// Removed and added again under the same name: the admin directory is another one.
	b, err := os.ReadFile(filepath.Join(dir, gitexec.WorktreeMarkFile))
	return errors.Is(err, fs.ErrNotExist) || err == nil && strings.TrimSpace(string(b)) != s.Recorder.WorktreeMark
}
