package codex

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// contextWrappers start the user-role messages Codex writes itself (the environment, the
// AGENTS.md instructions, a shell command typed with '!', an aborted turn): they are not
// prompts.
var contextWrappers = []string{
	"<environment_context>",
	"<user_instructions>",
	"<user_shell_command>",
	"<turn_aborted>",
	"# AGENTS.md instructions",
}

// scanner accumulates a Scan line by line.
type scanner struct {
	s     agent.Scan
	files map[string]bool // ModifiedFiles as a set
	// answered: a response item of the model was read. In a scan that starts past the file's
	// start, a token_count before the first one may repeat the last one before the scan
	// (Scan.UsageBeforeStart).
	answered bool
	// itemPrompts are the prompts of response_item user messages, used only when the scan saw
	// no event_msg user_message (sawUserEvent).
	itemPrompts  []string
	sawUserEvent bool
	// steps lists the steps when on (ScanSteps); itemSteps are the indexes in it of the
	// fallback prompts, left out as they are when the scan saw a user_message.
	steps     agent.Steps
	itemSteps []int
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
	head := gjson.GetManyBytes(line, "type", "payload.type")
	if head[0].Type != gjson.String {
		return
	}
	payload := gjson.GetBytes(line, "payload")
	switch head[0].Str {
	case "session_meta":
		sc.workdir(payload)
	case "turn_context":
		sc.workdir(payload)
		sc.turn(payload)
	case "event_msg":
		sc.event(head[1].String(), payload)
	case "response_item":
		sc.item(head[1].String(), payload)
		if typ := head[1].String(); typ != "message" && !strings.HasSuffix(typ, "_output") ||
			payload.Get("role").String() == "assistant" {
			sc.answered = true // not a prompt, nor a tool's output
		}
	}
}

// result is the scan, with the fallback prompts filled in.
func (sc *scanner) result() agent.Scan {
	if !sc.sawUserEvent {
		sc.s.Prompts = sc.itemPrompts
	}
	return sc.s
}

// stepList is the steps listed, without the fallback prompts when the scan saw a user_message.
func (sc *scanner) stepList() []agent.Step {
	if !sc.sawUserEvent || len(sc.itemSteps) == 0 {
		return sc.steps.List
	}
	out := make([]agent.Step, 0, len(sc.steps.List)-len(sc.itemSteps))
	next := 0
	for i, st := range sc.steps.List {
		if next < len(sc.itemSteps) && sc.itemSteps[next] == i {
			next++
			continue
		}
		out = append(out, st)
	}
	return out
}

// turn records the id of a turn_context or task_started line.
func (sc *scanner) turn(payload gjson.Result) {
	if id := payload.Get("turn_id"); id.Type == gjson.String && id.Str != "" {
		sc.s.LastUUID = id.Str
	}
}

// workdir records the cwd of a session_meta or turn_context line, if it is absolute.
func (sc *scanner) workdir(payload gjson.Result) {
	if d := payload.Get("cwd"); d.Type == gjson.String && filepath.IsAbs(d.Str) {
		sc.s.Cwd = d.Str
	}
}

// event records an event_msg line.
func (sc *scanner) event(typ string, payload gjson.Result) {
	switch typ {
	case "user_message":
		sc.sawUserEvent = true
		if m := payload.Get("message"); m.Type == gjson.String {
			if p := strings.TrimSpace(m.Str); p != "" {
				p = agent.Truncate(p, agent.MaxTextBytes)
				sc.s.Prompts = append(sc.s.Prompts, p)
				sc.steps.Prompt(p)
			}
		}
	case "agent_message":
		if m := payload.Get("message"); m.Type == gjson.String && strings.TrimSpace(m.Str) != "" {
			sc.s.LastAssistant = m.Str
			sc.steps.Assistant(m.Str)
		}
	case "task_started":
		sc.turn(payload)
	case "token_count":
		sc.tokens(payload.Get("info"))
	}
}

// item records a response_item line.
func (sc *scanner) item(typ string, payload gjson.Result) {
	switch typ {
	case "message":
		sc.message(payload)
	case "function_call":
		name, args := payload.Get("name").String(), payload.Get("arguments").String()
		a := agent.Action{Tool: name, Detail: commandOf(args)}
		var patches []string
		if name == "apply_patch" || strings.Contains(args, "apply_patch") {
			patches = argumentPatches(args)
		}
		sc.action(a, patches)
	case "custom_tool_call":
		name := payload.Get("name").String()
		var patches []string
		if name == "apply_patch" {
			if in := payload.Get("input"); in.Type == gjson.String {
				patches = []string{in.Str}
			}
		}
		sc.action(agent.Action{Tool: name}, patches)
	}
}

