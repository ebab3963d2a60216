package codex

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// verbs maps each hook verb (the kebab-case Codex event) to its lifecycle kind.
var verbs = map[string]agent.Kind{
	"session-start":      agent.SessionStart,
	"user-prompt-submit": agent.TurnStart,
	"stop":               agent.TurnEnd,
	"stop-failure":       agent.TurnEnd,
	"interrupt":          agent.TurnEnd,
	"session-end":        agent.SessionEnd,
	"subagent-start":     agent.SubagentStart,
	"subagent-stop":      agent.SubagentEnd,
	"pre-tool-use":       agent.Ignore,
	"post-tool-use":      agent.Ignore,
	"pre-compact":        agent.Ignore,
	"post-compact":       agent.Ignore,
}

// Parse decodes the payload of a Codex hook (agent-hooks.md §4.2). Absent, null and non-string
// values of the string fields read as "".
//
// A thread-scoped verb (session, prompt and turn events) that comes from a subagent thread is
// Ignore: Codex fires UserPromptSubmit and Stop for subagent threads too, with the parent's
// session_id, and acting on them would open and close turns of the parent session on the
// child's rollout. See fromSubagentThread for how such a call is recognised.
func (Agent) Parse(verb string, stdin []byte) (agent.Hook, error) {
	kind, ok := verbs[verb]
	if !ok {
		return agent.Hook{}, fmt.Errorf("unknown codex hook %q", verb)
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
		SessionID:      str("session_id"),
		TranscriptPath: str("transcript_path"),
		Prompt:         agent.Truncate(str("prompt"), agent.MaxTextBytes),
		Source:         str("source"),
		Reason:         str("reason"),
		LastMessage:    str("last_assistant_message"),
		Model:          str("model"),
		ToolName:       str("tool_name"),
		ToolUseID:      agent.SafeID(str("tool_use_id")),
	}
	if v := r.Get("tool_input"); v.Exists() && v.Type != gjson.Null {
		h.ToolInput = []byte(v.Raw)
	}
	switch kind {
	case agent.SubagentStart, agent.SubagentEnd:
		// Codex sends no tool_use_id for subagents: agent_id keys both ends.
		h.SubagentID = agent.SafeID(str("agent_id"))
		h.ToolUseID = h.SubagentID
		h.SubagentType = str("agent_type")
		h.SubagentTranscript = str("agent_transcript_path")
	case agent.SessionStart, agent.TurnStart, agent.TurnEnd, agent.SessionEnd:
		if kind == agent.TurnStart {
			h.TurnID = str("turn_id") // a message typed mid-turn comes with the running turn's
		}
		if fromSubagentThread(h.SessionID, h.TranscriptPath, str("agent_id")) {
			h.Kind = agent.Ignore
		}
	}
	return h, nil
}

// fromSubagentThread reports whether a thread-scoped hook was fired by a subagent thread. The
// payload says so in two ways, either one suffices:
//   - it carries an agent_id (the subagent thread's id), or
//   - transcript_path names a rollout (rollout-<timestamp>-<thread id>.jsonl) of another thread
//     than session_id: a root thread's rollout ends in its own id, which is the session_id,
//     while a subagent's rollout ends in the subagent's id.
//
// A transcript_path that is not named like a rollout says nothing either way.
func fromSubagentThread(sessionID, transcriptPath, agentID string) bool {
	if agentID != "" {
		return true
	}
	base := transcriptPath[strings.LastIndexAny(transcriptPath, `/\`)+1:]
	if sessionID == "" || !strings.HasPrefix(base, "rollout-") || !strings.HasSuffix(base, ".jsonl") {
		return false
	}
	return !strings.HasSuffix(base, "-"+sessionID+".jsonl")
}

// decodePayload checks that stdin is one JSON object. Empty input, invalid JSON and JSON that
// is not an object are errors.
func decodePayload(data []byte) (gjson.Result, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return gjson.Result{}, errors.New("parse codex hook input: stdin is empty, want a JSON object")
	}
	if !jsonvalid.Valid(data) {
		return gjson.Result{}, errors.New("parse codex hook input: stdin is not valid JSON")
	}
	r := gjson.ParseBytes(data)
	if !r.IsObject() {
		return gjson.Result{}, errors.New("parse codex hook input: stdin is not a JSON object")
	}
	return r, nil
}
