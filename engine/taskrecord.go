package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/entirerec/entire/engine/redact"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/claudecode"
)

// subagentSubject is the subject of a subagent's checkpoint (spec §2.3): the task's at its end,
// the last completed todo's (else a numbered one) at an incremental step. The agent wrote the
// description and the todos, and may have copied a secret into them: they are redacted before
// they are cut, for the subject goes on the record's commit and, under auto-commit, on the
// user's branch.
func subagentSubject(in events.SubagentEnded, seq int) string {
	if !in.Incremental {
		return taskSubject(in.SubagentType, in.Description, in.ToolUseID)
	}
	if todo := claudecode.TodoSubject(redact.JSONL(in.Todo)); todo != "" {
		return todo + " (" + Short(in.ToolUseID, 12) + ")"
	}
	return fmt.Sprintf("Checkpoint #%d: %s", seq, Short(in.ToolUseID, 12))
}

// taskRecord is what a subagent's checkpoint holds under tasks/<tool-use-id>/ (spec §2.4),
// on the shadow branch and, under auto-commit, at the committed checkpoint's root: its files,
// its subject, and what its Entire-Metadata-Task trailer names, relative to that directory
// ("" for the directory itself).
type taskRecord struct {
	files   []NamedBlob
	subject string
	named   string
}

// taskRecordOf builds a subagent's task record: at its end, its transcript (agent-<id>.jsonl,
// raw) and checkpoint.json with the main transcript's line that answers the task, looked for
// from offset from; at an incremental step (number seq, at time at), the step's file.
func taskRecordOf(sessionID string, in events.SubagentEnded, seq int, at time.Time, main tsource, from int64) (taskRecord, error) {
	rec := taskRecord{subject: subagentSubject(in, seq)}
	if in.Incremental {
		step, err := json.Marshal(map[string]any{"type": in.ToolName, "tool_use_id": in.ToolUseID,
			"timestamp": at.UTC(), "data": json.RawMessage(redactJSON(in.Todo))})
		if err != nil {
			return rec, err
		}
		rec.named = fmt.Sprintf("checkpoints/%03d-%s.json", seq, in.ToolUseID)
		rec.files = []NamedBlob{{rec.named, step}}
		return rec, nil
	}
	if in.TranscriptPath != "" && in.AgentID != "" {
		if sub, err := os.ReadFile(in.TranscriptPath); err == nil {
			rec.files = append(rec.files, NamedBlob{"agent-" + in.AgentID + ".jsonl", sub})
		}
	}
	rec.files = append(rec.files, NamedBlob{"checkpoint.json",
		checkpointJSON(sessionID, in.ToolUseID, toolResultUUID(main, from, in.ToolUseID), in.AgentID)})
	return rec, nil
}
