package session

import (
	"slices"
	"sort"

	"github.com/entirerec/entire/events"
)

// Effect is git work the reducer asks the engine to carry out. Each effect's outcome comes back
// as a result event, which Evolve applies; the reducer itself performs no I/O.
type Effect interface {
	// EffectName names the effect in logs and effect_failed events.
	EffectName() string
}

// MigrateShadow moves the session's shadow branch to follow HEAD, which moved without a
// commit of this session (stash, pull, rebase, or an unlinked commit).
type MigrateShadow struct {
	OldBase, NewBase string
}

// FollowCommit takes a session that a linked commit did not condense to the new HEAD. Its
// uncommitted files (Files, none for a session without work) are snapshotted afresh onto the
// new HEAD's shadow branch, as carry-forward does for a condensed session, and the branch it
// leaves is deleted unless another session still builds on it (see followCommit).
type FollowCommit struct {
	NewBase string
	Files   []string
}

// WriteShadowCheckpoint snapshots the worktree and the transcript onto the shadow branch.
type WriteShadowCheckpoint struct {
	Files []string // the agent's files of this turn
	Reset bool     // start the shadow branch afresh (no overlap at prompt start)
}

// Condense writes the session into the committed checkpoint of a user commit. It is pending
// work in the session state until its CheckpointCondensed result is journaled.
type Condense struct {
	Commit      events.GitCommitted `json:"commit"`
	Provisional bool                `json:"provisional,omitempty"` // mid-turn: finalized at turn end
	// CarryForward are the session's files that stay uncommitted agent work (carryForward).
	CarryForward []string `json:"carry_forward,omitempty"`
	// Start is where the checkpoint's transcript begins when it is not where the session's last
	// condensation ended: a turn's auto-commit starts at the turn's pre-prompt position.
	Start *events.Transcript `json:"start,omitempty"`
	// Auto is set for the checkpoint of an auto-commit: what else its slot holds.
	Auto *AutoSlot `json:"auto,omitempty"`
}

// RemoveSession deletes the session's journal and state snapshot, as a maintenance command
// decided (session_discarded).
type RemoveSession struct{}

// DeleteShadow removes the shadow branch a condensation emptied, unless another session of
// the worktree with uncommitted work (active or idle) builds on it.
type DeleteShadow struct {
	Branch string `json:"branch"`
	Tip    string `json:"tip,omitempty"` // the session's last checkpoint on it, tried first
}

// AutoCommit commits the turn's files on the current branch with the Entire-Checkpoint trailer
// (the auto-commit strategy); its checkpoint follows as a pending condensation. It is pending
// work in the session state from the turn's end until its AutoCommitted result is journaled,
// so a commit a crash or a locked branch interrupted is made by the next hook.
type AutoCommit struct {
	Files        []string `json:"files"`
	CheckpointID string   `json:"checkpoint_id"`
	// Prompt is the turn's prompt, the commit's subject; a subagent's commit (its task
	// checkpoint) takes its subject from ToolUseID, SubagentType and Description instead.
	Prompt       string `json:"prompt,omitempty"`
	ToolUseID    string `json:"tool_use_id,omitempty"`
	SubagentType string `json:"subagent_type,omitempty"`
	Description  string `json:"description,omitempty"`
	// Start is the turn's pre-prompt transcript position, where its checkpoint's transcript
	// begins (spec §5, Stop steps 1 and 4); nil for a subagent's commit, or when unknown.
	Start *events.Transcript `json:"start,omitempty"`
	// Slot is what else the commit's checkpoint holds.
	Slot *AutoSlot `json:"slot,omitempty"`
	// Head is HEAD when the turn ended, and Content its files as the turn left them then
	// (TurnEnded.Captured), which the commit holds whenever it is made; none in journals of
	// older recorders, whose commits take the files from the worktree.
	Head    string               `json:"head,omitempty"`
	Content []events.FileContent `json:"content,omitempty"`
	// Since is what the session's commits still owed when the turn ended hold of its files:
	// once they are made, HEAD holds that, not what Head does, and the turn builds on it.
	Since []events.FileContent `json:"since,omitempty"`
}

// WriteTaskCheckpoint snapshots a subagent's work onto the shadow branch (spec §2.4).
type WriteTaskCheckpoint struct {
	ToolUseID   string
	Incremental bool
	Reset       bool // the turn's first checkpoint after a prompt with no overlap (seed 003)
}

// Finalize rewrites provisional checkpoints with the complete transcript.
type Finalize struct {
	CheckpointIDs []string
	// KeepScope: the session has work waiting to be condensed (a carried-forward file, edits
	// after the turn's last commit). The transcript after that commit stays its checkpoint's:
	// neither its start (seed caveat 5: a carry-forward checkpoint holds the whole transcript)
	// nor its token usage moves to the finalized checkpoints.
	KeepScope bool
}

