package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
	"github.com/entirerec/entire/events/claudecode"
	"github.com/entirerec/entire/events/gemini"
	"github.com/entirerec/entire/gitexec"
)

// SkipLines drops the first n newline-terminated lines of data (agent.SkipLines).
func SkipLines(data []byte, n int) []byte { return agent.SkipLines(data, n) }

func withNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return append(append([]byte(nil), b...), '\n')
	}
	return b
}

// LoadTranscript fills in a slot's transcript.
func LoadTranscript(ctx context.Context, repo *gitexec.Repo, s *Slot) error {
	entries, _, err := repo.ReadTree(ctx, s.Tree)
	if err != nil {
		return err
	}
	s.Transcript, s.HasChunks, err = ReadTranscript(ctx, repo, entries, s.Meta.Agent)
	return err
}

// ReadTranscript applies the reader rule of spec §3.4: numbered chunks full.jsonl.NNN (NNN > 0)
// in numeric order after full.jsonl, reassembled per agent; else full.jsonl; else full.log.
func ReadTranscript(ctx context.Context, repo *gitexec.Repo, entries []gitexec.TreeEntry, agent string) ([]byte, bool, error) {
	type chunk struct {
		n   int
		oid gitexec.OID
	}
	var chunks []chunk
	files := map[string]gitexec.OID{}
	for _, e := range entries {
		files[e.Name] = e.OID
		if suffix, ok := strings.CutPrefix(e.Name, "full.jsonl."); ok {
			if n, err := strconv.Atoi(suffix); err == nil && n > 0 {
				chunks = append(chunks, chunk{n, e.OID})
			}
		}
	}
	read := func(oid gitexec.OID) ([]byte, error) {
		data, _, err := repo.ReadBlob(ctx, string(oid))
		return data, err
	}
	if len(chunks) == 0 {
		for _, name := range []string{"full.jsonl", "full.log"} {
			if oid, ok := files[name]; ok {
				data, err := read(oid)
				return data, false, err
			}
		}
		return nil, false, nil
	}
	sort.Slice(chunks, func(i, j int) bool { return chunks[i].n < chunks[j].n })
	var parts [][]byte
	if oid, ok := files["full.jsonl"]; ok {
		chunks = append([]chunk{{0, oid}}, chunks...)
	}
	for _, c := range chunks {
		data, err := read(c.oid)
		if err != nil {
			return nil, true, err
		}
		parts = append(parts, data)
	}
	data, err := JoinChunks(agent, parts)
	return data, true, err
}

// MergesDocuments reports whether the reference reassembles an agent's transcript chunks by
// merging {"messages":[…]} documents rather than joining lines (Gemini CLI, spec §3.4): it
// cannot read such an agent's transcript split anywhere else.
func MergesDocuments(agentType string) bool { return agentType == gemini.Type }

// JoinChunks reassembles transcript chunks: JSONL chunks joined with one "\n"; Gemini's
// {"messages":[…]} chunks merged into one object (spec §3.4).
func JoinChunks(agent string, parts [][]byte) ([]byte, error) {
	if !MergesDocuments(agent) || len(parts) == 0 || !bytes.HasPrefix(bytes.TrimSpace(parts[0]), []byte(`{"messages"`)) {
		// JSON lines (Gemini CLI's chat files since v0.39 too)
		return bytes.Join(parts, []byte{'\n'}), nil
	}
	var all struct {
		Messages []json.RawMessage `json:"messages"`
	}
	all.Messages = []json.RawMessage{}
	for i, p := range parts {
		var c struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(p, &c); err != nil {
			return nil, fmt.Errorf("read transcript chunk %d: %w", i, err)
		}
		all.Messages = append(all.Messages, c.Messages...)
	}
	return json.Marshal(all)
}

// TranscriptEntry is one readable step of a Claude transcript.
type TranscriptEntry struct {
	Kind string // "user" (a prompt), "summary" (a compaction's), "assistant" (text) or "tool" (a tool call)
	Text string // the prompt or text; for a tool call its detail (may be "")
	Tool string // tool name, for Kind "tool"
}

