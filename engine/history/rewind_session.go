package history

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
)

// A rewind to a temporary checkpoint moves the shadow branch back to it; the sessions whose
// state the branch and the work tree no longer agree with are told through their journals
// (events.Rewound). The session that wrote the checkpoint: it is its latest agent content, and
// committing the restored files links the commit to the session. Every other session on the
// branch whose files the rewind deleted or restored, or whose newest checkpoint it took off the
// branch: its newest checkpoint still on the branch is its latest, and its files are those the
// work tree still has from the agent, so nothing the rewind removed is carried forward after a
// commit. An undo tells each of them what it held before the rewind, which the undo record
// keeps. A rewind that resets the branch to an auto-commit, and its undo, tell the session
// whose transcript they wrote where it ends (reset): its checkpoints recorded all of it, so
// its next checkpoint and usage begin there.

// sessionRewind is what a rewind makes of one session's state.
type sessionRewind struct {
	id     string
	commit string   // the session's latest checkpoint afterwards ("" when the rewind removed all)
	files  []string // its files afterwards; for a rewind, worked out from the point when applied
	base   string   // its base afterwards, undoing ("": the HEAD the rewind leaves)
	undo   bool
	reset  bool // the branch reset to a commit: no checkpoint or file stays the session's
	// logsOnly: only the transcript was written; the session keeps its checkpoint and files.
	logsOnly bool
	// positions, undoing, are the session's transcript positions before the rewind (nil: not recorded).
	positions *events.RewoundPositions
}

// undoSession is a session's state that a rewind replaced, kept in the undo record.
type undoSession struct {
	SessionID        string   `json:"session_id,omitempty"` // "" for the rewind's own session
	LastShadowCommit string   `json:"last_shadow_commit"`
	FilesTouched     []string `json:"files_touched,omitempty"`
	BaseCommit       string   `json:"base_commit,omitempty"` // its base (absent in records before 2026-11-27)
	// Positions are where its transcript was condensed and its usage counted (absent in
	// records written before 2026-11-27).
	Positions *events.RewoundPositions `json:"positions,omitempty"`
}

// rewoundSession is an opened session a rewind changes, and how.
type rewoundSession struct {
	sess *session.Session
	r    sessionRewind
}

// otherRewinds are the rewinds of the other sessions on the point's shadow branch that the plan
// changes: those whose files it deletes or restores, or whose newest checkpoint is not at or
// below the point. Each one's latest checkpoint becomes its newest at or below the point.
func (en *History) otherRewinds(ctx context.Context, plan *RewindPlan, p RewindPoint) ([]sessionRewind, error) {
	tcs, err := checkpoint.ListTemporaryOn(ctx, en.Repo, p.Branch)
	if err != nil {
		return nil, err
	}
	kept := map[string]string{} // session -> its newest checkpoint at or below the point
	below := false
	for _, tc := range tcs { // newest first, one line of commits
		below = below || string(tc.Commit) == p.ID
		if _, ok := kept[tc.SessionID]; below && !ok {
			kept[tc.SessionID] = string(tc.Commit)
		}
	}
	changed := map[string]bool{}
	for _, f := range append(append([]string(nil), plan.Write...), plan.Delete...) {
		changed[f] = true
	}
	states, err := en.Store.ListWhere(func(b session.Brief) bool {
		return b.SessionID != p.SessionID && b.WorktreePath == en.Repo.TopLevel && b.BaseCommit == cmp.Or(plan.shadowBase, string(plan.head))
	})
	if err != nil {
		return nil, err
	}
	var out []sessionRewind
	for _, s := range states {
		touched := false
		for _, f := range s.FilesTouched {
			touched = touched || changed[f]
		}
		if touched || kept[s.SessionID] != s.Recorder.LastShadowCommit {
			out = append(out, sessionRewind{id: s.SessionID, commit: kept[s.SessionID]})
		}
	}
	return out, nil
}

