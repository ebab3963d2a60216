package claudecode

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/jsonvalid"
)

// ToolResultUUID returns the uuid of the user line that carries the tool_result for toolUseID,
// or "" (spec §2.4 checkpoint_uuid).
func ToolResultUUID(transcript []byte, toolUseID string) string {
	if toolUseID == "" {
		return ""
	}
	uuid := ""
	for _, line := range bytes.Split(transcript, []byte{'\n'}) {
		if !bytes.Contains(line, []byte(toolUseID)) || !jsonvalid.Valid(line) {
			continue
		}
		r := gjson.ParseBytes(line)
		if r.Get("type").String() != "user" {
			continue
		}
		r.Get("message.content").ForEach(func(_, block gjson.Result) bool {
			if block.Get("type").String() == "tool_result" && block.Get("tool_use_id").String() == toolUseID {
				uuid = r.Get("uuid").String()
				return false
			}
			return true
		})
	}
	return uuid
}

// TaskInput is what a Task/Agent tool call says about its subagent.
type TaskInput struct {
	SubagentType, Description string
}

// ParseTaskInput reads subagent_type and description from a Task/Agent tool_input.
func ParseTaskInput(toolInput []byte) TaskInput {
	r := gjson.ParseBytes(toolInput)
	return TaskInput{SubagentType: r.Get("subagent_type").String(), Description: r.Get("description").String()}
}

// TaskResponse is what PostToolUse reports about a Task/Agent call: the subagent's ID and
// whether it was only launched in the background (Claude Code 2.1.198+).
type TaskResponse struct {
	AgentID string
	Async   bool
}

// ParseTaskResponse reads agentId and status from a Task/Agent tool_response.
func ParseTaskResponse(toolResponse []byte) TaskResponse {
	r := gjson.ParseBytes(toolResponse)
	return TaskResponse{AgentID: r.Get("agentId").String(), Async: r.Get("status").String() == "async_launched"}
}

// TodoSubject is the subject of an incremental task checkpoint (spec §2.3): the last
// completed todo (≤ 60 bytes), else "Planning: N todos", else "".
func TodoSubject(toolInput []byte) string {
	todos := gjson.GetBytes(toolInput, "todos").Array()
	last := ""
	for _, t := range todos {
		if t.Get("status").String() == "completed" {
			last = t.Get("content").String()
		}
	}
	if last != "" {
		return truncateBytes(strings.TrimSpace(last), 60)
	}
	if len(todos) > 0 {
		return "Planning: " + strconv.Itoa(len(todos)) + " todos"
	}
	return ""
}

func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
