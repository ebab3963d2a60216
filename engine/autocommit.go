package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/redact"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/gitexec"
)

// autoStrategy is the strategy journaled with a turn: "auto-commit" when configured, else ""
// (manual-commit).
func (en *Engine) autoStrategy() string {
	if en.Strategy == events.StrategyAutoCommit {
		return events.StrategyAutoCommit
	}
	return ""
}

// autoCommit commits the turn's files on the current branch (the auto-commit strategy). The
// commit is built from HEAD's tree and the files' content as the turn left them (turnChanges),
// never from the user's index: what the user staged stays staged and out of it. No git hook runs (the reference's
// rule); the checkpoint its trailer names is written by the condensation the result makes
// pending. The commit is pending work from the turn's end: a retry (after a crash, or a ref
// another git process held) finds the commit by its checkpoint ID and does not commit twice.
func (en *Engine) autoCommit(ctx context.Context, f session.AutoCommit) ([]events.Event, error) {
	for attempt := 1; ; attempt++ {
		res, err := en.autoCommitOnce(ctx, f)
		if !errors.Is(err, gitexec.ErrRefMoved) || attempt == autoCommitAttempts {
			return res, err
		}
	}
}

// autoCommitAttempts is how many times a turn's commit is built: when the branch moved between
// HEAD's read and the commit's move of it (another session's turn ended at the same time), the
// commit is built again on the branch as it is, at once rather than at the session's next hook.
const autoCommitAttempts = 3

// autoCommitOnce is one attempt of autoCommit.
func (en *Engine) autoCommitOnce(ctx context.Context, f session.AutoCommit) ([]events.Event, error) {
	head, ok, err := en.Repo.Head(ctx)
	if err != nil || !ok {
		return nil, fmt.Errorf("auto-commit: no HEAD commit: %v", err)
	}
	branch, attached, err := en.Repo.HeadBranch(ctx)
	if err != nil {
		return nil, err
	}
	done := events.AutoCommitted{CheckpointID: f.CheckpointID, Branch: branch, Files: f.Files, ToolUseID: f.ToolUseID}
	if made := en.madeAutoCommit(ctx, head, f.CheckpointID); made != "" {
		parents, _ := en.Repo.CommitParents(ctx, string(made))
		done.Commit = string(made)
		if len(parents) > 0 {
			done.Parent = string(parents[0])
			if done.Files, err = en.committedFiles(ctx, parents[0], made, f.Files); err != nil {
				return nil, err
			}
		}
		if made != head {
			return []events.Event{en.Event(done)}, nil // commits on top own the index now
		}
		return []events.Event{en.Event(done)}, en.syncIndex(ctx, head, f.Files)
	}
	changes, err := en.turnChanges(ctx, f, head)
	if err != nil {
		return nil, err
	}
	headTree, err := en.treeOf(ctx, string(head))
	if err != nil {
		return nil, err
	}
	_, commit, err := en.Repo.BuildCommit(ctx, headTree, changes, []gitexec.OID{head}, autoCommitMessage(f), headTree)
	if err != nil {
		return nil, fmt.Errorf("auto-commit: %w", err)
	}
	if commit == "" {
		fmt.Fprintln(en.Stderr, "No changes to commit (files already committed)")
		done.Skipped, done.Parent = true, string(head) // a subagent's checkpoint goes on HEAD
		return []events.Event{en.Event(done)}, nil
	}
	ref := gitexec.RefName("HEAD")
	if attached {
		ref = gitexec.BranchRef(branch)
	}
	// The index first: a branch moved with the index left behind would show the agent's work
	// as staged reversions, which the user's next commit would make. When the index cannot be
	// written (another git process holds it), nothing has moved and the next hook tries again;
	// when the branch cannot be moved, the index entries go back to what they were.
	prior, err := en.Repo.IndexEntries(ctx, f.Files)
	if err != nil {
		return nil, fmt.Errorf("auto-commit: %w", err)
	}
	sync := f.Files
	if len(f.Content) > 0 && !en.captured[f.CheckpointID] {
		if sync, err = en.notStagedSince(ctx, f.Files, prior, head, changes); err != nil {
			return nil, err
		}
	}
	if err := en.syncIndex(ctx, commit, sync); err != nil {
		return nil, err
	}
	if err := en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: ref, New: commit, Old: head}}); err != nil {
		if rerr := en.Repo.RestoreIndexEntries(ctx, f.Files, prior); rerr != nil {
			en.Log.Warn("auto-commit: put the index back", "error", rerr.Error())
		}
		return nil, fmt.Errorf("auto-commit: move %s: %w", ref, err)
	}
	en.movedHead = commit
	crashPoint("autocommit:branch-moved")
	fmt.Fprintf(en.Stderr, "Committed code changes to active branch (%s)\n", Short(string(commit), 7))
	done.Commit, done.Parent = string(commit), string(head)
	if done.Files, err = en.committedFiles(ctx, head, commit, f.Files); err != nil {
		return nil, err
	}
	return []events.Event{en.Event(done)}, nil
}

