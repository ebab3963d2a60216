package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/entirerec/entire/events"
)

// Phase is a session's place in the state machine of spec §11.
type Phase string

// The three phases. An empty or unknown phase reads as idle.
const (
	PhaseIdle   Phase = "idle"
	PhaseActive Phase = "active"
	PhaseEnded  Phase = "ended"
)

// Normalize maps legacy and unknown phases onto the three known ones.
func (p Phase) Normalize() Phase {
	switch p {
	case PhaseActive, "active_committed":
		return PhaseActive
	case PhaseEnded:
		return PhaseEnded
	}
	return PhaseIdle
}

// OpenTask is a subagent launched and not ended yet (subagent_started).
type OpenTask struct {
	ToolUseID      string    `json:"tool_use_id"`
	AgentID        string    `json:"agent_id,omitempty"`
	SubagentType   string    `json:"subagent_type,omitempty"`
	Description    string    `json:"description,omitempty"`
	UntrackedFiles []string  `json:"untracked_files,omitempty"`
	Started        time.Time `json:"started"`
}

// Task returns the open task with the tool use ID, or else with the agent ID.
func (s State) Task(toolUseID, agentID string) (OpenTask, bool) {
	for _, t := range s.Recorder.Tasks {
		if (toolUseID != "" && t.ToolUseID == toolUseID) || (toolUseID == "" && agentID != "" && t.AgentID == agentID) {
			return t, true
		}
	}
	return OpenTask{}, false
}

