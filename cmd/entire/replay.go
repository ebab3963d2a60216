package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

type replayCmd struct {
	Session   string `arg:"" help:"Session ID whose journal to replay."`
	StateOnly bool   `help:"Print only the rebuilt session state, byte for byte as the snapshot file."`
}

func (c *replayCmd) Run(e *env) error {
	repo, err := openRepo(e)
	if err != nil {
		return err
	}
	defer repo.Close()
	if err := agent.ValidateSessionID(c.Session); err != nil {
		return &exitError{code: 1, err: fmt.Errorf("replay: %w", err)}
	}
	store := session.NewStore(repo.CommonDir)
	var show func(events.Event, session.State)
	if !c.StateOnly {
		show = func(ev events.Event, s session.State) { printStep(e.stdout, ev, s) }
	}
	final, err := store.Replay(c.Session, show)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("replay %s: %w", c.Session, err)}
	}
	data, err := session.MarshalState(final)
	if err != nil {
		return err
	}
	if !c.StateOnly {
		fmt.Fprintln(e.stdout, "\nFinal state:")
	}
	_, err = e.raw.Write(data) // JSON: its escapes are its own
	return err
}

// printStep shows one event, its payload, and the key fields of the state after it.
func printStep(w io.Writer, ev events.Event, s session.State) {
	data, _ := json.Marshal(ev.Data)
	fmt.Fprintf(w, "#%d %s %s %s\n", ev.Seq, ev.Time.Format("15:04:05.000"), ev.Type, data)
	var b strings.Builder
	fmt.Fprintf(&b, "    -> phase=%s base=%s checkpoints=%d", s.Phase.Normalize(), short(s.BaseCommit, 7), s.CheckpointCount)
	if len(s.FilesTouched) > 0 {
		fmt.Fprintf(&b, " files_touched=%v", s.FilesTouched)
	}
	if s.LastCheckpointID != "" {
		fmt.Fprintf(&b, " last_checkpoint=%s", s.LastCheckpointID)
	}
	if len(s.TurnCheckpointIDs) > 0 {
		fmt.Fprintf(&b, " turn_checkpoints=%v", s.TurnCheckpointIDs)
	}
	if s.ShouldResetShadowBranch {
		b.WriteString(" reset_shadow=true")
	}
	fmt.Fprintln(w, b.String())
}