// madeAutoCommit is the commit that carries checkpoint id's trailer: HEAD, or, when an
// earlier hook's work is retried (it may have moved the branch and died before journaling,
// and the user committed since), one of HEAD's last ten first-parent ancestors; "" when none.
func (en *Engine) madeAutoCommit(ctx context.Context, head gitexec.OID, id string) gitexec.OID {
	c := head
	for range 10 {
		msg, err := en.Repo.CommitMessage(ctx, string(c))
		if err != nil {
			return ""
		}
		if slices.Contains(checkpoint.CheckpointTrailers(msg), id) {
			return c
		}
		if !en.retrying {
			return "" // a first try: only HEAD can hold it (a retry of this hook's own)
		}
		parents, err := en.Repo.CommitParents(ctx, string(c))
		if err != nil || len(parents) == 0 {
			return ""
		}
		c = parents[0]
	}
	return ""
}

// committedFiles are the turn's files that commit changes from parent, which its checkpoint
// lists (files_touched): a commit made by a later hook than the turn's end (a locked branch,
// a crash) does not hold a file the user committed, deleted or put back meanwhile.
func (en *Engine) committedFiles(ctx context.Context, parent, commit gitexec.OID, files []string) ([]string, error) {
	diff, err := en.Repo.DiffTree(ctx, string(parent), string(commit))
	if err != nil {
		return nil, fmt.Errorf("auto-commit: %w", err)
	}
	changed := make(map[string]bool, len(diff))
	for _, d := range diff {
		changed[d.Path] = true
	}
	var out []string
	for _, p := range files {
		if changed[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// syncIndex sets the user's index entries of the committed paths to the new commit, so that
// they do not show as staged reversions; every other staged change is left as it was.
func (en *Engine) syncIndex(ctx context.Context, commit gitexec.OID, paths []string) error {
	if err := en.Repo.ResetPaths(ctx, commit, paths); err != nil {
		return fmt.Errorf("auto-commit: update the index: %w", err)
	}
	return nil
}

// autoCommitMessage is the turn's commit message (spec §5): the subject from the turn's last
// prompt (a subagent's: the task subject), then the trailer. The prompt is redacted before
// the subject is cut from it: the commit goes on the user's branch and is pushed with it,
// where a secret the user pasted into the prompt must not go, as it does not go to the record.
func autoCommitMessage(f session.AutoCommit) string {
	if f.Slot != nil && f.Slot.Task != nil {
		return subagentSubject(*f.Slot.Task, f.Slot.Sequence) + "\n\n" + checkpoint.CheckpointTrailer + ": " + f.CheckpointID
	}
	if f.ToolUseID != "" {
		return taskSubject(f.SubagentType, f.Description, f.ToolUseID) + "\n\n" + checkpoint.CheckpointTrailer + ": " + f.CheckpointID
	}
	return agent.CommitSubject(redact.String(f.Prompt)) + "\n\n" + checkpoint.CheckpointTrailer + ": " + f.CheckpointID
}