// message records a response_item message: a user message's prompt (kept as a fallback, its
// input_text blocks joined by a blank line) or an assistant message's last output_text block.
func (sc *scanner) message(payload gjson.Result) {
	role := payload.Get("role").String()
	if role != "user" && role != "assistant" {
		return // developer and system messages
	}
	var parts []string
	payload.Get("content").ForEach(func(_, block gjson.Result) bool {
		t := block.Get("text")
		if t.Type != gjson.String || strings.TrimSpace(t.Str) == "" {
			return true
		}
		switch typ := block.Get("type").String(); {
		case role == "assistant" && typ == "output_text":
			sc.s.LastAssistant = t.Str
			sc.steps.Assistant(t.Str)
		case role == "user" && typ == "input_text" && !isContextWrapper(strings.TrimSpace(t.Str)):
			parts = append(parts, strings.TrimSpace(t.Str))
		}
		return true
	})
	if len(parts) > 0 {
		p := agent.Truncate(strings.Join(parts, "\n\n"), agent.MaxTextBytes)
		sc.itemPrompts = append(sc.itemPrompts, p)
		if sc.steps.On {
			sc.itemSteps = append(sc.itemSteps, len(sc.steps.List))
			sc.steps.Prompt(p)
		}
	}
}

func isContextWrapper(text string) bool {
	for _, w := range contextWrappers {
		if strings.HasPrefix(text, w) {
			return true
		}
	}
	return false
}

// action records one tool call and the files its patches write. An apply_patch call without
// another detail is described by the first file it writes.
func (sc *scanner) action(a agent.Action, patches []string) {
	for _, p := range patches {
		for _, path := range PatchPaths(p) {
			if a.Detail == "" {
				a.Detail = path
			}
			if sc.files[path] {
				continue
			}
			if sc.files == nil {
				sc.files = make(map[string]bool)
			}
			sc.files[path] = true
			sc.s.ModifiedFiles = append(sc.s.ModifiedFiles, path)
		}
	}
	sc.s.Actions = append(sc.s.Actions, a)
	sc.steps.Tool(a)
}

// shells are the interpreters whose "-c"/"-lc" script is the command a shell argv runs.
var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "/bin/bash": true, "/bin/sh": true, "/bin/zsh": true}

// commandOf returns the command a function_call's arguments run: "cmd", else "command" (a
// string, or an argv whose shell script is returned, else the argv joined by spaces); "" for
// arguments that are not a JSON object or have neither.
func commandOf(arguments string) string {
	if !gjson.Valid(arguments) {
		return ""
	}
	args := gjson.Parse(arguments)
	if !args.IsObject() {
		return ""
	}
	for _, key := range []string{"cmd", "command"} {
		v := args.Get(key)
		switch {
		case v.Type == gjson.String && v.Str != "":
			return v.Str
		case v.IsArray():
			var argv []string
			for _, e := range v.Array() {
				argv = append(argv, e.String())
			}
			if len(argv) == 3 && shells[argv[0]] && (argv[1] == "-c" || argv[1] == "-lc") {
				return argv[2]
			}
			if len(argv) > 0 {
				return strings.Join(argv, " ")
			}
		}
	}
	return ""
}

// tokens records one token_count event. Its info holds Codex's cumulative total_token_usage
// and the last_token_usage of the API response just received; the scan sums the latter (see
// the package documentation). The cumulative total identifies the response: Codex repeats a
// token_count with unchanged totals (on a rate-limit update, say), and the repetition is the
// same response, counted once.
func (sc *scanner) tokens(info gjson.Result) {
	if !info.IsObject() {
		return // null before the first response
	}
	last := info.Get("last_token_usage")
	input, cached := last.Get("input_tokens").Int(), last.Get("cached_input_tokens").Int()
	row := events.TokenUsage{
		InputTokens:     int(max(input-cached, 0)),
		CacheReadTokens: int(cached),
		OutputTokens:    int(last.Get("output_tokens").Int()),
		APICallCount:    1,
	}
	id := ""
	if total := info.Get("total_token_usage"); total.IsObject() {
		id = fmt.Sprintf("total:%d/%d/%d/%d/%d", total.Get("input_tokens").Int(), total.Get("cached_input_tokens").Int(),
			total.Get("output_tokens").Int(), total.Get("reasoning_output_tokens").Int(), total.Get("total_tokens").Int())
	}
	sc.s.AddCall(id, row)
	if !sc.answered && sc.s.StartOffset > 0 {
		// Codex repeats a token_count with unchanged totals (a rate-limit update), also just
		// after the lines before this scan: it would be counted again here.
		sc.s.UsageBeforeStart = true
	}
}