// TranscriptEntries turns Claude JSONL into prompts, assistant text and tool calls, in order
// (spec §12.4); tool results and lines that are not JSON are left out.
func TranscriptEntries(data []byte) []TranscriptEntry {
	var out []TranscriptEntry
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		var l struct {
			Type           string `json:"type"`
			CompactSummary bool   `json:"isCompactSummary"`
			Message        struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &l) != nil {
			continue
		}
		var text string
		var blocks []struct {
			Type  string                     `json:"type"`
			Text  string                     `json:"text"`
			Name  string                     `json:"name"`
			Input map[string]json.RawMessage `json:"input"`
		}
		if json.Unmarshal(l.Message.Content, &text) != nil {
			_ = json.Unmarshal(l.Message.Content, &blocks) // neither: nothing to show
		}
		switch l.Type {
		case "user", "human":
			var parts []string
			for _, b := range blocks {
				if b.Type == "text" {
					parts = append(parts, b.Text)
				}
			}
			if len(parts) > 0 {
				text = strings.Join(parts, "\n\n")
			}
			kind := "user"
			if l.CompactSummary { // Claude Code's summary of what it compacted: no prompt
				kind = "summary"
			}
			if p := claudecode.StripTags(text); p != "" {
				out = append(out, TranscriptEntry{Kind: kind, Text: p})
			}
		case "assistant":
			for _, b := range blocks {
				switch {
				case b.Type == "text" && strings.TrimSpace(b.Text) != "":
					out = append(out, TranscriptEntry{Kind: "assistant", Text: b.Text})
				case b.Type == "tool_use":
					out = append(out, TranscriptEntry{Kind: "tool", Tool: b.Name, Text: toolDetail(b.Input)})
				}
			}
		}
	}
	return out
}

// toolDetail is the input description, else command, file_path, notebook_path or pattern.
func toolDetail(in map[string]json.RawMessage) string {
	for _, k := range []string{"description", "command", "file_path", "notebook_path", "pattern"} {
		var s string
		if json.Unmarshal(in[k], &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// Entries are the readable steps of the slot's transcript data (all of it or its scope) in the
// slot agent's format: Claude Code's JSONL is read block by block; any other agent's transcript
// through its own scanner, in the order written (Stepper), or message by message when its
// lines are not each a step (RecordScanner), else record by record (its prompts, then its tool
// calls, then its last assistant text).
func (s Slot) Entries(data []byte) []TranscriptEntry {
	rd, ok := agents.ByType(s.Meta.Agent)
	if !ok || rd.Name() == agents.Default.Name() {
		return TranscriptEntries(data)
	}
	var out []TranscriptEntry
	add := func(sc agent.Scan) {
		for _, p := range sc.Prompts {
			out = append(out, TranscriptEntry{Kind: "user", Text: p})
		}
		for _, a := range sc.Actions {
			out = append(out, TranscriptEntry{Kind: "tool", Tool: a.Tool, Text: a.Detail})
		}
		if sc.LastAssistant != "" {
			out = append(out, TranscriptEntry{Kind: "assistant", Text: sc.LastAssistant})
		}
	}
	if rs, ok := rd.(agent.RecordScanner); ok {
		if scans, ok := rs.ScanRecords(withNewline(data)); ok { // message by message
			for _, sc := range scans {
				add(sc)
			}
			return out
		}
	}
	if st, ok := rd.(agent.Stepper); ok {
		whole, steps := st.ScanSteps(withNewline(data))
		for _, step := range steps {
			out = append(out, TranscriptEntry(step))
		}
		return oncePerMessage(out, whole)
	}
	if first, _, _ := bytes.Cut(data, []byte{'\n'}); string(bytes.TrimSpace(first)) == "{" {
		add(rd.ScanBytes(withNewline(data))) // one pretty-printed JSON document
		return out
	}
	agent.SplitLines(withNewline(data), func(line []byte) {
		add(rd.ScanBytes(append(line[:len(line):len(line)], '\n')))
	})
	return oncePerMessage(out, rd.ScanBytes(withNewline(data)))
}

// oncePerMessage drops the entries that line-by-line scanning finds more than once for one
// message: Codex records each prompt and answer twice (a response_item and an event_msg). The
// scan of the whole transcript says which prompts and tool calls there are, in order: a prompt
// or tool call is kept when it is the next one of those, and an answer when it does not repeat
// the entry kept just before.
// Should the line-by-line entries not contain all of the whole scan's, in its order, they are
// returned as they are, so that nothing is lost.
func oncePerMessage(entries []TranscriptEntry, whole agent.Scan) []TranscriptEntry {
	var out []TranscriptEntry
	p, a := 0, 0
	for _, e := range entries {
		switch e.Kind {
		case "user":
			if p == len(whole.Prompts) || whole.Prompts[p] != e.Text {
				continue
			}
			p++
		case "tool":
			if a == len(whole.Actions) || whole.Actions[a] != (agent.Action{Tool: e.Tool, Detail: e.Text}) {
				continue
			}
			a++
		case "assistant":
			if n := len(out); n > 0 && out[n-1] == e {
				continue
			}
		}
		out = append(out, e)
	}
	if p < len(whole.Prompts) || a < len(whole.Actions) {
		return entries
	}
	return out
}
