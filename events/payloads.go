package events

import "encoding/json"

// Worktree is what the engine observed about the repository when an input event happened.
type Worktree struct {
	Path string `json:"path"`           // absolute worktree root
	ID   string `json:"id,omitempty"`   // git worktree name; "" for the main worktree
	Head string `json:"head,omitempty"` // HEAD commit; "" on an unborn branch
	// Mark is the token in a linked worktree's admin directory (gitexec.Repo.WorktreeMark): the
	// same ID with another mark is a worktree removed and added again, not moved.
	Mark string `json:"mark,omitempty"`
	// CLIVersion is the version of the recorder that observed it; a session's state records the
	// version that created it, so a replay by any binary rebuilds the same state.
	CLIVersion string `json:"cli_version,omitempty"`
}

// Transcript is a position in the agent's live transcript: complete lines and their byte length.
type Transcript struct {
	Path     string `json:"path,omitempty"`
	Lines    int    `json:"lines"`
	Offset   int64  `json:"offset"`
	LastUUID string `json:"last_uuid,omitempty"`
}

// SessionStarted records the agent's session-start hook. For a session without state it only
// opens the journal: the state begins with the first prompt (the reference's rule), and a
// session that ends before any prompt leaves nothing behind.
type SessionStarted struct {
	SessionID  string     `json:"session_id"`
	Agent      string     `json:"agent"`
	Source     string     `json:"source,omitempty"`
	Transcript Transcript `json:"transcript"`
	Worktree   Worktree   `json:"worktree"`
}

// EventType implements Payload.
func (SessionStarted) EventType() Type { return TypeSessionStarted }

// TurnStarted records a prompt submission. The first one of a session initializes its state.
type TurnStarted struct {
	SessionID  string     `json:"session_id"`
	Agent      string     `json:"agent"`
	TurnID     string     `json:"turn_id"`
	Prompt     string     `json:"prompt"`
	Transcript Transcript `json:"transcript"`
	// AgentTurnID is the agent's own ID of the turn, when the hook's payload names one
	// (agent.Hook.TurnID): a prompt with the open turn's ID does not close it.
	AgentTurnID string `json:"agent_turn_id,omitempty"`
	// JoinsOpenTurn: the agent takes a prompt while a turn is open as more input to it
	// (agent.OpenTurnJoiner).
	JoinsOpenTurn bool `json:"joins_open_turn,omitempty"`
	// Cwd is the agent's working directory as the transcript read before the prompt, else the
	// hook's payload, names it (agent.Scan.Cwd, agent.Hook.Cwd); "" when neither does.
	Cwd string `json:"cwd,omitempty"`
	// PrePrompt is where the hook began reading the transcript: where the previous hook left it
	// (the start, when the file was replaced or cut), before the turn's prompt; its offset and
	// its count of records both (a Gemini CLI document's position counts messages). An
	// auto-commit checkpoint's transcript begins there (entire-cli.md §5, Stop steps 1 and 4).
	PrePrompt *Transcript `json:"pre_prompt,omitempty"`
	Worktree  Worktree    `json:"worktree"`
	// DirtyFiles are the worktree's changed and untracked paths before the agent acts.
	DirtyFiles []string `json:"dirty_files,omitempty"`
	// UntrackedFiles are the untracked paths at this moment (kept from the session's first turn).
	UntrackedFiles []string `json:"untracked_files,omitempty"`
	// ShadowExists and ShadowFiles describe the shadow branch of HEAD at prompt start: whether
	// it exists and the paths its tip changes against HEAD (read only when DirtyFiles is not
	// empty). The reducer decides from them whether the next checkpoint starts it afresh.
	ShadowExists bool     `json:"shadow_exists,omitempty"`
	ShadowFiles  []string `json:"shadow_files,omitempty"`
	// ResetShadow is that decision as journals before shadow_exists recorded it.
	ResetShadow bool `json:"reset_shadow,omitempty"`
	// PriorPrompts are the prompts in the transcript lines read since the last hook (for a new
	// session: all earlier prompts of a resumed conversation).
	PriorPrompts []string `json:"prior_prompts,omitempty"`
	// LateUsage is the token usage of lines the previous turn's end did not read (the agent
	// wrote them after its turn-end hook, agent.Flusher), less what that turn counted of its
	// last response (TurnEnded.UsageOpen): the session's usage adds it.
	LateUsage *TokenUsage `json:"late_usage,omitempty"`
	// Attribution is the user's and agent's line counts measured before the agent acts.
	Attribution *PromptAttribution `json:"attribution,omitempty"`
	// Strategy is the strategy in effect ("auto-commit"; empty for manual-commit).
	Strategy string `json:"strategy,omitempty"`
	// Restored is, on a session's first prompt here, the end of the transcript `entire
	// resume` (or a rewind) restored (TranscriptRestored) when the agent's transcript still
	// begins with it: the session's checkpoints begin there.
	Restored *Transcript `json:"restored,omitempty"`
}

