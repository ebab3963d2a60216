package maintenance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/gitexec"
)

// `entire doctor` (spec §5.4, §10): sessions that will never reach a commit by themselves
// ("stuck") are condensed into a checkpoint of their own, discarded, or left alone.
//
// Condensing here has no user commit: the session's work goes into a committed checkpoint
// with a new ID through the same condense effect a linked commit uses, but no commit carries
// an Entire-Checkpoint trailer for it (explain finds it by ID; the journal records the
// session's base commit as the condensation's commit). A session still marked active is
// first stopped through the run loop with a SessionStopped event, which also finalizes the
// checkpoints of its interrupted turn.

// stuckQuiet is how long an active session may go without an interaction before it is stuck.
const stuckQuiet = time.Hour

// DoctorAction is what doctor does with a stuck session.
type DoctorAction int

// The three choices for a stuck session.
const (
	DoctorSkip DoctorAction = iota
	DoctorCondense
	DoctorDiscard
)

// String is the action's name as the preview prints it.
func (a DoctorAction) String() string {
	switch a {
	case DoctorCondense:
		return "condense"
	case DoctorDiscard:
		return "discard"
	}
	return "skip"
}

// StuckSession is a session doctor reports.
type StuckSession struct {
	State        session.State
	Branch       string // its shadow branch
	BranchExists bool
	Reason       string
	Default      DoctorAction // condense when it has uncondensed work, discard otherwise
	// Owes: the session still owes the record work (ErrOwesRecord); skipped by default, and
	// never discarded.
	Owes bool
}

// FindStuck lists the stuck sessions: active without an interaction for stuckQuiet (or ever),
// or ended with checkpoints and an existing shadow branch (spec §5.4).
func (en *Maintenance) FindStuck(ctx context.Context) ([]StuckSession, error) {
	states, err := en.Store.List()
	if err != nil {
		return nil, err
	}
	branches, err := en.shadowBranches(ctx)
	if err != nil {
		return nil, err
	}
	var out []StuckSession
	for _, s := range states {
		st := StuckSession{State: s, Branch: session.ShadowBranch(s.BaseCommit, s.WorktreeID)}
		_, st.BranchExists = branches[st.Branch]
		if st.Reason = stuckReason(s, st.BranchExists, en.Now()); st.Reason == "" {
			continue
		}
		st.Default = DoctorDiscard
		if s.HasNewContent() {
			st.Default = DoctorCondense
		}
		if owesRecord(s) {
			// Its state is what writes the checkpoint a commit's trailer names: discarded, the
			// checkpoint would never be written. Its worktree's next hook or command does it.
			st.Owes, st.Default = true, DoctorSkip
		}
		out = append(out, st)
	}
	return out, nil
}

// stuckReason says why a session is stuck, "" when it is not; branchExists tells whether its
// shadow branch exists.
func stuckReason(s session.State, branchExists bool, now time.Time) string {
	switch s.Phase.Normalize() {
	case session.PhaseActive:
		if s.LastInteractionTime == nil {
			return "active, never interacted"
		} else if quiet := now.Sub(*s.LastInteractionTime); quiet >= stuckQuiet {
			return fmt.Sprintf("active, no interaction for %s", quiet.Truncate(time.Minute))
		}
	case session.PhaseEnded:
		if s.CheckpointCount > 0 && branchExists {
			return "ended with uncondensed checkpoints"
		}
	}
	return ""
}

// ErrOwesRecord reports a session whose state still owes the record a checkpoint of a linked
// commit, or a turn's auto-commit: it is not discarded.
var ErrOwesRecord = errors.New("still owes the checkpoint of a commit it linked (not written yet: git failed or the hook was interrupted); its worktree's next hook or entire command writes it")

// owesRecord reports a session state with pending condensations or auto-commits.
func owesRecord(s session.State) bool {
	return len(s.Recorder.Pending) > 0 || len(s.Recorder.Commits) > 0
}

// ErrNotStuck reports a session that a hook brought back to life between FindStuck and the
// action on it (or a person's answer): it is left alone.
var ErrNotStuck = errors.New("is no longer stuck (a hook ran for it since it was found)")

// stillStuck checks, on the state read under the session's lock, that the session is stuck
// still, so that doctor acts on the session it reported and not on one that came back.
func (en *Maintenance) stillStuck(ctx context.Context, s session.State) error {
	_, exists, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(session.ShadowBranch(s.BaseCommit, s.WorktreeID)))
	if err != nil {
		return err
	}
	if stuckReason(s, exists, en.Now()) == "" {
		return fmt.Errorf("session %s %w", s.SessionID, ErrNotStuck)
	}
	return nil
}

