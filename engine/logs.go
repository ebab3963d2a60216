package engine

import (
	"context"
	"log/slog"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
)

// The engine's INFO lines about a session's phase and about checkpoints go under their own
// component (entire-cli.md §2); its other lines keep the caller's ("hooks"). Each names the
// session it is about as session_id. None holds a prompt or transcript text, and none costs
// a git process or a file read: what they say, the hook already knows.
const (
	componentSession    = "session"
	componentCheckpoint = "checkpoint"
)

// logs reports whether lines of level are written; a line's attributes are built only then.
func (en *Engine) logs(level slog.Level) bool {
	return en.Log != nil && en.Log.Enabled(context.Background(), level)
}

// logFor is the engine's logger for one component's lines: the caller's, with the component
// replaced (the hooks' log handler keeps one component per line).
func (en *Engine) logFor(component string) *slog.Logger {
	return en.Log.With("component", component)
}

// phaseEvent is the state machine's name for an input event that can change a session's phase
// (seed 000), or "".
func phaseEvent(p events.Payload) string {
	switch p.(type) {
	case events.TurnStarted:
		return "TurnStart"
	case events.TurnEnded:
		return "TurnEnd"
	case events.GitCommitted:
		return "GitCommit"
	case events.SessionStarted:
		return "SessionStart"
	case events.SessionStopped:
		return "SessionStop"
	}
	return ""
}

// logRecorded writes the INFO lines of an input event the journal just took, from the states
// before and after it and the effects it calls for: a change of phase (a new session starts
// idle, as the state file's first phase is), a turn that ends without a checkpoint, and a
// linked commit that does not condense the session.
func (en *Engine) logRecorded(before, after session.State, input events.Event, effects []session.Effect) {
	if !after.Exists() || !en.logs(slog.LevelInfo) {
		return
	}
	if from, to := before.Phase.Normalize(), after.Phase.Normalize(); from != to {
		if name := phaseEvent(input.Data); name != "" {
			en.logFor(componentSession).Info("phase transition", "session_id", after.SessionID,
				"event", name, "from", string(from), "to", string(to))
		}
	}
	switch d := input.Data.(type) {
	case events.TurnEnded:
		for _, eff := range effects {
			if _, ok := eff.(session.WriteShadowCheckpoint); ok {
				return // its result says whether it was saved (logResults)
			}
		}
		if len(after.Recorder.Commits) > len(before.Recorder.Commits) {
			return // the turn's auto-commit is pending (logResults when it is made)
		}
		en.logFor(componentCheckpoint).Info("checkpoint skipped (no changes)", "session_id", after.SessionID,
			"checkpoint_count", after.CheckpointCount)
	case events.GitCommitted:
		if d.CheckpointID == "" {
			return // no trailer: prepare-commit-msg said why (logLink)
		}
		if why := session.NotCondensed(before, d); why != "" {
			en.logFor(componentCheckpoint).Info("commit not condensed", "session_id", after.SessionID,
				"checkpoint_id", d.CheckpointID, "commit", d.Commit, "reason", why)
		}
	}
}

// logResults writes the INFO lines of the results of a session's effects: checkpoints saved,
// skipped, condensed into a commit's checkpoint, finalized.
func (en *Engine) logResults(sess *session.Session, res []events.Event) {
	if len(res) == 0 || !en.logs(slog.LevelInfo) {
		return
	}
	log := en.logFor(componentCheckpoint)
	id := sess.ID
	for _, e := range res {
		switch d := e.Data.(type) {
		case events.ShadowCheckpointWritten:
			log.Info("checkpoint saved", "session_id", id, "strategy", "manual-commit", "shadow_branch", d.Branch,
				"checkpoint_count", sess.State.CheckpointCount, "files", len(d.Files))
		case events.ShadowCheckpointSkipped:
			log.Info("checkpoint skipped (no changes)", "session_id", id, "reason", d.Reason,
				"checkpoint_count", sess.State.CheckpointCount)
		case events.TaskCheckpointWritten:
			log.Info("task checkpoint saved", "session_id", id, "tool_use_id", d.ToolUseID, "shadow_branch", d.Branch,
				"files", len(d.Files), "incremental", d.Incremental)
		case events.AutoCommitted:
			switch {
			case d.Skipped:
				log.Info("checkpoint skipped (no changes)", "session_id", id, "strategy", "auto-commit",
					"checkpoint_id", d.CheckpointID, "reason", "already committed")
			case d.ToolUseID != "":
				log.Info("task checkpoint saved", "session_id", id, "strategy", "auto-commit", "tool_use_id", d.ToolUseID,
					"checkpoint_id", d.CheckpointID, "commit", d.Commit, "files", len(d.Files))
			default:
				log.Info("checkpoint saved", "session_id", id, "strategy", "auto-commit",
					"checkpoint_id", d.CheckpointID, "commit", d.Commit, "files", len(d.Files))
			}
		case events.CheckpointCondensed:
			log.Info("checkpoint condensed", "session_id", id, "checkpoint_id", d.CheckpointID, "commit", d.UserCommit,
				"files", len(d.Files), "provisional", d.Provisional)
		case events.CheckpointsFinalized:
			if len(d.Finalized) > 0 {
				log.Info("checkpoints finalized", "session_id", id, "checkpoints", len(d.Finalized))
			}
		}
	}
}

// logLinked writes prepare-commit-msg's decision to link the commit being made to checkpoint
// id: the trailer was added, kept or restored (trailer), for the sessions linked, when known.
func (en *Engine) logLinked(trailer, id string, linked []session.State) {
	if !en.logs(slog.LevelInfo) {
		return
	}
	attrs := []any{"trailer", trailer, "checkpoint_id", id}
	switch len(linked) {
	case 0:
	case 1:
		attrs = append(attrs, "session_id", linked[0].SessionID)
	default:
		ids := make([]string, len(linked))
		for i, s := range linked {
			ids[i] = s.SessionID
		}
		attrs = append(attrs, "session_ids", ids)
	}
	en.logFor(componentCheckpoint).Info("commit linked", attrs...)
}

// logNotLinked writes prepare-commit-msg's decision not to link the commit being made, and why.
func (en *Engine) logNotLinked(why string) {
	if en.logs(slog.LevelInfo) {
		en.logFor(componentCheckpoint).Info("commit not linked", "reason", why)
	}
}
