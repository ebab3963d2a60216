package engine

import (
	"cmp"
	"context"

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

// unchangedSince are the paths whose work-tree content is what commit rev holds: when HEAD moved
// during a turn (the user's reset --mixed), a file that the turn's HEAD no longer tracks but
// that was there, as it is, when the turn began is not new in the turn, and not the agent's.
func (en *Engine) unchangedSince(ctx context.Context, rev string, paths []string) []string {
	if len(paths) == 0 {
		return nil
	}
	oids, err := en.Repo.PathOIDs(ctx, rev, paths)
	if err != nil || len(oids) == 0 {
		return nil
	}
	present := make([]string, 0, len(oids))
	for _, p := range paths {
		if _, ok := oids[p]; ok {
			present = append(present, p)
		}
	}
	changes, err := en.WorktreeChanges(ctx, present)
	if err != nil {
		en.Log.Warn("compare the turn's files with its start", "error", err.Error())
		return nil
	}
	var out []string
	for _, ch := range changes {
		if !ch.Delete && ch.OID == oids[ch.Path] {
			out = append(out, ch.Path)
		}
	}
	return session.MergeSorted(nil, out)
}