// openRewoundSessions opens the journal of every session the plan rewinds that is recorded
// here; none when no temporary checkpoint is involved. The caller closes them.
func (en *History) openRewoundSessions(plan *RewindPlan) ([]rewoundSession, error) {
	var out []rewoundSession
	for _, r := range plan.rewound {
		sess, err := en.openSession(r.id)
		if err != nil {
			closeRewound(en, out)
			return nil, err
		}
		if sess != nil {
			out = append(out, rewoundSession{sess: sess, r: r})
		}
	}
	return out, nil
}

// openSession opens a session's journal, or returns nil when no session is recorded here under id.
func (en *History) openSession(id string) (*session.Session, error) {
	if agent.ValidateSessionID(id) != nil {
		return nil, nil
	}
	if _, err := os.Stat(en.Store.JournalPath(id)); err != nil {
		return nil, nil
	}
	sess, err := en.Store.Open(id)
	if err != nil {
		return nil, err
	}
	if !sess.State.Exists() {
		engine.CloseSession(en.Engine, sess)
		return nil, nil
	}
	return sess, nil
}

func closeRewound(en *History, rs []rewoundSession) {
	for _, r := range rs {
		engine.CloseSession(en.Engine, r.sess)
	}
}

// undoSessions are the opened sessions' states before the rewind: the rewind's own session's
// (nil when it has none here), then the others'.
func undoSessions(plan *RewindPlan, rs []rewoundSession) (own *undoSession, others []undoSession) {
	for _, r := range rs {
		s := r.sess.State
		u := undoSession{LastShadowCommit: s.Recorder.LastShadowCommit, FilesTouched: append([]string(nil), s.FilesTouched...), BaseCommit: s.BaseCommit,
			Positions: &events.RewoundPositions{Condensed: s.Condensed(), Usage: s.Recorder.UsageFrom(), UsageOpen: s.Recorder.UsageOpen}}
		if r.r.id == plan.session {
			own = &u
			continue
		}
		u.SessionID = r.r.id
		others = append(others, u)
	}
	return own, others
}

// recordRewound appends the Rewound event to each session's journal once the rewind is done.
// A failure is reported, not returned: the work tree is already as the user asked.
func (en *History) recordRewound(ctx context.Context, rs []rewoundSession, plan *RewindPlan) {
	if len(rs) == 0 {
		return
	}
	var changed []string
	var err error
	if slices.ContainsFunc(rs, func(r rewoundSession) bool { return !r.r.undo && !r.r.reset && !r.r.logsOnly }) {
		changed, err = en.pointFiles(ctx, plan)
	}
	for _, r := range rs {
		e := err
		if e == nil {
			e = r.sess.Append(en.Event(en.rewoundEvent(r.sess.State, r.r, plan, changed)))
		}
		if e != nil {
			en.Log.Warn("record rewind", "session_id", r.sess.ID, "error", e.Error())
			fmt.Fprintf(en.Stderr, "entire: could not record the rewind in session %s (%v); its next commit may not be linked\n", r.sess.ID, e)
		}
	}
}

// recordRestoredHere journals, for each session whose committed transcript the rewind wrote
// and that is not recorded here (another clone recorded it), where that transcript ends, as
// resume does (RecordRestored): continued here, the session must not count the restored lines
// again. The sessions recorded here learn it from their Rewound event.
func (en *History) recordRestoredHere(plan *RewindPlan, rs []rewoundSession) {
	if plan.Undo {
		return
	}
	for _, t := range plan.Transcripts {
		if t.Remove || t.Data == nil || t.CheckpointID == "" || slices.ContainsFunc(rs, func(r rewoundSession) bool { return r.sess.ID == t.SessionID }) {
			continue
		}
		r := TranscriptRestore{SessionID: t.SessionID, Agent: t.Agent, Path: t.Path, Data: t.Data}
		if s, err := en.Store.Peek(t.SessionID); err == nil && s.Exists() {
			continue
		}
		if err := en.RecordRestored(t.CheckpointID, r, []string{t.Path}); err != nil {
			en.Log.Warn("record the restored transcript", "session_id", t.SessionID, "error", err.Error())
		}
	}
}