// EventType implements Payload.
func (TurnStarted) EventType() Type { return TypeTurnStarted }

// TurnEnded records the end of an agent turn (Claude Code's Stop hook).
type TurnEnded struct {
	SessionID  string     `json:"session_id"`
	Agent      string     `json:"agent"`
	Transcript Transcript `json:"transcript"`
	Worktree   Worktree   `json:"worktree"`
	// Edited are the repo-relative paths the transcript says the agent wrote during the turn;
	// Dirty the worktree's changed and untracked paths at turn end. The reducer decides from
	// them (and the dirty paths at turn start) which files are the agent's.
	Edited []string `json:"edited,omitempty"`
	Dirty  []string `json:"dirty,omitempty"`
	// Modified are the Dirty paths that are tracked files changed in place (neither new nor
	// deleted); Claimed the other Dirty paths, new since turn start, that another live session
	// of the worktree says in its transcript it wrote, or that HEAD at turn start held with
	// their content now (HEAD moved in the turn: not new). Under auto-commit a turn takes the
	// transcript's files and the new and deleted ones nobody else claims (entire-cli.md §5).
	Modified []string `json:"modified,omitempty"`
	Claimed  []string `json:"claimed,omitempty"`
	// Files are the agent's files as journals before edited/dirty decided them.
	Files []string `json:"files,omitempty"`
	// Usage is this turn's token usage; UsageOpen the last response it counted.
	Usage     TokenUsage `json:"usage"`
	UsageOpen *OpenCall  `json:"usage_open,omitempty"`
	Summary   string     `json:"summary,omitempty"`
	// Prompts are the user prompts in the lines read since the last hook.
	Prompts []string `json:"prompts,omitempty"`
	Flushed bool     `json:"flushed,omitempty"`
	// Cwd is the agent's working directory where its transcript names one (agent.Scan.Cwd),
	// else where the hook's payload does (agent.Hook.Cwd).
	Cwd string `json:"cwd,omitempty"`
	// Implicit: the turn was closed by the next turn start or the session's end, not by the
	// agent (agent.TurnEndUnreliable).
	Implicit bool `json:"implicit,omitempty"`
	// Strategy is the strategy in effect ("auto-commit"; empty for manual-commit). With
	// auto-commit, CheckpointID is the ID the turn's commit will carry, chosen before the
	// commit so that a retry after a crash finds it.
	Strategy     string `json:"strategy,omitempty"`
	CheckpointID string `json:"checkpoint_id,omitempty"`
	// Captured is the content of the files the turn's commit takes, as the turn left them:
	// written to the object store before the turn's end is journaled, so that a commit a later
	// hook makes (a locked branch or index, a crash) holds the turn's work and not what the
	// user or the next turn wrote since.
	Captured []FileContent `json:"captured,omitempty"`
}

// EventType implements Payload.
func (TurnEnded) EventType() Type { return TypeTurnEnded }

