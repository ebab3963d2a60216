package claudecode

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// fileTools are the tool_use names whose input names a file the agent
// modified (entire-format.md §9.1; MultiEdit from older Claude Code).
var fileTools = map[string]bool{
	"Write":           true,
	"Edit":            true,
	"MultiEdit":       true,
	"NotebookEdit":    true,
	"mcp__acp__Write": true,
	"mcp__acp__Edit":  true,
}

// actionDetailKeys are the tool input keys tried, in order, for Action.Detail.
var actionDetailKeys = []string{"description", "command", "file_path", "pattern"}

// agentIDText is how a subagent's tool_result names it (entire-format.md §12.3).
var agentIDText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`agentId:\s*([A-Za-z0-9]+)`)
})

// scanner accumulates a Scan line by line.
type scanner struct {
	s     agent.Scan
	files map[string]bool // ModifiedFiles as a set
}

func newScanner(offset int64) *scanner {
	return &scanner{s: agent.Scan{StartOffset: offset, EndOffset: offset}}
}

// consume takes one complete line without its '\n'.
func (sc *scanner) consume(line []byte) {
	sc.s.Lines++
	sc.s.EndOffset += int64(len(line)) + 1
	if !jsonvalid.Valid(line) {
		return
	}
	head := gjson.GetManyBytes(line, "type", "uuid")
	if u := head[1]; u.Type == gjson.String && u.Str != "" {
		sc.s.LastUUID = u.Str
	}
	if head[0].Type != gjson.String {
		return
	}
	switch head[0].Str {
	case "user", "human":
		sc.user(line, gjson.GetBytes(line, "message.content"))
	case "assistant":
		sc.assistant(gjson.GetBytes(line, "message"))
	}
}

// user records the prompt of a user line, if it has one. The summary Claude Code writes as a
// user line when it compacts the conversation ("This session is being continued from a
// previous conversation...", isCompactSummary) is no prompt: the user typed none.
func (sc *scanner) user(line []byte, content gjson.Result) {
	var text string
	switch {
	case content.Type == gjson.String:
		text = content.Str
	case content.IsArray():
		var parts []string
		content.ForEach(func(_, block gjson.Result) bool {
			switch block.Get("type").String() {
			case "text":
				parts = append(parts, block.Get("text").String())
			case "tool_result":
				sc.subagents(block.Get("content"))
			}
			return true
		})
		if len(parts) == 0 {
			return // tool results, images: not a prompt
		}
		text = strings.Join(parts, "\n\n")
	default:
		return
	}
	if p := StripTags(text); p != "" && !interruptMarker(p) && !gjson.GetBytes(line, "isCompactSummary").Bool() {
		sc.s.Prompts = append(sc.s.Prompts, agent.Truncate(p, agent.MaxTextBytes))
	}
}

// interruptMarker reports the user line Claude Code writes when the user interrupts a turn
// ("[Request interrupted by user]", "... for tool use]"): the user typed no prompt, and the
// interrupted turn's prompt stays its own.
func interruptMarker(p string) bool {
	rest, ok := strings.CutPrefix(p, "[Request interrupted by user")
	return ok && strings.HasSuffix(rest, "]") && !strings.Contains(rest[:len(rest)-1], "]")
}

// subagents records the subagent IDs a tool_result's content names: "agentId: <id>" in a
// string, or in the text of its text blocks.
func (sc *scanner) subagents(content gjson.Result) {
	find := func(text string) {
		if !strings.Contains(text, "agentId:") {
			return // most results: skip the regexp
		}
		for _, m := range agentIDText().FindAllStringSubmatch(text, -1) {
			if !slices.Contains(sc.s.SubagentIDs, m[1]) {
				sc.s.SubagentIDs = append(sc.s.SubagentIDs, m[1])
			}
		}
	}
	switch {
	case content.Type == gjson.String:
		find(content.Str)
	case content.IsArray():
		content.ForEach(func(_, block gjson.Result) bool {
			if t := block.Get("text"); block.Get("type").String() == "text" && t.Type == gjson.String {
				find(t.Str)
			}
			return true
		})
	}
}

// assistant records the text, tool calls and usage of an assistant line.
func (sc *scanner) assistant(msg gjson.Result) {
	if content := msg.Get("content"); content.IsArray() {
		content.ForEach(func(_, block gjson.Result) bool {
			switch block.Get("type").String() {
			case "text":
				if t := block.Get("text"); t.Type == gjson.String && t.Str != "" {
					sc.s.LastAssistant = t.Str
				}
			case "tool_use":
				sc.toolUse(block.Get("name").String(), block.Get("input"))
			}
			return true
		})
	}
	if id := msg.Get("id"); id.Type == gjson.String && id.Str != "" {
		sc.usage(id.Str, msg.Get("usage"))
	}
}

// toolUse records one tool_use block.
func (sc *scanner) toolUse(name string, input gjson.Result) {
	a := agent.Action{Tool: name}
	for _, k := range actionDetailKeys {
		if v := input.Get(k); v.Type == gjson.String && v.Str != "" {
			a.Detail = v.Str
			break
		}
	}
	sc.s.Actions = append(sc.s.Actions, a)
	if !fileTools[name] {
		return
	}
	path := input.Get("file_path")
	if path.Type != gjson.String || path.Str == "" {
		path = input.Get("notebook_path")
	}
	if path.Type != gjson.String || path.Str == "" || sc.files[path.Str] {
		return
	}
	if sc.files == nil {
		sc.files = make(map[string]bool)
	}
	sc.files[path.Str] = true
	sc.s.ModifiedFiles = append(sc.s.ModifiedFiles, path.Str)
}

// usage records the usage row of one assistant line with message.id id,
// keeping per id the row with the largest output_tokens (§12.3).
func (sc *scanner) usage(id string, u gjson.Result) {
	row := events.TokenUsage{
		InputTokens:         int(u.Get("input_tokens").Int()),
		CacheCreationTokens: int(u.Get("cache_creation_input_tokens").Int()),
		CacheReadTokens:     int(u.Get("cache_read_input_tokens").Int()),
		OutputTokens:        int(u.Get("output_tokens").Int()),
		APICallCount:        1,
	}
	sc.s.AddCall(id, row)
}

// LastTimestamp is the timestamp (RFC 3339) of the last line of a JSONL transcript that has
// one; ok=false when none does. Resume orders sessions and reports conflicts by it.
func LastTimestamp(data []byte) (t time.Time, ok bool) {
	for len(data) > 0 {
		i := bytes.LastIndexByte(bytes.TrimRight(data, "\n"), '\n')
		line := bytes.TrimRight(data[i+1:], "\n")
		data = data[:i+1]
		if i < 0 {
			data = nil
		}
		ts := gjson.GetBytes(line, "timestamp")
		if ts.Type != gjson.String {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, ts.Str); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
