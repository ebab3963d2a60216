package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
)

// CommittedMetadata is a session slot's metadata.json on the metadata branch (spec §3.3).
type CommittedMetadata struct {
	CLIVersion                  string             `json:"cli_version,omitempty"`
	CheckpointID                string             `json:"checkpoint_id"`
	SessionID                   string             `json:"session_id"`
	Strategy                    string             `json:"strategy"`
	CreatedAt                   time.Time          `json:"created_at"`
	Branch                      string             `json:"branch,omitempty"`
	CheckpointsCount            int                `json:"checkpoints_count"`
	FilesTouched                []string           `json:"files_touched"`
	Agent                       string             `json:"agent,omitempty"`
	TurnID                      string             `json:"turn_id,omitempty"`
	IsTask                      bool               `json:"is_task,omitempty"`
	ToolUseID                   string             `json:"tool_use_id,omitempty"`
	TranscriptIdentifierAtStart string             `json:"transcript_identifier_at_start,omitempty"`
	CheckpointTranscriptStart   int                `json:"checkpoint_transcript_start,omitempty"`
	TranscriptLinesAtStart      int                `json:"transcript_lines_at_start,omitempty"`
	TokenUsage                  *events.TokenUsage `json:"token_usage,omitempty"`
	// TokenUsageDelta is this tool's addition (seed caveat 2): the usage of the transcript lines
	// this checkpoint adds to the session's previous one, so sums across checkpoints are exact.
	TokenUsageDelta    *events.TokenUsage `json:"token_usage_delta,omitempty"`
	Summary            json.RawMessage    `json:"summary,omitempty"`
	InitialAttribution json.RawMessage    `json:"initial_attribution,omitempty"`
	TranscriptPath     string             `json:"transcript_path,omitempty"`
	// ForgottenAt is this tool's addition: the slot is a tombstone left by entire forget (its
	// transcript, prompts, context and summary were removed from the branch's history).
	ForgottenAt *time.Time `json:"forgotten_at,omitempty"`
}

// SessionFiles are the absolute tree paths of one slot, listed in the root summary.
type SessionFiles struct {
	Metadata    string `json:"metadata"`
	Transcript  string `json:"transcript"`
	Context     string `json:"context"`
	ContentHash string `json:"content_hash"`
	Prompt      string `json:"prompt"`
}

// CheckpointSummary is the root metadata.json of a committed checkpoint (spec §3.2).
type CheckpointSummary struct {
	CLIVersion       string             `json:"cli_version,omitempty"`
	CheckpointID     string             `json:"checkpoint_id"`
	Strategy         string             `json:"strategy"`
	Branch           string             `json:"branch,omitempty"`
	CheckpointsCount int                `json:"checkpoints_count"`
	FilesTouched     []string           `json:"files_touched"`
	Sessions         []SessionFiles     `json:"sessions"`
	TokenUsage       *events.TokenUsage `json:"token_usage,omitempty"`
}

// MarshalJSON encodes like the reference: 2-space indent, HTML escaping, one trailing newline.
func MarshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	return buf.Bytes(), nil
}

// IsTranscriptChunk reports whether a slot file is full.jsonl or one of its numbered chunks.
func IsTranscriptChunk(name string) bool {
	return name == "full.jsonl" || strings.HasPrefix(name, "full.jsonl.")
}

// SumUsage adds slot usages for the root summary, without subagent tokens (spec §3.2).
func SumUsage(slots []CommittedMetadata) *events.TokenUsage {
	var total events.TokenUsage
	any := false
	for _, m := range slots {
		if m.TokenUsage == nil {
			continue
		}
		u := *m.TokenUsage
		u.SubagentTokens = nil
		total = total.Add(u)
		any = true
	}
	if !any {
		return nil
	}
	return &total
}

// Summarize recomputes the root summary: counts and files from all slots, writer fields from
// the latest write.
func Summarize(sessions []SessionFiles, slots []CommittedMetadata, latest CommittedMetadata) CheckpointSummary {
	sum := CheckpointSummary{
		CLIVersion:   latest.CLIVersion,
		CheckpointID: latest.CheckpointID,
		Strategy:     latest.Strategy,
		Branch:       latest.Branch,
		Sessions:     sessions,
		TokenUsage:   SumUsage(slots),
	}
	var files []string
	for _, m := range slots {
		sum.CheckpointsCount += m.CheckpointsCount
		files = append(files, m.FilesTouched...)
	}
	sum.FilesTouched = session.MergeSorted(nil, files)
	sort.Strings(sum.FilesTouched)
	return sum
}
