package agent

import (
	"cmp"
	"slices"
	"strings"

	"github.com/entirerec/entire/events"
)

// Action is one assistant tool call, as listed under "Key Actions" in the
// shadow context.md (entire-format.md §2.2).
type Action struct {
	Tool   string `json:"tool"`   // tool_use name, e.g. "Bash"
	Detail string `json:"detail"` // input description, else command, else file_path, else pattern; may be ""
}

// Step is one readable step of a transcript, as explain shows it: a prompt (Kind "user"), a
// text of the assistant ("assistant") or a tool call ("tool").
type Step struct {
	Kind string
	Text string // the prompt or text; a tool call's Action.Detail
	Tool string // a tool call's name
}

// Steps collects a transcript's steps in the order written while On; a scanner holds one, and
// only a scan that lists steps (Stepper) turns it on, so that a hook's scan keeps no text it
// does not need.
type Steps struct {
	On   bool
	List []Step
}

// Prompt records a prompt, as Scan.Prompts holds it.
func (st *Steps) Prompt(text string) {
	if st.On {
		st.List = append(st.List, Step{Kind: "user", Text: text})
	}
}

// Assistant records a text of the assistant; a blank one is not a step.
func (st *Steps) Assistant(text string) {
	if st.On && strings.TrimSpace(text) != "" {
		st.List = append(st.List, Step{Kind: "assistant", Text: text})
	}
}

// Tool records a tool call, as Scan.Actions holds it.
func (st *Steps) Tool(a Action) {
	if st.On {
		st.List = append(st.List, Step{Kind: "tool", Tool: a.Tool, Text: a.Detail})
	}
}

// Scan is what one pass over a run of transcript lines found.
type Scan struct {
	// Prompts are the user prompts in order (entire-format.md §12.4): a
	// "user" (or legacy "human") line whose message.content is a string or
	// holds text blocks (joined "\n\n"), with IDE/system tags stripped and
	// trimmed. Tool-result-only lines and prompts empty after stripping are
	// not prompts.
	Prompts []string `json:"prompts"`
	// ModifiedFiles are the input.file_path (else input.notebook_path) of
	// assistant tool_use blocks named Write, Edit, MultiEdit, NotebookEdit,
	// mcp__acp__Write or mcp__acp__Edit: first-seen order, no duplicates,
	// exactly as written in the transcript (see RepoRelative): relative ones are relative to
	// Cwd where the transcript names it.
	ModifiedFiles []string `json:"modified_files"`
	// Cwd is the agent's working directory as the last line that names one says (Codex's
	// session_meta and turn_context, OpenCode's assistant messages); "" when none does.
	Cwd string `json:"cwd,omitempty"`
	// LastAssistant is the text of the last non-empty assistant text block.
	LastAssistant string `json:"last_assistant"`
	// Usage is the token usage of entire-format.md §12.3 (no subagents).
	Usage events.TokenUsage `json:"usage"`
	// UsageBeforeStart reports that Usage holds the totals of a run of the agent (Copilot's
	// session.shutdown) which may have begun before the scan's first line, or the usage of a
	// message whose earlier records may lie before it (Gemini CLI appends a message again as it
	// changes), so that they may count lines before StartOffset too. The usage of the scanned range alone is then the
	// usage of the transcript up to the scan's end less its usage up to the scan's start. A
	// scan from the transcript's start is exact either way.
	UsageBeforeStart bool `json:"usage_before_start,omitempty"`
	// SubagentIDs are the subagents whose results the lines report (Claude Code's tool_result
	// text "agentId: <id>", entire-format.md §12.3), first-seen order, no duplicates, each
	// [A-Za-z0-9]+. Their own transcripts' usage is not in Usage (see SubagentCounter).
	SubagentIDs []string `json:"subagent_ids,omitempty"`
	// Actions are the assistant tool_use blocks in order.
	Actions []Action `json:"actions"`
	// Lines counts the newline-terminated lines consumed, whatever they hold.
	Lines int `json:"lines"`
	// StartOffset is the byte offset the scan started at (0 for ScanBytes).
	StartOffset int64 `json:"start_offset"`
	// EndOffset is the byte offset just after the last consumed line, in the
	// same frame as StartOffset; scan from here to continue.
	EndOffset int64 `json:"end_offset"`
	// LastUUID is the uuid of the last consumed line that has one.
	LastUUID string `json:"last_uuid"`

	// Calls holds, per assistant message.id, the usage row kept for it (the
	// one with the largest output_tokens, first seen on ties). Usage is the
	// sum of these rows. Merge uses it to dedupe ids across scans.
	Calls map[string]events.TokenUsage `json:"-"`
	// LastCall is the message id of the last response counted under one (AddCall).
	LastCall string `json:"-"`
}

