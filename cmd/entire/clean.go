package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/maintenance"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/gitexec"
)

// cleanCmd is `entire clean` (spec §5.4, §10): list the shadow branches no session state
// refers to and the session states nothing needs any more; delete them only with --force.
type cleanCmd struct {
	Force     bool `short:"f" help:"Delete what the preview lists."`
	Retention bool `help:"Instead, forget the session slots the retention settings (strategy_options.retention_days, retention_max_mb) no longer keep."`
}

func (c *cleanCmd) Run(e *env) error {
	en, closeEngine, err := openEngine(e)
	if err != nil {
		return err
	}
	defer closeEngine()
	if c.Retention {
		return c.retention(e, en)
	}
	plan, err := maintenance.New(en).PlanClean(e.ctx)
	if err != nil {
		return err
	}
	if plan.Empty() {
		fmt.Fprintln(e.stdout, "No orphaned items to clean up.")
		return nil
	}
	if len(plan.Branches) > 0 {
		fmt.Fprintln(e.stdout, "Orphaned shadow branches (no session of an existing worktree refers to them):")
		for _, b := range plan.Branches {
			if b.Worktree != "" {
				fmt.Fprintf(e.stdout, "  %s (%s of the removed worktree %s, never condensed)\n", b.Name, temporaryCheckpoints(b.Checkpoints), b.Worktree)
				continue
			}
			fmt.Fprintf(e.stdout, "  %s (%s, never condensed)\n", b.Name, temporaryCheckpoints(b.Checkpoints))
		}
	}
	var gone, orphans []maintenance.OrphanState
	for _, o := range plan.States {
		if o.WorktreeGone {
			gone = append(gone, o)
		} else {
			orphans = append(orphans, o)
		}
	}
	if len(gone) > 0 {
		fmt.Fprintln(e.stdout, "Session states of removed worktrees (git no longer has the worktree they ran in):")
		for _, o := range gone {
			s := o.State
			fmt.Fprintf(e.stdout, "  %s (%s, started %s, in %s)\n", s.SessionID, s.Phase.Normalize(), s.StartedAt.UTC().Format("2006-01-02 15:04"), s.WorktreePath)
			for _, c := range o.Owed {
				fmt.Fprintf(e.stdout, "    owes checkpoint %s of commit %s, not written yet: written first, from its shadow branch and transcript\n", c.Commit.CheckpointID, short(c.Commit.Commit, 7))
			}
			if p := o.Prepared; p != nil {
				fmt.Fprintf(e.stdout, "    owes checkpoint %s of commit %s, whose post-commit never recorded it: written first, from its transcript\n", p.CheckpointID, short(p.Commit, 7))
			}
			if o.PreparedNowhere != "" {
				fmt.Fprintf(e.stdout, "    prepared checkpoint %s, which no commit on a branch or in a reflog names (aborted, or gone with its branch): nothing to write\n", o.PreparedNowhere)
			}
			if o.UnmadeCommits > 0 {
				fmt.Fprintf(e.stdout, "    auto-commits of turns never made: %d (not made now: the worktree they were for is gone)\n", o.UnmadeCommits)
			}
		}
	}
	if len(orphans) > 0 {
		fmt.Fprintln(e.stdout, "Orphaned session states (no shadow branch, no committed checkpoint):")
		for _, o := range orphans {
			s := o.State
			line := fmt.Sprintf("  %s (%s, started %s)", s.SessionID, s.Phase.Normalize(), s.StartedAt.UTC().Format("2006-01-02 15:04"))
			if o.LostWork {
				line += fmt.Sprintf("\n    it counts uncondensed work (%s), but its shadow branch %s is gone: that work can no longer be condensed",
					maintenance.WorkSummary(s), session.ShadowBranch(s.BaseCommit, s.WorktreeID))
			}
			fmt.Fprintln(e.stdout, line)
		}
	}
	if len(plan.Checkpoints) > 0 {
		fmt.Fprintln(e.stdout, "Orphaned auto-commit checkpoints (no commit on a branch or tag names them):")
		for _, o := range plan.Checkpoints {
			fmt.Fprintf(e.stdout, "  %s (session %s, %s)\n", o.ID, orUnknown(o.SessionID), o.CreatedAt.UTC().Format("2006-01-02 15:04"))
		}
	}
	if len(plan.Identities) > 0 {
		fmt.Fprintln(e.stdout, "Cached git identities of removed worktrees (.git/entire-sessions/identity@<worktree>):")
		for _, name := range plan.Identities {
			fmt.Fprintf(e.stdout, "  %s\n", name)
		}
	}
	if len(plan.UndoSnapshots) > 0 {
		fmt.Fprintln(e.stdout, "Rewind undo snapshots of removed worktrees (what `entire rewind --undo` would have put back there):")
		for _, r := range plan.UndoSnapshots {
			fmt.Fprintf(e.stdout, "  %s (snapshot %s)\n", r.Name, r.OID.Short(7))
		}
	}
	if !c.Force {
		fmt.Fprintln(e.stdout, "Nothing was deleted. Run with --force to delete these items.")
		return nil
	}
	fmt.Fprintf(e.stdout, "Deleted %d items:\n", len(plan.Branches)+len(plan.States)+len(plan.Checkpoints)+len(plan.Identities)+len(plan.UndoSnapshots))
	return maintenance.New(en).Clean(e.ctx, plan, func(line string) { fmt.Fprintln(e.stdout, "  "+line) })
}

