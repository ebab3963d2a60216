package main

import (
	"bufio"
	"fmt"
	"github.com/entirerec/entire/engine/maintenance"
	"os"
	"strings"

	"github.com/entirerec/entire/engine"
)

// doctorCmd is `entire doctor` (spec §5.4, §10): find stuck sessions and condense, discard or
// skip each. Without a terminal it only lists them and what --force would do: condense the
// sessions with uncondensed work into a checkpoint of their own, discard the others.
type doctorCmd struct {
	Force bool `short:"f" help:"Condense stuck sessions with work and discard those without, without asking."`
}

func (c *doctorCmd) Run(e *env) error {
	en, closeEngine, err := openEngine(e)
	if err != nil {
		return err
	}
	defer closeEngine()
	stuck, err := maintenance.New(en).FindStuck(e.ctx)
	if err != nil {
		return err
	}
	if len(stuck) == 0 {
		fmt.Fprintln(e.stdout, "No stuck sessions.")
		return nil
	}
	term := newTerminal()
	interactive := !c.Force && term.Available()
	fmt.Fprintln(e.stdout, "Stuck sessions:")
	for _, st := range stuck {
		fmt.Fprintf(e.stdout, "  %s (%s; %s)\n", st.State.SessionID, st.Reason, describeWork(st))
		action := maintenance.DoctorSkip
		switch {
		case c.Force:
			action = st.Default
		case interactive:
			action = term.chooseDoctor(st)
		default:
			fmt.Fprintf(e.stdout, "    --force would %s it\n", st.Default)
			continue
		}
		if err := c.apply(e, en, st, action); err != nil {
			return err
		}
	}
	if !c.Force && !interactive {
		fmt.Fprintln(e.stdout, "Nothing was changed. Run `entire doctor --force` to do this.")
	}
	return nil
}

func (c *doctorCmd) apply(e *env, en *engine.Engine, st maintenance.StuckSession, action maintenance.DoctorAction) error {
	id := st.State.SessionID
	switch action {
	case maintenance.DoctorCondense:
		cp, err := maintenance.New(en).CondenseStuck(e.ctx, id)
		if err != nil {
			return fmt.Errorf("condense session %s: %w", id, err)
		}
		fmt.Fprintf(e.stdout, "    Condensed session %s into checkpoint %s (no commit carries its trailer; see `entire explain -c %s`)\n", id, cp, cp)
	case maintenance.DoctorDiscard:
		return maintenance.New(en).DiscardSession(e.ctx, id, func(line string) { fmt.Fprintln(e.stdout, "    "+line) })
	default:
		fmt.Fprintf(e.stdout, "    Skipped %s\n", id)
	}
	return nil
}

func describeWork(st maintenance.StuckSession) string {
	w := maintenance.WorkSummary(st.State)
	if w == "" {
		w = "no uncondensed work"
	}
	if st.BranchExists {
		return w + "; shadow branch " + st.Branch
	}
	return w + "; no shadow branch"
}

// chooseDoctor asks on the terminal what to do with a stuck session; skipping is the default,
// and the only answer when ENTIRE_TEST_TTY forces a terminal.
func (t terminal) chooseDoctor(st maintenance.StuckSession) maintenance.DoctorAction {
	if t.forced != "" {
		return maintenance.DoctorSkip
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return maintenance.DoctorSkip
	}
	defer f.Close()
	fmt.Fprintf(f, "Session %s: [c]ondense, [d]iscard or [s]kip? [s] ", st.State.SessionID)
	line, _ := bufio.NewReader(f).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "c", "condense":
		return maintenance.DoctorCondense
	case "d", "discard":
		return maintenance.DoctorDiscard
	}
	return maintenance.DoctorSkip
}
