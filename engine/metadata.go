package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

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

// marshalJSON encodes like the reference: 2-space indent, HTML escaping, one trailing newline.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	return buf.Bytes(), nil
}

// contentHash is content_hash.txt: "sha256:" and the hex digest, no newline (spec §3.5).
func contentHash(transcript []byte) []byte {
	sum := sha256.Sum256(transcript)
	return []byte("sha256:" + hex.EncodeToString(sum[:]))
}

// maxChunk is the largest transcript file written whole (spec §3.4).
const maxChunk = 50 * 1024 * 1024

// chunkTranscript splits a JSONL transcript into files of at most maxChunk bytes on line
// boundaries: chunk 0 is full.jsonl, chunk k is full.jsonl.%03d; each chunk drops its final
// newline and reassembly joins chunks with one newline (spec §3.4).
func chunkTranscript(data []byte) ([]namedBlob, error) {
	if len(data) <= maxChunk {
		return []namedBlob{{"full.jsonl", data}}, nil
	}
	var out []namedBlob
	start := 0
	for start < len(data) {
		end := start
		for end < len(data) {
			nl := bytes.IndexByte(data[end:], '\n')
			next := len(data)
			if nl >= 0 {
				next = end + nl + 1
			}
			if next-start > maxChunk {
				break
			}
			end = next
		}
		if end == start {
			return nil, fmt.Errorf("transcript line at byte %d is larger than %d bytes", start, maxChunk)
		}
		name := "full.jsonl"
		if len(out) > 0 {
			name = fmt.Sprintf("full.jsonl.%03d", len(out))
		}
		out = append(out, namedBlob{name, bytes.TrimSuffix(data[start:end], []byte{'\n'})})
		start = end
	}
	return out, nil
}

// isTranscriptChunk reports whether a slot file is full.jsonl or one of its numbered chunks.
func isTranscriptChunk(name string) bool {
	return name == "full.jsonl" || strings.HasPrefix(name, "full.jsonl.")
}

// sumUsage adds slot usages for the root summary, without subagent tokens (spec §3.2).
func sumUsage(slots []CommittedMetadata) *events.TokenUsage {
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