func (MigrateShadow) EffectName() string         { return "migrate-shadow" }
func (FollowCommit) EffectName() string          { return "follow-commit" }
func (WriteShadowCheckpoint) EffectName() string { return "write-shadow-checkpoint" }
func (Condense) EffectName() string              { return "condense" }
func (Finalize) EffectName() string              { return "finalize" }
func (WriteTaskCheckpoint) EffectName() string   { return "write-task-checkpoint" }
func (RemoveSession) EffectName() string         { return "remove-session" }
func (DeleteShadow) EffectName() string          { return "delete-shadow" }
func (AutoCommit) EffectName() string            { return "auto-commit" }

// Decide returns the effects an input event calls for, given the state before the event.
// Result events call for nothing.
func Decide(s State, e events.Event) []Effect {
	var out []Effect
	switch d := e.Data.(type) {
	case events.SessionStarted:
		out = appendFinalize(out, s, s.HasNewContent())
	case events.TurnStarted:
		if s.Exists() && d.Worktree.Head != "" && s.BaseCommit != d.Worktree.Head {
			out = append(out, MigrateShadow{OldBase: s.BaseCommit, NewBase: d.Worktree.Head})
		}
		// A turn that never reached its end (crash, interrupt) left provisional checkpoints;
		// a turn that goes on finalizes them at its end.
		if !ContinuesTurn(s, d) {
			out = appendFinalize(out, s, s.HasNewContent())
		}
	case events.TurnEnded:
		if !s.Exists() && d.Worktree.Head == "" {
			return nil
		}
		if s.Exists() && d.Worktree.Head != "" && s.BaseCommit != d.Worktree.Head {
			// HEAD moved during the turn (the agent pulled, stashed or rebased).
			out = append(out, MigrateShadow{OldBase: s.BaseCommit, NewBase: d.Worktree.Head})
		}
		files := turnFiles(s, d)
		switch {
		case d.Strategy == events.StrategyAutoCommit && d.CheckpointID != "":
			// The turn's commit is pending work in the evolved state (Pending).
		case checkpointDue(s, d):
			out = append(out, WriteShadowCheckpoint{Files: files, Reset: s.ShouldResetShadowBranch})
		}
		out = appendFinalize(out, s, s.HasNewContent() || len(files) > 0)
	case events.SessionStopped:
		out = appendFinalize(out, s, s.HasNewContent())
	case events.SubagentEnded:
		switch {
		case len(d.Files) == 0 || d.Worktree.Head == "":
		case s.Recorder.Strategy == events.StrategyAutoCommit && d.CheckpointID != "":
			// The subagent's commit is pending work in the evolved state (Pending).
		default:
			out = append(out, WriteTaskCheckpoint{ToolUseID: d.ToolUseID, Incremental: d.Incremental, Reset: s.ShouldResetShadowBranch})
		}
	case events.GitCommitted:
		// A linked commit's condensation becomes pending work in the state (Evolve), which
		// Pending hands out; only a commit that does not condense the session calls for
		// something here.
		if _, linked := condenseFor(s, d); !linked && !sequenced(s, d) && s.BaseCommit != d.Commit {
			out = append(out, followCommit(s, d))
		}
	}
	return out
}

// followCommit is how a session that a commit does not condense follows HEAD. After a commit
// without checkpoint its shadow branch is renamed for the new base (spec §1.1). After a linked
// commit it is not: the sessions that commit condensed shared the branch, whose history now
// holds committed work. Renamed, it would offer that work as rewind points and, once the
// session's own work is committed, outlive every session that could delete it. The session's
// uncommitted files are snapshotted afresh instead, content-aware as for a condensed session
// (carryForward); a session without work only takes the new base.
func followCommit(s State, d events.GitCommitted) Effect {
	if d.CheckpointID == "" || !s.Exists() || s.Recorder.Strategy == events.StrategyAutoCommit {
		return MigrateShadow{OldBase: s.BaseCommit, NewBase: d.Commit}
	}
	f := FollowCommit{NewBase: d.Commit}
	if s.HasNewContent() {
		f.Files = carryForward(s, d, s.Phase.Normalize() == PhaseActive)
	}
	return f
}

