// Package events defines the typed events of a recording session and their JSONL encoding.
//
// An event is either an input (something that happened: a prompt was submitted, a turn ended,
// a commit was made) or the recorded result of an effect the engine performed in response
// (a shadow checkpoint was written, a checkpoint was condensed). Input events carry the facts
// the engine observed when the hook ran (HEAD, the worktree, the transcript position), so that
// replaying a journal reproduces the session state without touching git again.
package events

import (
	"encoding/json"
	"fmt"
	"time"
)

// FormatVersion is the version written in the "v" key of every journal line.
const FormatVersion = 1

// Type names an event kind; it is the "type" key of a journal line.
type Type string

// Input events: what happened.
const (
	TypeSessionStarted Type = "session_started"
	TypeTurnStarted    Type = "turn_started"
	TypeTurnEnded      Type = "turn_ended"
	TypeSessionStopped Type = "session_stopped"
	TypeGitCommitted   Type = "git_committed"
	TypeCommitPrepared Type = "commit_prepared"
	// TypeSessionDiscarded is a maintenance command's decision to remove the session.
	TypeSessionDiscarded Type = "session_discarded"
	TypeSubagentStarted  Type = "subagent_started"
	TypeSubagentEnded    Type = "subagent_ended"
	TypeRewound          Type = "rewound"
	// TypeTranscriptRestored is `entire resume` writing the session's transcript.
	TypeTranscriptRestored Type = "transcript_restored"
	// TypeStateRestored brings back the state a damaged journal's snapshot held.
	TypeStateRestored Type = "state_restored"
)

// Result events: what an effect did.
const (
	TypeShadowCheckpointWritten Type = "shadow_checkpoint_written"
	TypeShadowCheckpointSkipped Type = "shadow_checkpoint_skipped"
	TypeShadowBranchMigrated    Type = "shadow_branch_migrated"
	TypeShadowBranchDeleted     Type = "shadow_branch_deleted"
	TypeCheckpointCondensed     Type = "checkpoint_condensed"
	TypeCarriedForward          Type = "carried_forward"
	TypeCheckpointsFinalized    Type = "checkpoints_finalized"
	TypeEffectFailed            Type = "effect_failed"
	TypeTaskCheckpointWritten   Type = "task_checkpoint_written"
	TypeCheckpointRepaired      Type = "checkpoint_repaired"
	TypeAutoCommitted           Type = "auto_committed"
)

// Payload is the type-specific part of an event, stored under "data".
type Payload interface {
	EventType() Type
}

// Event is one journal line: format version, sequence number, type, time and payload.
type Event struct {
	V    int       `json:"v"`
	Seq  uint64    `json:"seq"`
	Type Type      `json:"type"`
	Time time.Time `json:"time"`
	Data Payload   `json:"data"`
}

// New returns an unsequenced event for payload p at time t.
func New(t time.Time, p Payload) Event {
	return Event{V: FormatVersion, Type: p.EventType(), Time: t, Data: p}
}

// Encode returns the event as one JSON line without a trailing newline.
func Encode(e Event) ([]byte, error) {
	if e.Data == nil {
		return nil, fmt.Errorf("encode event %d: no payload", e.Seq)
	}
	if e.Type == "" {
		e.Type = e.Data.EventType()
	}
	if e.Type != e.Data.EventType() {
		return nil, fmt.Errorf("encode event %d: type %q does not match payload %q", e.Seq, e.Type, e.Data.EventType())
	}
	return json.Marshal(e)
}

// legacyAgent is the agent of events journaled before they named one: only Claude Code was
// recorded then.
const legacyAgent = "Claude Code"

