package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/gitexec"
)

type disableCmd struct {
	Project   bool `help:"Write the disabled setting to the project settings .entire/settings.json (default: .entire/settings.local.json)."`
	Uninstall bool `help:"Remove hooks, settings, session state and shadow branches (keeps entire/checkpoints/v1)."`
	Force     bool `short:"f" help:"With --uninstall: do not ask."`
}

func (c *disableCmd) Run(e *env) error {
	repo, err := openRepo(e)
	if errors.Is(err, errNotRepository) && c.Uninstall {
		fmt.Fprintln(e.stderr, "Not a git repository. Nothing to uninstall.")
		return &exitError{code: 1}
	}
	if err != nil {
		return err
	}
	defer repo.Close()
	p, err := setupPaths(e, repo)
	if err != nil {
		return err
	}
	if c.Uninstall {
		st := setup.Inspect(p)
		_, serr := os.Stat(session.NewStore(repo.CommonDir).Dir)
		if len(st.Agents) == 0 && !st.GitHooks && !st.ProjectExists && !st.LocalExists && serr != nil {
			fmt.Fprintln(e.stdout, "Entire is not installed in this repository.")
			return nil
		}
		fmt.Fprintln(e.stdout, "Uninstalling Entire CLI...")
	}
	kept := 0
	if _, serr := os.Stat(session.NewStore(repo.CommonDir).Dir); c.Uninstall && serr == nil {
		if kept, err = c.discardSessions(e, repo); err != nil {
			return err
		}
	}
	report, err := setup.DisableIn(p, c.Uninstall, c.Project)
	for _, l := range report.Lines {
		fmt.Fprintln(e.stdout, l)
	}
	if err != nil {
		return err
	}
	if !c.Uninstall {
		return nil
	}
	if kept == 0 {
		if err := os.RemoveAll(session.NewStore(repo.CommonDir).Dir); err != nil {
			return fmt.Errorf("remove session state: %w", err)
		}
	}
	refs, err := repo.ForEachRef(e.ctx, "refs/heads/entire/")
	if err != nil {
		return err
	}
	var dels []gitexec.RefUpdate
	for _, r := range refs {
		if session.IsShadowBranch(strings.TrimPrefix(string(r.Name), "refs/heads/")) {
			dels = append(dels, gitexec.RefUpdate{Name: r.Name, Old: r.OID})
		}
	}
	if len(dels) > 0 {
		if err := repo.UpdateRefs(e.ctx, dels); err != nil {
			return fmt.Errorf("delete shadow branches: %w", err)
		}
	}
	fmt.Fprintf(e.stdout, "Entire is uninstalled (%d shadow branches removed).\n", len(dels))
	fmt.Fprintln(e.stdout, "Entire CLI uninstalled successfully.")
	return nil
}

// discardSessions finishes what hooks left pending (so that no trailer loses its checkpoint),
// then discards every session through its journal (session_discarded), as clean and reset do.
// A session whose pending work git still refuses is kept, and said so; it returns how many.
func (c *disableCmd) discardSessions(e *env, repo *gitexec.Repo) (int, error) {
	en, closeLog := settledEngine(e, repo)
	defer closeLog()
	ids, err := en.Store.IDs()
	if err != nil {
		return 0, err
	}
	kept := 0
	for _, id := range ids {
		if s, err := en.Store.Peek(id); err == nil && len(session.Pending(s)) > 0 {
			fmt.Fprintf(e.stdout, "Session %s still owes a checkpoint git would not write; its state is kept (see `entire doctor`).\n", id)
			kept++
			continue
		}
		if err := en.RemoveSession(e.ctx, id, "entire disable --uninstall"); err != nil {
			return kept, fmt.Errorf("discard session %s: %w", id, err)
		}
	}
	return kept, nil
}
