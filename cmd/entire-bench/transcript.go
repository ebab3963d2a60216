package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// transcript writes a Claude Code session transcript: JSONL, one line per message block,
// each assistant line with its usage block, as in testdata/demo.sh.
type transcript struct {
	path, sessionID, cwd string
	n                    int    // lines written; numbers uuids and timestamps
	parent               string // uuid of the previous line
	msg                  int    // assistant message counter
	buf                  bytes.Buffer
	rng                  *rand.Rand
}

// line is one transcript entry, fields in Claude Code's order.
type line struct {
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	UserType    string  `json:"userType"`
	CWD         string  `json:"cwd"`
	SessionID   string  `json:"sessionId"`
	Version     string  `json:"version"`
	GitBranch   string  `json:"gitBranch"`
	Type        string  `json:"type"`
	Message     message `json:"message"`
	UUID        string  `json:"uuid"`
	Timestamp   string  `json:"timestamp"`
}

// message is the API message a line carries.
type message struct {
	ID      string `json:"id,omitempty"`
	Role    string `json:"role"`
	Model   string `json:"model,omitempty"`
	Content any    `json:"content"`
	Usage   *usage `json:"usage,omitempty"`
}

// usage is an assistant message's token accounting.
type usage struct {
	Input         int `json:"input_tokens"`
	CacheCreation int `json:"cache_creation_input_tokens"`
	CacheRead     int `json:"cache_read_input_tokens"`
	Output        int `json:"output_tokens"`
}

// block is one content block: text, tool_use or tool_result.
type block struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitempty"`
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name,omitempty"`
	Input     map[string]any `json:"input,omitempty"`
	ToolUseID string         `json:"tool_use_id,omitempty"`
	Content   string         `json:"content,omitempty"`
}

var transcriptEpoch = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// newTranscript returns the writer of session id's transcript, at the path Claude Code uses
// under HOME for a project in cwd.
func newTranscript(home, id, cwd string) *transcript {
	project := strings.NewReplacer("/", "-", ".", "-", "_", "-").Replace(cwd)
	return &transcript{
		path: filepath.Join(home, ".claude", "projects", project, id+".jsonl"), sessionID: id, cwd: cwd,
		rng: rand.New(rand.NewPCG(uint64(len(id)), 7)),
	}
}

// add appends one line to the pending buffer.
func (t *transcript) add(typ string, m message) {
	t.n++
	uuid := fmt.Sprintf("%08x-0000-4000-8000-%012x", t.n, len(t.sessionID))
	l := line{IsSidechain: false, UserType: "external", CWD: t.cwd, SessionID: t.sessionID,
		Version: "2.0.0", GitBranch: "main", Type: typ, Message: m, UUID: uuid,
		Timestamp: transcriptEpoch.Add(time.Duration(t.n) * time.Second).Format("2006-01-02T15:04:05.000Z")}
	if t.parent != "" {
		p := t.parent
		l.ParentUUID = &p
	}
	data, _ := json.Marshal(l) // plain structs of strings and ints: cannot fail
	t.buf.Write(data)
	t.buf.WriteByte('\n')
	t.parent = uuid
}

// assistant appends an assistant line with content blocks and a usage block.
func (t *transcript) assistant(blocks ...block) {
	t.msg++
	out := 20 + t.rng.IntN(400)
	t.add("assistant", message{ID: fmt.Sprintf("msg_%06d", t.msg), Role: "assistant", Model: "claude-sonnet-4-5",
		Content: blocks, Usage: &usage{Input: 4 + t.rng.IntN(40), CacheRead: 20_000 + 40*t.n, Output: out}})
}

// prompt appends the user's prompt.
func (t *transcript) prompt(text string) {
	t.add("user", message{Role: "user", Content: text})
}

// write appends a Write tool_use for the file at abs and its tool_result.
func (t *transcript) write(abs, content string) {
	id := fmt.Sprintf("toolu_%06d", t.n+1)
	t.assistant(block{Type: "tool_use", ID: id, Name: "Write", Input: map[string]any{"file_path": abs, "content": content}})
	t.add("user", message{Role: "user", Content: []block{{Type: "tool_result", ToolUseID: id, Content: "File written successfully at: " + abs}}})
}

// say appends an assistant text line.
func (t *transcript) say(text string) {
	t.assistant(block{Type: "text", Text: text})
}

// filler appends about size bytes of earlier conversation: long explanations, and Read calls
// whose results are 3-5 KB of file text, so lines are 2-5 KB as in real long sessions.
func (t *transcript) filler(size int) {
	goal := t.buf.Len() + size
	for t.buf.Len() < goal {
		t.say(t.prose(2000 + t.rng.IntN(1500)))
		id := fmt.Sprintf("toolu_%06d", t.n+1)
		file := filepath.Join(t.cwd, filePath(t.rng.IntN(100)))
		t.assistant(block{Type: "tool_use", ID: id, Name: "Read", Input: map[string]any{"file_path": file}})
		t.add("user", message{Role: "user", Content: []block{{Type: "tool_result", ToolUseID: id, Content: t.prose(3000 + t.rng.IntN(2000))}}})
	}
}

var words = strings.Fields(`the handler returns an error when the request context is cancelled before
	the response is written so we wrap it with the operation name and keep the original cause for
	callers that inspect it with errors.Is; this function reads the configuration file, validates
	every field, and falls back to defaults for missing values while logging a warning per field
	package test table index cache tree commit branch session transcript checkpoint journal`)

// prose returns about n bytes of plausible text with line breaks.
func (t *transcript) prose(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[t.rng.IntN(len(words))])
		if t.rng.IntN(14) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// flush appends the pending lines to the transcript file, as Claude Code does while it works.
func (t *transcript) flush() error {
	if err := os.MkdirAll(filepath.Dir(t.path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(t.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(t.buf.Bytes())
	t.buf.Reset()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