// Merge combines s with later, a scan that started where s ended (its
// StartOffset is taken to equal s.EndOffset, in whatever frame later uses).
// Lists are concatenated, ModifiedFiles and SubagentIDs stay de-duplicated,
// LastAssistant, LastUUID and Cwd come from later unless it has none, and
// EndOffset advances by later's length.
//
// Usage: when both scans come from ScanFile/ScanBytes they carry their
// per-message.id rows, so an API response split across the boundary is
// counted once, with the row of the larger output_tokens (s's on ties),
// exactly as one scan over both ranges would count it. A Scan built by hand
// carries no rows; its Usage (including SubagentTokens) is added as-is.
// UsageBeforeStart is kept when either scan has it; later's run totals may
// then also repeat rows of s, which Merge cannot tell apart.
func (s Scan) Merge(later Scan) Scan {
	m := Scan{
		Prompts:          slices.Concat(s.Prompts, later.Prompts),
		ModifiedFiles:    appendNew(slices.Clone(s.ModifiedFiles), later.ModifiedFiles),
		SubagentIDs:      appendNew(slices.Clone(s.SubagentIDs), later.SubagentIDs),
		LastAssistant:    s.LastAssistant,
		Actions:          slices.Concat(s.Actions, later.Actions),
		Lines:            s.Lines + later.Lines,
		StartOffset:      s.StartOffset,
		EndOffset:        s.EndOffset + (later.EndOffset - later.StartOffset),
		LastUUID:         s.LastUUID,
		Cwd:              cmp.Or(later.Cwd, s.Cwd),
		UsageBeforeStart: s.UsageBeforeStart || later.UsageBeforeStart,
	}
	if later.LastAssistant != "" {
		m.LastAssistant = later.LastAssistant
	}
	if later.LastUUID != "" {
		m.LastUUID = later.LastUUID
	}
	m.Usage, m.Calls = mergeUsage(s, later)
	m.LastCall = cmp.Or(later.LastCall, s.LastCall)
	return m
}

// appendNew appends to list the items of more it does not hold yet, in order.
func appendNew(list, more []string) []string {
	for _, x := range more {
		if !slices.Contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}

// mergeUsage sums the usage of two scans and removes the double count of
// every message.id both have seen: the row not kept, and one API call.
func mergeUsage(s, later Scan) (events.TokenUsage, map[string]events.TokenUsage) {
	total := s.Usage.Add(later.Usage)
	if len(s.Calls) == 0 && len(later.Calls) == 0 {
		return total, nil
	}
	calls := make(map[string]events.TokenUsage, len(s.Calls)+len(later.Calls))
	for id, row := range s.Calls {
		calls[id] = row
	}
	for id, row := range later.Calls {
		prev, ok := calls[id]
		if !ok {
			calls[id] = row
			continue
		}
		dropped := row
		if row.OutputTokens > prev.OutputTokens {
			calls[id], dropped = row, prev
		}
		total = subUsage(total, dropped)
	}
	return total, calls
}

// subUsage subtracts one row (token fields and its API call) from u.
func subUsage(u, row events.TokenUsage) events.TokenUsage {
	u.InputTokens -= row.InputTokens
	u.CacheCreationTokens -= row.CacheCreationTokens
	u.CacheReadTokens -= row.CacheReadTokens
	u.OutputTokens -= row.OutputTokens
	u.APICallCount -= row.APICallCount
	return u
}

// AddCall counts one API response's usage row under its message id. A response seen again (an
// agent may write one response over several lines) keeps the row with the larger
// output_tokens, counted once; a response without an id is always counted.
func (s *Scan) AddCall(id string, row events.TokenUsage) {
	if id == "" {
		s.Usage = s.Usage.Add(row)
		return
	}
	s.LastCall = id
	prev, seen := s.Calls[id]
	switch {
	case !seen:
		if s.Calls == nil {
			s.Calls = make(map[string]events.TokenUsage)
		}
	case row.OutputTokens > prev.OutputTokens:
		s.Usage = subUsage(s.Usage, prev)
	default:
		return
	}
	s.Calls[id] = row
	s.Usage = s.Usage.Add(row)
}

// ContinueUsage is u, the usage of the lines sc scanned, less what a checkpoint before them
// already counted of open, the response its lines ended in: a response written over several
// lines (Claude Code writes one a content block at a time, each line repeating its usage) that
// a commit cut in two is counted once across the two checkpoints, with its row of the larger
// output_tokens, as one scan over both ranges would count it. next is the response open at
// sc's end, to be handed to the scan that continues from there. open is nil when sc did not
// start where it was left. A scan whose usage reaches back before its start anyway
// (UsageBeforeStart, counted exactly by RangeUsage) is not corrected.
func ContinueUsage(u events.TokenUsage, sc Scan, open *events.OpenCall) (_ events.TokenUsage, next *events.OpenCall) {
	if sc.UsageBeforeStart {
		open = nil
	}
	if open != nil {
		if row, ok := sc.Calls[open.ID]; ok {
			if row.OutputTokens > open.Usage.OutputTokens {
				u = subUsage(u, open.Usage)
			} else {
				u = subUsage(u, row)
			}
		}
	}
	next = open
	if sc.LastCall != "" {
		row := sc.Calls[sc.LastCall]
		if open != nil && open.ID == sc.LastCall && open.Usage.OutputTokens >= row.OutputTokens {
			row = open.Usage
		}
		next = &events.OpenCall{ID: sc.LastCall, Usage: row}
	}
	return u, next
}

// RangeUsage is the token usage of the lines sc scanned, which start at byte offset start of a
// transcript. A scan that counts a run's totals reaching back before its start
// (Scan.UsageBeforeStart: Copilot's session.shutdown) would count the run's earlier lines
// again; the range's usage is then the usage of the transcript's lines before the scan's end
// less that of its lines before start, where scanTo(end) scans the lines in [0, end). Only such
// a scan, not from the start, costs these two scans; when one fails (ok false), sc's own usage
// stands.
func RangeUsage(sc Scan, start int64, scanTo func(end int64) (Scan, bool)) events.TokenUsage {
	if !sc.UsageBeforeStart || start <= 0 {
		return sc.Usage
	}
	upToEnd, ok := scanTo(start + sc.EndOffset - sc.StartOffset)
	if !ok {
		return sc.Usage
	}
	before, ok := scanTo(start)
	if !ok {
		return sc.Usage
	}
	return upToEnd.Usage.Sub(before.Usage)
}
