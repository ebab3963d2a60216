package maintenance

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/gitexec"
)

// Maintenance commands (spec §5.4, §10): `entire clean` removes what no session needs any
// more, `entire reset` forgets the current HEAD's sessions. Each is split into a Plan, which
// only reads and says what would go and why, and an apply step the command runs after
// previewing the plan (and, for anything that loses work, only with --force).
// `entire doctor` lives in doctor.go.

// orphanAge is how long a session state must have been quiet before clean may remove it.
const orphanAge = 10 * time.Minute

// ErrSessionNotFound reports a session ID without a state file.
var ErrSessionNotFound = errors.New("session not found")

// OrphanBranch is a shadow branch that no session state refers to.
type OrphanBranch struct {
	Name        string
	Tip         gitexec.OID
	Checkpoints int // temporary checkpoints on it: uncondensed work nobody can condense
	// Worktree is the path of the removed linked worktree whose sessions alone used the
	// branch; "" when no session state refers to it.
	Worktree string
}

// OrphanState is a session state clean would delete.
type OrphanState struct {
	State session.State
	// LostWork: the state counts uncondensed work, but its shadow branch is gone, so the work
	// can no longer be condensed. The preview must say so.
	LostWork bool
	// WorktreeGone: the session ran in a linked worktree git no longer has (git worktree
	// remove, or prune): no hook can come from it any more.
	WorktreeGone bool
	// Owed are the checkpoints of commits the session linked that are not written yet (a
	// post-commit that failed in the removed worktree): Clean writes them before the state
	// goes, for no hook will. Only for WorktreeGone.
	Owed []session.Condense
	// UnmadeCommits counts the auto-commits of turns that were never made: their changes
	// went with the worktree. Only for WorktreeGone.
	UnmadeCommits int
	// Prepared is the commit prepare-commit-msg linked in the removed worktree (its trailer
	// names the session's prepared checkpoint) whose post-commit never recorded it (killed
	// before it journaled the commit): its checkpoint is not written, and Clean writes it
	// before the state goes, as `entire doctor --force` would. Found on a branch (the
	// worktree's outlives it), a remote-tracking branch, else a reflog. Only for WorktreeGone.
	Prepared *DanglingTrailer
	// PreparedNowhere is the session's prepared checkpoint ID when it is not written and no
	// such commit was found (the commit was aborted, or is gone with its branch): nothing
	// names it, and nothing can be written. Only for WorktreeGone.
	PreparedNowhere string
}

// OrphanCheckpoint is an auto-commit checkpoint no commit names any more (spec §3.9): the
// turn's commit is on no branch, remote-tracking branch or tag, nor HEAD.
type OrphanCheckpoint struct {
	ID        string
	SessionID string // its latest slot's
	CreatedAt time.Time
}

// CleanPlan is what clean found.
type CleanPlan struct {
	Branches    []OrphanBranch
	States      []OrphanState
	Checkpoints []OrphanCheckpoint
	// Identities are the names of the linked worktrees git no longer has whose cached git
	// identity (entire-sessions/identity@<name>) is still there.
	Identities []string
	// UndoSnapshots are the refs keeping the rewind undo snapshots of worktrees git no longer
	// has: no `entire rewind --undo` can run there, and the snapshot (the work tree and
	// transcripts a rewind replaced) is kept from garbage collection forever.
	UndoSnapshots []gitexec.Ref
}

// Empty reports whether there is nothing to clean.
func (p CleanPlan) Empty() bool {
	return len(p.Branches) == 0 && len(p.States) == 0 && len(p.Checkpoints) == 0 && len(p.Identities) == 0 &&
		len(p.UndoSnapshots) == 0
}

// orphanUndoSnapshots are the rewind undo refs (session.RewindUndoRef) of no worktree git
// has: neither the main one nor a linked one with an admin directory under worktrees/.
func (en *Maintenance) orphanUndoSnapshots(ctx context.Context) ([]gitexec.Ref, error) {
	refs, err := en.Repo.ForEachRef(ctx, session.RewindUndoPrefix)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	live := map[string]bool{session.RewindUndoRef(""): true}
	entries, err := os.ReadDir(filepath.Join(en.Repo.CommonDir, "worktrees"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			live[session.RewindUndoRef(e.Name())] = true
		}
	}
	var gone []gitexec.Ref
	for _, r := range refs {
		if !live[string(r.Name)] {
			gone = append(gone, r)
		}
	}
	return gone, nil
}

