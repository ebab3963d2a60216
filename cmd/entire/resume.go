package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/history"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
	"github.com/entirerec/entire/gitexec"
)

// resumeCmd is `entire resume <branch>` (spec §3.6): check out the branch, restore the
// transcript of every session of its newest checkpoint, and print how to continue each. Every
// check runs before anything changes, so a refusal leaves the repository and the transcripts
// as they were.
type resumeCmd struct {
	Branch string `arg:"" help:"Branch to check out and continue (local, else fetched from origin)."`
	Force  bool   `short:"f" help:"Overwrite local transcripts that differ from the checkpoint's, and fetch a branch only origin has without asking."`
}

// resumeRemote is where resume looks first for branches and records the clone lacks; a
// repository without it looks at its other remotes (checkpoint.RecordRemotes).
const resumeRemote = "origin"

func (c *resumeCmd) Run(e *env) error {
	if recordingDisabled(e) {
		return nil
	}
	en, done, err := openEngine(e)
	if err != nil {
		return err
	}
	defer done()
	repo, term := en.Repo, newTerminal()
	remotes, err := checkpoint.RecordRemotes(e.ctx, repo)
	if err != nil {
		return err
	}

	target, ok, err := c.findBranch(e, en, term, remotes)
	if err != nil || !ok {
		return err
	}
	current, _, err := repo.HeadBranch(e.ctx)
	if err != nil {
		return err
	}
	switching := current != c.Branch
	if switching {
		if err := refuseUncommitted(e, repo); err != nil {
			return err
		}
	}
	plan, err := history.New(en).PlanResume(e.ctx, string(target.Ref), remotes, transcriptPlace(repo))
	var missing *history.MetadataUnavailableError
	if errors.As(err, &missing) {
		plan, err = &history.ResumePlan{}, nil // the branch is still checked out, as the reference does
	}
	if err != nil {
		return err
	}
	if plan.Commit != nil {
		if tip, ok, err := repo.ResolveRef(e.ctx, target.Ref); err == nil && ok && tip != plan.Commit.SHA {
			// Commits without a checkpoint follow it (the reference's words and question; HEAD
			// is never moved). Without a terminal, the older checkpoint is used.
			fmt.Fprintln(e.stderr, "Found checkpoint in an older commit.")
			if !c.Force && term.Available() && !term.Confirm(nil, "Resume from this older checkpoint? [Y/n] ", true) {
				fmt.Fprintln(e.stderr, "Resume cancelled.")
				return nil
			}
		}
	}
	conflicts := plan.Conflicts()
	keep, err := c.settleConflicts(e, term, plan, conflicts)
	if err != nil {
		return err
	}
	if switching {
		if err := repo.Checkout(e.ctx, target.Branch, target.Track); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "Switched to branch '%s'\n", target.Branch)
	}
	if missing != nil {
		// The reference's words and exit status.
		fmt.Fprintf(e.stderr, "Checkpoint '%s' found in commit but session metadata not available (%v)\n", missing.CheckpointID, missing)
		return nil
	}
	if plan.Commit == nil {
		fmt.Fprintf(e.stderr, "No Entire checkpoint found on branch '%s'\n", c.Branch)
		return nil
	}
	fmt.Fprintf(e.stderr, "Checkpoint %s (commit %s %s)\n", plan.Commit.CheckpointID, plan.Commit.SHA.Short(7), plan.Commit.Subject)
	for _, why := range plan.Skipped {
		fmt.Fprintf(e.stderr, "  skipped: %s\n", why)
	}
	hist := history.New(en)
	for _, r := range plan.Restores {
		var written []string
		switch {
		case keep[r.SessionID]:
			for _, kept := range conflicts {
				switch {
				case kept.SessionID != r.SessionID:
				case kept.Copy:
					fmt.Fprintf(e.stderr, "  kept the local copy of %s where %s run here looks for it, without what the checkpoint's adds: %s\n", r.SessionID, r.Agent, kept.Path)
				default:
					fmt.Fprintf(e.stderr, "  kept the local transcript of %s: %s\n", r.SessionID, kept.Path)
				}
			}
			continue
		case r.Status == history.RestoreUpToDate:
			fmt.Fprintf(e.stderr, "  transcript of %s is up to date: %s\n", r.SessionID, r.Path)
		case r.Status == history.RestoreElsewhere:
			fmt.Fprintf(e.stderr, "  left as it is the transcript of %s that the checkout it was recorded in keeps, which holds what the checkpoint's lacks (local %s, checkpoint %s): %s\n",
				r.SessionID, lines(r.LocalLines), lines(r.Lines), r.Path)
		default:
			if err := overwriteTranscript(e, r, r.Status); err != nil {
				return err
			}
			written = append(written, r.Path)
			fmt.Fprintf(e.stderr, "  restored transcript of %s (%s): %s\n", r.SessionID, lines(r.Lines), r.Path)
		}
		if r.Also != "" {
			copied := r
			copied.Path = copied.Also
			if err := overwriteTranscript(e, copied, r.AlsoStatus); err != nil {
				return err
			}
			written = append(written, r.Also)
			fmt.Fprintf(e.stderr, "  and a copy where %s run here looks for it: %s\n", r.Agent, r.Also)
		}
		// The session, continued here, must not count the restored lines again.
		if err := hist.RecordRestored(plan.Commit.CheckpointID, r, written); err != nil {
			en.Log.Warn("record the restored transcript", "session_id", r.SessionID, "error", err.Error())
			fmt.Fprintf(e.stderr, "entire: could not record the restore in session %s (%v); its next checkpoint may count the restored transcript again\n", r.SessionID, err)
		}
	}
	printContinue(e, plan.Restores)
	return nil
}

