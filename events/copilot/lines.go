package copilot

import (
	"regexp"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// fileTools are the tool names whose arguments' path names a file the agent wrote.
var fileTools = map[string]bool{"edit": true, "create": true}

// actionDetailKeys are the tool argument keys tried, in order, for Action.Detail.
var actionDetailKeys = []string{"description", "command", "path", "pattern"}

// wrapperBlocks are the blocks Copilot adds around the user's text in transformedContent.
var wrapperBlocks = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)<current_datetime>.*?</current_datetime>|<reminder>.*?</reminder>`)
})

// scanner accumulates a Scan line by line.
type scanner struct {
	s     agent.Scan
	files map[string]bool // ModifiedFiles as a set
	steps agent.Steps
	// closed sums the session.shutdown totals read so far; open holds the per-message rows of
	// the assistant messages after the last of them (s.Usage and s.Calls are set by result).
	closed events.TokenUsage
	open   agent.Scan
}

func newScanner(offset int64) *scanner {
	return &scanner{s: agent.Scan{StartOffset: offset, EndOffset: offset}}
}

// result is the Scan of the lines consumed so far.
func (sc *scanner) result() agent.Scan {
	s := sc.s
	s.Usage = sc.closed.Add(sc.open.Usage)
	s.Calls = sc.open.Calls
	return s
}

// consume takes one complete line without its '\n'. Lines that are not JSON objects of a known
// type are counted and otherwise skipped.
func (sc *scanner) consume(line []byte) {
	sc.s.Lines++
	sc.s.EndOffset += int64(len(line)) + 1
	if !jsonvalid.Valid(line) {
		return
	}
	head := gjson.GetManyBytes(line, "type", "id", "data")
	if id := head[1]; id.Type == gjson.String && id.Str != "" {
		sc.s.LastUUID = id.Str
	}
	if head[0].Type != gjson.String {
		return
	}
	data := head[2]
	switch head[0].Str {
	case "user.message":
		sc.user(data)
	case "assistant.message":
		sc.assistant(data, str(head[1]))
	case "tool.execution_complete":
		sc.toolComplete(data)
	case "session.shutdown":
		sc.shutdown(data.Get("modelMetrics"))
	}
}

// str is v's text when v is a JSON string, else "".
func str(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// user records the prompt of a user.message: data.content, or when that is empty the
// transformedContent without Copilot's wrapper blocks.
func (sc *scanner) user(data gjson.Result) {
	p := strings.TrimSpace(str(data.Get("content")))
	if p == "" {
		p = strings.TrimSpace(wrapperBlocks().ReplaceAllString(str(data.Get("transformedContent")), ""))
	}
	if p != "" {
		p = agent.Truncate(p, agent.MaxTextBytes)
		sc.s.Prompts = append(sc.s.Prompts, p)
		sc.steps.Prompt(p)
	}
}

// assistant records the text, tool requests and output tokens of an assistant.message whose
// line has id lineID.
func (sc *scanner) assistant(data gjson.Result, lineID string) {
	if t := str(data.Get("content")); t != "" {
		sc.s.LastAssistant = t
		sc.steps.Assistant(t)
	}
	data.Get("toolRequests").ForEach(func(_, req gjson.Result) bool {
		sc.toolRequest(str(req.Get("name")), arguments(req.Get("arguments")))
		return true
	})
	if out := data.Get("outputTokens"); out.Type == gjson.Number {
		id := str(data.Get("messageId"))
		if id == "" {
			id = lineID
		}
		sc.open.AddCall(id, events.TokenUsage{OutputTokens: int(out.Int()), APICallCount: 1})
	}
}

// arguments returns a tool request's arguments as an object, decoding a string of JSON.
func arguments(v gjson.Result) gjson.Result {
	if v.Type == gjson.String && gjson.Valid(v.Str) {
		return gjson.Parse(v.Str)
	}
	return v
}

// toolRequest records one tool request of an assistant message.
func (sc *scanner) toolRequest(name string, args gjson.Result) {
	a := agent.Action{Tool: name}
	for _, k := range actionDetailKeys {
		if v := str(args.Get(k)); v != "" {
			a.Detail = v
			break
		}
	}
	sc.s.Actions = append(sc.s.Actions, a)
	sc.steps.Tool(a)
	if fileTools[name] {
		sc.addFile(str(args.Get("path")))
	}
}

// toolComplete records the files a tool reported writing: toolTelemetry.properties.filePaths,
// a string holding a JSON array of paths.
func (sc *scanner) toolComplete(data gjson.Result) {
	paths := str(data.Get("toolTelemetry.properties.filePaths"))
	if paths == "" || !gjson.Valid(paths) {
		return
	}
	gjson.Parse(paths).ForEach(func(_, p gjson.Result) bool {
		sc.addFile(str(p))
		return true
	})
}

func (sc *scanner) addFile(path string) {
	if path == "" || sc.files[path] {
		return
	}
	if sc.files == nil {
		sc.files = make(map[string]bool)
	}
	sc.files[path] = true
	sc.s.ModifiedFiles = append(sc.s.ModifiedFiles, path)
}

// shutdown takes the totals of a session.shutdown: modelMetrics maps a model name to its
// requests.count and token counts (read under "usage", or on the model's object itself). A
// shutdown with totals replaces the per-message rows of the run it closes. The first run the
// scan closes may have begun before the scan's first line: the scan says so
// (Scan.UsageBeforeStart), for the caller to subtract what came before.
func (sc *scanner) shutdown(metrics gjson.Result) {
	var total events.TokenUsage
	found := false
	metrics.ForEach(func(_, m gjson.Result) bool {
		if !m.IsObject() {
			return true
		}
		u := m.Get("usage")
		if !u.IsObject() {
			u = m
		}
		found = true
		total = total.Add(events.TokenUsage{
			InputTokens:         int(u.Get("inputTokens").Int()),
			CacheCreationTokens: int(u.Get("cacheWriteTokens").Int()),
			CacheReadTokens:     int(u.Get("cacheReadTokens").Int()),
			OutputTokens:        int(u.Get("outputTokens").Int()),
			APICallCount:        int(m.Get("requests.count").Int()),
		})
		return true
	})
	if !found {
		return
	}
	sc.closed = sc.closed.Add(total)
	sc.open = agent.Scan{}
	sc.s.UsageBeforeStart = true
}