// identityPrefix begins the name of a linked worktree's cached git identity in the sessions
// directory (engine.New): identity@<worktree name>.
const identityPrefix = "identity@"

// orphanIdentities are the names of the worktrees whose cached identity outlived them: no
// <common-dir>/worktrees/<name> any more. A worktree added again under that name learns its
// identity afresh, at the cost of one git process.
func (en *Maintenance) orphanIdentities() ([]string, error) {
	entries, err := os.ReadDir(en.Store.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list cached identities: %w", err)
	}
	var gone []string
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), identityPrefix)
		if !ok || !e.Type().IsRegular() || !filepath.IsLocal(name) {
			continue
		}
		if _, err := os.Stat(filepath.Join(en.Repo.CommonDir, "worktrees", name)); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, name)
		}
	}
	return gone, nil
}

// PlanClean finds orphaned shadow branches (no state refers to them as
// ShadowBranch(base_commit, worktree_id)) and orphaned states: quiet for orphanAge, no shadow
// branch, and no committed checkpoint naming the session.
//
// A hook running meanwhile writes a shadow branch (a commit's carry-forward, a branch
// following HEAD, a new session's first turn) before it journals that its session is on it.
// So the branches are listed first, and then each state is read once its session's running
// hook is done (ListSettled): a branch listed is in use by a state read or was an orphan, and
// one written after the listing is not in the plan or no longer has the tip Clean deletes it
// at (compare-and-swap).
// States read first, or without waiting for the hook, made a live session's new branch look
// orphaned, and clean --force deleted its checkpoints.
func (en *Maintenance) PlanClean(ctx context.Context) (CleanPlan, error) {
	var plan CleanPlan
	branches, err := en.shadowBranches(ctx)
	if err != nil {
		return plan, err
	}
	states, err := en.Store.ListSettled()
	if err != nil {
		return plan, err
	}
	used := map[string]bool{}
	goneUsers := map[string]string{} // branch: the removed worktree of sessions that used it
	for _, s := range states {
		b := session.ShadowBranch(s.BaseCommit, s.WorktreeID)
		if en.WorktreeGone(s) {
			goneUsers[b] = s.WorktreePath
		} else {
			used[b] = true
		}
	}
	for name, tip := range branches {
		if used[name] {
			continue
		}
		tcs, err := checkpoint.ListTemporaryOn(ctx, en.Repo, name)
		if err != nil {
			return plan, err
		}
		plan.Branches = append(plan.Branches, OrphanBranch{Name: name, Tip: tip, Checkpoints: len(tcs), Worktree: goneUsers[name]})
	}
	slices.SortFunc(plan.Branches, func(a, b OrphanBranch) int { return strings.Compare(a.Name, b.Name) })
	var committed map[string]bool
	for _, s := range states {
		if en.WorktreeGone(s) {
			o := OrphanState{State: s, WorktreeGone: true, Owed: s.Recorder.Pending, UnmadeCommits: len(s.Recorder.Commits)}
			if err := en.findPrepared(ctx, &o); err != nil {
				return plan, err
			}
			plan.States = append(plan.States, o)
			continue
		}
		if _, ok := branches[session.ShadowBranch(s.BaseCommit, s.WorktreeID)]; ok || en.Now().Sub(lastActivity(s)) < orphanAge {
			continue
		}
		if owesRecord(s) {
			continue // its worktree's next hook or command writes what it owes; deleted, it never would be
		}
		if committed == nil {
			if committed, err = en.committedSessions(ctx); err != nil {
				return plan, err
			}
		}
		if !committed[s.SessionID] {
			plan.States = append(plan.States, OrphanState{State: s, LostWork: s.HasNewContent()})
		}
	}
	if plan.Identities, err = en.orphanIdentities(); err != nil {
		return plan, err
	}
	if plan.UndoSnapshots, err = en.orphanUndoSnapshots(ctx); err != nil {
		return plan, err
	}
	plan.Checkpoints, err = en.orphanCheckpoints(ctx)
	return plan, err
}