// TaskLike returns the one open task with this subagent type and description (false when none
// or several match).
func (s State) TaskLike(subagentType, description string) (OpenTask, bool) {
	var found []OpenTask
	for _, t := range s.Recorder.Tasks {
		if t.SubagentType == subagentType && t.Description == description {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		return OpenTask{}, false
	}
	return found[0], true
}

// PromptAttribution is the per-prompt line accounting of spec §5.2.
type PromptAttribution = events.PromptAttribution

// Recorder holds this tool's own bookkeeping inside the session-state file. The reference tool
// ignores the key; losing it only costs a full journal replay.
type Recorder struct {
	JournalSeq    uint64 `json:"journal_seq"`
	JournalOffset int64  `json:"journal_offset"`
	// WorktreeMark is the mark of the linked worktree the session is recorded in
	// (events.Worktree.Mark); "" for the main worktree or a session from before marks.
	WorktreeMark string `json:"worktree_mark,omitempty"`
	// TurnStart is the transcript position when the current turn began; PrePrompt the position
	// before its prompt (events.TurnStarted), where an auto-commit checkpoint's transcript begins.
	TurnStart events.Transcript  `json:"turn_start"`
	PrePrompt *events.Transcript `json:"pre_prompt,omitempty"`
	// Scanned is how far the transcript has been read; Prompts are all user prompts up to there,
	// except the first PromptsOmitted: a snapshot leaves a long list out (MarshalState), and
	// AllPrompts gets it back from the journal when a checkpoint needs it.
	Scanned        events.Transcript `json:"scanned"`
	Prompts        []string          `json:"prompts,omitempty"`
	PromptsOmitted int               `json:"prompts_omitted,omitempty"`
	// AgentCwd is the agent's working directory as its transcript (Codex's turn_context,
	// OpenCode's assistant messages), else a hook's payload (Gemini CLI's cwd), last named it:
	// relative paths in a transcript read from later on are relative to it.
	AgentCwd string `json:"agent_cwd,omitempty"`
	// TurnPrompt is the prompt the current turn began with.
	TurnPrompt string `json:"turn_prompt,omitempty"`
	// AgentTurnID is the agent's own ID of the current turn, when its prompt hook named one
	// (events.TurnStarted.AgentTurnID).
	AgentTurnID string `json:"agent_turn_id,omitempty"`
	// CondensedOffset is the byte offset matching checkpoint_transcript_start.
	CondensedOffset int64 `json:"condensed_offset,omitempty"`
	// DirtyAtTurnStart are the paths that differed from HEAD before the agent acted.
	DirtyAtTurnStart []string `json:"dirty_at_turn_start,omitempty"`
	// Chunks caches the closed chunks of the stored (redacted) transcript at ChunksPath.
	Chunks     []events.ChunkRef `json:"chunks,omitempty"`
	ChunksPath string            `json:"chunks_path,omitempty"`
	// ShadowChunks caches the closed raw transcript chunks on the shadow branch.
	ShadowChunks     []events.ChunkRef `json:"shadow_chunks,omitempty"`
	ShadowChunksPath string            `json:"shadow_chunks_path,omitempty"`
	// Strategy is the strategy the current turn runs under ("auto-commit"; "" for manual-commit).
	Strategy string `json:"strategy,omitempty"`
	// Restored is the transcript `entire resume` (or a rewind) wrote for a session not recorded
	// here yet (events.TranscriptRestored), until its first prompt. Never modified in place.
	Restored *events.TranscriptRestored `json:"restored,omitempty"`
	// Tasks are the subagents launched and not ended yet, oldest first.
	Tasks []OpenTask `json:"tasks,omitempty"`
	// TaskSteps numbers the incremental subagent checkpoints.
	TaskSteps int `json:"task_steps,omitempty"`
	// AutoCheckpoints counts the checkpoints of the session's auto-commit turns (not of its
	// subagents), each a step of its own: the reference counts them in checkpoint_count, which
	// here keeps counting manual-commit steps not yet condensed (State.Checkpoints).
	AutoCheckpoints int `json:"auto_checkpoints,omitempty"`
	// UsageOffset is how far (bytes) the transcript's token usage is attributed to checkpoints;
	// UsageLines is the same position's count of records (lines, or a Gemini CLI document's
	// messages, where the byte offset points at no message).
	UsageOffset int64 `json:"usage_offset,omitempty"`
	UsageLines  int   `json:"usage_lines,omitempty"`
	// UsageOpen is the response the usage up to UsageOffset ended in, and the row counted for
	// it: its lines after UsageOffset add only what that row lacks (agent.ContinueUsage).
	// Never modified in place.
	UsageOpen *events.OpenCall `json:"usage_open,omitempty"`
	// TurnOpen is the last response the last turn's end counted in the session's token_usage,
	// so that its lines written after that hook (TurnStarted.LateUsage) are not counted twice.
	// Never modified in place.
	TurnOpen *events.OpenCall `json:"turn_open,omitempty"`
	// LastShadowCommit is the session's newest temporary checkpoint.
	LastShadowCommit string `json:"last_shadow_commit,omitempty"`
	// PreparedID is the checkpoint ID prepare-commit-msg linked the commit being made to; the
	// commit that carries it is condensed whatever else changed (one link decision). A commit
	// that carries it but was never recorded (post-commit died) is recorded by the next hook.
	PreparedID string `json:"prepared_id,omitempty"`
	// LastCommit is the last commit recorded for the session, so that recording is idempotent.
	LastCommit string `json:"last_commit,omitempty"`
	// Pending are linked commits whose checkpoint is not written yet: journaled before any git
	// work, and written by the first hook or command that finds them (a crash or a git failure
	// interrupted the one that decided). The checkpoint ID is the key: a retry rewrites its slot.
	Pending []Condense `json:"pending,omitempty"`
	// Commits are auto-commits of turns (and subagents) not made yet, oldest first: journaled
	// with the turn's end and made by the first hook or command that may move the branch (a
	// crash or a locked ref interrupted the one that decided). The checkpoint ID is the key: a
	// retry finds a commit already made by its trailer.
	Commits []AutoCommit `json:"commits,omitempty"`
	// Discarded: a maintenance command decided to remove the session (session_discarded); its
	// files are removed by that command or, after a crash, the next hook.
	Discarded bool `json:"discarded,omitempty"`
	// ShadowToDelete is the shadow branch a condensation emptied; it is deleted (unless another
	// session still builds on it) by the same hook or, after a crash, the next one.
	ShadowToDelete *DeleteShadow `json:"shadow_to_delete,omitempty"`
}

// UsageFrom is the transcript position from which token usage is not attributed yet
// (UsageOpen is the response open there).
func (r Recorder) UsageFrom() events.Transcript {
	return events.Transcript{Offset: r.UsageOffset, Lines: r.UsageLines}
}

// State is the materialized session state, written as <git-common-dir>/entire-sessions/<id>.json
// in the reference tool's shape (spec §5.2), with this tool's bookkeeping under "recorder".
type State struct {
	SessionID                   string              `json:"session_id"`
	CLIVersion                  string              `json:"cli_version,omitempty"`
	BaseCommit                  string              `json:"base_commit"`
	AttributionBaseCommit       string              `json:"attribution_base_commit,omitempty"`
	WorktreePath                string              `json:"worktree_path,omitempty"`
	WorktreeID                  string              `json:"worktree_id,omitempty"`
	StartedAt                   time.Time           `json:"started_at"`
	EndedAt                     *time.Time          `json:"ended_at,omitempty"`
	Phase                       Phase               `json:"phase,omitempty"`
	TurnID                      string              `json:"turn_id,omitempty"`
	TurnCheckpointIDs           []string            `json:"turn_checkpoint_ids,omitempty"`
	LastInteractionTime         *time.Time          `json:"last_interaction_time,omitempty"`
	CheckpointCount             int                 `json:"checkpoint_count"`
	CheckpointTranscriptStart   int                 `json:"checkpoint_transcript_start,omitempty"`
	CondensedTranscriptLines    int                 `json:"condensed_transcript_lines,omitempty"`
	UntrackedFilesAtStart       []string            `json:"untracked_files_at_start,omitempty"`
	FilesTouched                []string            `json:"files_touched,omitempty"`
	LastCheckpointID            string              `json:"last_checkpoint_id,omitempty"`
	AgentType                   string              `json:"agent_type,omitempty"`
	TokenUsage                  *events.TokenUsage  `json:"token_usage,omitempty"`
	TranscriptLinesAtStart      int                 `json:"transcript_lines_at_start,omitempty"`
	TranscriptIdentifierAtStart string              `json:"transcript_identifier_at_start,omitempty"`
	TranscriptPath              string              `json:"transcript_path,omitempty"`
	FirstPrompt                 string              `json:"first_prompt,omitempty"`
	PromptAttributions          []PromptAttribution `json:"prompt_attributions,omitempty"`
	PendingPromptAttribution    *PromptAttribution  `json:"pending_prompt_attribution,omitempty"`
	ShouldResetShadowBranch     bool                `json:"should_reset_shadow_branch,omitempty"`
	Recorder                    Recorder            `json:"recorder"`
}

// Exists reports whether the state belongs to a session (the zero State does not).
func (s State) Exists() bool { return s.SessionID != "" }

// Condensed is the transcript position condensed so far: checkpoint_transcript_start (lines,
// or a Gemini CLI document's messages) at its byte offset.
func (s State) Condensed() events.Transcript {
	return events.Transcript{Offset: s.Recorder.CondensedOffset, Lines: s.CheckpointTranscriptStart}
}

// HasNewContent reports whether the session has work not yet condensed.
func (s State) HasNewContent() bool { return s.CheckpointCount > 0 || len(s.FilesTouched) > 0 }

// onlyTalked reports a session that left nothing in the record and owes it nothing: no file
// it touched, no temporary or task checkpoint, nothing condensed or finalized (the transcript
// positions of a later checkpoint would start over), no commit prepared, pending or to make,
// no shadow branch to delete, no subagent open. Such a session, once ended, is retired
// (Evolve); one that is not ended is kept, whatever it holds: its next prompt goes on from
// its state (first prompt, start, token usage).
func (s State) onlyTalked() bool {
	r := s.Recorder
	return s.CheckpointCount == 0 && len(s.FilesTouched) == 0 && s.LastCheckpointID == "" &&
		len(s.TurnCheckpointIDs) == 0 && s.CheckpointTranscriptStart == 0 && r.CondensedOffset == 0 &&
		r.UsageOffset == 0 && r.LastShadowCommit == "" && r.PreparedID == "" && len(r.Pending) == 0 &&
		len(r.Commits) == 0 && r.ShadowToDelete == nil && r.AutoCheckpoints == 0 && r.TaskSteps == 0 &&
		len(r.Tasks) == 0
}

// Checkpoints is the session's step count as `entire status` shows it (spec §5.2
// checkpoint_count): under manual-commit its temporary checkpoints not condensed yet; under
// auto-commit, where each turn that changed files is committed with a checkpoint of its own
// (spec §5, Stop step 5), those checkpoints too.
func (s State) Checkpoints() int {
	if s.Recorder.Strategy == events.StrategyAutoCommit {
		return s.CheckpointCount + s.Recorder.AutoCheckpoints
	}
	return s.CheckpointCount
}

// clone returns a deep copy so that the reducer never aliases its input.
func (s State) clone() State {
	c := s
	c.TurnCheckpointIDs = cloneStrings(s.TurnCheckpointIDs)
	c.UntrackedFilesAtStart = cloneStrings(s.UntrackedFilesAtStart)
	c.FilesTouched = cloneStrings(s.FilesTouched)
	c.Recorder.DirtyAtTurnStart = cloneStrings(s.Recorder.DirtyAtTurnStart)
	c.Recorder.Tasks = cloneTasks(s.Recorder.Tasks)
	c.Recorder.Prompts = cloneStrings(s.Recorder.Prompts)
	c.Recorder.Chunks = cloneChunks(s.Recorder.Chunks)
	c.Recorder.ShadowChunks = cloneChunks(s.Recorder.ShadowChunks)
	c.Recorder.Pending = clonePending(s.Recorder.Pending)
	c.Recorder.Commits = cloneCommits(s.Recorder.Commits)
	c.Recorder.PrePrompt = cloneTranscript(s.Recorder.PrePrompt)
	if s.Recorder.UsageOpen != nil {
		o := *s.Recorder.UsageOpen
		o.Usage = *cloneUsage(&o.Usage)
		c.Recorder.UsageOpen = &o
	}
	if s.Recorder.TurnOpen != nil {
		o := *s.Recorder.TurnOpen
		o.Usage = *cloneUsage(&o.Usage)
		c.Recorder.TurnOpen = &o
	}
	if r := s.Recorder.Restored; r != nil {
		c.Recorder.Restored = &events.TranscriptRestored{CheckpointID: r.CheckpointID, Tail: r.Tail,
			Transcripts: slices.Clone(r.Transcripts), Prompts: cloneStrings(r.Prompts)}
	}
	if s.Recorder.ShadowToDelete != nil {
		d := *s.Recorder.ShadowToDelete
		c.Recorder.ShadowToDelete = &d
	}
	if s.EndedAt != nil {
		t := *s.EndedAt
		c.EndedAt = &t
	}
	if s.LastInteractionTime != nil {
		t := *s.LastInteractionTime
		c.LastInteractionTime = &t
	}
	if s.TokenUsage != nil {
		c.TokenUsage = cloneUsage(s.TokenUsage)
	}
	if s.PromptAttributions != nil {
		c.PromptAttributions = make([]PromptAttribution, len(s.PromptAttributions))
		for i, a := range s.PromptAttributions {
			c.PromptAttributions[i] = cloneAttribution(a)
		}
	}
	if s.PendingPromptAttribution != nil {
		p := cloneAttribution(*s.PendingPromptAttribution)
		c.PendingPromptAttribution = &p
	}
	return c
}

func clonePending(in []Condense) []Condense {
	if in == nil {
		return nil
	}
	out := make([]Condense, len(in))
	for i, c := range in {
		c.Commit.Files = cloneStrings(c.Commit.Files)
		c.Commit.Diverged = cloneStrings(c.Commit.Diverged)
		c.Commit.Settled = cloneStrings(c.Commit.Settled)
		c.Commit.TurnEdited = cloneStrings(c.Commit.TurnEdited)
		c.Commit.Claimed = cloneStrings(c.Commit.Claimed)
		c.CarryForward = cloneStrings(c.CarryForward)
		c.Start = cloneTranscript(c.Start)
		c.Auto = c.Auto.clone()
		out[i] = c
	}
	return out
}

func cloneCommits(in []AutoCommit) []AutoCommit {
	if in == nil {
		return nil
	}
	out := make([]AutoCommit, len(in))
	for i, c := range in {
		c.Files = cloneStrings(c.Files)
		c.Start = cloneTranscript(c.Start)
		c.Slot = c.Slot.clone()
		c.Content, c.Since = slices.Clone(c.Content), slices.Clone(c.Since)
		out[i] = c
	}
	return out
}

func cloneTranscript(t *events.Transcript) *events.Transcript {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

func cloneUsage(u *events.TokenUsage) *events.TokenUsage {
	c := *u
	if u.SubagentTokens != nil {
		c.SubagentTokens = cloneUsage(u.SubagentTokens)
	}
	return &c
}

func cloneAttribution(a PromptAttribution) PromptAttribution {
	if a.UserAddedPerFile != nil {
		m := make(map[string]int, len(a.UserAddedPerFile))
		for k, v := range a.UserAddedPerFile {
			m[k] = v
		}
		a.UserAddedPerFile = m
	}
	return a
}

func cloneChunks(cs []events.ChunkRef) []events.ChunkRef {
	if cs == nil {
		return nil
	}
	out := make([]events.ChunkRef, len(cs))
	for i, ch := range cs {
		ch.HashState = append([]byte(nil), ch.HashState...)
		out[i] = ch
	}
	return out
}

func cloneTasks(in []OpenTask) []OpenTask {
	if in == nil {
		return nil
	}
	out := make([]OpenTask, len(in))
	for i, t := range in {
		t.UntrackedFiles = cloneStrings(t.UntrackedFiles)
		out[i] = t
	}
	return out
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}

// MarshalState encodes a state exactly as the reference writes it: 2-space indentation,
// HTML escaping on, a single trailing newline (spec §0).
func MarshalState(s State) ([]byte, error) {
	if s.Recorder.PromptsOmitted > 0 || promptBytes(s.Recorder.Prompts) > MaxSnapshotPrompts {
		s.Recorder.PromptsOmitted += len(s.Recorder.Prompts) // s is a copy: the caller keeps its list
		s.Recorder.Prompts = nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encode session state: %w", err)
	}
	return buf.Bytes(), nil
}

// MaxSnapshotPrompts is the most prompt text a snapshot holds. Every hook reads and writes the
// snapshot, and most never need the prompts: past this, they stay in the journal alone
// (Recorder.PromptsOmitted), so a long session's prompt costs what a short one's does.
const MaxSnapshotPrompts = 32 << 10

// promptBytes is the length of the prompts' text.
func promptBytes(prompts []string) int {
	n := 0
	for _, p := range prompts {
		n += len(p)
	}
	return n
}

// UnmarshalState decodes a session-state file, migrating the deprecated keys of spec §5.2.
func UnmarshalState(data []byte) (State, error) {
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return State{}, fmt.Errorf("decode session state: %w", err)
	}
	if s.LastCheckpointID != "" && !events.ValidCheckpointID(s.LastCheckpointID) {
		return State{}, fmt.Errorf("decode session state: invalid last_checkpoint_id %q", s.LastCheckpointID)
	}
	if s.CheckpointTranscriptStart == 0 {
		if s.CondensedTranscriptLines > 0 {
			s.CheckpointTranscriptStart = s.CondensedTranscriptLines
		} else if s.TranscriptLinesAtStart > 0 {
			s.CheckpointTranscriptStart = s.TranscriptLinesAtStart
		}
	}
	// The deprecated keys are migrated once, as the reference does, and never written back: a
	// stale one beside a checkpoint_transcript_start that went back to 0 (carry-forward) would
	// be migrated again at the next load, by either tool, as the start of the next checkpoint.
	s.CondensedTranscriptLines, s.TranscriptLinesAtStart = 0, 0
	if s.AttributionBaseCommit == "" {
		s.AttributionBaseCommit = s.BaseCommit
	}
	s.Phase = s.Phase.Normalize()
	return s, nil
}
