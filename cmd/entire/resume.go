package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/gitexec"
)

// resumeCmd is `entire resume <branch>` (spec §3.6): check out the branch, restore the
// transcripts of its newest checkpoint, and print how to continue each session. Every check
// runs before anything changes, so a refusal leaves the repository and the transcripts as
// they were.
type resumeCmd struct {
	Branch string `arg:"" help:"Branch to check out and continue (local, or origin's)."`
	Force  bool   `short:"f" help:"Overwrite local transcripts that have more lines than the checkpoint's."`
}

// resumeRemote is where resume looks for branches and records the clone lacks.
const resumeRemote = "origin"

func (c *resumeCmd) Run(e *env) error {
	en, done, err := openEngine(e)
	if err != nil {
		return err
	}
	defer done()
	repo := en.Repo

	target, err := engine.FindBranch(e.ctx, repo, c.Branch, resumeRemote)
	if errors.Is(err, engine.ErrBranchNotFound) {
		return fmt.Errorf("branch %q not found: it is not a local branch and %s/%s does not exist (git fetch %s?)",
			c.Branch, resumeRemote, c.Branch, resumeRemote)
	}
	if err != nil {
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
	plan, err := en.PlanResume(e.ctx, string(target.Ref), resumeRemote, transcriptPlace(repo))
	if err != nil {
		return err
	}
	keep, err := c.decideNewer(plan.Restores)
	if err != nil {
		return err
	}
	if switching {
		if err := repo.Checkout(e.ctx, target.Branch, target.Track); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Switched to branch '%s'\n", target.Branch)
	}
	if plan.Commit == nil {
		fmt.Fprintf(e.stdout, "No Entire checkpoint found on branch '%s'\n", c.Branch)
		return nil
	}
	fmt.Fprintf(e.stdout, "Checkpoint %s (commit %s %s)\n", plan.Commit.CheckpointID, plan.Commit.SHA.Short(7), plan.Commit.Subject)
	for _, why := range plan.Skipped {
		fmt.Fprintf(e.stdout, "  skipped: %s\n", why)
	}
	for _, r := range plan.Restores {
		switch {
		case keep[r.SessionID]:
			fmt.Fprintf(e.stdout, "  kept the newer local transcript of %s: %s\n", r.SessionID, r.Path)
		case r.Status == engine.RestoreUpToDate:
			fmt.Fprintf(e.stdout, "  transcript of %s is up to date: %s\n", r.SessionID, r.Path)
		default:
			if err := engine.WriteTranscript(r); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "  restored transcript of %s (%d lines): %s\n", r.SessionID, r.Lines, r.Path)
		}
	}
	printContinue(e, plan.Restores)
	return nil
}

// printContinue prints the command that continues each session, with its first prompt (spec
// §3.6): the oldest first and the most recent marked when there are several.
func printContinue(e *env, restores []engine.TranscriptRestore) {
	line := func(r engine.TranscriptRestore, note string) string {
		comment := strings.TrimSpace(truncate(r.Prompt, 60) + note)
		if comment == "" {
			return "  " + engine.ResumeCommand(r.Agent, r.SessionID)
		}
		return "  " + engine.ResumeCommand(r.Agent, r.SessionID) + "  # " + comment
	}
	switch len(restores) {
	case 0:
		return
	case 1:
		fmt.Fprintf(e.stdout, "\nSession: %s\n\nTo continue this session, run:\n%s\n", restores[0].SessionID, line(restores[0], ""))
		return
	}
	fmt.Fprintf(e.stdout, "\nRestored %d sessions. To continue, run:\n", len(restores))
	for i, r := range restores {
		note := ""
		if i == len(restores)-1 {
			note = " (most recent)"
		}
		fmt.Fprintln(e.stdout, line(r, note))
	}
}

// decideNewer settles local transcripts that are newer than the checkpoint's: --force
// overwrites them, a person is asked (default: keep), and without a terminal resume refuses.
// It returns the sessions whose local transcript is kept.
func (c *resumeCmd) decideNewer(restores []engine.TranscriptRestore) (map[string]bool, error) {
	keep := map[string]bool{}
	var refused []string
	term := newTerminal()
	for _, r := range restores {
		if r.Status != engine.RestoreLocalNewer || c.Force {
			continue
		}
		what := fmt.Sprintf("%s has %d lines, the checkpoint's transcript of %s has %d", r.Path, r.LocalLines, r.SessionID, r.Lines)
		if !term.Available() {
			refused = append(refused, what)
			continue
		}
		if !term.Confirm([]string{"The local transcript is newer: " + what + "."}, "Overwrite it? [y/N] ", false) {
			keep[r.SessionID] = true
		}
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("local transcript newer than the checkpoint's, not overwritten:\n  %s\nnothing was changed; run with --force to overwrite",
			strings.Join(refused, "\n  "))
	}
	return keep, nil
}

// transcriptPlace is where rewind and resume write transcripts back in this repository.
func transcriptPlace(repo *gitexec.Repo) engine.TranscriptPlace {
	return engine.TranscriptPlace{
		Override: os.Getenv("ENTIRE_TEST_CLAUDE_PROJECT_DIR"),
		Default: func(agent, sid string) string {
			if agent != engine.AgentClaudeCode {
				return ""
			}
			return defaultTranscriptPath(repo.TopLevel, sid)
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
	return fmt.Errorf("your local changes would be left behind by switching branches:\n  %s\nplease commit or stash them before you resume",
		strings.Join(dirty, "\n  "))
}
