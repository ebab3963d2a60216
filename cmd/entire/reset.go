package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/entirerec/entire/engine/maintenance"
)

// resetCmd is `entire reset` (spec §10): forget the sessions based on HEAD and HEAD's shadow
// branch, or one session with --session. Active sessions, uncondensed work and temporary
// checkpoints are only deleted with --force (or a person's yes).
type resetCmd struct {
	Force   bool   `short:"f" help:"Also reset active sessions and delete uncondensed work."`
	Session string `help:"Reset only this session (its state, and its shadow branch unless another session uses it)." placeholder:"ID"`
}

func (c *resetCmd) Run(e *env) error {
	en, closeEngine, err := openEngine(e)
	if err != nil {
		return err
	}
	defer closeEngine()
	plan, err := maintenance.New(en).PlanReset(e.ctx, c.Session)
	if errors.Is(err, maintenance.ErrSessionNotFound) {
		return fmt.Errorf("session not found: %s (see `entire status`)", c.Session)
	}
	if err != nil {
		return err
	}
	if len(plan.Sessions) == 0 && plan.Branch == "" {
		fmt.Fprintln(e.stdout, "Nothing to reset: no session is based on HEAD.")
		return nil
	}
	fmt.Fprintln(e.stdout, "Reset deletes:")
	for _, s := range plan.Sessions {
		line := fmt.Sprintf("  session state %s (%s", s.SessionID, s.Phase.Normalize())
		if w := maintenance.WorkSummary(s); w != "" {
			line += ", uncondensed: " + w
		}
		fmt.Fprintln(e.stdout, line+")")
	}
	if plan.Branch != "" {
		fmt.Fprintf(e.stdout, "  shadow branch %s\n", plan.Branch)
	}
	if len(plan.Risks) > 0 && !c.Force {
		term := newTerminal()
		if !term.Available() || !term.Confirm(plan.Risks, "Reset anyway and lose this work? [y/N] ", false) {
			return &exitError{code: 1, err: fmt.Errorf("not reset without --force:\n  %s", strings.Join(plan.Risks, "\n  "))}
		}
	}
	return maintenance.New(en).Reset(e.ctx, plan, func(line string) { fmt.Fprintln(e.stdout, line) })
}
