package engine

import (
	"context"
	"path"
	"strings"

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
	// Redacted before the subject is cut from it: a secret cut at the subject's 72nd rune is
	// no longer one that redaction finds.
	text := redact.String(agent.PromptsText(prompts))
	subject := agent.CommitSubject(agent.LastPrompt(text))
	w.prompts = []byte(text)
	w.summary = []byte(redact.String(sc.LastAssistant))
	w.context = []byte(redact.String(agent.ShadowContext(sessionID, subject, text, sc.LastAssistant, sc.Actions)))
}

// upToTurnEnd is the transcript of an auto-commit turn's checkpoint, up to the turn's end (to,
// its slot's): a later hook that makes it (the branch was locked, the hook was killed) reads a
// transcript grown since, whose next prompt and turn are not this turn's, as they are not in
// a checkpoint made at the turn's end. A transcript rewritten since (to is no line end in it),
// or whose positions are no byte offsets (agent.Positioner), is read whole.
func upToTurnEnd(data tsource, pos, to events.Transcript) (tsource, events.Transcript) {
	if !data.valid() || to.Path != pos.Path || to.Offset <= 0 || to.Offset >= pos.Offset || to.Lines > pos.Lines {
		return data, pos
	}
	if _, ok := data.reader().(agent.Positioner); ok {
		return data, pos
	}
	if b, ok := data.byteAt(to.Offset - 1); !ok || b != '\n' {
		return data, pos
	}
	data.end = to.Offset
	return data, to
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

// autoTaskSlot shapes the checkpoint of a subagent under auto-commit (spec §5 Subagents): the
// slot holds the main transcript (with content_hash.txt), is_task and the tool use, no step
// (checkpoints_count 0) and no files (files_touched null), and the task's record goes under
// tasks/<tool-use-id>/ at the checkpoint's root, redacted, the subagent's transcript as JSONL;
// the task's answer is looked for from from. The record's subject is the metadata commit's
// body line, and what it names its Entire-Metadata-Task trailer.
func (en *Engine) autoTaskSlot(ctx context.Context, sessionID string, data tsource, from events.Transcript, f session.Condense, w *slotWrite) (taskRecord, error) {
	a := f.Auto
	rec, err := taskRecordOf(sessionID, *a.Task, a.Sequence, a.At, data, data.start(from.Offset))
	if err != nil {
		return rec, err
	}
	w.meta.CheckpointsCount = 0
	w.meta.FilesTouched = nil
	w.meta.TokenUsage = nil // the turn's checkpoint counts these lines
	w.prompts, w.context, w.summary = nil, nil, nil
	if f.Commit.Branch == "" { // no commit of its own: HEAD's branch
		if b, attached, err := en.Repo.HeadBranch(ctx); err == nil && attached {
			w.meta.Branch = b
		}
	}
	dir := path.Join("tasks", a.Task.ToolUseID)
	for _, b := range rec.files {
		if strings.HasSuffix(b.Name, ".jsonl") {
			b.Data = redact.JSONL(b.Data)
		}
		w.rootFiles = append(w.rootFiles, NamedBlob{path.Join(dir, b.Name), b.Data})
	}
	return rec, nil
}
