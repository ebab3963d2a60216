package cursor

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// fileTools are the tool_use names whose input path names a file the agent wrote.
var fileTools = map[string]bool{"Write": true, "StrReplace": true}

// actionDetailKeys are the tool input keys tried, in order, for Action.Detail.
var actionDetailKeys = []string{"description", "command", "path", "file_path", "pattern", "glob_pattern"}

// scanner accumulates a Scan line by line.
type scanner struct {
	s     agent.Scan
	files map[string]bool // ModifiedFiles as a set
	steps agent.Steps
}

func newScanner(offset int64) *scanner {
	return &scanner{s: agent.Scan{StartOffset: offset, EndOffset: offset}}
}

// consume takes one complete line without its '\n'. Lines that are not JSON objects with a
// known role are counted and otherwise skipped.
func (sc *scanner) consume(line []byte) {
	sc.s.Lines++
	sc.s.EndOffset += int64(len(line)) + 1
	if !jsonvalid.Valid(line) {
		return
	}
	head := gjson.GetManyBytes(line, "role", "message.content")
	switch head[0].String() {
	case "user":
		if head[0].Type == gjson.String {
			sc.user(head[1])
		}
	case "assistant":
		if head[0].Type == gjson.String {
			sc.assistant(head[1])
		}
	}
}

// texts returns the text of a message content: a string, or its text blocks joined by a blank
// line; ok is false when it has no text.
func texts(content gjson.Result) (text string, ok bool) {
	if content.Type == gjson.String {
		return content.Str, true
	}
	if !content.IsArray() {
		return "", false
	}
	var parts []string
	content.ForEach(func(_, block gjson.Result) bool {
		if t := block.Get("text"); block.Get("type").String() == "text" && t.Type == gjson.String {
			parts = append(parts, t.Str)
		}
		return true
	})
	return strings.Join(parts, "\n\n"), len(parts) > 0
}

// user records the prompt of a user line, if it has one.
func (sc *scanner) user(content gjson.Result) {
	text, ok := texts(content)
	if !ok {
		return
	}
	if p := UserQuery(text); p != "" {
		p = agent.Truncate(p, agent.MaxTextBytes)
		sc.s.Prompts = append(sc.s.Prompts, p)
		sc.steps.Prompt(p)
	}
}

// UserQuery extracts the user's prompt from the text of a Cursor user message: a leading
// <timestamp>…</timestamp> is dropped, and when the text holds <user_query>…</user_query> the
// prompt is what lies between the first opening and the last closing tag. The result is trimmed.
func UserQuery(text string) string {
	const (
		tsOpen, tsClose = "<timestamp>", "</timestamp>"
		qOpen, qClose   = "<user_query>", "</user_query>"
	)
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, tsOpen) {
		if i := strings.Index(s, tsClose); i >= 0 {
			s = s[i+len(tsClose):]
		}
	}
	if i := strings.Index(s, qOpen); i >= 0 {
		if j := strings.LastIndex(s, qClose); j >= i+len(qOpen) {
			s = s[i+len(qOpen) : j]
		}
	}
	return strings.TrimSpace(s)
}

// assistant records the text and tool calls of an assistant line.
func (sc *scanner) assistant(content gjson.Result) {
	if content.Type == gjson.String {
		if content.Str != "" {
			sc.s.LastAssistant = content.Str
		}
		sc.steps.Assistant(content.Str)
		return
	}
	content.ForEach(func(_, block gjson.Result) bool {
		switch block.Get("type").String() {
		case "text":
			if t := block.Get("text"); t.Type == gjson.String && t.Str != "" {
				sc.s.LastAssistant = t.Str
				sc.steps.Assistant(t.Str)
			}
		case "tool_use":
			name := block.Get("name")
			if name.Type != gjson.String {
				name = gjson.Result{}
			}
			sc.toolUse(name.Str, block.Get("input"))
		}
		return true
	})
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
	path := input.Get("path")
	if path.Type != gjson.String || path.Str == "" {
		path = input.Get("file_path")
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