// FileContent is a worktree file as a hook found it: the blob it wrote of its content (in the
// repository's object store) and its git mode, or Deleted when the file was gone.
type FileContent struct {
	Path    string `json:"path"`
	Mode    string `json:"mode,omitempty"`
	OID     string `json:"oid,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
}

// StrategyAutoCommit is the strategy that commits each turn's changes on the current branch.
const StrategyAutoCommit = "auto-commit"

// AutoCommitted records the commit an auto-commit turn made on the current branch (Skipped:
// the files were already committed, so no commit and no checkpoint).
type AutoCommitted struct {
	Commit       string   `json:"commit,omitempty"`
	Parent       string   `json:"parent,omitempty"`
	Branch       string   `json:"branch,omitempty"`
	CheckpointID string   `json:"checkpoint_id"`
	Files        []string `json:"files,omitempty"`
	Skipped      bool     `json:"skipped,omitempty"`
	// ToolUseID names the subagent whose work this commit is (a task checkpoint).
	ToolUseID string `json:"tool_use_id,omitempty"`
}

// EventType implements Payload.
func (AutoCommitted) EventType() Type { return TypeAutoCommitted }

// SessionStopped records the agent's session-end hook.
type SessionStopped struct {
	SessionID string `json:"session_id"`
	Agent     string `json:"agent,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// EventType implements Payload.
func (SessionStopped) EventType() Type { return TypeSessionStopped }

// GitCommitted records a commit seen by the post-commit hook, with the facts about this session
// that decide whether the commit is condensed into a checkpoint.
type GitCommitted struct {
	Commit       string `json:"commit"`
	CheckpointID string `json:"checkpoint_id,omitempty"` // from the Entire-Checkpoint trailer
	Branch       string `json:"branch,omitempty"`
	Sequencer    bool   `json:"sequencer,omitempty"` // a rebase, cherry-pick or revert is in progress
	// Files are the paths the commit changed against its first parent.
	Files []string `json:"files,omitempty"`
	// Overlap: the commit contains this session's work (content-aware, spec §3.8).
	Overlap bool `json:"overlap,omitempty"`
	// TranscriptGrew: the live transcript has lines past the condensed offset.
	TranscriptGrew bool `json:"transcript_grew,omitempty"`
	// Facts for carry-forward, gathered when the commit links the session. Diverged are the
	// session's committed files whose committed content is not its last checkpoint's (partial
	// staging: the rest is still the agent's); Settled are its files whose worktree content is
	// the commit's (nothing left to carry); TurnEdited are the files the transcript shows the
	// agent editing since the last condensation, for a session that has touched none yet.
	Diverged   []string   `json:"diverged,omitempty"`
	Settled    []string   `json:"settled,omitempty"`
	TurnEdited []string   `json:"turn_edited,omitempty"`
	Transcript Transcript `json:"transcript"`
	// Strategy names the strategy that made the commit ("auto-commit"; empty: the user's);
	// ToolUseID, the subagent whose work it is.
	Strategy  string `json:"strategy,omitempty"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Copied: the commit's first parent carries the same trailer, so the message was copied
	// (commit -c/-C) rather than amended: the checkpoint goes on covering the parent's work.
	Copied bool `json:"copied,omitempty"`
	// Claimed are the commit's files that another session of the work tree has touched: a
	// session whose own files say nothing of the commit does not list them as its own.
	Claimed []string `json:"claimed,omitempty"`
}

// EventType implements Payload.
func (GitCommitted) EventType() Type { return TypeGitCommitted }

// CommitPrepared records that prepare-commit-msg linked the commit being made to this session:
// it wrote (or kept) the Entire-Checkpoint trailer with CheckpointID. It is journaled before
// the message is written, so post-commit honours the same decision.
type CommitPrepared struct {
	CheckpointID string `json:"checkpoint_id"`
}

// EventType implements Payload.
func (CommitPrepared) EventType() Type { return TypeCommitPrepared }

// CheckpointRepaired records that entire doctor wrote a missing checkpoint a commit's trailer
// names, from what the session recorded; the session's own state is left as it was.
type CheckpointRepaired struct {
	CheckpointID   string `json:"checkpoint_id"`
	UserCommit     string `json:"user_commit"`
	MetadataCommit string `json:"metadata_commit"`
}

// EventType implements Payload.
func (CheckpointRepaired) EventType() Type { return TypeCheckpointRepaired }

// SessionDiscarded records that a maintenance command (doctor, clean, reset) removes the
// session's state: journaled first, so a removal a crash interrupted is finished by the next
// hook or command.
type SessionDiscarded struct {
	Reason string `json:"reason"`
}

// EventType implements Payload.
func (SessionDiscarded) EventType() Type { return TypeSessionDiscarded }

// ShadowCheckpointWritten records a temporary checkpoint committed on the shadow branch.
type ShadowCheckpointWritten struct {
	Branch     string     `json:"branch"`
	Commit     string     `json:"commit"`
	BaseCommit string     `json:"base_commit"`
	Files      []string   `json:"files,omitempty"`
	Reset      bool       `json:"reset,omitempty"` // the branch was started afresh
	Usage      TokenUsage `json:"usage"`
	Transcript Transcript `json:"transcript"`
	Chunks     []ChunkRef `json:"chunks,omitempty"` // closed raw transcript chunks now on the branch
}

// EventType implements Payload.
func (ShadowCheckpointWritten) EventType() Type { return TypeShadowCheckpointWritten }

// ShadowCheckpointSkipped records a turn end that produced no checkpoint.
type ShadowCheckpointSkipped struct {
	Reason     string     `json:"reason"`
	Usage      TokenUsage `json:"usage"`
	Transcript Transcript `json:"transcript"`
}

// EventType implements Payload.
func (ShadowCheckpointSkipped) EventType() Type { return TypeShadowCheckpointSkipped }

// ShadowBranchMigrated records the shadow branch following HEAD after it moved without a commit.
type ShadowBranchMigrated struct {
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	NewBase string `json:"new_base"`
}

// EventType implements Payload.
func (ShadowBranchMigrated) EventType() Type { return TypeShadowBranchMigrated }

// ShadowBranchDeleted records the removal of a shadow branch after condensation, or that it was
// left in place (Kept) because another session still builds on it.
type ShadowBranchDeleted struct {
	Branch string `json:"branch"`
	Commit string `json:"commit,omitempty"`
	Kept   bool   `json:"kept,omitempty"`
}

// EventType implements Payload.
func (ShadowBranchDeleted) EventType() Type { return TypeShadowBranchDeleted }

// CheckpointCondensed records a committed checkpoint written to entire/checkpoints/v1.
type CheckpointCondensed struct {
	CheckpointID   string     `json:"checkpoint_id"`
	MetadataCommit string     `json:"metadata_commit"`
	UserCommit     string     `json:"user_commit"`
	Slot           int        `json:"slot"`
	Files          []string   `json:"files,omitempty"`
	Provisional    bool       `json:"provisional,omitempty"` // mid-turn: finalized at turn end
	Transcript     Transcript `json:"transcript"`
	Chunks         []ChunkRef `json:"chunks,omitempty"` // closed transcript chunks now stored
	// UsageOpen is the last response the slot's usage delta counted, up to Transcript.
	UsageOpen *OpenCall `json:"usage_open,omitempty"`
}

// EventType implements Payload.
func (CheckpointCondensed) EventType() Type { return TypeCheckpointCondensed }

// CarriedForward records the session's uncommitted files snapshotted onto a new shadow branch.
// NewBase is set when a linked commit did not condense the session (session.FollowCommit): the
// session now builds on NewBase, with Files (maybe none) still its uncommitted work.
type CarriedForward struct {
	Branch  string   `json:"branch"`
	Commit  string   `json:"commit,omitempty"`
	Files   []string `json:"files"`
	NewBase string   `json:"new_base,omitempty"`
}

// EventType implements Payload.
func (CarriedForward) EventType() Type { return TypeCarriedForward }

// CheckpointsFinalized records provisional checkpoints rewritten with the complete transcript.
type CheckpointsFinalized struct {
	Finalized  []string          `json:"finalized,omitempty"`
	Failed     map[string]string `json:"failed,omitempty"` // checkpoint ID -> error; kept pending
	Transcript Transcript        `json:"transcript"`
	Chunks     []ChunkRef        `json:"chunks,omitempty"`
	// ScopeKept: the session had work waiting to be condensed, so the transcript after the
	// turn's last commit (its lines and their token usage) was left to that work's checkpoint.
	ScopeKept bool `json:"scope_kept,omitempty"`
	// UsageOpen is the last response the finalized checkpoints' usage delta counted, up to
	// Transcript (when the scope moved there).
	UsageOpen *OpenCall `json:"usage_open,omitempty"`
}

// EventType implements Payload.
func (CheckpointsFinalized) EventType() Type { return TypeCheckpointsFinalized }

// EffectFailed records an effect that could not be carried out; the state is left as it was,
// so pending work (a condensation, a shadow-branch deletion) stays pending and is retried.
type EffectFailed struct {
	Effect       string `json:"effect"`
	CheckpointID string `json:"checkpoint_id,omitempty"`
	Error        string `json:"error"`
}

// EventType implements Payload.
func (EffectFailed) EventType() Type { return TypeEffectFailed }

// ChunkRef is a closed chunk of a stored transcript: its end offset in the live transcript, the
// blob of its redacted content, and the content-hash state after it, so the next checkpoint can
// reuse it without reading it again.
type ChunkRef struct {
	End       int64  `json:"end"`
	Blob      string `json:"blob"`
	HashState []byte `json:"hash_state,omitempty"`
	// Tail fingerprints the chunk's last bytes in the raw transcript, so that a rewritten file
	// is not mistaken for the one the chunk came from.
	Tail string `json:"tail,omitempty"`
}

// SubagentEnded records a subagent (Claude Code's Task/Agent tool) that finished, with the
// files it left changed. Incremental is set for a TodoWrite step inside a running subagent.
type SubagentStarted struct {
	SessionID    string `json:"session_id"`
	Agent        string `json:"agent,omitempty"` // the main agent's display name
	ToolUseID    string `json:"tool_use_id"`
	SubagentType string `json:"subagent_type,omitempty"`
	Description  string `json:"description,omitempty"`
	// UntrackedFiles are the untracked paths at launch, so that the subagent's checkpoint can
	// tell the files it created.
	UntrackedFiles []string `json:"untracked_files,omitempty"`
	// AgentID and Background: the launch went to the background (Claude's async Task); the
	// subagent ends later, under this ID.
	AgentID    string `json:"agent_id,omitempty"`
	Background bool   `json:"background,omitempty"`
}

// EventType implements Payload.
func (SubagentStarted) EventType() Type { return TypeSubagentStarted }

// SubagentEnded records a subagent's end (or one step of it, Incremental).
type SubagentEnded struct {
	SessionID      string     `json:"session_id"`
	Agent          string     `json:"agent,omitempty"` // the main agent's display name
	ToolUseID      string     `json:"tool_use_id"`
	AgentID        string     `json:"agent_id,omitempty"`
	SubagentType   string     `json:"subagent_type,omitempty"`
	Description    string     `json:"description,omitempty"`
	TranscriptPath string     `json:"subagent_transcript,omitempty"`
	Transcript     Transcript `json:"transcript"`
	Worktree       Worktree   `json:"worktree"`
	Files          []string   `json:"files,omitempty"`
	Incremental    bool       `json:"incremental,omitempty"`
	// Todo is the incremental step's tool input (TodoWrite's todos), raw JSON.
	Todo     []byte `json:"todo,omitempty"`
	ToolName string `json:"tool_name,omitempty"`
	// CheckpointID is the ID the subagent's commit carries under the auto-commit strategy;
	// Captured the content of its files then (TurnEnded.Captured).
	CheckpointID string        `json:"checkpoint_id,omitempty"`
	Captured     []FileContent `json:"captured,omitempty"`
}

// EventType implements Payload.
func (SubagentEnded) EventType() Type { return TypeSubagentEnded }

// TaskCheckpointWritten records a subagent's checkpoint on the shadow branch (spec §2.4).
type TaskCheckpointWritten struct {
	Branch      string   `json:"branch"`
	Commit      string   `json:"commit"`
	BaseCommit  string   `json:"base_commit"`
	ToolUseID   string   `json:"tool_use_id"`
	Files       []string `json:"files,omitempty"`
	Incremental bool     `json:"incremental,omitempty"`
	Sequence    int      `json:"sequence,omitempty"`
	Reset       bool     `json:"reset,omitempty"` // started the shadow branch afresh
}

// EventType implements Payload.
func (TaskCheckpointWritten) EventType() Type { return TypeTaskCheckpointWritten }

// Rewound records `entire rewind` (or its --undo) putting the work tree back to a temporary
// checkpoint of this session and moving the shadow branch there: that checkpoint is now the
// session's latest agent content, and the next commit of its files links to the session.
type Rewound struct {
	Branch     string `json:"branch"`      // the shadow branch, now at Commit
	Commit     string `json:"commit"`      // the checkpoint rewound to
	BaseCommit string `json:"base_commit"` // HEAD, the shadow branch's base
	// Files are the session's files in that checkpoint (its changes against BaseCommit).
	Files []string `json:"files,omitempty"`
	// Transcript is the end of the transcript the rewind wrote, and Prompts the user prompts in
	// it; empty when it wrote none.
	Transcript Transcript `json:"transcript"`
	Prompts    []string   `json:"prompts,omitempty"`
	Undo       bool       `json:"undo,omitempty"` // undoing an earlier rewind
	// Reset: the branch was reset to an auto-commit (or back, undoing that), and the transcript
	// written is the one its checkpoints recorded, every line of it.
	Reset bool `json:"reset,omitempty"`
	// Positions, undoing a rewind, are where the session's transcript was condensed and its
	// usage counted before that rewind, put back as they were (nil: worked out from Transcript).
	Positions *RewoundPositions `json:"positions,omitempty"`
}

// RewoundPositions are a session's condensed and usage positions in its transcript.
type RewoundPositions struct {
	Condensed Transcript `json:"condensed"`
	Usage     Transcript `json:"usage"`
	UsageOpen *OpenCall  `json:"usage_open,omitempty"`
}

// EventType implements Payload.
func (Rewound) EventType() Type { return TypeRewound }

// TranscriptRestored records `entire resume` (or a rewind to a committed checkpoint) writing a
// session's transcript from a checkpoint (another clone's, most often): everything in it is in that checkpoint, its token usage
// counted there, so the session's next checkpoint begins where it ends. A session not recorded
// here yet keeps it until its first prompt, which takes it when the transcript the agent names
// still begins with what was restored (Tail fingerprints the bytes before its end).
type TranscriptRestored struct {
	CheckpointID string `json:"checkpoint_id"`
	// Transcripts are the files written, each one's end; Prompts the user prompts in them.
	Transcripts []Transcript `json:"transcripts"`
	Prompts     []string     `json:"prompts,omitempty"`
	Tail        string       `json:"tail,omitempty"`
}

// EventType implements Payload.
func (TranscriptRestored) EventType() Type { return TypeTranscriptRestored }

// PromptAttribution is the per-prompt line accounting of spec §5.2: the user's edits since the
// last checkpoint, measured when a prompt is submitted, and the agent's work so far.
type PromptAttribution struct {
	CheckpointNumber  int            `json:"checkpoint_number"`
	UserLinesAdded    int            `json:"user_lines_added"`
	UserLinesRemoved  int            `json:"user_lines_removed"`
	AgentLinesAdded   int            `json:"agent_lines_added"`
	AgentLinesRemoved int            `json:"agent_lines_removed"`
	UserAddedPerFile  map[string]int `json:"user_added_per_file,omitempty"`
}

// StateRestored replaces the session's state with a snapshot: when a journal is damaged, the
// events before the damage are kept, and the snapshot written after the lost events (newer than
// those events) is journaled so that a replay rebuilds it.
type StateRestored struct {
	State  json.RawMessage `json:"state"`
	Reason string          `json:"reason,omitempty"`
}

// EventType implements Payload.
func (StateRestored) EventType() Type { return TypeStateRestored }
