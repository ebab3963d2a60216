package copilot

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// verbs maps each hook verb (the kebab-case camelCase event) to its lifecycle kind.
var verbs = map[string]agent.Kind{
	"session-start":         agent.SessionStart,
	"session-end":           agent.SessionEnd,
	"user-prompt-submitted": agent.TurnStart,
	"agent-stop":            agent.TurnEnd,
	"subagent-start":        agent.SubagentStart,
	"subagent-stop":         agent.SubagentEnd,
	"pre-tool-use":          agent.Ignore,
	"post-tool-use":         agent.Ignore,
	"pre-compact":           agent.Ignore,
	"error-occurred":        agent.Ignore,
	"notification":          agent.Ignore,
}

// Parse decodes the payload of a Copilot CLI hook (agent-hooks.md §5.2) in either dialect: the
// camelCase fields Copilot sends for camelCase event keys, or the snake_case fields of its
// PascalCase (VS Code-compatible) keys. Absent, null and non-string values of the string fields
// read as "".
func (Agent) Parse(verb string, stdin []byte) (agent.Hook, error) {
	kind, ok := verbs[verb]
	if !ok {
		return agent.Hook{}, fmt.Errorf("unknown copilot hook %q", verb)
	}
	r, err := decodePayload(stdin)
	if err != nil {
		return agent.Hook{}, err
	}
	// str reads the first key that holds a string.
	str := func(keys ...string) string {
		for _, k := range keys {
			if v := r.Get(k); v.Type == gjson.String {
				return v.Str
			}
		}
		return ""
	}
	h := agent.Hook{
		Kind:           kind,
		SessionID:      str("sessionId", "session_id"),
		TranscriptPath: str("transcriptPath", "transcript_path"),
		ToolName:       str("toolName", "tool_name"),
		ToolInput:      toolInput(r),
	}
	switch kind {
	case agent.SessionStart:
		h.Source = str("source")
	case agent.TurnStart:
		h.Prompt = agent.Truncate(str("prompt"), agent.MaxTextBytes)
	case agent.SessionEnd:
		h.Reason = str("reason")
	case agent.SubagentStart, agent.SubagentEnd:
		name := str("agentName", "agent_name")
		h.SubagentType = name
		h.SubagentID = agent.SafeID(name)
		h.ToolUseID = h.SubagentID
		h.Description = str("agentDescription", "agent_description", "agentDisplayName", "agent_display_name")
	}
	return h, nil
}

// toolInput is the raw JSON of the tool's arguments: toolArgs (camelCase, where Copilot may send
// the arguments as a string of JSON, which is unwrapped) or tool_input; nil when absent or null.
func toolInput(r gjson.Result) []byte {
	v := r.Get("toolArgs")
	if !v.Exists() || v.Type == gjson.Null {
		v = r.Get("tool_input")
	}
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String && gjson.Valid(v.Str):
		if inner := gjson.Parse(v.Str); inner.IsObject() || inner.IsArray() {
			return []byte(v.Str)
		}
	}
	return []byte(v.Raw)
}

// decodePayload checks that stdin is one JSON object. Empty input, invalid JSON and JSON that
// is not an object are errors.
func decodePayload(data []byte) (gjson.Result, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return gjson.Result{}, errors.New("parse copilot hook input: stdin is empty, want a JSON object")
	}
	if !jsonvalid.Valid(data) {
		return gjson.Result{}, errors.New("parse copilot hook input: stdin is not valid JSON")
	}
	r := gjson.ParseBytes(data)
	if !r.IsObject() {
		return gjson.Result{}, errors.New("parse copilot hook input: stdin is not a JSON object")
	}
	return r, nil
}
