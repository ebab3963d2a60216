package gemini

import (
	"slices"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// lineScanner reads the records of a JSONL chat file (agent-hooks.md §2.4). Gemini CLI
// appends a message again each time it changes (tokens, more tool calls), so within one scan
// the last record of an id wins and keeps the place of the first; "$rewindTo" drops a message
// and every message after it. Only the facts of each message are kept.
type lineScanner struct {
	s     agent.Scan
	order []string           // message ids, first-seen order
	msgs  map[string]message // the latest facts per id
	// prompted: a user message was read. A model message with usage before the first one,
	// in a scan that starts past the file's start, may be one whose earlier records lie
	// before the scan: its usage is then counted there too (Scan.UsageBeforeStart).
	prompted bool
}

func newLineScanner(offset int64) *lineScanner {
	return &lineScanner{s: agent.Scan{StartOffset: offset, EndOffset: offset}, msgs: map[string]message{}}
}

// consume takes one complete line without its '\n'. Every line counts; blank, invalid and
// unknown lines are otherwise skipped, as Gemini CLI skips them.
func (sc *lineScanner) consume(line []byte) {
	sc.s.Lines++
	sc.s.EndOffset += int64(len(line)) + 1
	if !jsonvalid.Valid(line) {
		return
	}
	r := gjson.ParseBytes(line)
	if !r.IsObject() {
		return
	}
	// The record kinds, tested in Gemini CLI's own order.
	if to := r.Get(`$rewindTo`); to.Type == gjson.String {
		sc.rewind(to.Str)
		return
	}
	if id := r.Get("id"); id.Type == gjson.String {
		m := readMessage(r)
		switch {
		case m.typ == "user":
			sc.prompted = true
		case m.tokens != nil && !sc.prompted && sc.s.StartOffset > 0:
			sc.s.UsageBeforeStart = true
		}
		if _, seen := sc.msgs[m.id]; !seen {
			sc.order = append(sc.order, m.id)
		}
		sc.msgs[m.id] = m
	}
	// {"$set": ...} and the metadata record carry no new message: ignored (package doc).
}

// rewind drops message id and every later one. An id this scan has not seen was written
// before it started: everything this scan holds comes after it and goes.
func (sc *lineScanner) rewind(id string) {
	i := slices.Index(sc.order, id)
	if i < 0 {
		i = 0
	}
	for _, gone := range sc.order[i:] {
		delete(sc.msgs, gone)
	}
	sc.order = sc.order[:i]
}

// messages are the messages left, in order, each as its last record says.
func (sc *lineScanner) messages() []message {
	list := make([]message, 0, len(sc.order))
	for _, id := range sc.order {
		list = append(list, sc.msgs[id])
	}
	return list
}

// finish returns the Scan of the messages left.
func (sc *lineScanner) finish() agent.Scan {
	s := sc.s
	collect(&s, sc.messages())
	return s
}