// orphanCheckpoints are the auto-commit checkpoints (root strategy auto-commit) no commit's
// trailer names, on any branch, remote-tracking branch or tag (entire's own branches aside)
// or HEAD. The reference looks at the last 1000 commits of local branches only; a teammate's
// checkpoint of a branch only fetched, or of an older commit, is no orphan. Manual-commit
// checkpoints are never listed.
func (en *Maintenance) orphanCheckpoints(ctx context.Context) ([]OrphanCheckpoint, error) {
	rd, err := checkpoint.NewReader(ctx, en.Repo)
	if err != nil {
		return nil, err
	}
	ids, err := rd.ListCommitted(ctx)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	named, err := en.namedCheckpoints(ctx)
	if err != nil {
		return nil, err
	}
	var out []OrphanCheckpoint
	for _, id := range ids {
		if named[id] {
			continue
		}
		c, err := rd.ReadCheckpointInfo(ctx, id)
		if err != nil || c.Summary.Strategy != events.StrategyAutoCommit {
			continue // unreadable: doctor's to report, not clean's to delete
		}
		o := OrphanCheckpoint{ID: id}
		if n := len(c.Slots); n > 0 {
			o.SessionID, o.CreatedAt = c.Slots[n-1].Meta.SessionID, c.Slots[n-1].Meta.CreatedAt
		}
		out = append(out, o)
	}
	return out, nil
}

// namedCheckpoints are the checkpoint IDs the trailers of every commit reachable from a
// branch, remote-tracking branch, tag or HEAD name, entire's own branches aside.
func (en *Maintenance) namedCheckpoints(ctx context.Context) (map[string]bool, error) {
	args := []string{"log", "--exclude=entire/*", "--branches", "--exclude=*/entire/*", "--remotes", "--tags",
		"--grep=Entire-Checkpoint:", "--format=%B%x00"}
	if _, ok, err := en.Repo.Head(ctx); err != nil {
		return nil, err
	} else if ok {
		args = append(args, "HEAD")
	}
	out, err := en.Repo.Run(ctx, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("list linked commits: %w", err)
	}
	named := map[string]bool{}
	for _, msg := range strings.Split(string(out), "\x00") {
		for _, id := range checkpoint.CheckpointTrailers(msg) {
			named[id] = true
		}
	}
	return named, nil
}

// findPrepared sets o.Prepared (or o.PreparedNowhere) when the removed worktree's session
// prepared a checkpoint that is neither written nor pending: its commit's post-commit never
// recorded it, and no hook from that worktree ever will.
func (en *Maintenance) findPrepared(ctx context.Context, o *OrphanState) error {
	id := o.State.Recorder.PreparedID
	if id == "" || slices.ContainsFunc(o.Owed, func(c session.Condense) bool { return c.Commit.CheckpointID == id }) {
		return nil
	}
	rd, err := checkpoint.NewReader(ctx, en.Repo)
	if err != nil {
		return err
	}
	if _, err := rd.Resolve(ctx, id); !errors.Is(err, checkpoint.ErrCheckpointNotFound) {
		return err // written (nil), or the record cannot be read
	}
	// A commit on a branch first (the newest, should an amend have kept the trailer), then one
	// only a reflog still holds (the branch was reset or deleted since).
	for _, refs := range [][]string{{"--exclude=entire/*", "--branches", "--exclude=*/entire/*", "--remotes"}, {"--reflog"}} {
		args := append([]string{"log"}, refs...)
		args = append(args, "--fixed-strings", "--grep=Entire-Checkpoint: "+id, "--format=%H%x00%B%x01")
		out, err := en.Repo.Run(ctx, nil, args...)
		if err != nil {
			return fmt.Errorf("find the commit of checkpoint %s: %w", id, err)
		}
		for _, rec := range strings.Split(string(out), "\x01") {
			commit, msg, ok := strings.Cut(strings.TrimLeft(rec, "\n"), "\x00")
			if ok && slices.Contains(checkpoint.CheckpointTrailers(msg), id) {
				o.Prepared = &DanglingTrailer{Commit: commit, CheckpointID: id, Session: o.State.SessionID}
				return nil
			}
		}
	}
	o.PreparedNowhere = id
	return nil
}

