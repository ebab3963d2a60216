package session

import (
	"cmp"
	"slices"
	"time"

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
	// Task is set for a subagent's checkpoint: the subagent's end (or incremental step, number
	// Sequence) recorded at At, whose task record the checkpoint holds (spec §5 Subagents).
	Task     *events.SubagentEnded `json:"task,omitempty"`
	Sequence int                   `json:"sequence,omitempty"`
	At       time.Time             `json:"at,omitzero"`
}

// turnSlot is the slot of the current turn's auto-commit checkpoint.
func (s *State) turnSlot() *AutoSlot {
	return &AutoSlot{To: s.Recorder.Scanned, Prompt: s.Recorder.TurnPrompt}
}

// clone is a deep copy of a slot (nil for none).
func (a *AutoSlot) clone() *AutoSlot {
	if a == nil {
		return nil
	}
	c := *a
	if a.Task != nil {
		t := *a.Task
		t.Files, t.Todo, t.Captured = cloneStrings(t.Files), slices.Clone(t.Todo), slices.Clone(t.Captured)
		c.Task = &t
	}
	return &c
}

// taskSlot is the slot of a subagent's checkpoint under auto-commit; an incremental step
// takes the next step number.
func (s *State) taskSlot(d events.SubagentEnded, at time.Time) *AutoSlot {
	a := s.turnSlot()
	a.Task, a.At = &d, at
	a = a.clone()         // the event's lists are not the state's
	a.Task.Captured = nil // the commit's (AutoCommit.Content), not the task record's
	if d.Incremental {
		s.Recorder.TaskSteps++
		a.Sequence = s.Recorder.TaskSteps
	}
	return a
}

// subagentEnded records the end (or an incremental step) of a subagent under auto-commit
// (spec §5 Subagents): with files, the commit it owes, its checkpoint to follow; without, no
// commit, but its checkpoint, on HEAD.
func (s *State) subagentEnded(in State, d events.SubagentEnded, at time.Time) {
	if d.Worktree.Head == "" || in.Recorder.Strategy != events.StrategyAutoCommit || d.CheckpointID == "" {
		return
	}
	slot := s.taskSlot(d, at)
	if len(d.Files) == 0 {
		s.owe(Condense{Commit: events.GitCommitted{Commit: d.Worktree.Head, CheckpointID: d.CheckpointID, ToolUseID: d.ToolUseID}, Auto: slot})
		return
	}
	s.Recorder.Commits = append(withoutCommit(s.Recorder.Commits, d.CheckpointID), AutoCommit{Files: cloneStrings(d.Files),
		CheckpointID: d.CheckpointID, ToolUseID: d.ToolUseID, SubagentType: d.SubagentType, Description: d.Description,
		Slot: slot, Head: d.Worktree.Head, Content: capturedOf(d.Captured, d.Files),
		Since: owedContent(in.Recorder.Commits, d.Files)})
}

// owe makes the checkpoint of an auto-commit (or of a subagent on HEAD) pending work.
func (s *State) owe(c Condense) {
	c.Commit.Overlap, c.Commit.Strategy = true, events.StrategyAutoCommit
	s.Recorder.Pending = append(withoutPending(s.Recorder.Pending, c.Commit.CheckpointID), c)
}