// findBranch finds the branch to resume: a local one, else a remote's (origin's first),
// fetched (after asking a person, unless --force) so that a branch this clone has never seen can
// be resumed too. ok=false when the person declines.
func (c *resumeCmd) findBranch(e *env, en *engine.Engine, term terminal, remotes []string) (history.BranchTarget, bool, error) {
	target, err := history.FindBranch(e.ctx, en.Repo, c.Branch, "")
	for i, remote := range remotes {
		if !errors.Is(err, history.ErrBranchNotFound) {
			break
		}
		if target, err = history.FindBranch(e.ctx, en.Repo, c.Branch, remote); err == nil {
			// Fetched from there before: fetched from there again first.
			remotes = append([]string{remote}, slices.Delete(slices.Clone(remotes), i, i+1)...)
		}
	}
	known := err == nil
	if known && target.Track == "" {
		return target, true, nil
	}
	if err != nil && !errors.Is(err, history.ErrBranchNotFound) {
		return target, false, err
	}
	primary := resumeRemote
	if len(remotes) > 0 {
		primary = remotes[0] // origin when it is configured
	}
	if !c.Force && term.Available() &&
		!term.Confirm(nil, fmt.Sprintf("Branch '%s' not found locally. Fetch from %s? [Y/n] ", c.Branch, primary), true) {
		fmt.Fprintln(e.stderr, "Resume cancelled.")
		return target, false, nil
	}
	if len(remotes) == 0 {
		remotes = []string{resumeRemote} // says there is no such remote
	}
	// A remote that cannot be fetched does not keep the next one from being asked; its error is
	// the answer when no remote has the branch.
	var fetched history.BranchTarget
	var failed error
	for _, remote := range remotes {
		if fetched, err = history.New(en).FetchBranch(e.ctx, c.Branch, remote); err == nil {
			break
		}
		if failed == nil && !errors.Is(err, history.ErrBranchNotFound) {
			failed = err
		}
	}
	if err != nil && failed != nil {
		err = failed
	}
	switch {
	case err == nil:
		return fetched, true, nil
	case known: // offline, or deleted there since: the remote-tracking branch will do
		fmt.Fprintf(e.stderr, "Warning: %v; resuming %s as last fetched\n", err, target.Ref)
		return target, true, nil
	case errors.Is(err, history.ErrBranchNotFound):
		return target, false, fmt.Errorf("branch '%s' not found locally or on %s", c.Branch, primary)
	}
	return target, false, err
}

// overwriteTranscript writes a restored transcript over what is at r.Path (status): a local
// file holding what the checkpoint's lacks is first copied beside it, and the copy named, so
// that overwriting it (--force, or a person's yes) loses nothing silently.
func overwriteTranscript(e *env, r history.TranscriptRestore, status history.RestoreStatus) error {
	if status == history.RestoreConflict {
		backup, err := history.BackupTranscript(r.Path)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "  the local %s, with entries the checkpoint's lacks, is saved as %s\n", r.Path, backup)
	}
	return history.WriteTranscript(r)
}