// Pending is the work a session's state still owes: condensations of linked commits, then the
// auto-commits of turns, oldest first, then the shadow branch the condensations emptied. Every
// hook and command performs it before anything else (an auto-commit waits while git runs a
// hook: the branch must not move under it).
func Pending(s State) []Effect {
	if s.Recorder.Discarded {
		return []Effect{RemoveSession{}} // nothing else is owed to a removed session
	}
	var out []Effect
	for _, c := range s.Recorder.Pending {
		out = append(out, c)
	}
	for _, c := range s.Recorder.Commits {
		out = append(out, c)
	}
	if s.Recorder.ShadowToDelete != nil && len(s.Recorder.Pending) == 0 {
		out = append(out, *s.Recorder.ShadowToDelete)
	}
	return out
}

// condenseFor is the one link decision of a commit for a session: whether it is condensed,
// and how. prepare-commit-msg asks the same question through LinksCommit before writing the
// trailer, and journals its answer (PreparedID), which the commit then honours.
func condenseFor(s State, d events.GitCommitted) (Condense, bool) {
	if NotCondensed(s, d) != "" {
		return Condense{}, false
	}
	phase := s.Phase.Normalize()
	return Condense{
		Commit:       d,
		Provisional:  phase == PhaseActive,
		CarryForward: carryForward(s, d, phase == PhaseActive),
	}, true
}

// NotCondensed says why a commit with these facts is not condensed into the session's
// checkpoint, "" when it is: condenseFor's decision in words, for the log.
func NotCondensed(s State, d events.GitCommitted) string {
	switch {
	case sequenced(s, d):
		return "made by a rebase, cherry-pick or revert"
	case d.CheckpointID == "":
		return "no checkpoint trailer"
	case !s.Exists():
		return "no session state"
	case !s.linksUserCommits():
		return "auto-commit session: its turns make their own commits"
	case s.Recorder.PreparedID == d.CheckpointID:
		return "" // prepare-commit-msg linked it: the commit honours that decision
	}
	return condenseRefusal(s, s.Phase.Normalize(), d)
}

// sequenced reports a commit a rebase, cherry-pick or revert made whose trailer this session's
// prepare-commit-msg did not write: a picked commit's own trailer, whose checkpoint is not this
// session's to write. One it did write (a single revert or cherry-pick, which prepare-commit-msg
// cannot tell from an ordinary commit: git leaves no REVERT_HEAD then) is condensed, or the
// trailer would name a checkpoint that never comes.
func sequenced(s State, d events.GitCommitted) bool {
	return d.Sequencer && (d.CheckpointID == "" || s.Recorder.PreparedID != d.CheckpointID)
}

// carryForward decides which of the session's files stay uncommitted agent work after a linked
// commit (content-aware, spec §3.8 and seed scenario 7): those the commit does not contain, or
// contains with other content than the session's (partial staging), unless the worktree holds
// the commit's content. A mid-turn commit before any checkpoint takes the transcript's edits.
func carryForward(s State, d events.GitCommitted, provisional bool) []string {
	candidates := s.FilesTouched
	if len(candidates) == 0 && provisional {
		candidates = d.TurnEdited
	}
	inCommit, diverged, settled := set(d.Files), set(d.Diverged), set(d.Settled)
	var out []string
	for _, p := range candidates {
		if (!inCommit[p] || diverged[p]) && !settled[p] {
			out = append(out, p)
		}
	}
	return out
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, x := range list {
		m[x] = true
	}
	return m
}

// LinksCommit reports whether a commit with these facts would carry the session's work, as
// prepare-commit-msg must decide before the commit exists.
func LinksCommit(s State, d events.GitCommitted) bool {
	if !s.linksUserCommits() {
		return false
	}
	return shouldCondense(s, s.Phase.Normalize(), d)
}

// shouldCondense applies the per-phase conditions of spec §3.8 and the seeds' state machine.
func shouldCondense(s State, phase Phase, d events.GitCommitted) bool {
	return condenseRefusal(s, phase, d) == ""
}

// condenseRefusal is shouldCondense's answer in words: "" when the session is condensed.
func condenseRefusal(s State, phase Phase, d events.GitCommitted) string {
	const nothingNew, notCarried = "nothing new since the last checkpoint", "the commit does not carry the session's work"
	switch phase {
	case PhaseActive:
		if !s.HasNewContent() && !d.TranscriptGrew {
			return nothingNew
		}
	case PhaseEnded:
		// CondenseIfFilesTouched / DiscardIfNoFiles.
		if len(s.FilesTouched) == 0 {
			return "ended session without files"
		}
		if !d.Overlap {
			return notCarried
		}
	default:
		if !s.HasNewContent() && !d.TranscriptGrew {
			return nothingNew
		}
		if !d.Overlap {
			return notCarried
		}
	}
	return ""
}