// Clean deletes what PlanClean found, each branch only if it has not moved since, and
// reports each step through done.
func (en *Maintenance) Clean(ctx context.Context, plan CleanPlan, done func(string)) error {
	var errs []error
	// A removed worktree's linked commits whose checkpoints are owed are written first, while
	// the shadow branch is still there; a session whose checkpoint cannot be written is kept.
	keep := map[string]bool{}
	for _, o := range plan.States {
		if !o.WorktreeGone || len(o.Owed) == 0 && o.Prepared == nil {
			continue
		}
		err := en.finishGone(ctx, o.State.SessionID, done)
		if err == nil && o.Prepared != nil {
			if err = en.RepairTrailer(ctx, *o.Prepared); err == nil {
				done("Wrote checkpoint " + o.Prepared.CheckpointID + " of session " + o.State.SessionID + " (commit " + gitexec.OID(o.Prepared.Commit).Short(7) + ")")
			}
		}
		if err != nil {
			errs = append(errs, err)
			keep[o.State.SessionID] = true
			done("Kept session state " + o.State.SessionID + ": its owed checkpoint could not be written (see .entire/logs/entire.log)")
		}
	}
	for _, b := range plan.Branches {
		if b.Worktree != "" && branchOfKept(plan.States, keep, b.Name) {
			continue
		}
		err := en.deleteBranch(ctx, b.Name, b.Tip)
		if errors.Is(err, gitexec.ErrRefMoved) {
			// A hook deleted or wrote the branch since the listing: gone is what clean
			// wanted, and written it is in use again. Neither is a failure of clean.
			switch tip, ok, rerr := en.Repo.ResolveRef(ctx, gitexec.BranchRef(b.Name)); {
			case rerr != nil:
			case !ok:
				done("Shadow branch " + b.Name + " was already deleted")
				continue
			case tip != b.Tip:
				done("Kept shadow branch " + b.Name + ": a session wrote to it since the preview")
				continue
			}
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		done("Deleted shadow branch " + b.Name)
	}
	for _, o := range plan.States {
		if keep[o.State.SessionID] {
			continue
		}
		err := en.RemoveSessionIf(ctx, o.State.SessionID, "entire clean", func(fresh session.State) error {
			return changedSincePlan(o, fresh)
		})
		if errors.Is(err, errChangedSincePlan) {
			done("Kept session state " + o.State.SessionID + ": a hook ran for it since the preview")
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		done("Deleted session state " + o.State.SessionID)
	}
	if err := en.removeOrphanCheckpoints(ctx, plan.Checkpoints, done); err != nil {
		errs = append(errs, err)
	}
	for _, name := range plan.Identities {
		err := os.Remove(filepath.Join(en.Store.Dir, identityPrefix+name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove the cached identity of worktree %s: %w", name, err))
			continue
		}
		done("Deleted the cached git identity of the removed worktree " + name)
	}
	for _, r := range plan.UndoSnapshots {
		err := en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: r.Name, Old: r.OID}})
		switch {
		case errors.Is(err, gitexec.ErrRefMoved):
			done("Kept " + string(r.Name) + ": a rewind moved it since the preview")
		case err != nil:
			errs = append(errs, fmt.Errorf("delete %s: %w", r.Name, err))
		default:
			done("Deleted the rewind undo snapshot " + r.OID.Short(7) + " of a removed worktree (" + string(r.Name) + ")")
		}
	}
	return errors.Join(errs...)
}

// errChangedSincePlan reports an orphaned state that a hook changed after PlanClean listed it.
var errChangedSincePlan = errors.New("changed since the preview")

