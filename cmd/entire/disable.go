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
	Uninstall bool `help:"Remove hooks, settings, session state and shadow branches (keeps entire/checkpoints/v1); asks first."`
	Force     bool `short:"f" help:"With --uninstall: do not ask (needed where there is no terminal to ask on)."`
}

// uninstallQuestion is the reference's question before an uninstall (spec §3.2).
const uninstallQuestion = "Are you sure you want to uninstall Entire?"

func (c *disableCmd) Run(e *env) error {
	if c.Force && !c.Uninstall {
		return errors.New("--force only goes with --uninstall (a plain disable asks nothing): run `entire disable`, or `entire disable --uninstall --force`")
	}
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
		if ok, err := c.confirmUninstall(e, repo); err != nil || !ok {
			return err
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
	if err != nil || !c.Uninstall {
		return err
	}
	return c.removeRecorderState(e, repo, kept)
}

// confirmUninstall asks before anything is removed (spec §3.2), saying what the uninstall
// deletes. --force skips the question; without a terminal to ask on, nothing is removed unless
// --force says so. It reports whether to go on.
func (c *disableCmd) confirmUninstall(e *env, repo *gitexec.Repo) (bool, error) {
	if c.Force {
		return true, nil
	}
	loses, err := uninstallLoses(e, repo)
	if err != nil {
		return false, err
	}
	term := newTerminal()
	if !term.Available() {
		for _, l := range loses {
			fmt.Fprintln(e.stderr, l)
		}
		return false, fmt.Errorf("not uninstalled: there is no terminal to ask %q; run `entire disable --uninstall --force` to uninstall without asking", uninstallQuestion)
	}
	if !term.Confirm(loses, uninstallQuestion+" [y/N] ", false) {
		fmt.Fprintln(e.stdout, "Uninstall cancelled. Nothing was removed.")
		return false, nil
	}
	return true, nil
}

// uninstallLoses says what an uninstall deletes besides the hooks: the session states and the
// shadow branches, whose temporary checkpoints hold agent work no commit has condensed.
func uninstallLoses(e *env, repo *gitexec.Repo) ([]string, error) {
	out := []string{"Uninstalling removes the hooks and .entire/ (entire/checkpoints/v1 stays)."}
	ids, err := session.NewStore(repo.CommonDir).IDs()
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		out = append(out, "It deletes the state of "+plural(len(ids), "session", "sessions")+".")
	}
	shadows, err := shadowRefs(e, repo)
	if err != nil {
		return nil, err
	}
	for _, r := range shadows {
		out = append(out, fmt.Sprintf("It deletes shadow branch %s (temporary checkpoints of agent work not yet in a commit's checkpoint).",
			strings.TrimPrefix(string(r.Name), "refs/heads/")))
	}
	return out, nil
}

// removeRecorderState deletes the session directory (unless kept sessions remain in it) and
// the shadow branches, once the hooks are gone.
func (c *disableCmd) removeRecorderState(e *env, repo *gitexec.Repo, kept int) error {
	if kept == 0 {
		if err := os.RemoveAll(session.NewStore(repo.CommonDir).Dir); err != nil {
			return fmt.Errorf("remove session state: %w", err)
		}
	}
	refs, err := shadowRefs(e, repo)
	if err != nil {
		return err
	}
	var dels []gitexec.RefUpdate
	for _, r := range refs {
		dels = append(dels, gitexec.RefUpdate{Name: r.Name, Old: r.OID})
	}
	if len(dels) > 0 {
		if err := repo.UpdateRefs(e.ctx, dels); err != nil {
			return fmt.Errorf("delete shadow branches: %w", err)
		}
	}
	fmt.Fprintf(e.stdout, "Entire is uninstalled (%s removed).\n", plural(len(dels), "shadow branch", "shadow branches"))
	fmt.Fprintln(e.stdout, "Entire CLI uninstalled successfully.")
	return nil
}

// shadowRefs lists the shadow branches (entire/<sha7>-<hash6>) and their tips.
func shadowRefs(e *env, repo *gitexec.Repo) ([]gitexec.Ref, error) {
	refs, err := repo.ForEachRef(e.ctx, "refs/heads/entire/")
	if err != nil {
		return nil, err
	}
	var out []gitexec.Ref
	for _, r := range refs {
		if session.IsShadowBranch(strings.TrimPrefix(string(r.Name), "refs/heads/")) {
			out = append(out, r)
		}
	}
	return out, nil
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
