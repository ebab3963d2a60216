package engine

import (
	"context"
	"fmt"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec"
)

// stashedFiles are the tree changes that keep the session's work on files that left the
// worktree between turns (seed scenario 6: the user stashed them) at its content on the
// session's last shadow checkpoint, where HEAD's tree plus the worktree changes would drop it.
//
// A session file counts as put away, rather than undone by the agent, when the worktree shows
// no change for it now (a new file is missing, a tracked one equals HEAD), it showed none when
// the turn began either (so nothing during this turn removed or reverted it, whichever tool
// did it: a shell command leaves no trace in the transcript), and the transcript does not show
// the agent writing it in this turn. dirty are the worktree's changed paths now, edited the
// files the transcript says the agent wrote in this turn.
func (en *Engine) stashedFiles(ctx context.Context, s session.State, head string, dirty, edited []string) ([]gitexec.TreeChange, error) {
	last := s.Recorder.LastShadowCommit
	if last == "" || len(s.FilesTouched) == 0 {
		return nil, nil
	}
	changed := map[string]bool{}
	for _, list := range [][]string{dirty, s.Recorder.DirtyAtTurnStart, edited} {
		for _, p := range list {
			changed[p] = true
		}
	}
	var away []string
	for _, p := range s.FilesTouched {
		if !changed[p] && !checkpoint.IsInfrastructure(p) {
			away = append(away, p)
		}
	}
	if len(away) == 0 {
		return nil, nil
	}
	shadow, err := en.Repo.PathEntries(ctx, last, away)
	if err != nil {
		return nil, fmt.Errorf("read the last checkpoint's files: %w", err)
	}
	inHead, err := en.Repo.PathEntries(ctx, head, away)
	if err != nil {
		return nil, fmt.Errorf("read HEAD's files: %w", err)
	}
	var out []gitexec.TreeChange
	for _, p := range away {
		e, ok := shadow[p]
		if !ok || e.Type != "blob" {
			continue
		}
		if h, ok := inHead[p]; ok && h.OID == e.OID && h.Mode == e.Mode {
			continue
		}
		out = append(out, gitexec.TreeChange{Path: p, Mode: e.Mode, OID: e.OID})
	}
	return out, nil
}