// autoCommitted applies the commit of an auto-commit turn: it is linked to the session by
// construction, so its checkpoint is owed at once, like a linked user commit's. The checkpoint
// covers that turn alone (one step, from before its prompt); work of earlier manual-commit
// turns that is still uncommitted is not its own (ManualWorkLeft).
func (s *State) autoCommitted(in State, d events.AutoCommitted) {
	owed := slices.IndexFunc(in.Recorder.Commits, func(c AutoCommit) bool { return c.CheckpointID == d.CheckpointID })
	s.Recorder.Commits = withoutCommit(s.Recorder.Commits, d.CheckpointID)
	c := Condense{Commit: events.GitCommitted{Commit: d.Commit, CheckpointID: d.CheckpointID, Branch: d.Branch,
		Files: cloneStrings(d.Files), ToolUseID: d.ToolUseID}}
	c.Auto = in.turnSlot() // a commit journaled before slots were
	if owed >= 0 {
		c.Start = cloneTranscript(in.Recorder.Commits[owed].Start)
		if sl := in.Recorder.Commits[owed].Slot; sl != nil {
			c.Auto = sl.clone()
		}
	}
	if d.Skipped || d.Commit == "" {
		if t := c.Auto.Task; t != nil {
			// The subagent's files were committed already: its task is still recorded, on HEAD.
			if c.Commit.Commit = cmp.Or(d.Parent, t.Worktree.Head); c.Commit.Commit != "" {
				c.Commit.Files = nil
				s.owe(c)
			}
		}
		return
	}
	s.owe(c)
	s.Recorder.LastCommit = d.Commit
	if in.CheckpointCount == 0 {
		// Otherwise the base still names the shadow branch of manual-commit work, which the
		// condensation moves to the new commit (Engine.Condense) or, once the commit holds
		// all of that work, deletes.
		s.BaseCommit = d.Commit
	}
	if s.TranscriptIdentifierAtStart == "" {
		s.TranscriptIdentifierAtStart = s.Recorder.TurnStart.LastUUID
	}
}

// ManualWorkLeft are the files of the session's manual-commit work that an auto-commit
// checkpoint leaves uncommitted: the session wrote temporary checkpoints (manual-commit turns
// before the strategy was switched) and not every one of its files is in the commit. That
// work is not the auto-commit turn's to claim: it stays on its shadow branch, which follows
// HEAD, and the session keeps it for the user's commit (linksUserCommits), which condenses it
// as manual-commit does.
func ManualWorkLeft(s State, c Condense) []string {
	if c.Auto == nil || s.CheckpointCount == 0 {
		return nil
	}
	committed := set(c.Commit.Files)
	var left []string
	for _, p := range s.FilesTouched {
		if !committed[p] {
			left = append(left, p)
		}
	}
	return left
}

// keptManualWork applies an auto-commit condensation that leaves manual-commit work
// uncommitted (ManualWorkLeft): that work's bookkeeping (steps, transcript offsets,
// attributions, shadow tip) stays as it was, for the commit that will condense it. It reports
// whether it applied d.
func (s *State) keptManualWork(in State, d events.CheckpointCondensed) bool {
	c, _ := pendingFor(in, d.CheckpointID)
	left := ManualWorkLeft(in, c)
	if len(left) == 0 {
		return false
	}
	s.Recorder.Pending = withoutPending(s.Recorder.Pending, d.CheckpointID)
	s.FilesTouched = left
	s.LastCheckpointID = d.CheckpointID
	// The slot's usage delta counted the lines up to here.
	s.Recorder.UsageOffset, s.Recorder.UsageLines = d.Transcript.Offset, d.Transcript.Lines
	s.Recorder.UsageOpen = d.UsageOpen
	if len(d.Chunks) > 0 {
		s.Recorder.Chunks, s.Recorder.ChunksPath = cloneChunks(d.Chunks), d.Transcript.Path
	}
	return true
}

// pendingFor is the session's pending condensation of checkpoint id.
func pendingFor(s State, id string) (Condense, bool) {
	var c Condense
	found := false
	for _, p := range s.Recorder.Pending {
		if p.Commit.CheckpointID == id {
			c, found = p, true
		}
	}
	return c, found
}

// linksUserCommits reports whether a user's commit may carry the session's work: always
// under manual-commit; under auto-commit, whose turns commit their own work (the reference's
// git hooks do nothing), only while work recorded under manual-commit is left.
func (s State) linksUserCommits() bool {
	return s.Recorder.Strategy != events.StrategyAutoCommit || s.CheckpointCount > 0
}
