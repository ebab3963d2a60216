package cursor

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// verbs maps each hook verb (the kebab-case Cursor event) to its lifecycle kind.
var verbs = map[string]agent.Kind{
	"session-start":        agent.SessionStart,
	"session-end":          agent.SessionEnd,
	"before-submit-prompt": agent.TurnStart,
	"stop":                 agent.TurnEnd,
	"subagent-start":       agent.SubagentStart,
	"subagent-stop":        agent.SubagentEnd,
	"after-file-edit":      agent.Ignore,
	"pre-compact":          agent.Ignore,
}

// Parse decodes the payload of a Cursor hook (agent-hooks.md §3.2, §3.3). Absent, null and
// non-string values of the string fields read as "".
func (Agent) Parse(verb string, stdin []byte) (agent.Hook, error) {
	kind, ok := verbs[verb]
	if !ok {
		return agent.Hook{}, fmt.Errorf("unknown cursor hook %q", verb)
	}
	r, err := decodePayload(stdin)
	if err != nil {
		return agent.Hook{}, err
	}
	str := func(key string) string {
		if v := r.Get(key); v.Type == gjson.String {
			return v.Str
		}
		return ""
	}
	h := agent.Hook{
		Kind:           kind,
		SessionID:      firstOf(str("conversation_id"), str("session_id")),
		TranscriptPath: str("transcript_path"),
		Model:          str("model"),
		ToolName:       str("tool_name"),
		ToolUseID:      agent.SafeID(str("tool_use_id")),
		Workspace:      r.Get("workspace_roots.0").String(),
	}
	if !filepath.IsAbs(h.Workspace) {
		h.Workspace = ""
	}
	if v := r.Get("tool_input"); v.Exists() && v.Type != gjson.Null {
		h.ToolInput = []byte(v.Raw)
	}
	switch kind {
	case agent.SessionStart:
		// Headless `agent -p` sends no beforeSubmitPrompt or stop: the session start opens a
		// turn that the first prompt, or the session end, closes from the transcript.
		h.OpensTurn = true
	case agent.TurnStart:
		h.Prompt = agent.Truncate(str("prompt"), agent.MaxTextBytes)
	case agent.SessionEnd:
		h.Reason = str("reason")
	case agent.SubagentStart, agent.SubagentEnd:
		h.SessionID = firstOf(str("parent_conversation_id"), h.SessionID)
		h.SubagentID = agent.SafeID(str("subagent_id"))
		h.ToolUseID = h.SubagentID
		h.SubagentType = str("subagent_type")
		h.Description = firstOf(str("task"), str("description"))
		if kind == agent.SubagentEnd {
			h.SubagentTranscript = str("agent_transcript_path")
			h.LastMessage = agent.Truncate(str("summary"), agent.MaxTextBytes)
		}
	}
	return h, nil
}

// decodePayload checks that stdin is one JSON object. Empty input, invalid JSON and JSON that
// is not an object are errors.
func decodePayload(data []byte) (gjson.Result, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return gjson.Result{}, errors.New("parse cursor hook input: stdin is empty, want a JSON object")
	}
	if !jsonvalid.Valid(data) {
		return gjson.Result{}, errors.New("parse cursor hook input: stdin is not valid JSON")
	}
	r := gjson.ParseBytes(data)
	if !r.IsObject() {
		return gjson.Result{}, errors.New("parse cursor hook input: stdin is not a JSON object")
	}
	return r, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