// appendFinalize adds the finalization of the turn's provisional checkpoints, if any; waiting
// tells whether the session still has work to condense once the event is applied.
func appendFinalize(out []Effect, s State, waiting bool) []Effect {
	if len(s.TurnCheckpointIDs) == 0 {
		return out
	}
	return append(out, Finalize{CheckpointIDs: cloneStrings(s.TurnCheckpointIDs), KeepScope: waiting})
}

// Evolve applies one event to a state and returns the new state. It is pure: time comes from
// the event, and the input state is not modified.
func Evolve(in State, e events.Event) State {
	s := in.clone()
	s.Recorder.JournalSeq = e.Seq
	if s.Exists() {
		s.Phase = s.Phase.Normalize()
	}
	t := e.Time
	switch d := e.Data.(type) {
	case events.SessionStarted:
		if !s.Exists() {
			return s
		}
		switch s.Phase.Normalize() {
		case PhaseEnded:
			s.Phase = PhaseIdle
			s.EndedAt = nil
		}
		if d.Transcript.Path != "" {
			s.TranscriptPath = d.Transcript.Path
		}
	case events.TurnStarted:
		if ContinuesTurn(s, d) {
			// More input to the open turn: it keeps its start, prompt, files and attribution,
			// and its end reads the transcript from where it began, this prompt included.
			s.followWorktree(d.Worktree)
			s.LastInteractionTime = &t
			break
		}
		if !s.Exists() {
			tasks := s.Recorder.Tasks
			s = initialState(d, e)
			s.Recorder.Tasks = tasks
			if r := d.Restored; r != nil {
				// Resumed from a checkpoint: what was restored is in it, its usage counted.
				s.Recorder.CondensedOffset, s.CheckpointTranscriptStart = r.Offset, r.Lines
				s.Recorder.UsageOffset, s.Recorder.UsageLines = r.Offset, r.Lines
			}
		}
		s.followWorktree(d.Worktree)
		if s.Phase.Normalize() == PhaseEnded {
			s.EndedAt = nil
		}
		s.Phase = PhaseActive
		s.LastInteractionTime = &t
		s.TurnID = d.TurnID
		s.LastCheckpointID = ""
		if s.AgentType == "" || s.AgentType == "Agent" {
			s.AgentType = d.Agent
		}
		if s.FirstPrompt == "" {
			s.FirstPrompt = FirstPrompt(d.Prompt)
		}
		if d.Transcript.Path != "" {
			s.TranscriptPath = d.Transcript.Path
		}
		s.ShouldResetShadowBranch = resetShadow(d)
		if d.Attribution != nil {
			a := *d.Attribution
			a.CheckpointNumber = s.CheckpointCount + 1
			s.PendingPromptAttribution = &a
		}
		if d.LateUsage != nil && in.Exists() {
			u := *d.LateUsage
			if s.TokenUsage != nil {
				u = s.TokenUsage.Add(u)
			}
			s.TokenUsage = &u
		}
		s.Recorder.TurnOpen = nil
		s.Recorder.TurnStart = d.Transcript
		s.Recorder.PrePrompt = cloneTranscript(d.PrePrompt)
		if d.Cwd != "" {
			s.Recorder.AgentCwd = d.Cwd
		}
		s.Recorder.TurnPrompt = d.Prompt
		s.Recorder.AgentTurnID = d.AgentTurnID
		s.scanned(d.Transcript, d.PriorPrompts)
		s.Recorder.DirtyAtTurnStart = cloneStrings(d.DirtyFiles)
		s.Recorder.Strategy = d.Strategy
	case events.TurnEnded:
		if !s.Exists() {
			s = initialState(events.TurnStarted{SessionID: d.SessionID, Agent: d.Agent, Worktree: d.Worktree}, e)
			s.LastInteractionTime = &t
		}
		s.followWorktree(d.Worktree)
		if s.Phase.Normalize() == PhaseActive {
			s.Phase = PhaseIdle
			s.LastInteractionTime = &t
		}
		if d.Transcript.Path != "" {
			s.TranscriptPath = d.Transcript.Path
		}
		s.scanned(d.Transcript, d.Prompts)
		if d.Cwd != "" {
			s.Recorder.AgentCwd = d.Cwd
		}
		if !d.Usage.IsZero() {
			u := d.Usage
			if s.TokenUsage != nil {
				u = s.TokenUsage.Add(d.Usage)
			}
			s.TokenUsage = &u
		}
		s.Recorder.TurnOpen = d.UsageOpen
		// The turn's files are the session's whether or not its checkpoint can be written: a
		// lost race on the shadow branch must not drop them from the next commit's checkpoint.
		// Files the agent wrote back to HEAD's content are no longer its work.
		files := turnFiles(in, d)
		s.FilesTouched = MergeSorted(without(s.FilesTouched, revertedFiles(in, d)), files)
		if !checkpointDue(in, d) {
			s.ShouldResetShadowBranch = false
		}
		if files := AutoCommitFiles(in, d); len(files) > 0 {
			prompt := s.Recorder.TurnPrompt
			if n := len(d.Prompts); n > 0 {
				prompt = d.Prompts[n-1]
			}
			s.Recorder.Commits = append(withoutCommit(s.Recorder.Commits, d.CheckpointID),
				AutoCommit{Files: files, CheckpointID: d.CheckpointID, Prompt: prompt, Start: cloneTranscript(s.Recorder.PrePrompt),
					Slot: s.turnSlot(), Head: d.Worktree.Head, Content: capturedOf(d.Captured, files),
					Since: owedContent(in.Recorder.Commits, files)})
		}
		if !in.Exists() && in.Recorder.Restored == nil && s.onlyTalked() {
			// A turn end with no turn start before it that leaves nothing (a Stop arriving after
			// its talk-only session ended and was retired, or after its state was removed): no
			// state is kept for it, as none was at the session's end. A later prompt starts the
			// session afresh, and its first checkpoint reads the transcript from its start.
			s.Recorder.Discarded = true
		}
	case events.SessionStopped:
		if !s.Exists() {
			// Ended before its first prompt: nothing was recorded, and its journal goes,
			// unless it keeps where a resumed transcript ends for the session's next run.
			s.Recorder.Discarded = s.Recorder.Restored == nil
			return s
		}
		if s.Phase.Normalize() != PhaseEnded {
			s.Phase = PhaseEnded
			s.LastInteractionTime = &t
			s.EndedAt = &t
		}
		if s.onlyTalked() {
			// Ended having recorded nothing and owing nothing: no later commit can link it (an
			// ended session without files never condenses), so its journal goes now rather
			// than waiting for entire clean. The same ID coming back starts afresh.
			s.Recorder.Discarded = true
		}
	case events.CommitPrepared:
		s.Recorder.PreparedID = d.CheckpointID
	case events.SessionDiscarded:
		s.Recorder.Discarded = true
	case events.GitCommitted:
		if c, linked := condenseFor(in, d); linked {
			s.Recorder.Pending = append(withoutPending(s.Recorder.Pending, c.Commit.CheckpointID), c)
		}
		s.Recorder.PreparedID = ""
		s.Recorder.LastCommit = d.Commit
		if sequenced(in, d) || d.CheckpointID == "" {
			return s
		}
		s.LastInteractionTime = &t
	case events.ShadowBranchMigrated:
		s.BaseCommit = d.NewBase
	case events.ShadowCheckpointWritten:
		// A reset starts a new commit chain on the shadow branch; the session's own files keep
		// accumulating across prompts (seed scenarios 5 and 6).
		s.CheckpointCount++
		if s.PendingPromptAttribution != nil {
			s.PromptAttributions = append(s.PromptAttributions, *s.PendingPromptAttribution)
			s.PendingPromptAttribution = nil
		}
		s.FilesTouched = MergeSorted(s.FilesTouched, d.Files)
		s.BaseCommit = d.BaseCommit
		s.ShouldResetShadowBranch = false
		s.Recorder.LastShadowCommit = d.Commit
		if len(d.Chunks) > 0 {
			s.Recorder.ShadowChunks, s.Recorder.ShadowChunksPath = cloneChunks(d.Chunks), d.Transcript.Path
		}
		if s.TranscriptIdentifierAtStart == "" {
			s.TranscriptIdentifierAtStart = s.Recorder.TurnStart.LastUUID
		}
	case events.ShadowCheckpointSkipped:
		s.ShouldResetShadowBranch = false
	case events.AutoCommitted:
		s.autoCommitted(in, d)
	case events.StateRestored:
		if r, err := UnmarshalState(d.State); err == nil {
			s = r
			s.Recorder.JournalSeq = e.Seq
		}
	case events.SubagentStarted:
		s.Recorder.Tasks = startTask(s.Recorder.Tasks, d, e)
	case events.SubagentEnded:
		if !s.Exists() {
			tasks := s.Recorder.Tasks
			s = initialState(events.TurnStarted{SessionID: d.SessionID, Agent: d.Agent, Worktree: d.Worktree, Transcript: d.Transcript}, e)
			s.Recorder.Tasks = tasks
		}
		s.FilesTouched = MergeSorted(s.FilesTouched, d.Files)
		if !d.Incremental {
			s.Recorder.Tasks = slices.DeleteFunc(s.Recorder.Tasks, func(o OpenTask) bool { return o.ToolUseID == d.ToolUseID })
		}
		s.subagentEnded(in, d, t)
	case events.TaskCheckpointWritten:
		// Task checkpoints do not count as steps; their files join the session's (spec §2.4).
		s.FilesTouched = MergeSorted(s.FilesTouched, d.Files)
		s.BaseCommit = d.BaseCommit
		s.Recorder.LastShadowCommit = d.Commit
		if d.Incremental {
			s.Recorder.TaskSteps++
		}
		// The turn's first checkpoint, of whatever kind, used the reset (seed 003: once).
		s.ShouldResetShadowBranch = false
	case events.CheckpointCondensed:
		if c, ok := pendingFor(in, d.CheckpointID); ok && c.Auto != nil && c.Auto.Task == nil {
			s.Recorder.AutoCheckpoints++
		}
		if s.keptManualWork(in, d) {
			break
		}
		s.Recorder.Pending = withoutPending(s.Recorder.Pending, d.CheckpointID)
		if in.BaseCommit != d.UserCommit {
			s.Recorder.ShadowToDelete = &DeleteShadow{Branch: ShadowBranch(in.BaseCommit, in.WorktreeID), Tip: in.Recorder.LastShadowCommit}
		}
		s.BaseCommit = d.UserCommit
		s.AttributionBaseCommit = d.UserCommit
		s.CheckpointCount = 0
		s.CheckpointTranscriptStart = d.Transcript.Lines
		s.Recorder.CondensedOffset = d.Transcript.Offset
		s.PromptAttributions = nil
		s.PendingPromptAttribution = nil
		s.FilesTouched = nil
		s.LastCheckpointID = d.CheckpointID
		s.Recorder.LastShadowCommit = ""
		s.Recorder.UsageOffset, s.Recorder.UsageLines = d.Transcript.Offset, d.Transcript.Lines
		s.Recorder.UsageOpen = d.UsageOpen
		if len(d.Chunks) > 0 {
			s.Recorder.Chunks, s.Recorder.ChunksPath = cloneChunks(d.Chunks), d.Transcript.Path
		}
		if d.Provisional && !contains(s.TurnCheckpointIDs, d.CheckpointID) {
			s.TurnCheckpointIDs = append(s.TurnCheckpointIDs, d.CheckpointID)
		}
	case events.ShadowBranchDeleted:
		if s.Recorder.ShadowToDelete != nil && s.Recorder.ShadowToDelete.Branch == d.Branch {
			s.Recorder.ShadowToDelete = nil
		}
	case events.CarriedForward:
		if d.NewBase != "" {
			s.followed(in, d)
			break
		}
		s.FilesTouched = MergeSorted(nil, d.Files)
		s.CheckpointCount = 1
		s.CheckpointTranscriptStart = 0
		s.Recorder.CondensedOffset = 0
		s.LastCheckpointID = ""
		s.Recorder.LastShadowCommit = d.Commit
	case events.Rewound:
		if !s.Exists() {
			return s
		}
		s.rewound(d)
	case events.TranscriptRestored:
		if !s.Exists() {
			r := d
			s.Recorder.Restored = &r
			return s
		}
		s.restored(d)
	case events.CheckpointsFinalized:
		var pending []string
		for _, id := range s.TurnCheckpointIDs {
			if !contains(d.Finalized, id) {
				pending = append(pending, id)
			}
		}
		s.TurnCheckpointIDs = pending
		// The finalized checkpoints now hold the transcript to its end, and the next checkpoint
		// starts there, unless work waiting to be condensed keeps it (Finalize.KeepScope).
		moved := len(d.Finalized) > 0 && !d.ScopeKept
		if moved && d.Transcript.Lines > s.CheckpointTranscriptStart {
			s.CheckpointTranscriptStart = d.Transcript.Lines
			s.Recorder.CondensedOffset = d.Transcript.Offset
		}
		if len(d.Chunks) > 0 {
			s.Recorder.Chunks, s.Recorder.ChunksPath = cloneChunks(d.Chunks), d.Transcript.Path
		}
		if moved && d.Transcript.Offset > s.Recorder.UsageOffset {
			s.Recorder.UsageOffset, s.Recorder.UsageLines = d.Transcript.Offset, d.Transcript.Lines
			s.Recorder.UsageOpen = d.UsageOpen
		}
	}
	return s
}

