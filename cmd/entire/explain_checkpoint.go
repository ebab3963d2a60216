package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/history"
	"github.com/entirerec/entire/events"
)

// explainCheckpoint shows a committed checkpoint, or else the temporary checkpoint whose
// shadow commit SHA starts with prefix.
func (c *explainCmd) explainCheckpoint(x *explainer, prefix string) error {
	// A checkpoint missing from the local record may have been pushed by another clone.
	if rd, err := history.New(x.en).ReaderFetching(x.ctx, prefix); err == nil {
		x.rd = rd
	} else {
		fmt.Fprintln(x.en.Stderr, "Warning:", err)
	}
	cp, err := x.rd.ReadCheckpoint(x.ctx, prefix)
	author := ""
	if errors.Is(err, checkpoint.ErrCheckpointNotFound) {
		var tc checkpoint.TemporaryCheckpoint
		if tc, err = checkpoint.FindTemporary(x.ctx, x.repo, prefix); err == nil {
			// Shadow commits do not name their agent (spec §2.3); the session's state does.
			if s, perr := x.en.Store.Peek(tc.SessionID); perr == nil {
				tc.Agent = s.AgentType
			}
			cp, err = checkpoint.ReadTemporary(x.ctx, x.repo, tc)
			author = tc.Author
		}
	}
	if errors.Is(err, checkpoint.ErrCheckpointNotFound) {
		if x.settleAgain(prefix) {
			return c.explainCheckpoint(x, prefix)
		}
		return fmt.Errorf("checkpoint not found: %s", prefix)
	}
	if err != nil {
		return err
	}
	if c.RawTranscript {
		for i := len(cp.Slots) - 1; i >= 0; i-- {
			if t := cp.Slots[i].Transcript; t != nil {
				_, err := x.raw.Write(t)
				return err
			}
		}
		return fmt.Errorf("checkpoint %s has no transcript", short(cp.ID, 12))
	}
	var commits []checkpoint.LinkedCommit
	if !cp.Temporary {
		if commits, err = x.linked(cp.ID, 0); err != nil {
			return err
		}
		if n := len(commits); n > 0 {
			author = commits[n-1].Author
		} else if author, err = x.rd.CheckpointAuthor(x.ctx, cp.ID); err != nil {
			return err
		}
	}
	if c.JSON {
		return writeJSON(x.raw, checkpointJSON(cp, commits, author))
	}
	v := view{Checkpoint: cp, commits: commits, author: author, short: c.Short, full: c.Full}
	v.render(x.out, x.pal)
	return nil
}

// view renders a checkpoint as text.
type view struct {
	*checkpoint.Checkpoint
	commits     []checkpoint.LinkedCommit
	author      string
	short, full bool
}

func (v view) render(w io.Writer, p palette) {
	id := v.ID
	if v.Temporary {
		id = short(id, 7) + " [temporary]"
	}
	fmt.Fprintf(w, "%s %s\n", p.label("Checkpoint:"), p.id(id))
	var created time.Time
	for _, s := range v.Slots {
		fmt.Fprintf(w, "%s %s%s\n", p.label("Session:"), s.Meta.SessionID, forgottenNote(s.Meta))
		if s.Meta.CreatedAt.After(created) {
			created = s.Meta.CreatedAt
		}
	}
	if !created.IsZero() {
		fmt.Fprintf(w, "%s %s\n", p.label("Created:"), created.Local().Format("2006-01-02 15:04:05"))
	}
	if v.author != "" {
		fmt.Fprintf(w, "%s %s\n", p.label("Author:"), v.author)
	}
	if n, ok := v.tokens(); ok {
		fmt.Fprintf(w, "%s %d\n", p.label("Tokens:"), n)
	}
	if !v.short && !v.Temporary {
		if len(v.commits) == 0 {
			fmt.Fprintf(w, "\n%s none on this branch\n", p.label("Commits:"))
		} else {
			fmt.Fprintf(w, "\n%s (%d)\n", p.label("Commits:"), len(v.commits))
		}
		for _, c := range v.commits {
			fmt.Fprintf(w, "  %s %s %s\n", p.id(c.SHA.Short(7)), p.dim(c.Date.Local().Format("2006-01-02")), c.Subject)
		}
	}
	intent, outcome := v.intent()
	fmt.Fprintf(w, "\n%s %s\n%s %s\n", p.label("Intent:"), intent, p.label("Outcome:"), outcome)
	if v.short {
		return
	}
	files := v.Summary.FilesTouched
	fmt.Fprintf(w, "\n%s (%d)\n", p.label("Files:"), len(files))
	for _, f := range files {
		fmt.Fprintf(w, "  - %s\n", pathText(f))
	}
	v.renderPrompts(w, p)
	scope := "checkpoint scope"
	if v.full {
		scope = "full session"
	}
	fmt.Fprintf(w, "\n%s\n", p.label("Transcript ("+scope+"):"))
	for _, s := range v.Slots {
		if len(v.Slots) > 1 {
			fmt.Fprintf(w, "\n%s\n", p.dim("--- Session "+s.Meta.SessionID+" ---"))
		}
		if s.Meta.ForgottenAt != nil {
			fmt.Fprintln(w, p.dim("(forgotten on "+s.Meta.ForgottenAt.UTC().Format("2006-01-02")+")"))
			continue
		}
		data := s.ScopedTranscript()
		if v.full {
			data = s.Transcript
		}
		renderTranscript(w, p, s.Entries(data))
	}
}

// tokens is input + cache creation + cache read + output over the slots, else the root's.
func (v view) tokens() (int, bool) {
	total, ok := 0, false
	add := func(u *events.TokenUsage) {
		if u != nil {
			total += u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens + u.OutputTokens
			ok = true
		}
	}
	for _, s := range v.Slots {
		add(s.Meta.TokenUsage)
	}
	if !ok {
		add(v.Summary.TokenUsage)
	}
	return total, ok
}

// intent is the AI summary's intent and outcome when there is one, else the checkpoint's
// first prompt.
func (v view) intent() (string, string) {
	for _, s := range v.Slots {
		var sum struct{ Intent, Outcome string }
		if json.Unmarshal(s.Meta.Summary, &sum) == nil && sum.Intent != "" {
			return sum.Intent, sum.Outcome
		}
	}
	for _, s := range v.Slots {
		if ps := s.ScopedPrompts(); len(ps) > 0 {
			return truncate(oneLine(ps[0]), 80), "(not generated)"
		}
	}
	return "(not generated)", "(not generated)"
}

func (v view) renderPrompts(w io.Writer, p palette) {
	fmt.Fprintf(w, "\n%s\n", p.label("Prompts:"))
	n := 0
	for _, s := range v.Slots {
		prompts := s.ScopedPrompts()
		if v.full {
			prompts = s.AllPrompts()
		}
		for _, pr := range prompts {
			n++
			fmt.Fprintf(w, "  %d. %s\n", n, strings.ReplaceAll(strings.TrimSpace(pr), "\n", "\n     "))
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "  (none)")
	}
}

// forgottenNote marks a slot entire forget left as a tombstone.
func forgottenNote(m checkpoint.CommittedMetadata) string {
	if m.ForgottenAt == nil {
		return ""
	}
	return " (forgotten on " + m.ForgottenAt.UTC().Format("2006-01-02") + ")"
}
