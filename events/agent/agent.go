package agent

import (
	"context"
	"time"

	"github.com/entirerec/entire/events"
)

// Kind is the place of an agent's hook in the session lifecycle. The engine sees only kinds.
type Kind int

// The lifecycle kinds (agent-hooks.md §10).
const (
	// Ignore: the hook is accepted (its payload parsed) and only logged.
	Ignore Kind = iota
	SessionStart
	TurnStart
	TurnEnd
	SessionEnd
	// SubagentStart: a subagent is launched (Claude's PreToolUse[Task]).
	SubagentStart
	// SubagentEnd: a subagent finished, or was sent to the background (Hook.Async).
	SubagentEnd
	// TaskStep: a step inside a running subagent (Claude's PostToolUse[TodoWrite]).
	TaskStep
)

var kindNames = [...]string{"ignore", "session-start", "turn-start", "turn-end", "session-end",
	"subagent-start", "subagent-end", "task-step"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Hook is one hook call of an agent, normalized. Fields an agent does not send stay empty.
type Hook struct {
	Kind           Kind
	SessionID      string
	TranscriptPath string // the live transcript ("" when the payload has none)
	// Workspace is the directory the agent opened, when the payload names it (Cursor's first
	// workspace root): where its transcripts are kept may be named after it, and it may be a
	// subdirectory of the repository.
	Workspace string
	// Cwd is the agent's working directory as the payload names it, for agents whose transcript
	// names none (Gemini CLI's cwd, which relative paths in its tool calls are relative to): a
	// subdirectory of the repository when the agent was started there. "" when not sent.
	Cwd    string
	Prompt string // TurnStart: the user's prompt
	// TurnID is the agent's own ID of the turn, when its payload names one (Codex's turn_id): a
	// prompt that carries the open turn's ID is more input to that turn (Codex runs the prompt
	// hook for a message the user types while the model works), not a new turn.
	TurnID string
	Source string // SessionStart: startup, resume, clear, ...
	Reason string // SessionEnd
	// LastMessage is the turn's last assistant message as the payload gives it (TurnEnd).
	LastMessage string
	Model       string
	// Subagents and tool steps.
	ToolName     string
	ToolUseID    string
	SubagentID   string
	SubagentType string
	Description  string
	// SubagentTranscript is the subagent's own transcript, when the payload names it.
	SubagentTranscript string
	// Async: a SubagentEnd that only says the subagent went to the background; it ends later.
	Async bool
	// ToolInput is the raw JSON of the tool's input (TaskStep: the todo list).
	ToolInput []byte
	// Foreign names the agent whose payload came through this agent's hook (Cursor runs Claude
	// Code's project hooks with its own payloads): Kind is then Ignore and nothing is recorded.
	Foreign string
	// OpensTurn: on SessionStart, the agent may send no turn hooks at all (Cursor's headless
	// `agent -p`), so the session start also opens a turn, closed from the transcript at the next
	// turn start or at session end.
	OpensTurn bool
}

// Transcript reads an agent's transcript. A position is an events.Transcript: for JSON-lines
// transcripts Offset is a byte offset after a complete line and Lines the lines before it; a
// transcript kept as one JSON document counts messages in Lines and reads the whole file.
type Transcript interface {
	// ScanFile reads the transcript at path from position from to its end. The returned Scan
	// has StartOffset = from.Offset, EndOffset the position to continue from, and Lines the
	// records read.
	ScanFile(path string, from events.Transcript) (Scan, error)
	// ScanBytes reads a whole transcript held in memory (a copy from a checkpoint).
	ScanBytes(data []byte) Scan
}

// Agent is one entry of the agent table: everything the recorder knows about one coding agent.
type Agent interface {
	// Name is the CLI name used in `entire hooks <name>` and `entire enable --agent <name>`.
	Name() string
	// Aliases are other accepted spellings of Name (the reference's).
	Aliases() []string
	// Type is the agent's name as written in checkpoint metadata (`agent`, `agent_type`).
	Type() string
	// ConfigDir is the agent's project configuration directory: its presence means the agent is
	// used here, and rewind never touches it.
	ConfigDir() string
	// ConfigFile is the file Install writes, relative to the repository root.
	ConfigFile() string
	// Parse decodes the payload of hook verb. An unknown verb or a payload that is not a JSON
	// object is an error; a verb the recorder does not act on gives Kind Ignore.
	Parse(verb string, stdin []byte) (Hook, error)
	// Reply is what the hook prints on stdout, given the message the recorder wants the user to
	// see ("" for none). It follows the agent's output contract; nil prints nothing.
	Reply(h Hook, message string) []byte
	Transcript
	// DefaultTranscript is where the agent keeps a session's transcript when the payload does not
	// say ("" when it cannot be known).
	DefaultTranscript(repoRoot, sessionID string) string
	// Install writes the agent's hook configuration into the repository, keeping everything else
	// in the file, and returns how many hooks it added (0 when all were there). force reinstalls.
	Install(repoRoot string, force bool) (int, error)
	// Uninstall removes exactly the hooks Install writes and returns how many it removed.
	Uninstall(repoRoot string) (int, error)
	// Installed reports whether the agent's hooks are configured in the repository.
	Installed(repoRoot string) bool
	// ResumeCommand is the shell command that resumes a session in the agent.
	ResumeCommand(sessionID string) string
}

// Describer is implemented by agents the reference names with a description in its enable
// output ("Claude Code - Anthropic's CLI coding assistant"); the others are named by Type.
type Describer interface {
	Description() string
}

// TurnEndUnreliable is implemented by agents whose turn-end hook may not fire: the recorder
// closes a turn left open from the transcript at the next turn start or session end; not at a
// turn start whose Hook.TurnID is the open turn's (more input to that turn).
type TurnEndUnreliable interface {
	TurnEndUnreliable() bool
}

// OpenTurnJoiner is implemented by agents that deliver a message the user types while a turn
// runs into that turn and whose prompt hook names no turn (Copilot CLI's steering): a prompt
// while a turn is open is more input to it, never a new turn. A turn such an agent never ended
// (an interrupt) merges into the next one, whose end records both.
type OpenTurnJoiner interface {
	PromptJoinsOpenTurn() bool
}

// Materializer is implemented by agents that keep no transcript file (OpenCode keeps it in a
// database): Materialize writes the session's transcript as JSON lines into dir, which the
// recorder owns, and returns its path. Earlier lines keep their bytes, so positions stay valid.
type Materializer interface {
	Materialize(ctx context.Context, sessionID, dir string) (string, error)
}

// Flusher is implemented by agents that may run the turn-end hook before the transcript holds
// the turn: WaitForFlush waits, at most maxWait from since, for the agent's marker.
type Flusher interface {
	WaitForFlush(ctx context.Context, path string, since time.Time, maxWait time.Duration) bool
}

// RangeScanner is implemented by every transcript whose scans may count lines before their
// start (Scan.UsageBeforeStart): ScanFileTo reads the file at path as ScanFile does, from
// position from but only up to byte offset end, streaming, so that the recorder can count what
// lies before a range without holding it in memory. An end beyond the file is an error
// wrapping ErrPastEnd.
type RangeScanner interface {
	ScanFileTo(path string, from events.Transcript, end int64) (Scan, error)
}

// SubagentCounter is implemented by agents whose subagents keep transcripts of their own
// (Claude Code, entire-format.md §12.3): SubagentUsage sums the token usage of the subagents
// ids (Scan.SubagentIDs) of session sessionID, whose transcript is at transcriptPath. It returns
// nil when they made no API call; an ID that is not [A-Za-z0-9]+, or whose transcript cannot be
// read, counts nothing.
type SubagentCounter interface {
	SubagentUsage(transcriptPath, sessionID string, ids []string) *events.TokenUsage
}

// Stepper is implemented by transcripts whose records may hold several steps (an assistant
// message with texts and tool calls): ScanSteps reads a whole transcript held in memory as
// ScanBytes does, and also lists its prompts, assistant texts and tool calls in the order
// written, each text block of a record a step of its own, so that a reader shows them as they
// came.
type Stepper interface {
	ScanSteps(data []byte) (Scan, []Step)
}

// RecordScanner is implemented by transcripts whose lines are not each a step of the
// conversation: Gemini CLI's chat file before v0.39 is one JSON document, and its JSONL appends a
// message again each time it changes and drops messages with a rewind record. ScanRecords scans
// a whole transcript held in memory message by message, one Scan per message in the
// conversation's order, so that a reader shows the steps as they came. ok is false when data
// cannot be read so (a document that is not valid JSON).
type RecordScanner interface {
	ScanRecords(data []byte) (scans []Scan, ok bool)
}

// Positioner is implemented by transcripts whose positions need not count lines: Gemini CLI's
// chat file before v0.39 is one JSON document, rewritten whole every turn, where a position
// counts messages (events.Transcript.Lines) and a byte offset points at no message. Such a
// transcript held in memory is read from a position, and cut at one, only through these
// methods, never by byte offset or line.
type Positioner interface {
	// ScanBytesFrom reads a whole transcript held in memory from position from, as ScanFile
	// reads a file; a position beyond its end is an error wrapping ErrPastEnd.
	ScanBytesFrom(data []byte, from events.Transcript) (Scan, error)
	// SkipRecords is a whole transcript held in memory without its first n records, the unit
	// of events.Transcript.Lines (a document's messages, else lines), in a form ScanBytes
	// reads.
	SkipRecords(data []byte, n int) []byte
}
