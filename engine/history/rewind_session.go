package history

import (
	"context"
	"fmt"
	"os"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
)

// A rewind to a temporary checkpoint moves the shadow branch back to it; the session that
// wrote it is told through its journal (events.Rewound), so that its state agrees with the
// branch: the checkpoint is its latest agent content, and committing the restored files links
// the commit to the session. An undo tells the session what it held before the rewind, which
// the undo record keeps.

// sessionRewind is what a rewind makes of its session's state.
type sessionRewind struct {
	commit string   // the session's latest checkpoint afterwards
	files  []string // its files afterwards; for a rewind, worked out from commit when applied
	undo   bool
}

// undoSession is the session's state that a rewind replaced, kept in the undo record.
type undoSession struct {
	LastShadowCommit string   `json:"last_shadow_commit"`
	FilesTouched     []string `json:"files_touched,omitempty"`
}

// openRewoundSession opens the journal of the session the plan rewinds, or returns nil when
// there is none: no temporary checkpoint involved, or no session recorded here under its ID.
func (en *History) openRewoundSession(plan *RewindPlan) (*session.Session, error) {
	if plan.rewound == nil || agent.ValidateSessionID(plan.session) != nil {
		return nil, nil
	}
	if _, err := os.Stat(en.Store.JournalPath(plan.session)); err != nil {
		return nil, nil
	}
	sess, err := en.Store.Open(plan.session)
	if err != nil {
		return nil, err
	}
	if !sess.State.Exists() {
		engine.CloseSession(en.Engine, sess)
		return nil, nil
	}
	return sess, nil
}

// recordRewound appends the Rewound event to the session's journal once the rewind is done.
// A failure is reported, not returned: the work tree is already as the user asked.
func (en *History) recordRewound(ctx context.Context, sess *session.Session, plan *RewindPlan) {
	if sess == nil {
		return
	}
	ev, err := en.rewoundEvent(ctx, sess.State, plan)
	if err == nil {
		err = sess.Append(en.Event(ev))
	}
	if err != nil {
		en.Log.Warn("record rewind", "session_id", sess.ID, "error", err.Error())
		fmt.Fprintf(en.Stderr, "entire: could not record the rewind in session %s (%v); its next commit may not be linked\n", sess.ID, err)
	}
}

// rewoundEvent works out the session's files at the checkpoint (its files that the checkpoint
// changes against HEAD: the checkpoint tree also holds the user's own changes) and where the
// transcript the rewind wrote ends.
func (en *History) rewoundEvent(ctx context.Context, s session.State, plan *RewindPlan) (events.Rewound, error) {
	r := plan.rewound
	ev := events.Rewound{Branch: plan.shadow, Commit: r.commit, BaseCommit: string(plan.head), Files: r.files, Undo: r.undo}
	if !r.undo {
		diff, err := en.Repo.DiffTree(ctx, string(plan.head), r.commit)
		if err != nil {
			return ev, fmt.Errorf("list the checkpoint's files: %w", err)
		}
		changed := make([]string, 0, len(diff))
		for _, d := range diff {
			if !checkpoint.IsInfrastructure(d.Path) {
				changed = append(changed, d.Path)
			}
		}
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
	return ev, nil
}