// changedSincePlan checks, on the state read under the session's lock, that an orphaned state
// is still the one PlanClean listed: a hook of its worktree that ran since (a prompt, a commit
// it linked, whose checkpoint it now owes) brought it back, and deleted it would lose that.
// A removed worktree's session has no hook left; it may owe only what finishGone could not
// write, and is then kept already.
func changedSincePlan(o OrphanState, fresh session.State) error {
	if o.WorktreeGone {
		return nil
	}
	if lastActivity(fresh).After(lastActivity(o.State)) || owesRecord(fresh) {
		return errChangedSincePlan
	}
	return nil
}

// finishGone writes the checkpoints a removed worktree's session owes for commits it linked,
// as its next hook would have, but carries nothing forward: the files were in the worktree.
func (en *Maintenance) finishGone(ctx context.Context, id string, done func(string)) error {
	sess, err := en.Store.Open(id)
	if err != nil {
		return err
	}
	defer engine.CloseSession(en.Engine, sess)
	for _, c := range slices.Clone(sess.State.Recorder.Pending) {
		c.CarryForward = nil
		res, err := en.Condense(ctx, engine.WithAllPrompts(sess), c)
		if err != nil {
			return fmt.Errorf("session %s: %w", id, err)
		}
		if err := sess.Append(res...); err != nil {
			return err
		}
		done("Wrote checkpoint " + c.Commit.CheckpointID + " of session " + id)
	}
	return nil
}

// branchOfKept reports whether a kept session of a removed worktree is on the branch.
func branchOfKept(states []OrphanState, keep map[string]bool, branch string) bool {
	for _, o := range states {
		if keep[o.State.SessionID] && session.ShadowBranch(o.State.BaseCommit, o.State.WorktreeID) == branch {
			return true
		}
	}
	return false
}

// removeOrphanCheckpoints deletes the planned orphan checkpoints that no commit names still
// (one may have become reachable since the preview: it stays).
func (en *Maintenance) removeOrphanCheckpoints(ctx context.Context, planned []OrphanCheckpoint, done func(string)) error {
	if len(planned) == 0 {
		return nil
	}
	named, err := en.namedCheckpoints(ctx)
	if err != nil {
		return err
	}
	var ids []string
	for _, o := range planned {
		if !named[o.ID] {
			ids = append(ids, o.ID)
		}
	}
	if err := en.RemoveCheckpoints(ctx, ids); err != nil {
		return err
	}
	for _, id := range ids {
		done("Deleted checkpoint " + id)
	}
	return nil
}

// ResetPlan is what reset would delete.
type ResetPlan struct {
	Sessions []session.State
	Branch   string      // the shadow branch to delete; "" when another session still uses it
	Tip      gitexec.OID // its tip; "" when it does not exist
	Risks    []string    // why this needs --force: active sessions, uncondensed work
}

// PlanReset targets the sessions based on HEAD in this worktree and HEAD's shadow branch, or,
// with sessionID, that one session and its shadow branch unless another session uses it.
func (en *Maintenance) PlanReset(ctx context.Context, sessionID string) (ResetPlan, error) {
	var plan ResetPlan
	states, err := en.Store.List()
	if err != nil {
		return plan, err
	}
	if sessionID != "" {
		s, ok := findState(states, sessionID)
		if !ok {
			return plan, fmt.Errorf("%w: %s", ErrSessionNotFound, sessionID)
		}
		plan.Sessions, plan.Branch = []session.State{s}, session.ShadowBranch(s.BaseCommit, s.WorktreeID)
		for _, o := range states {
			if o.SessionID != s.SessionID && session.ShadowBranch(o.BaseCommit, o.WorktreeID) == plan.Branch {
				plan.Branch = ""
			}
		}
	} else {
		head, ok, err := en.Repo.Head(ctx)
		if err != nil || !ok {
			return plan, err
		}
		wt := en.Repo.WorktreeID()
		for _, s := range states {
			if s.BaseCommit == string(head) && s.WorktreeID == wt {
				plan.Sessions = append(plan.Sessions, s)
			}
		}
		plan.Branch = session.ShadowBranch(string(head), wt)
	}
	if plan.Branch != "" {
		tip, ok, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(plan.Branch))
		if err != nil {
			return plan, err
		}
		if ok {
			plan.Tip = tip
			plan.Risks = append(plan.Risks, "shadow branch "+plan.Branch+" holds temporary checkpoints")
		} else {
			plan.Branch = ""
		}
	}
	for _, s := range plan.Sessions {
		if s.Phase.Normalize() == session.PhaseActive {
			plan.Risks = append(plan.Risks, "session "+s.SessionID+" is active")
		}
		if s.HasNewContent() {
			plan.Risks = append(plan.Risks, "session "+s.SessionID+" has uncondensed work: "+WorkSummary(s))
		}
	}
	return plan, nil
}