// followed applies a FollowCommit's result: the session's uncommitted files (if any are left)
// are on the new base's shadow branch, and the branch its work was on is deleted unless
// another session still builds on it. Its transcript offsets stay: nothing was condensed.
func (s *State) followed(in State, d events.CarriedForward) {
	if in.HasNewContent() && in.BaseCommit != d.NewBase {
		s.Recorder.ShadowToDelete = &DeleteShadow{Branch: ShadowBranch(in.BaseCommit, in.WorktreeID), Tip: in.Recorder.LastShadowCommit}
	}
	s.BaseCommit = d.NewBase
	s.FilesTouched = MergeSorted(nil, d.Files)
	s.Recorder.LastShadowCommit = d.Commit
	switch {
	case len(s.FilesTouched) == 0:
		s.CheckpointCount = 0
	case s.CheckpointCount == 0:
		s.CheckpointCount = 1
	}
}

// followWorktree takes the path at which the session's worktree was seen: the same worktree
// (Engine.otherWorktree lets through no other) at a new path, after its directory was renamed
// or `git worktree move` moved it, so that the commits made there find the session.
func (s *State) followWorktree(wt events.Worktree) {
	if wt.Path != "" && wt.ID == s.WorktreeID {
		s.WorktreePath = wt.Path
		if s.Recorder.WorktreeMark == "" {
			s.Recorder.WorktreeMark = wt.Mark
		}
	}
}

