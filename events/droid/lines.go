package droid

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// fileTools are the tool_use names whose input names a file the agent writes.
var fileTools = map[string]bool{
	"Create":       true,
	"Edit":         true,
	"MultiEdit":    true,
	"Write":        true,
	"NotebookEdit": true,
}

// pathKeys are the tool input keys tried, in order, for a file tool's path.
var pathKeys = []string{"file_path", "path", "notebook_path"}

// actionDetailKeys are the tool input keys tried, in order, for Action.Detail.
var actionDetailKeys = []string{"description", "command", "file_path", "path", "pattern"}

// scanner accumulates a Scan line by line.
type scanner struct {
	s     agent.Scan
	files map[string]bool // ModifiedFiles as a set
	steps agent.Steps
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
	head := gjson.GetManyBytes(line, "type", "id", "message.role")
	if head[0].Type != gjson.String || head[0].Str != "message" {
		return // session_start and other records
	}
	id := ""
	if head[1].Type == gjson.String {
		id = head[1].Str
	}
	if id != "" {
		sc.s.LastUUID = id
	}
	msg := gjson.GetBytes(line, "message")
	switch head[2].String() {
	case "user":
		sc.user(msg.Get("content"))
	case "assistant":
		sc.assistant(id, msg)
	}
}

// user records the prompt of a user message, if it has one: its string content, or its text
// blocks joined by a blank line, without the <system-reminder> blocks Droid adds. Tool results
// are not prompts.
func (sc *scanner) user(content gjson.Result) {
	var text string
	switch {
	case content.Type == gjson.String:
		text = content.Str
	case content.IsArray():
		var parts []string
		content.ForEach(func(_, block gjson.Result) bool {
			if t := block.Get("text"); block.Get("type").String() == "text" && t.Type == gjson.String {
				parts = append(parts, t.Str)
			}
			return true
		})
		text = strings.Join(parts, "\n\n")
	}
	if p := stripReminders(text); p != "" {
		p = agent.Truncate(p, agent.MaxTextBytes)
		sc.s.Prompts = append(sc.s.Prompts, p)
		sc.steps.Prompt(p)
	}
}

// assistant records the text, tool calls and usage of an assistant message; lineID is the
// line's id, which names the API response when the message has no id of its own.
func (sc *scanner) assistant(lineID string, msg gjson.Result) {
	content := msg.Get("content")
	switch {
	case content.Type == gjson.String:
		if strings.TrimSpace(content.Str) != "" {
			sc.s.LastAssistant = content.Str
			sc.steps.Assistant(content.Str)
		}
	case content.IsArray():
		content.ForEach(func(_, block gjson.Result) bool {
			switch block.Get("type").String() {
			case "text":
				if t := block.Get("text"); t.Type == gjson.String && strings.TrimSpace(t.Str) != "" {
					sc.s.LastAssistant = t.Str
					sc.steps.Assistant(t.Str)
				}
			case "tool_use":
				sc.toolUse(block.Get("name").String(), block.Get("input"))
			}
			return true
		})
	}
	if u := msg.Get("usage"); u.IsObject() {
		id := lineID
		if v := msg.Get("id"); v.Type == gjson.String && v.Str != "" {
			id = v.Str
		}
		sc.s.AddCall(id, events.TokenUsage{
			InputTokens:         int(u.Get("input_tokens").Int()),
			CacheCreationTokens: int(u.Get("cache_creation_input_tokens").Int()),
			CacheReadTokens:     int(u.Get("cache_read_input_tokens").Int()),
			OutputTokens:        int(u.Get("output_tokens").Int()),
			APICallCount:        1,
		})
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
	sc.steps.Tool(a)
	if !fileTools[name] {
		return
	}
	for _, k := range pathKeys {
		p := input.Get(k)
		if p.Type != gjson.String || p.Str == "" {
			continue
		}
		if !sc.files[p.Str] {
			if sc.files == nil {
				sc.files = make(map[string]bool)
			}
			sc.files[p.Str] = true
			sc.s.ModifiedFiles = append(sc.s.ModifiedFiles, p.Str)
		}
		return
	}
}

const (
	reminderOpen  = "<system-reminder>"
	reminderClose = "</system-reminder>"
)

// stripReminders removes every <system-reminder>…</system-reminder> block (the notes Droid
// adds to a user message: the todo list, the environment) and trims the rest. An opening tag
// without its closing tag is text and stays.
func stripReminders(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, reminderOpen)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(reminderOpen):], reminderClose)
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i+len(reminderOpen)+j+len(reminderClose):]
	}
	b.WriteString(s)
	return strings.TrimSpace(b.String())
}
