package opencode

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// Payload is the JSON object the plugin (entire.ts) writes to the hook's stdin. Keys are
// snake_case; absent, null and non-string values read as "", so a payload from another version
// of the plugin never fails the hook. Callers validate what they rely on.
type Payload struct {
	SessionID      string // session_id: OpenCode's session id (ses_...)
	TranscriptPath string // transcript_path: optional; the plugin does not send it today
	Prompt         string // prompt (turn-start), truncated to agent.MaxTextBytes
	Model          string // model (turn-start): the model id, when OpenCode says
	Source         string // source (session-start)
	Reason         string // reason (session-end): "deleted" or "exit"
	ToolName       string // tool_name (tool-after)
	ToolUseID      string // tool_use_id: the tool call's callID, as OpenCode gives it
	SubagentID     string // subagent_id (subagent-end): the child session's id
	SubagentType   string // subagent_type (subagent-start): the task tool's subagent_type
	Description    string // description (subagent-start): the task tool's description
}

// ParsePayload decodes a hook payload. Empty input, invalid JSON and JSON that is not an object
// are errors; unknown keys are ignored.
func ParsePayload(data []byte) (Payload, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Payload{}, errors.New("parse opencode hook input: stdin is empty, want a JSON object")
	}
	if !jsonvalid.Valid(data) {
		return Payload{}, errors.New("parse opencode hook input: stdin is not valid JSON")
	}
	r := gjson.ParseBytes(data)
	if !r.IsObject() {
		return Payload{}, fmt.Errorf("parse opencode hook input: stdin is a JSON %s, want an object", jsonKind(r))
	}
	str := func(key string) string {
		if v := r.Get(key); v.Type == gjson.String {
			return v.Str
		}
		return ""
	}
	return Payload{
		SessionID:      str("session_id"),
		TranscriptPath: str("transcript_path"),
		Prompt:         agent.Truncate(str("prompt"), agent.MaxTextBytes),
		Model:          str("model"),
		Source:         str("source"),
		Reason:         str("reason"),
		ToolName:       str("tool_name"),
		ToolUseID:      str("tool_use_id"),
		SubagentID:     str("subagent_id"),
		SubagentType:   str("subagent_type"),
		Description:    str("description"),
	}, nil
}

// jsonKind names the JSON type of a valid top-level value.
func jsonKind(r gjson.Result) string {
	switch {
	case r.IsArray():
		return "array"
	case r.Type == gjson.String:
		return "string"
	case r.Type == gjson.Number:
		return "number"
	case r.Type == gjson.True, r.Type == gjson.False:
		return "boolean"
	default:
		return "null"
	}
}