func initialState(d events.TurnStarted, e events.Event) State {
	return State{
		SessionID:             d.SessionID,
		CLIVersion:            d.Worktree.CLIVersion,
		BaseCommit:            d.Worktree.Head,
		AttributionBaseCommit: d.Worktree.Head,
		WorktreePath:          d.Worktree.Path,
		WorktreeID:            d.Worktree.ID,
		StartedAt:             e.Time,
		Phase:                 PhaseIdle,
		AgentType:             d.Agent,
		TranscriptPath:        d.Transcript.Path,
		UntrackedFilesAtStart: cloneStrings(d.UntrackedFiles),
		Recorder:              Recorder{JournalSeq: e.Seq, WorktreeMark: d.Worktree.Mark},
	}
}

// ContinuesTurn reports whether a prompt is more input to the session's open turn rather than
// a new turn: the agent gave it the open turn's own ID (Codex runs its prompt hook with the
// running turn's turn_id for a message the user types while the model works), or it takes
// every prompt during a turn as such (d.JoinsOpenTurn: Copilot CLI's prompts name no turn).
func ContinuesTurn(s State, d events.TurnStarted) bool {
	if !s.Exists() || s.Phase.Normalize() != PhaseActive {
		return false
	}
	return d.JoinsOpenTurn || d.AgentTurnID != "" && d.AgentTurnID == s.Recorder.AgentTurnID
}

