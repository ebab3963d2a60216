package engine

import (
	"cmp"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/gitexec"
)

// The facts from which the reducer decides an auto-commit turn's files (session.turnFiles):
// which changed paths are tracked files changed in place, and which new or deleted paths
// another live session's transcript claims. Only the transcript makes a changed tracked file
// the session's; git status alone cannot tell the agent's edit from the user's or another
// session's.

// modifiedPaths are the paths of a status that are tracked files changed in place: no entry of
// the path is untracked, added or deleted.
func modifiedPaths(st []gitexec.StatusEntry) []string {
	other := map[string]bool{}
	for _, e := range st {
		if e.Untracked() || e.Deleted() || e.X == 'A' {
			other[e.Path] = true
		}
	}
	var out []string
	for _, e := range st {
		if !other[e.Path] {
			out = append(out, e.Path)
		}
	}
	return session.MergeSorted(nil, out)
}

// claimedByPeers are the candidates that another live session of this worktree wrote: by its
// transcript since its last prompt (a session not ended), or in a commit it still owes (its
// turn's commit failed or was interrupted). Nothing is read when there is no candidate, the
// common case of a turn whose new files its own transcript names.
func (en *Engine) claimedByPeers(self string, candidates []string) []string {
	if len(candidates) == 0 {
		return nil
	}
	peers, err := en.Store.ListOthersWhere(self, func(b session.Brief) bool {
		return b.WorktreePath == en.Repo.TopLevel && (session.Phase(b.Phase).Normalize() != session.PhaseEnded || b.Pending)
	})
	if err != nil {
		en.Log.Warn("list sessions for the turn's files", "error", err.Error())
		return nil
	}
	var claimed []string
	for _, p := range peers {
		for _, c := range p.Recorder.Commits {
			claimed = append(claimed, session.Intersect(candidates, c.Files)...)
		}
		if p.TranscriptPath == "" || p.Phase.Normalize() == session.PhaseEnded {
			continue
		}
		from := p.Recorder.TurnStart
		if from.Path != p.TranscriptPath {
			from = events.Transcript{Path: p.TranscriptPath}
		}
		sc, _, err := scanPosition(reader(p.AgentType), p.TranscriptPath, from)
		if err != nil {
			en.Log.Warn("read another session's transcript", "session_id", p.SessionID, "error", err.Error())
			continue
		}
		wrote := en.relFiles(cmp.Or(sc.Cwd, p.Recorder.AgentCwd), sc.ModifiedFiles)
		claimed = append(claimed, session.Intersect(candidates, wrote)...)
	}
	return session.MergeSorted(nil, claimed)
}

// autoCommitCandidates are the dirty paths an auto-commit turn would take only from git status:
// new or deleted since turn start, and not named by the session's own transcript.
func autoCommitCandidates(dirty, modified, edited, dirtyAtStart []string) []string {
	skip := map[string]bool{}
	for _, l := range [][]string{modified, edited, dirtyAtStart} {
		for _, p := range l {
			skip[p] = true
		}
	}
	var out []string
	for _, p := range dirty {
		if !skip[p] {
			out = append(out, p)
		}
	}
	return out
}
