package gemini

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// fileTools are the tool names whose call writes a file (entire-format.md §12.4).
var fileTools = map[string]bool{
	"write_file": true,
	"edit_file":  true,
	"save_file":  true,
	"replace":    true,
}

// fileArgs are the args naming the written file, in order of preference.
var fileArgs = []string{"file_path", "path", "filename"}

// actionDetailArgs are the args tried, in order, for agent.Action.Detail: a description, a
// command, a file, then a search pattern and last a directory.
var actionDetailArgs = []string{"description", "command", "file_path", "absolute_path", "filename", "pattern", "path", "dir_path"}

// message is what the scan keeps of one chat message: the few facts it reports, not the
// message itself (tool results and thoughts are dropped as soon as the record is read).
type message struct {
	id      string
	typ     string // user, gemini, info, error, warning, or anything newer
	prompt  string // user: the prompt, trimmed and truncated
	text    string // gemini: the text of content
	actions []agent.Action
	files   []string
	tokens  *events.TokenUsage // gemini: the usage row, nil without a tokens object
}

// readMessage extracts the facts of one message object (legacy document element or JSONL
// message record).
func readMessage(r gjson.Result) message {
	m := message{}
	if id := r.Get("id"); id.Type == gjson.String {
		m.id = id.Str
	}
	if t := r.Get("type"); t.Type == gjson.String {
		m.typ = t.Str
	}
	switch m.typ {
	case "user":
		// displayContent, when present, is the prompt as the user typed it; content may add
		// what Gemini expanded (the text of @-referenced files).
		text := partsText(r.Get("displayContent"))
		if strings.TrimSpace(text) == "" {
			text = partsText(r.Get("content"))
		}
		m.prompt = agent.Truncate(strings.TrimSpace(text), agent.MaxTextBytes)
	case "gemini":
		m.text = partsText(r.Get("content"))
		if calls := r.Get("toolCalls"); calls.IsArray() {
			calls.ForEach(func(_, c gjson.Result) bool {
				m.toolCall(c)
				return true
			})
		}
		if tok := r.Get("tokens"); tok.IsObject() {
			m.tokens = &events.TokenUsage{
				InputTokens:     int(tok.Get("input").Int()),
				OutputTokens:    int(tok.Get("output").Int()),
				CacheReadTokens: int(tok.Get("cached").Int()),
				APICallCount:    1,
			}
		}
	}
	return m
}

// toolCall records one element of a gemini message's toolCalls.
func (m *message) toolCall(c gjson.Result) {
	if !c.IsObject() {
		return
	}
	name := c.Get("name")
	if name.Type != gjson.String {
		return
	}
	args := c.Get("args")
	a := agent.Action{Tool: name.Str, Detail: firstString(args, actionDetailArgs)}
	m.actions = append(m.actions, a)
	if !fileTools[name.Str] {
		return
	}
	if p := firstString(args, fileArgs); p != "" {
		m.files = append(m.files, p)
	}
}

// firstString returns the first non-empty string value among keys of obj.
func firstString(obj gjson.Result, keys []string) string {
	if !obj.IsObject() {
		return ""
	}
	for _, k := range keys {
		if v := obj.Get(k); v.Type == gjson.String && v.Str != "" {
			return v.Str
		}
	}
	return ""
}

// partsText is the text of a content value: a string, one part, or a list of parts (strings
// or objects with a string "text"), concatenated as Gemini CLI shows them. Thought parts and
// parts without text (function calls, inline data) add nothing.
func partsText(v gjson.Result) string {
	switch {
	case v.Type == gjson.String:
		return v.Str
	case v.IsObject():
		return partText(v)
	case v.IsArray():
		var b strings.Builder
		v.ForEach(func(_, p gjson.Result) bool {
			b.WriteString(partText(p))
			return true
		})
		return b.String()
	}
	return ""
}

func partText(p gjson.Result) string {
	if p.Type == gjson.String {
		return p.Str
	}
	if !p.IsObject() || p.Get("thought").Type == gjson.True {
		return ""
	}
	if t := p.Get("text"); t.Type == gjson.String {
		return t.Str
	}
	return ""
}

// collect adds the facts of msgs, in order, to s.
func collect(s *agent.Scan, msgs []message) {
	seen := make(map[string]bool, len(s.ModifiedFiles))
	for _, f := range s.ModifiedFiles {
		seen[f] = true
	}
	for _, m := range msgs {
		if m.id != "" {
			s.LastUUID = m.id
		}
		switch m.typ {
		case "user":
			if m.prompt != "" {
				s.Prompts = append(s.Prompts, m.prompt)
			}
		case "gemini":
			if strings.TrimSpace(m.text) != "" {
				s.LastAssistant = m.text
			}
			s.Actions = append(s.Actions, m.actions...)
			for _, f := range m.files {
				if !seen[f] {
					seen[f] = true
					s.ModifiedFiles = append(s.ModifiedFiles, f)
				}
			}
			if m.tokens != nil {
				s.AddCall(m.id, *m.tokens)
			}
		}
	}
}