// CondenseStuck writes a stuck session's uncondensed work into a committed checkpoint with a
// new ID and returns the ID; its shadow branch is deleted unless another session needs it.
func (en *Maintenance) CondenseStuck(ctx context.Context, id string) (string, error) {
	others, err := en.Store.List() // before Open: listing reads journals under their lock
	if err != nil {
		return "", err
	}
	if _, ok := findState(others, id); !ok {
		return "", fmt.Errorf("%w: %s", ErrSessionNotFound, id)
	}
	branch, _, err := en.Repo.HeadBranch(ctx)
	if err != nil {
		return "", err
	}
	cpID, err := checkpoint.NewCheckpointID()
	if err != nil {
		return "", err
	}
	sess, err := en.Store.Open(id)
	if err != nil {
		return "", err
	}
	defer engine.CloseSession(en.Engine, sess)
	if err := en.stillStuck(ctx, sess.State); err != nil {
		return "", err
	}
	if !sess.State.HasNewContent() {
		return "", fmt.Errorf("session %s has no uncondensed work", id)
	}
	if sess.State.Phase.Normalize() == session.PhaseActive {
		if err := en.Run(ctx, sess, en.Event(events.SessionStopped{SessionID: id, Reason: "entire doctor"})); err != nil {
			return "", err
		}
	}
	s := engine.WithAllPrompts(sess)
	shadow := session.ShadowBranch(s.BaseCommit, s.WorktreeID)
	res, err := en.Condense(ctx, s, session.Condense{Commit: events.GitCommitted{
		Commit: s.BaseCommit, CheckpointID: cpID, Branch: branch, Files: s.FilesTouched,
	}})
	if err != nil {
		return "", err
	}
	if err := sess.Append(res...); err != nil {
		return "", err
	}
	if !branchNeeded(others, id, shadow) {
		if err := sess.Append(en.DeleteShadow(ctx, sess, session.DeleteShadow{Branch: shadow, Tip: s.Recorder.LastShadowCommit}, nil)...); err != nil {
			return "", err
		}
	}
	return cpID, nil
}

// DiscardSession deletes a stuck session's state, and its shadow branch unless another session
// refers to it, reporting each step through done. A session that is no longer stuck (a hook
// ran for it since FindStuck) is left alone: ErrNotStuck.
//
// The branch's tip is read before the other sessions' states, each under its lock
// (ListSettled), and the branch is deleted only at that tip: a session that started on it
// meanwhile is either listed or has moved it, and keeps it.
func (en *Maintenance) DiscardSession(ctx context.Context, id string, done func(string)) error {
	var s session.State
	err := en.RemoveSessionIf(ctx, id, "entire doctor", func(fresh session.State) error {
		s = fresh
		if owesRecord(fresh) {
			return fmt.Errorf("session %s %w", id, ErrOwesRecord)
		}
		return en.stillStuck(ctx, fresh)
	})
	if errors.Is(err, session.ErrNoSession) {
		return fmt.Errorf("%w: %s", ErrSessionNotFound, id)
	}
	if err != nil {
		return err
	}
	done("Deleted session state " + id)
	shadow := session.ShadowBranch(s.BaseCommit, s.WorktreeID)
	tip, ok, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(shadow))
	if err != nil || !ok {
		return err
	}
	states, err := en.Store.ListSettled()
	if err != nil {
		return err
	}
	for _, o := range states {
		if o.SessionID != id && session.ShadowBranch(o.BaseCommit, o.WorktreeID) == shadow {
			return nil
		}
	}
	if err := en.deleteBranch(ctx, shadow, tip); errors.Is(err, gitexec.ErrRefMoved) {
		done("Kept shadow branch " + shadow + ": a session wrote to it meanwhile")
		return nil
	} else if err != nil {
		return err
	}
	done("Deleted shadow branch " + shadow)
	return nil
}

// branchNeeded reports whether a session other than id is active or has uncondensed work on
// the shadow branch.
func branchNeeded(states []session.State, id, branch string) bool {
	for _, o := range states {
		if o.SessionID != id && session.ShadowBranch(o.BaseCommit, o.WorktreeID) == branch &&
			(o.HasNewContent() || o.Phase.Normalize() == session.PhaseActive) {
			return true
		}
	}
	return false
}
