package opencode

import (
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// fileTools are the OpenCode tools that write files; patchTools name their files in a patch.
var (
	fileTools  = map[string]bool{"write": true, "edit": true, "multiedit": true, "patch": true, "apply_patch": true}
	patchTools = map[string]bool{"patch": true, "apply_patch": true}
)

// actionDetailKeys are the tool input keys tried, in order, for Action.Detail (grep and glob
// have both pattern and path: the pattern says more).
var actionDetailKeys = []string{"description", "command", "filePath", "pattern", "path"}

// scanner accumulates a Scan one message line at a time.
type scanner struct {
	s     agent.Scan
	files map[string]bool // ModifiedFiles as a set
	steps agent.Steps
}

func newScanner(offset int64) *scanner {
	return &scanner{s: agent.Scan{StartOffset: offset, EndOffset: offset}}
}

// consume takes one complete line without its '\n': one exported message,
// {"info": {...}, "parts": [...]}. Lines that are not such an object are counted and skipped.
func (sc *scanner) consume(line []byte) {
	sc.s.Lines++
	sc.s.EndOffset += int64(len(line)) + 1
	if !jsonvalid.Valid(line) {
		return
	}
	head := gjson.GetManyBytes(line, "info.id", "info.role", "parts")
	id := ""
	if head[0].Type == gjson.String && head[0].Str != "" {
		id = head[0].Str
		sc.s.LastUUID = id
	}
	parts := head[2]
	if !parts.IsArray() {
		parts = gjson.Result{}
	}
	switch head[1].Str {
	case "user":
		sc.user(parts)
	case "assistant":
		info := gjson.GetManyBytes(line, "info.tokens", "info.path.cwd")
		// The directory OpenCode runs in (info.path.cwd), which relative paths (a patch's,
		// always) are relative to: a subdirectory when OpenCode was started in one.
		if d := info[1]; d.Type == gjson.String && filepath.IsAbs(d.Str) {
			sc.s.Cwd = d.Str
		}
		sc.assistant(id, info[0], parts)
	}
}

// textOf joins a message's text parts ("\n\n"), leaving out synthetic ones (file contents and
// notes OpenCode adds) and ignored ones.
func textOf(parts gjson.Result) string {
	var texts []string
	parts.ForEach(func(_, p gjson.Result) bool {
		if t := partText(p); t != "" {
			texts = append(texts, t)
		}
		return true
	})
	return strings.Join(texts, "\n\n")
}

// partText is the text of a text part that textOf joins, else "".
func partText(p gjson.Result) string {
	if p.Get("type").Str != "text" || p.Get("synthetic").Bool() || p.Get("ignored").Bool() {
		return ""
	}
	if t := p.Get("text"); t.Type == gjson.String {
		return t.Str
	}
	return ""
}

// user records the prompt of a user message, if it has one.
func (sc *scanner) user(parts gjson.Result) {
	if p := strings.TrimSpace(textOf(parts)); p != "" {
		p = agent.Truncate(p, agent.MaxTextBytes)
		sc.s.Prompts = append(sc.s.Prompts, p)
		sc.steps.Prompt(p)
	}
}

// assistant records the text, tool calls and token usage of one assistant message (one model
// call: OpenCode starts a new assistant message for each step of a turn).
func (sc *scanner) assistant(id string, tokens, parts gjson.Result) {
	if t := textOf(parts); strings.TrimSpace(t) != "" {
		sc.s.LastAssistant = t
	}
	parts.ForEach(func(_, p gjson.Result) bool {
		switch p.Get("type").Str {
		case "tool":
			sc.tool(p.Get("tool").String(), p.Get("state"))
		case "text":
			sc.steps.Assistant(partText(p))
		}
		return true
	})
	if tokens.IsObject() {
		sc.s.AddCall(id, events.TokenUsage{
			InputTokens:         int(tokens.Get("input").Int()),
			OutputTokens:        int(tokens.Get("output").Int() + tokens.Get("reasoning").Int()),
			CacheReadTokens:     int(tokens.Get("cache.read").Int()),
			CacheCreationTokens: int(tokens.Get("cache.write").Int()),
			APICallCount:        1,
		})
	}
}

// tool records one tool part: an Action, and for a file tool that did not fail the files it
// names.
func (sc *scanner) tool(name string, state gjson.Result) {
	input := state.Get("input")
	var paths []string
	if patchTools[name] {
		paths = patchFiles(patchText(input))
	}
	for _, k := range []string{"filePath", "path"} {
		if v := input.Get(k); v.Type == gjson.String && v.Str != "" {
			paths = append([]string{v.Str}, paths...)
			break
		}
	}
	a := agent.Action{Tool: name}
	for _, k := range actionDetailKeys {
		if v := input.Get(k); v.Type == gjson.String && v.Str != "" {
			a.Detail = v.Str
			break
		}
	}
	if a.Detail == "" && len(paths) > 0 {
		a.Detail = paths[0]
	}
	sc.s.Actions = append(sc.s.Actions, a)
	sc.steps.Tool(a)
	if !fileTools[name] || state.Get("status").Str == "error" {
		return
	}
	for _, p := range paths {
		sc.addFile(p)
	}
}

func (sc *scanner) addFile(p string) {
	if p == "" || sc.files[p] {
		return
	}
	if sc.files == nil {
		sc.files = make(map[string]bool)
	}
	sc.files[p] = true
	sc.s.ModifiedFiles = append(sc.s.ModifiedFiles, p)
}

// patchText is the patch a patch tool was given: input.patchText (OpenCode), else input.patch
// or input.input, else the input itself when it is a string.
func patchText(input gjson.Result) string {
	if input.Type == gjson.String {
		return input.Str
	}
	for _, k := range []string{"patchText", "patch", "input"} {
		if v := input.Get(k); v.Type == gjson.String {
			return v.Str
		}
	}
	return ""
}

// patchHeaders are the lines of the patch format that name a file the patch changes: added,
// updated, deleted, or the new name of a moved file.
var patchHeaders = []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"}

// patchFiles lists the files a patch names, in order.
func patchFiles(patch string) []string {
	var files []string
	for line := range strings.Lines(patch) {
		line = strings.TrimSpace(line)
		for _, h := range patchHeaders {
			if rest, ok := strings.CutPrefix(line, h); ok {
				if f := strings.TrimSpace(rest); f != "" {
					files = append(files, f)
				}
				break
			}
		}
	}
	return files
}