// Decode parses one journal line into an event with its typed payload.
func Decode(line []byte) (Event, error) {
	var raw struct {
		V    int             `json:"v"`
		Seq  uint64          `json:"seq"`
		Type Type            `json:"type"`
		Time time.Time       `json:"time"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return Event{}, fmt.Errorf("decode event: %w", err)
	}
	if raw.V < 1 || raw.V > FormatVersion {
		return Event{}, fmt.Errorf("decode event %d: unsupported format version %d", raw.Seq, raw.V)
	}
	p, err := newPayload(raw.Type)
	if err != nil {
		return Event{}, fmt.Errorf("decode event %d: %w", raw.Seq, err)
	}
	if len(raw.Data) > 0 && string(raw.Data) != "null" {
		if err := json.Unmarshal(raw.Data, p); err != nil {
			return Event{}, fmt.Errorf("decode event %d (%s): %w", raw.Seq, raw.Type, err)
		}
	}
	if s, ok := p.(*SubagentEnded); ok && s.Agent == "" {
		s.Agent = legacyAgent // journaled before subagent_ended named its agent
	}
	return Event{V: raw.V, Seq: raw.Seq, Type: raw.Type, Time: raw.Time, Data: deref(p)}, nil
}

func newPayload(t Type) (Payload, error) {
	switch t {
	case TypeSessionStarted:
		return &SessionStarted{}, nil
	case TypeTurnStarted:
		return &TurnStarted{}, nil
	case TypeTurnEnded:
		return &TurnEnded{}, nil
	case TypeSessionStopped:
		return &SessionStopped{}, nil
	case TypeGitCommitted:
		return &GitCommitted{}, nil
	case TypeCommitPrepared:
		return &CommitPrepared{}, nil
	case TypeSessionDiscarded:
		return &SessionDiscarded{}, nil
	case TypeCheckpointRepaired:
		return &CheckpointRepaired{}, nil
	case TypeShadowCheckpointWritten:
		return &ShadowCheckpointWritten{}, nil
	case TypeShadowCheckpointSkipped:
		return &ShadowCheckpointSkipped{}, nil
	case TypeShadowBranchMigrated:
		return &ShadowBranchMigrated{}, nil
	case TypeShadowBranchDeleted:
		return &ShadowBranchDeleted{}, nil
	case TypeCheckpointCondensed:
		return &CheckpointCondensed{}, nil
	case TypeCarriedForward:
		return &CarriedForward{}, nil
	case TypeCheckpointsFinalized:
		return &CheckpointsFinalized{}, nil
	case TypeEffectFailed:
		return &EffectFailed{}, nil
	case TypeSubagentStarted:
		return &SubagentStarted{}, nil
	case TypeSubagentEnded:
		return &SubagentEnded{}, nil
	case TypeTaskCheckpointWritten:
		return &TaskCheckpointWritten{}, nil
	case TypeRewound:
		return &Rewound{}, nil
	case TypeTranscriptRestored:
		return &TranscriptRestored{}, nil
	case TypeAutoCommitted:
		return &AutoCommitted{}, nil
	case TypeStateRestored:
		return &StateRestored{}, nil
	}
	return nil, fmt.Errorf("unknown event type %q", t)
}

// deref turns the pointer used for decoding back into the value type stored in Event.Data.
func deref(p Payload) Payload {
	switch v := p.(type) {
	case *SessionStarted:
		return *v
	case *TurnStarted:
		return *v
	case *TurnEnded:
		return *v
	case *SessionStopped:
		return *v
	case *GitCommitted:
		return *v
	case *CommitPrepared:
		return *v
	case *SessionDiscarded:
		return *v
	case *CheckpointRepaired:
		return *v
	case *ShadowCheckpointWritten:
		return *v
	case *ShadowCheckpointSkipped:
		return *v
	case *ShadowBranchMigrated:
		return *v
	case *ShadowBranchDeleted:
		return *v
	case *CheckpointCondensed:
		return *v
	case *CarriedForward:
		return *v
	case *CheckpointsFinalized:
		return *v
	case *EffectFailed:
		return *v
	case *SubagentStarted:
		return *v
	case *SubagentEnded:
		return *v
	case *TaskCheckpointWritten:
		return *v
	case *Rewound:
		return *v
	case *TranscriptRestored:
		return *v
	case *AutoCommitted:
		return *v
	case *StateRestored:
		return *v
	}
	return p
}
