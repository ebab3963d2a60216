package engine

import (
	"github.com/entirerec/entire/engine/redact"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// autoTurnSlot shapes the slot of an auto-commit turn's checkpoint (spec §5 Stop step 4): one
// step, the commit's files, and the files the turn's Stop writes to
// .entire/metadata/<session-id>/ (format §2.2, §3.6), redacted: prompt.txt with this turn's
// prompts only, summary.txt with its last assistant text, and the shadow context.md. The
// turn's lines, in the transcript at path, begin at from (its pre-prompt position).
func autoTurnSlot(sessionID string, data tsource, path string, from events.Transcript, f session.Condense, w *slotWrite) {
	a := f.Auto
	w.meta.CheckpointsCount = 1
	w.meta.FilesTouched = session.MergeSorted(nil, f.Commit.Files)
	to := a.To
	if to.Path != path {
		to = events.Transcript{} // another file: read to its end
	}
	sc := turnScan(data, from, to)
	prompts := sc.Prompts
	if len(prompts) == 0 && a.Prompt != "" {
		prompts = []string{a.Prompt}
	}
	text := agent.PromptsText(prompts)
	subject := agent.CommitSubject(agent.LastPrompt(text))
	w.prompts = []byte(redact.String(text))
	w.summary = []byte(redact.String(sc.LastAssistant))
	w.context = []byte(redact.String(agent.ShadowContext(sessionID, subject, text, sc.LastAssistant, sc.Actions)))
}

// turnScan reads an auto-commit turn's records from its start to its end, or to the
// transcript's end when the turn's end is unknown or not in it (rewritten), or the
// transcript's positions are no byte offsets (agent.Positioner).
func turnScan(data tsource, from, to events.Transcript) agent.Scan {
	if !data.valid() {
		return agent.Scan{}
	}
	if _, ok := data.reader().(agent.Positioner); !ok {
		start := data.start(from.Offset)
		if to.Path != "" && to.Offset >= start && to.Offset <= data.end {
			if sc, ok := data.scanTo(start, to.Offset); ok {
				return sc
			}
		}
	}
	return data.scan(from)
}