// settleConflicts decides about local transcripts the restore would overwrite (content the
// checkpoint's lacks), where it restores them or where the agent here looks for a copy:
// --force overwrites them (overwriteTranscript keeps a copy of each), a person is asked once
// (default: keep them), and without a terminal resume refuses before anything changes. It
// returns the sessions whose local transcripts are kept.
func (c *resumeCmd) settleConflicts(e *env, term terminal, plan *history.ResumePlan, conflicts []history.Conflict) (map[string]bool, error) {
	if len(conflicts) == 0 || c.Force {
		return nil, nil
	}
	newer := true // the reference's case: each local log went on past the checkpoint's last entry
	for _, r := range conflicts {
		newer = newer && !r.LocalLast.IsZero() && !r.LastEntry.IsZero() && r.LocalLast.After(r.LastEntry)
	}
	if newer {
		fmt.Fprintln(e.stderr, "Warning: Local session log(s) have newer entries than the checkpoint:")
	} else {
		fmt.Fprintln(e.stderr, "Warning: Local session log(s) differ from the checkpoint's and would be overwritten:")
	}
	var named []string
	conflicting := map[string]bool{}
	for _, r := range conflicts {
		where := ""
		if r.Copy {
			where = "the copy the agent run here continues; "
		}
		fmt.Fprintf(e.stderr, "  %s: %s (%slocal %s, checkpoint %s)\n", r.SessionID, r.Path, where, lines(r.LocalLines), lines(r.Lines))
		fmt.Fprintf(e.stderr, "    Local last entry:      %s\n", entryTime(r.LocalLast))
		fmt.Fprintf(e.stderr, "    Checkpoint last entry: %s\n", entryTime(r.LastEntry))
		named = append(named, fmt.Sprintf("%s (%s)", r.SessionID, r.Path))
		conflicting[r.SessionID] = true
	}
	if len(conflicting) < len(plan.Restores) {
		fmt.Fprintln(e.stderr, "These other session(s) will also be restored:")
		for _, r := range plan.Restores {
			if !conflicting[r.SessionID] {
				fmt.Fprintf(e.stderr, "  %s: %s (%s)\n", r.SessionID, r.Path, restoreNote[r.Status])
			}
		}
	}
	if !term.Available() {
		return nil, fmt.Errorf("resume would overwrite the local session log(s) of %s; nothing was changed: use --force to overwrite them with the checkpoint's (each is kept beside it as <file>.before-resume)",
			strings.Join(named, ", "))
	}
	if term.Confirm(nil, "Overwrite local session logs with checkpoint versions? [y/N] ", false) {
		return nil, nil
	}
	fmt.Fprintln(e.stderr, "Local session logs preserved.")
	return conflicting, nil
}

// restoreNote says what restoring does to a session's local transcript.
var restoreNote = map[history.RestoreStatus]string{
	history.RestoreNew:       "new",
	history.RestoreUpToDate:  "unchanged",
	history.RestoreBehind:    "checkpoint is newer",
	history.RestoreElsewhere: "another checkout's, left as it is",
}

func lines(n int) string { return plural(n, "line", "lines") }

func entryTime(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}

// printContinue prints the command that continues each session, with its first prompt (spec
// §3.6): the oldest first and the most recent marked when there are several.
func printContinue(e *env, restores []history.TranscriptRestore) {
	line := func(r history.TranscriptRestore, note string) string {
		comment := strings.TrimSpace(truncate(r.Prompt, 60) + note)
		if comment == "" {
			return "  " + history.ResumeCommand(r.Agent, r.SessionID)
		}
		return "  " + history.ResumeCommand(r.Agent, r.SessionID) + "  # " + comment
	}
	switch len(restores) {
	case 0:
		return
	case 1:
		fmt.Fprintf(e.stderr, "\nSession: %s\n\nTo continue this session, run:\n%s\n", restores[0].SessionID, line(restores[0], ""))
		return
	}
	fmt.Fprintf(e.stderr, "\nRestored %d sessions. To continue, run:\n", len(restores))
	for i, r := range restores {
		note := ""
		if i == len(restores)-1 {
			note = " (most recent)"
		}
		fmt.Fprintln(e.stderr, line(r, note))
	}
}

// transcriptPlace is where rewind and resume write transcripts back in this repository.
func transcriptPlace(repo *gitexec.Repo) history.TranscriptPlace {
	return history.TranscriptPlace{
		Override: os.Getenv("ENTIRE_TEST_CLAUDE_PROJECT_DIR"),
		Default: func(agentType, sid string) string {
			a, ok := agents.ByType(agentType)
			if !ok {
				return ""
			}
			if p := a.DefaultTranscript(repo.TopLevel, sid); p != "" {
				return p
			}
			if _, ok := a.(agent.Materializer); ok {
				// The file the hooks export the session to (Materialize writes <dir>/<id>.jsonl):
				// in a clone where the session never ran, it is where the copy goes back.
				return filepath.Join(materializedDir(repo, a), sid+".jsonl")
			}
			return ""
		},
	}
}

// refuseUncommitted refuses to switch branches over uncommitted changes to tracked files, as
// git does before a checkout would lose them. Untracked files and .entire/ do not count.
func refuseUncommitted(e *env, repo *gitexec.Repo) error {
	st, err := repo.Status(e.ctx)
	if err != nil {
		return err
	}
	var dirty []string
	for _, s := range st {
		if s.Untracked() || s.Path == ".entire" || strings.HasPrefix(s.Path, ".entire/") {
			continue
		}
		dirty = append(dirty, s.Path)
	}
	if len(dirty) == 0 {
		return nil
	}
	return fmt.Errorf("you have uncommitted changes. Please commit or stash them first (switching branches would leave them behind):\n  %s",
		strings.Join(dirty, "\n  "))
}
