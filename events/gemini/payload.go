package gemini

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// HookInput is the JSON object Gemini CLI writes to a hook's stdin (agent-hooks.md §2.2,
// §2.3). Absent, null and wrongly typed values of the string fields read as "": a field that
// changed type in a newer Gemini CLI must not make the hook fail.
type HookInput struct {
	SessionID      string // session_id
	TranscriptPath string // transcript_path: the session's chat file
	Cwd            string // cwd
	HookEventName  string // hook_event_name, e.g. "BeforeAgent"
	Timestamp      string // timestamp (ISO 8601)
	Prompt         string // prompt (BeforeAgent, AfterAgent), truncated to agent.MaxTextBytes
	PromptResponse string // prompt_response (AfterAgent), truncated to agent.MaxTextBytes
	Source         string // source (SessionStart: startup, resume, clear)
	Reason         string // reason (SessionEnd: exit, clear, logout, prompt_input_exit, other)
	Model          string // llm_request.model (BeforeModel, AfterModel, BeforeToolSelection)
	ToolName       string // tool_name (BeforeTool, AfterTool)
	ToolInput      []byte // tool_input as raw JSON; nil when absent or null
}

// ParseHookInput decodes a hook payload. Empty input, invalid JSON and JSON that is not an
// object are errors; unknown keys are ignored.
func ParseHookInput(data []byte) (HookInput, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return HookInput{}, errors.New("parse gemini hook input: stdin is empty, want a JSON object")
	}
	if !jsonvalid.Valid(data) {
		return HookInput{}, errors.New("parse gemini hook input: stdin is not valid JSON")
	}
	r := gjson.ParseBytes(data)
	if !r.IsObject() {
		return HookInput{}, fmt.Errorf("parse gemini hook input: stdin is a JSON %s, want an object", jsonKind(r))
	}
	str := func(path string) string {
		if v := r.Get(path); v.Type == gjson.String {
			return v.Str
		}
		return ""
	}
	var toolInput []byte
	if v := r.Get("tool_input"); v.Exists() && v.Type != gjson.Null {
		toolInput = []byte(v.Raw)
	}
	model := ""
	if req := r.Get("llm_request"); req.IsObject() {
		if m := req.Get("model"); m.Type == gjson.String {
			model = m.Str
		}
	}
	return HookInput{
		SessionID:      str("session_id"),
		TranscriptPath: str("transcript_path"),
		Cwd:            str("cwd"),
		HookEventName:  str("hook_event_name"),
		Timestamp:      str("timestamp"),
		Prompt:         agent.Truncate(str("prompt"), agent.MaxTextBytes),
		PromptResponse: agent.Truncate(str("prompt_response"), agent.MaxTextBytes),
		Source:         str("source"),
		Reason:         str("reason"),
		Model:          model,
		ToolName:       str("tool_name"),
		ToolInput:      toolInput,
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
