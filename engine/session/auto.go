package session

import (
	"github.com/entirerec/entire/events"
)

// AutoSlot is what the slot of an auto-commit checkpoint holds beyond its start
// (Condense.Start): the turn's end as its Stop read it, and the prompt it began with. It is
// decided at the turn's end, with the commit it owes, so a commit and checkpoint made by a
// later hook (after a crash, or a locked branch) describe the same turn.
type AutoSlot struct {
	To events.Transcript `json:"to"`
	// Prompt is the prompt the turn began with, for lines that hold none (the agent wrote it
	// before the turn's start).
	Prompt string `json:"prompt,omitempty"`
}

// turnSlot is the slot of the current turn's auto-commit checkpoint.
func (s *State) turnSlot() *AutoSlot {
	return &AutoSlot{To: s.Recorder.Scanned, Prompt: s.Recorder.TurnPrompt}
}

// clone is a copy of a slot (nil for none).
func (a *AutoSlot) clone() *AutoSlot {
	if a == nil {
		return nil
	}
	c := *a
	return &c
}