// resetShadow is the overlap check at prompt start (seed 003, phase 1): when HEAD's shadow
// branch exists and the worktree is clean, or its changes do not overlap the branch's files,
// the branch holds dismissed work and the next checkpoint starts it afresh.
func resetShadow(d events.TurnStarted) bool {
	if d.ResetShadow {
		return true // decided by an older recorder
	}
	return d.ShadowExists && len(Intersect(d.DirtyFiles, d.ShadowFiles)) == 0
}

// turnFiles are the agent's files of a turn that still differ from HEAD: those the transcript
// says it edited, plus paths that became dirty during the turn (shell commands leave no trace
// in the transcript). Under auto-commit, where the files become a commit on the user's
// branch, a tracked file changed in place is the session's only when its transcript says so,
// and a new or deleted file only when no other live session's transcript claims it (spec §5,
// Stop step 2): the user's hand edits and another session's work stay out of the commit.
// Journals of older recorders carry the decided list.
func turnFiles(s State, d events.TurnEnded) []string {
	if d.Edited == nil && d.Dirty == nil {
		return d.Files
	}
	if d.Strategy == events.StrategyAutoCommit {
		others := MergeSorted(d.Modified, d.Claimed)
		return agentFiles(d.Edited, d.Dirty, MergeSorted(s.Recorder.DirtyAtTurnStart, others))
	}
	return agentFiles(d.Edited, d.Dirty, s.Recorder.DirtyAtTurnStart)
}

// AutoCommitFiles are the files an auto-commit turn's end commits (turnFiles), none when the
// turn makes no commit. The turn-end hook asks before journaling the turn, to capture their
// content (TurnEnded.Captured).
func AutoCommitFiles(s State, d events.TurnEnded) []string {
	if d.Worktree.Head == "" || d.Strategy != events.StrategyAutoCommit || d.CheckpointID == "" {
		return nil
	}
	return turnFiles(s, d)
}

// capturedOf is the captured content of files (a new copy, in files' order).
func capturedOf(captured []events.FileContent, files []string) []events.FileContent {
	want := set(files)
	var out []events.FileContent
	for _, c := range captured {
		if want[c.Path] {
			out = append(out, c)
		}
	}
	return out
}

