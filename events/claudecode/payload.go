package claudecode

import (
	"bytes"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
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
}

// ParseHookInput decodes a hook payload. Empty input, invalid JSON and JSON
// that is not an object are errors; unknown keys are ignored.
func ParseHookInput(data []byte) (HookInput, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return HookInput{}, errors.New("parse hook input: stdin is empty, want a JSON object")
	}
	if !gjson.ValidBytes(data) {
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
		Prompt:               Truncate(str("prompt"), MaxTextBytes),
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

// MaxSessionIDLen is the longest session ID, in bytes, that ValidateSessionID accepts.
const MaxSessionIDLen = 256

// ValidateSessionID reports whether id is safe to use as a file name and a
// path element (state file, .entire/metadata/<id>/, trailers). Entire itself
// only forbids an empty id, '/' and '\\' (entire-format.md §6); this also
// rejects control characters (including NUL and newlines, which would break
// trailers and log lines), "." and "..", invalid UTF-8 (JSON state files
// could not round-trip it) and ids longer than MaxSessionIDLen bytes.
// The error names the problem; it is meant for the log.
func ValidateSessionID(id string) error {
	switch {
	case id == "":
		return errors.New("invalid session id: empty")
	case len(id) > MaxSessionIDLen:
		return fmt.Errorf("invalid session id: %d bytes long, limit is %d", len(id), MaxSessionIDLen)
	case id == "." || id == "..":
		return fmt.Errorf("invalid session id %q: a relative path element", id)
	}
	for i, r := range id {
		switch {
		case r == '/' || r == '\\':
			return fmt.Errorf("invalid session id %q: contains path separator %q at byte %d", id, r, i)
		case r == 0:
			return fmt.Errorf("invalid session id %q: contains a NUL byte at byte %d", id, i)
		case r == utf8.RuneError && !validRuneAt(id, i):
			return fmt.Errorf("invalid session id %q: invalid UTF-8 at byte %d", id, i)
		case unicode.IsControl(r):
			return fmt.Errorf("invalid session id %q: contains control character %U at byte %d", id, r, i)
		}
	}
	return nil
}

// validRuneAt reports whether the U+FFFD decoded at s[i:] was really encoded
// there rather than produced by an invalid byte.
func validRuneAt(s string, i int) bool {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n == 3
}
