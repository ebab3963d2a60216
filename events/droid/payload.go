package droid

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// verbs maps each hook verb to its lifecycle kind; they are Claude Code's verbs, Droid's
// protocol being Claude-compatible.
var verbs = map[string]agent.Kind{
	"session-start":      agent.SessionStart,
	"user-prompt-submit": agent.TurnStart,
	"stop":               agent.TurnEnd,
	"session-end":        agent.SessionEnd,
	"pre-task":           agent.SubagentStart,
	"post-task":          agent.SubagentEnd,
	"subagent-stop":      agent.SubagentEnd,
}

// subagentTool is the tool that dispatches a subagent (a Worker).
const subagentTool = "Task"

// Parse decodes the payload of a Droid hook (agent-hooks.md §7, Claude Code's §1.2-§1.3).
// Absent, null and non-string values of the string fields read as "".
func (Agent) Parse(verb string, stdin []byte) (agent.Hook, error) {
	kind, ok := verbs[verb]
	if !ok {
		return agent.Hook{}, fmt.Errorf("unknown droid hook %q", verb)
	}
	r, err := decodePayload(stdin)
	if err != nil {
		return agent.Hook{}, err
	}
	str := func(r gjson.Result, key string) string {
		if v := r.Get(key); v.Type == gjson.String {
			return v.Str
		}
		return ""
	}
	h := agent.Hook{
		Kind:           kind,
		SessionID:      str(r, "session_id"),
		TranscriptPath: str(r, "transcript_path"),
		Prompt:         agent.Truncate(str(r, "prompt"), agent.MaxTextBytes),
		Source:         str(r, "source"),
		Reason:         str(r, "reason"),
		LastMessage:    str(r, "last_assistant_message"),
		Model:          str(r, "model"),
		ToolName:       str(r, "tool_name"),
		ToolUseID:      agent.SafeID(str(r, "tool_use_id")),
	}
	input := r.Get("tool_input")
	if input.Exists() && input.Type != gjson.Null {
		h.ToolInput = []byte(input.Raw)
	}
	// `droid exec` fires no UserPromptSubmit: the session start opens a turn, so that the files
	// the user had changed before it are known as the user's; interactively the first prompt
	// closes that (empty) turn from the transcript.
	h.OpensTurn = kind == agent.SessionStart
	switch verb {
	case "pre-task", "post-task":
		if h.ToolName != subagentTool {
			h.Kind = agent.Ignore // a matcher that lets other tools through
			return h, nil
		}
		h.SubagentType, h.Description = str(input, "subagent_type"), str(input, "description")
		if h.ToolUseID == "" {
			h.ToolUseID = taskID(h.SessionID, input)
		}
		if verb == "post-task" {
			// PostToolUse[Task] fires when the Worker is dispatched, not when it is done.
			h.Async = true
			h.SubagentID = agent.SafeID(responseAgentID(r.Get("tool_response")))
		}
	case "subagent-stop":
		h.SubagentID = agent.SafeID(str(r, "agent_id"))
		h.SubagentType = str(r, "agent_type")
		h.SubagentTranscript = str(r, "agent_transcript_path")
	}
	return h, nil
}

// taskID stands in for a missing tool_use_id of a Task call: "task-" and 16 hex digits of the
// SHA-256 of the session id and the call's subagent_type, description and prompt. PreToolUse
// and PostToolUse of one call get the same id, so they meet on the same pre-task file.
func taskID(sessionID string, input gjson.Result) string {
	h := sha256.New()
	for _, s := range []string{sessionID, input.Get("subagent_type").String(), input.Get("description").String(), input.Get("prompt").String()} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "task-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// responseAgentID reads the subagent's id from a Task tool_response: its "agentId" field, or
// an "agentId: <id>" line in a text response. "" when it has neither.
func responseAgentID(resp gjson.Result) string {
	if resp.IsObject() {
		if v := resp.Get("agentId"); v.Type == gjson.String {
			return v.Str
		}
		return ""
	}
	if resp.Type != gjson.String {
		return ""
	}
	_, after, ok := strings.Cut(resp.Str, "agentId: ")
	if !ok {
		return ""
	}
	end := 0
	for end < len(after) && isIDByte(after[end]) {
		end++
	}
	return after[:end]
}

// decodePayload checks that stdin is one JSON object. Empty input, invalid JSON and JSON that
// is not an object are errors.
func decodePayload(data []byte) (gjson.Result, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return gjson.Result{}, errors.New("parse droid hook input: stdin is empty, want a JSON object")
	}
	if !jsonvalid.Valid(data) {
		return gjson.Result{}, errors.New("parse droid hook input: stdin is not valid JSON")
	}
	r := gjson.ParseBytes(data)
	if !r.IsObject() {
		return gjson.Result{}, errors.New("parse droid hook input: stdin is not a JSON object")
	}
	return r, nil
}

func isIDByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