// owedContent is what the commits owed hold of files: each file's content in the last of them
// that holds it.
func owedContent(owed []AutoCommit, files []string) []events.FileContent {
	want := set(files)
	at := map[string]int{}
	var out []events.FileContent
	for _, c := range owed {
		for _, f := range c.Content {
			if !want[f.Path] {
				continue
			}
			if i, ok := at[f.Path]; ok {
				out[i] = f
				continue
			}
			at[f.Path] = len(out)
			out = append(out, f)
		}
	}
	return out
}

// revertedFiles are the session's files the agent wrote back in the turn: the transcript says
// it edited them and the worktree shows no change for them now (HEAD's content again). They
// leave the session's files, and the turn's checkpoint holds them as HEAD does, so that neither
// the shadow branch's tip nor the newest rewind point brings back what the agent undid.
func revertedFiles(s State, d events.TurnEnded) []string {
	if len(d.Edited) == 0 {
		return nil
	}
	edited, dirty := set(d.Edited), set(d.Dirty)
	var out []string
	for _, p := range s.FilesTouched {
		if edited[p] && !dirty[p] {
			out = append(out, p)
		}
	}
	return out
}

// checkpointDue reports whether a manual-commit turn end writes a shadow checkpoint: the turn
// left files of the agent's, or reverted some of the session's (revertedFiles).
func checkpointDue(s State, d events.TurnEnded) bool {
	return len(turnFiles(s, d)) > 0 || len(revertedFiles(s, d)) > 0
}

// agentFiles is the rule of turnFiles: the edited files still dirty, and the dirty files not
// excluded (dirty at turn start, or not the session's to take).
func agentFiles(edited, dirty, excluded []string) []string {
	isDirty, wasDirty := set(dirty), set(excluded)
	var out []string
	for _, p := range edited {
		if isDirty[p] {
			out = append(out, p)
		}
	}
	for _, p := range dirty {
		if !wasDirty[p] {
			out = append(out, p)
		}
	}
	return MergeSorted(nil, out)
}

// without is list less the elements of drop, in list's order (a new slice; nil when empty).
func without(list, drop []string) []string {
	if len(drop) == 0 {
		return cloneStrings(list)
	}
	gone := set(drop)
	var out []string
	for _, x := range list {
		if !gone[x] {
			out = append(out, x)
		}
	}
	return out
}

// withoutCommit drops the pending auto-commit of a checkpoint ID (a new copy).
func withoutCommit(list []AutoCommit, id string) []AutoCommit {
	var out []AutoCommit
	for _, c := range list {
		if c.CheckpointID != id {
			out = append(out, c)
		}
	}
	return out
}

// withoutPending drops the pending condensation of a checkpoint ID (a new copy).
func withoutPending(list []Condense, id string) []Condense {
	var out []Condense
	for _, c := range list {
		if c.Commit.CheckpointID != id {
			out = append(out, c)
		}
	}
	return out
}

// MergeSorted is the sorted union of two file lists, without duplicates (nil when empty).
func MergeSorted(a, b []string) []string {
	set := make(map[string]struct{}, len(a)+len(b))
	for _, x := range a {
		set[x] = struct{}{}
	}
	for _, x := range b {
		set[x] = struct{}{}
	}
	if len(set) == 0 {
		return nil
	}
	out := make([]string, 0, len(set))
	for x := range set {
		out = append(out, x)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, x string) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// scanned records that the transcript was read up to pos, finding prompts there. Reading a
// different file starts the prompt list over.
func (s *State) scanned(pos events.Transcript, prompts []string) {
	if pos.Path == "" {
		return
	}
	if pos.Path != s.Recorder.Scanned.Path || pos.Offset < s.Recorder.Scanned.Offset {
		s.Recorder.Prompts, s.Recorder.PromptsOmitted = nil, 0
	}
	s.Recorder.Prompts = append(s.Recorder.Prompts, prompts...)
	s.Recorder.Scanned = pos
}

// Intersect is the elements of a that are in b, in a's order (file lists of a session).
func Intersect(a, b []string) []string {
	in := set(b)
	var out []string
	for _, x := range a {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}

// startTask records a subagent launch; a second event for the same tool use (its launch went
// to the background) adds the agent ID.
func startTask(tasks []OpenTask, d events.SubagentStarted, e events.Event) []OpenTask {
	for i, o := range tasks {
		if o.ToolUseID == d.ToolUseID {
			if d.AgentID != "" {
				tasks[i].AgentID = d.AgentID
			}
			return tasks
		}
	}
	return append(tasks, OpenTask{ToolUseID: d.ToolUseID, AgentID: d.AgentID, SubagentType: d.SubagentType,
		Description: d.Description, UntrackedFiles: cloneStrings(d.UntrackedFiles), Started: e.Time})
}
