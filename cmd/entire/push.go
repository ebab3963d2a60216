package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/engine/sharing"
	"github.com/entirerec/entire/gitexec"
)

// pushCmd previews what `git push` would send of the record: the record itself leaves the
// machine only through the pre-push hook, alongside the user's own push.
type pushCmd struct {
	DryRun bool   `help:"List what the next push would send of entire/checkpoints/v1: sessions, first prompt lines, sizes, redacted values." name:"dry-run"`
	Remote string `arg:"" optional:"" help:"The remote: a name, or a URL or path as git push takes it (default: where git push pushes the current branch, else origin)."`
}

// defaultPushRemote is where a plain `git push` of the current branch goes, by git's rules:
// branch.<name>.pushRemote, remote.pushDefault, branch.<name>.remote; else the only remote
// configured, when there is one; else origin. A repository whose remote is not named origin
// previews its push there, not an error.
func defaultPushRemote(e *env, repo *gitexec.Repo) string {
	branch, ok, err := repo.HeadBranch(e.ctx)
	keys := []string{"remote.pushDefault"}
	if err == nil && ok {
		keys = []string{"branch." + branch + ".pushRemote", "remote.pushDefault", "branch." + branch + ".remote"}
	}
	for _, k := range keys {
		if v, ok, err := repo.ConfigGet(e.ctx, k); err == nil && ok && v != "" && v != "." {
			return v
		}
	}
	// A branch without an upstream: git pushes to the only remote (`git push -u`, or
	// push.default current, or push.autoSetupRemote), as it names in its advice.
	if remotes, err := repo.Remotes(e.ctx); err == nil && len(remotes) == 1 {
		return remotes[0]
	}
	return "origin"
}

func (c *pushCmd) Run(e *env) error {
	if !c.DryRun {
		return errors.New("entire push only previews (--dry-run): the record is pushed by `git push`, through the pre-push hook")
	}
	en, done, err := openEngine(e)
	if err != nil {
		return err
	}
	defer done()
	if c.Remote == "" {
		c.Remote = defaultPushRemote(e, en.Repo)
	}
	settings, loadErr := setup.LoadSettings(en.Repo.TopLevel)
	if why := setup.RecordHeld(settings, loadErr); why != "" {
		// The pre-push hook sends nothing of the record: say so, not what it would send.
		fmt.Fprintf(e.stdout, "Nothing of the record would be pushed to %s: %s.\n", c.Remote, why)
		return nil
	}
	out, err := en.Sharing().Outgoing(e.ctx, c.Remote)
	if err != nil {
		return err
	}
	printOutgoing(e.stdout, out)
	return nil
}

// printOutgoing describes what a push would send of the record.
func printOutgoing(w io.Writer, out sharing.Outgoing) {
	if len(out.Checkpoints) == 0 {
		fmt.Fprintf(w, "Nothing of the record would be pushed to %s.\n", out.Remote)
		return
	}
	since := "which has none of the record yet"
	switch {
	case out.Since != "" && out.Live:
		since = "whose record is at " + short(out.Since, 7)
	case out.Since != "":
		since = "as of the last fetch of its " + short(out.Since, 7)
	}
	fmt.Fprintf(w, "The next push to %s (%s) would send %s, %d bytes, with %s redacted:\n", out.Remote, since,
		plural(len(out.Checkpoints), "checkpoint", "checkpoints"), out.Bytes, plural(out.Redactions, "value", "values"))
	for _, cp := range out.Checkpoints {
		fmt.Fprintf(w, "  %s\n", cp.ID)
		for _, s := range cp.Slots {
			if s.Slot < 0 {
				fmt.Fprintf(w, "    summary: %d bytes\n", s.Bytes)
				continue
			}
			fmt.Fprintf(w, "    session %s (%s): %d bytes, %d redacted; %q\n", s.SessionID, s.Agent, s.Bytes, s.Redactions, truncate(s.Prompt, 60))
		}
	}
}