// retention previews, and with --force applies, the retention policy: the slots it lists are
// forgotten as entire forget does.
func (c *cleanCmd) retention(e *env, en *engine.Engine) error {
	settings, err := setup.LoadSettings(en.Repo.TopLevel)
	if err != nil {
		return err
	}
	policy, err := settings.Retention()
	if err != nil {
		return err
	}
	if !policy.Set() {
		return errors.New("no retention is configured: set strategy_options.retention_days and/or retention_max_mb in .entire/settings.json")
	}
	plan, err := maintenance.New(en).PlanRetention(e.ctx, policy, time.Now())
	if err != nil {
		return err
	}
	for _, s := range plan.Skipped {
		fmt.Fprintf(e.stdout, "Skipped %s/%d: session %s is in the middle of a turn.\n", s.CheckpointID, s.Slot, s.SessionID)
	}
	if len(plan.Forget) == 0 {
		fmt.Fprintf(e.stdout, "The record is within its retention (%s, %d bytes).\n", sessionSlots(plan.Kept), plan.Bytes)
		return nil
	}
	fmt.Fprintf(e.stdout, "Session slots past retention (%d; the record goes from %d to %d bytes):\n", len(plan.Forget), plan.Bytes, plan.KeptBytes)
	for _, s := range plan.Forget {
		fmt.Fprintf(e.stdout, "  %s/%d  session %s (%s, %s), %d bytes: %s\n", s.CheckpointID, s.Slot, s.SessionID,
			orUnknown(s.Agent), s.CreatedAt.UTC().Format("2006-01-02 15:04"), s.Bytes, s.Reason)
	}
	if !c.Force {
		fmt.Fprintln(e.stdout, "Nothing was forgotten. Run with --force to forget these session slots.")
		return nil
	}
	now := time.Now().UTC().Truncate(time.Second)
	list := make([]checkpoint.Forgotten, 0, len(plan.Forget))
	for _, s := range plan.Forget {
		list = append(list, checkpoint.Forgotten{CheckpointID: s.CheckpointID, SessionID: s.SessionID, ForgottenAt: now})
	}
	if err := en.Sharing().Forget(e.ctx, list); err != nil {
		return err
	}
	them := "them"
	if len(list) == 1 {
		them = "it"
	}
	fmt.Fprintf(e.stdout, "Forgot %s; the remote loses %s at the next git push.\n", sessionSlots(len(list)), them)
	return nil
}

// openEngine opens the repository and an engine that logs to .entire/logs/entire.log, for
// the commands that change recorded state; the closer releases both.
func openEngine(e *env) (*engine.Engine, func(), error) {
	repo, err := openRepo(e)
	if err != nil {
		return nil, nil, err
	}
	en, closeLog := settledEngine(e, repo)
	return en, func() { closeLog(); repo.Close() }, nil
}

// disabledNote is the reference's word for commands that do nothing while recording is off.
const disabledNote = "Entire is disabled. Run `entire enable` to re-enable."

// recordingDisabled reports (and says) that the merged settings turn recording off; an
// unreadable settings file counts as enabled, as for the hooks.
func recordingDisabled(e *env) bool {
	repo, err := gitexec.Open(e.ctx, e.cwd)
	if err != nil {
		return false
	}
	defer repo.Close()
	s, err := setup.LoadSettings(repo.TopLevel)
	if err != nil || s.Enabled {
		return false
	}
	fmt.Fprintln(e.stdout, disabledNote)
	return true
}

// settledEngine is an engine on repo after it finished what a crashed or failed hook left
// pending, so that the command sees the record whole; the closer closes its log.
func settledEngine(e *env, repo *gitexec.Repo) (*engine.Engine, func()) {
	log, closeLog := openCommandLog(repo.TopLevel, e.stderr)
	en := engine.New(repo, log, e.stderr)
	if err := en.DrainSettled(e.ctx); err != nil {
		log.Error("pending work", "error", err.Error())
	}
	return en, closeLog
}

func temporaryCheckpoints(n int) string {
	return plural(n, "temporary checkpoint", "temporary checkpoints")
}

func sessionSlots(n int) string { return plural(n, "session slot", "session slots") }
