package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/events"
)

// renderTranscript prints prompts, assistant text and tool calls, one blank line apart.
func renderTranscript(w io.Writer, p palette, entries []checkpoint.TranscriptEntry) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "  (none)")
		return
	}
	for i, e := range entries {
		if i > 0 {
			fmt.Fprintln(w)
		}
		switch e.Kind {
		case "user":
			fmt.Fprintf(w, "%s %s\n", p.label("[User]"), e.Text)
		case "summary":
			fmt.Fprintf(w, "%s %s\n", p.label("[Summary]"), e.Text)
		case "assistant":
			fmt.Fprintf(w, "%s %s\n", p.label("[Assistant]"), e.Text)
		default:
			detail := e.Tool
			if e.Text != "" {
				detail += ": " + e.Text
			}
			fmt.Fprintf(w, "%s %s\n", p.dim("[Tool]"), detail)
		}
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// jsonCheckpoint is the --json shape of a checkpoint view:
//
//	{"id": "<12 hex, or the shadow commit SHA>", "temporary": bool, "legacy": bool,
//	 "author": "Name <email>",
//	 "sessions": [{"session_id", "agent", "created_at" (RFC 3339), "files_touched": [],
//	               "token_usage": {input_tokens, cache_creation_tokens, cache_read_tokens,
//	                               output_tokens, api_call_count} or null,
//	               "prompts": [] (prompt.txt), "transcript_start": <line>,
//	               "forgotten_at": (RFC 3339, only for a slot entire forget emptied)}],
//	 "commits": [{"sha", "subject", "date" (RFC 3339)}],   (linked commits reachable from HEAD)
//	 "files_touched": []}
type jsonCheckpoint struct {
	ID           string        `json:"id"`
	Temporary    bool          `json:"temporary"`
	Legacy       bool          `json:"legacy"`
	Author       string        `json:"author"`
	Sessions     []jsonSession `json:"sessions"`
	Commits      []jsonCommit  `json:"commits"`
	FilesTouched []string      `json:"files_touched"`
}

type jsonSession struct {
	SessionID       string             `json:"session_id"`
	Agent           string             `json:"agent"`
	CreatedAt       time.Time          `json:"created_at"`
	FilesTouched    []string           `json:"files_touched"`
	TokenUsage      *events.TokenUsage `json:"token_usage"`
	Prompts         []string           `json:"prompts"`
	TranscriptStart int                `json:"transcript_start"`
	ForgottenAt     *time.Time         `json:"forgotten_at,omitempty"`
}

type jsonCommit struct {
	SHA     string    `json:"sha"`
	Subject string    `json:"subject"`
	Date    time.Time `json:"date"`
}

// checkpointJSON builds the --json object of a checkpoint.
func checkpointJSON(cp *checkpoint.Checkpoint, commits []checkpoint.LinkedCommit, author string) jsonCheckpoint {
	j := jsonCheckpoint{ID: cp.ID, Temporary: cp.Temporary, Legacy: cp.Legacy, Author: author,
		Sessions: []jsonSession{}, Commits: jsonCommits(commits), FilesTouched: nonNil(cp.Summary.FilesTouched)}
	for _, s := range cp.Slots {
		// prompt.txt's prompts, read from the transcript where the slot has one: a prompt that
		// holds prompt.txt's separator stays whole. A temporary checkpoint's prompt.txt holds
		// its turn's prompts, a committed one's the whole session's (spec §2.2, §3.6).
		prompts := s.AllPrompts()
		if cp.Temporary {
			prompts = s.ScopedPrompts()
		}
		j.Sessions = append(j.Sessions, jsonSession{
			SessionID: s.Meta.SessionID, Agent: s.Meta.Agent, CreatedAt: s.Meta.CreatedAt,
			FilesTouched: nonNil(s.Meta.FilesTouched), TokenUsage: s.Meta.TokenUsage,
			Prompts: nonNil(prompts), TranscriptStart: s.TranscriptStart(), ForgottenAt: s.Meta.ForgottenAt,
		})
	}
	return j
}

func jsonCommits(commits []checkpoint.LinkedCommit) []jsonCommit {
	out := []jsonCommit{}
	for _, c := range commits {
		out = append(out, jsonCommit{SHA: string(c.SHA), Subject: c.Subject, Date: c.Date})
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// palette colours output on a terminal only.
type palette struct{ on bool }

func newPalette(w io.Writer) palette {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return palette{}
	}
	fi, err := f.Stat()
	return palette{on: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

func (p palette) paint(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) id(s string) string    { return p.paint("33", s) }
func (p palette) dim(s string) string   { return p.paint("2", s) }
func (p palette) label(s string) string { return p.paint("1", s) }