// Reset deletes the planned session states and shadow branch, reporting each step.
func (en *Maintenance) Reset(ctx context.Context, plan ResetPlan, done func(string)) error {
	var errs []error
	for _, s := range plan.Sessions {
		if err := en.removeState(ctx, s.SessionID, "entire reset"); err != nil {
			errs = append(errs, err)
			continue
		}
		done("Deleted session state " + s.SessionID)
	}
	if plan.Branch != "" {
		if err := en.deleteBranch(ctx, plan.Branch, plan.Tip); err != nil {
			errs = append(errs, err)
		} else {
			done("Deleted shadow branch " + plan.Branch)
		}
	}
	return errors.Join(errs...)
}

// WorkSummary describes a state's uncondensed work ("" when none).
func WorkSummary(s session.State) string {
	var parts []string
	if s.CheckpointCount > 0 {
		parts = append(parts, plural(s.CheckpointCount, "checkpoint", "checkpoints"))
	}
	if n := len(s.FilesTouched); n > 0 {
		parts = append(parts, plural(n, "file", "files")+" touched")
	}
	return strings.Join(parts, ", ")
}

// plural is a count and the word that agrees with it: "1 checkpoint", "2 checkpoints".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// shadowBranches lists the shadow branches (spec §1.1) and their tips.
func (en *Maintenance) shadowBranches(ctx context.Context) (map[string]gitexec.OID, error) {
	refs, err := en.Repo.ForEachRef(ctx, "refs/heads/entire/")
	if err != nil {
		return nil, err
	}
	out := map[string]gitexec.OID{}
	for _, r := range refs {
		if name := strings.TrimPrefix(string(r.Name), "refs/heads/"); session.IsShadowBranch(name) {
			out[name] = r.OID
		}
	}
	return out, nil
}

// committedSessions are the session IDs of every slot of every committed checkpoint.
func (en *Maintenance) committedSessions(ctx context.Context) (map[string]bool, error) {
	rd, err := checkpoint.NewReader(ctx, en.Repo)
	if err != nil {
		return nil, err
	}
	ids, err := rd.ListCommitted(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, id := range ids {
		cp, err := rd.ReadCheckpointInfo(ctx, id)
		if err != nil {
			en.Log.Warn("clean: unreadable checkpoint", "checkpoint_id", id, "error", err.Error())
			continue
		}
		for _, s := range cp.Slots {
			out[s.Meta.SessionID] = true
		}
	}
	return out, nil
}

// deleteBranch deletes a branch if it still points at tip (compare-and-swap).
func (en *Maintenance) deleteBranch(ctx context.Context, name string, tip gitexec.OID) error {
	if err := en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: gitexec.BranchRef(name), Old: tip}}); err != nil {
		return fmt.Errorf("delete shadow branch %s: %w", name, err)
	}
	en.Log.Info("deleted shadow branch", "branch", name, "tip", string(tip))
	return nil
}

// removeState removes a session's journal and snapshot, journaling why first (see
// engine.RemoveSession). Callers must not hold the session open (the lock is not reentrant).
func (en *Maintenance) removeState(ctx context.Context, id, reason string) error {
	return en.RemoveSession(ctx, id, reason)
}

// lastActivity is the later of a session's start and its last interaction.
func lastActivity(s session.State) time.Time {
	if s.LastInteractionTime != nil && s.LastInteractionTime.After(s.StartedAt) {
		return *s.LastInteractionTime
	}
	return s.StartedAt
}

func findState(states []session.State, id string) (session.State, bool) {
	for _, s := range states {
		if s.SessionID == id {
			return s, true
		}
	}
	return session.State{}, false
}