// pointFiles are the files the checkpoint rewound to changes against HEAD (its tree also holds
// the user's own changes and other sessions' files).
func (en *History) pointFiles(ctx context.Context, plan *RewindPlan) ([]string, error) {
	diff, err := en.Repo.DiffTree(ctx, string(plan.head), plan.source)
	if err != nil {
		return nil, fmt.Errorf("list the checkpoint's files: %w", err)
	}
	changed := make([]string, 0, len(diff))
	for _, d := range diff {
		if !checkpoint.IsInfrastructure(d.Path) {
			changed = append(changed, d.Path)
		}
	}
	return changed, nil
}

// rewoundEvent is what the rewind makes of one session: its files at the checkpoint (those of
// its files that the checkpoint changes against HEAD), the HEAD the rewind left and, for the
// session whose transcript the rewind wrote, where that transcript ends.
func (en *History) rewoundEvent(s session.State, r sessionRewind, plan *RewindPlan, changed []string) events.Rewound {
	ev := events.Rewound{Branch: plan.shadow, Commit: r.commit, BaseCommit: cmp.Or(r.base, string(plan.newHead), plan.shadowBase, string(plan.head)), Files: r.files,
		Undo: r.undo, Reset: r.reset, Positions: r.positions}
	switch {
	case r.logsOnly:
		ev.Commit, ev.Files = s.Recorder.LastShadowCommit, s.FilesTouched
	case !r.undo && !r.reset:
		ev.Files = session.Intersect(s.FilesTouched, changed)
	}
	for _, t := range plan.Transcripts {
		if t.SessionID != s.SessionID || t.Remove || t.Data == nil {
			continue
		}
		rd, _ := agents.ByType(s.AgentType)
		sc := rd.ScanBytes(t.Data)
		ev.Transcript = events.Transcript{Path: t.Path, Lines: sc.Lines, Offset: sc.EndOffset, LastUUID: sc.LastUUID}
		ev.Prompts = sc.Prompts
	}
	return ev
}

// planResetSessions tells each session whose transcript a --reset to a committed checkpoint
// cuts back that everything up to the commit is committed: its next checkpoint's transcript
// begins where the restored one ends, and the files and checkpoints of its turns after the
// commit, rewound away, are no longer its work. HEAD's shadow branch, which holds those turns,
// is deleted when no other session of this work tree builds on it.
func (en *History) planResetSessions(plan *RewindPlan) error {
	reset := map[string]bool{}
	for _, t := range plan.Transcripts {
		if !t.Remove && t.Data != nil && !reset[t.SessionID] && !en.ofOtherWorktree(t.SessionID) {
			reset[t.SessionID] = true
			plan.rewound = append(plan.rewound, sessionRewind{id: t.SessionID, reset: true})
		}
	}
	if len(reset) == 0 {
		return nil
	}
	others, err := en.Store.ListWhere(func(b session.Brief) bool {
		return !reset[b.SessionID] && b.WorktreePath == en.Repo.TopLevel && b.BaseCommit == string(plan.head)
	})
	if err != nil {
		return err
	}
	if len(others) == 0 {
		plan.shadow, plan.dropShadow = session.ShadowBranch(string(plan.head), en.Repo.WorktreeID()), true
	}
	return nil
}

// ofOtherWorktree reports a session recorded in another worktree of the repository that git
// still has. A rewind to a committed checkpoint here writes its transcript, but its base,
// checkpoints and files are that worktree's, whose HEAD and work tree the rewind does not
// touch: told the rewind, it would take this worktree's HEAD as its base, and a reset would
// drop its checkpoint and files, so that the next commit there was not linked to it. Its
// transcript positions are those of the file that worktree's agent reads, which the rewind
// leaves as it is when it holds what the checkpoint's lacks (otherCheckoutWentOn).
func (en *History) ofOtherWorktree(id string) bool {
	s, err := en.Store.Peek(id)
	return err == nil && s.Exists() && s.WorktreeID != en.Repo.WorktreeID() && !en.WorktreeGone(s)
}
