package claudecode

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// HookInput is the JSON object Claude Code writes to a hook's stdin
// (agent-hooks.md §1.2, §1.3). Absent, null and non-string values of the
// string fields read as "": a field that changed type in a newer Claude Code
// must not make the whole hook fail. Callers validate what they rely on
// (ValidateSessionID for SessionID).
type HookInput struct {
	SessionID            string // session_id: the session UUID, also the transcript file stem
	TranscriptPath       string // transcript_path: absolute path of the session JSONL
	Cwd                  string // cwd: Claude's working directory
	HookEventName        string // hook_event_name, e.g. "Stop"
	Prompt               string // prompt (UserPromptSubmit)
	Source               string // source (SessionStart: startup, resume, clear, compact, fork)
	Reason               string // reason (SessionEnd)
	LastAssistantMessage string // last_assistant_message (Stop, SubagentStop)
	ToolName             string // tool_name (tool events)
	ToolUseID            string // tool_use_id (tool events)
	AgentID              string // agent_id: set when the hook fires inside a subagent
	AgentType            string // agent_type: set with agent_id
	AgentTranscriptPath  string // agent_transcript_path (SubagentStop)
	ToolInput            []byte // tool_input as raw JSON; nil when absent or null
	ToolResponse         []byte // tool_response as raw JSON; nil when absent or null
	// Foreign names the agent that sent the payload when it is not Claude Code's: Cursor runs
	// the hooks of .claude/settings.json too (its "third-party hooks", agent-hooks.md §1.7,
	// §3.5), with its own payload (cursor_version, conversation_id, camelCase
	// hook_event_name). "" for Claude Code's.
	Foreign string
}

// ParseHookInput decodes a hook payload. Empty input, invalid JSON and JSON
// that is not an object are errors; unknown keys are ignored.
func ParseHookInput(data []byte) (HookInput, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return HookInput{}, errors.New("parse hook input: stdin is empty, want a JSON object")
	}
	if !jsonvalid.Valid(data) {
		return HookInput{}, errors.New("parse hook input: stdin is not valid JSON")
	}
	r := gjson.ParseBytes(data)
	if !r.IsObject() {
		return HookInput{}, fmt.Errorf("parse hook input: stdin is a JSON %s, want an object", jsonKind(r))
	}
	str := func(key string) string {
		if v := r.Get(key); v.Type == gjson.String {
			return v.Str
		}
		return ""
	}
	raw := func(key string) []byte {
		v := r.Get(key)
		if !v.Exists() || v.Type == gjson.Null {
			return nil
		}
		return []byte(v.Raw)
	}
	return HookInput{
		SessionID:            str("session_id"),
		TranscriptPath:       str("transcript_path"),
		Cwd:                  str("cwd"),
		HookEventName:        str("hook_event_name"),
		Prompt:               agent.Truncate(str("prompt"), agent.MaxTextBytes),
		Source:               str("source"),
		Reason:               str("reason"),
		LastAssistantMessage: str("last_assistant_message"),
		ToolName:             str("tool_name"),
		ToolUseID:            str("tool_use_id"),
		AgentID:              str("agent_id"),
		AgentType:            str("agent_type"),
		AgentTranscriptPath:  str("agent_transcript_path"),
		ToolInput:            raw("tool_input"),
		ToolResponse:         raw("tool_response"),
		Foreign:              foreignSender(r),
	}, nil
}

// foreignSender names the agent a payload comes from when it is not Claude Code, whose event
// names are PascalCase: Cursor (it sends cursor_version, and camelCase event names), or another
// agent ("other") whose hook_event_name starts with a lower-case letter.
func foreignSender(r gjson.Result) string {
	if r.Get("cursor_version").Exists() {
		return "Cursor"
	}
	if ev := r.Get("hook_event_name"); ev.Type == gjson.String && ev.Str != "" && ev.Str[0] >= 'a' && ev.Str[0] <= 'z' {
		return "other"
	}
	return ""
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
