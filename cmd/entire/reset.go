package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/entirerec/entire/engine/maintenance"
	"github.com/entirerec/entire/engine/session"
)

// resetCmd is `entire reset` (spec §3.7): forget the sessions based on HEAD and HEAD's shadow
// branch, or one session with --session. Without --force an active session on HEAD stops it
// (the reference's guard), and anything else is deleted only after a person's yes.
type resetCmd struct {
	Force   bool   `short:"f" help:"Do not ask; also reset active sessions and delete uncondensed work."`
	Session string `help:"Reset only this session (its state, and its shadow branch unless another session uses it)." placeholder:"ID"`
}

// resetQuestion is the reference's question before a reset (spec §3.7), or before resetting one
// session.
func (c *resetCmd) resetQuestion() string {
	if c.Session != "" {
		return fmt.Sprintf("Reset session %s?", c.Session)
	}
	return "Reset session data?"
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
	if !c.Force && c.Session == "" && c.activeOnHead(e, plan) {
		return nil
	}
	printResetPlan(e, plan)
	if ok, err := c.confirm(e, plan); err != nil || !ok {
		return err
	}
	if err := maintenance.New(en).Reset(e.ctx, plan, func(line string) { fmt.Fprintln(e.stdout, line) }); err != nil {
		return err
	}
	if c.Session != "" {
		fmt.Fprintf(e.stdout, "Session %s has been reset. File changes remain in the working directory.\n", c.Session)
	}
	return nil
}

// printResetPlan previews what a reset deletes.
func printResetPlan(e *env, plan maintenance.ResetPlan) {
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
}

// confirm asks before a reset without --force, with the work at risk as context; without a
// terminal to ask on it refuses, naming --force. It reports whether to go on.
func (c *resetCmd) confirm(e *env, plan maintenance.ResetPlan) (bool, error) {
	if c.Force {
		return true, nil
	}
	term := newTerminal()
	if !term.Available() {
		force := "entire reset --force"
		if c.Session != "" {
			force = "entire reset --session " + c.Session + " --force"
		}
		return false, fmt.Errorf("not reset: there is no terminal to ask %q; run `%s` to reset without asking%s",
			c.resetQuestion(), force, strings.Join(append([]string{""}, plan.Risks...), "\n  "))
	}
	if !term.Confirm(plan.Risks, c.resetQuestion()+" [y/N] ", false) {
		fmt.Fprintln(e.stdout, "Reset cancelled.")
		return false, nil
	}
	return true, nil
}

// activeOnHead is the reference's guard (spec §3.7): while a session on HEAD is active, a reset
// without --force only says so, on stderr, and succeeds without deleting anything.
func (c *resetCmd) activeOnHead(e *env, plan maintenance.ResetPlan) bool {
	var active []session.State
	for _, s := range plan.Sessions {
		if s.Phase.Normalize() == session.PhaseActive {
			active = append(active, s)
		}
	}
	if len(active) == 0 {
		return false
	}
	fmt.Fprintln(e.stderr, "Active sessions detected on current HEAD:")
	for _, s := range active {
		fmt.Fprintf(e.stderr, "  %s (phase: %s)\n", s.SessionID, s.Phase.Normalize())
	}
	fmt.Fprintln(e.stderr, "Use --force to override or wait for sessions to finish.")
	return true
}
