package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/gitexec"
)

type disableCmd struct {
	Uninstall bool `help:"Remove hooks, settings, session state and shadow branches (keeps entire/checkpoints/v1)."`
	Force     bool `short:"f" help:"With --uninstall: do not ask."`
}

func (c *disableCmd) Run(e *env) error {
	repo, err := openRepo(e)
	if err != nil {
		return err
	}
	defer repo.Close()
	p, err := setupPaths(e, repo)
	if err != nil {
		return err
	}
	report, err := setup.Disable(p, c.Uninstall)
	for _, l := range report.Lines {
		fmt.Fprintln(e.stdout, l)
	}
	if err != nil {
		return err
	}
	if !c.Uninstall {
		fmt.Fprintln(e.stdout, "Entire is now disabled.")
		return nil
	}
	if err := os.RemoveAll(session.NewStore(repo.CommonDir).Dir); err != nil {
		return fmt.Errorf("remove session state: %w", err)
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
	return nil
}
