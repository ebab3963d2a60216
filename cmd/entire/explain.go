package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/claudecode"
	"github.com/entirerec/entire/gitexec"
)

// explainCmd is `entire explain` (spec §10): the list of the branch's checkpoints, or one
// checkpoint by ID prefix, commit or shadow-commit SHA prefix. Output is never paged; colour
// only when stdout is a terminal.
type explainCmd struct {
	Session       string `help:"List only the checkpoints of sessions whose ID starts with this."`
	Commit        string `help:"Explain the checkpoint linked to this commit (any revision)." placeholder:"REF"`
	Checkpoint    string `short:"c" help:"Explain a checkpoint: an ID or unique prefix, or the SHA prefix of a temporary checkpoint's shadow commit." placeholder:"ID"`
	Short         bool   `short:"s" help:"Show only the checkpoint's summary."`
	Full          bool   `help:"Show the whole session transcript instead of this checkpoint's part."`
	RawTranscript bool   `help:"Write the checkpoint's transcript (JSONL) to stdout byte for byte."`
	JSON          bool   `name:"json" help:"Print a JSON object instead of text."`
	NoPager       bool   `help:"Accepted for compatibility; output is never paged."`
	SearchAll     bool   `help:"List every linked commit in the history, not only the latest 100."`
}

// listLimit is how many linked commits the list view shows without --search-all.
const listLimit = 100

// explainer carries what one explain run reads from.
type explainer struct {
	ctx  context.Context
	repo *gitexec.Repo
	en   *engine.Engine
	rd   *engine.Reader
	out  io.Writer
	pal  palette
}

func (c *explainCmd) Run(e *env) error {
	if err := c.validate(); err != nil {
		return err
	}
	en, done, err := openEngine(e)
	if err != nil {
		return err
	}
	defer done()
	repo := en.Repo
	rd, err := engine.NewReader(e.ctx, repo)
	if err != nil {
		return err
	}
	x := &explainer{ctx: e.ctx, repo: repo, en: en, rd: rd, out: e.stdout, pal: newPalette(e.stdout)}
	switch {
	case c.Commit != "":
		return c.explainCommit(x)
	case c.Checkpoint != "":
		return c.explainCheckpoint(x, c.Checkpoint)
	}
	return c.list(x)
}

func (c *explainCmd) validate() error {
	count := func(bs ...bool) (n int) {
		for _, b := range bs {
			if b {
				n++
			}
		}
		return n
	}
	if count(c.Session != "", c.Commit != "", c.Checkpoint != "") > 1 {
		return errors.New("--session, --commit and --checkpoint are mutually exclusive: give only one")
	}
	if count(c.Short, c.Full, c.RawTranscript) > 1 {
		return errors.New("--short, --full and --raw-transcript are mutually exclusive: give only one")
	}
	if count(c.Short, c.Full, c.RawTranscript) > 0 && c.Commit == "" && c.Checkpoint == "" {
		return errors.New("--short, --full and --raw-transcript need --checkpoint or --commit")
	}
	if c.RawTranscript && c.JSON {
		return errors.New("--raw-transcript and --json are mutually exclusive")
	}
	return nil
}

func (c *explainCmd) explainCommit(x *explainer) error {
	if strings.HasPrefix(c.Commit, "-") {
		return fmt.Errorf("commit not found: %s", c.Commit)
	}
	out, err := x.repo.Run(x.ctx, nil, "rev-parse", "--verify", "-q", c.Commit+"^{commit}")
	if err != nil {
		return fmt.Errorf("commit not found: %s", c.Commit)
	}
	sha := strings.TrimSpace(string(out))
	msg, err := x.repo.CommitMessage(x.ctx, sha)
	if err != nil {
		return err
	}
	id, ok := engine.ParseCheckpointTrailer(msg)
	if !ok {
		fmt.Fprintf(x.out, "No associated Entire checkpoint\n\nCommit %s does not have an Entire-Checkpoint trailer.\n", short(sha, 7))
		fmt.Fprintln(x.out, "It was not made during a recorded session, or the trailer was removed.")
		return nil
	}
	return c.explainCheckpoint(x, id)
}

// explainCheckpoint shows a committed checkpoint, or else the temporary checkpoint whose
// shadow commit SHA starts with prefix.
func (c *explainCmd) explainCheckpoint(x *explainer, prefix string) error {
	// A checkpoint missing from the local record may have been pushed by another clone.
	if rd, err := x.en.ReaderWithCheckpoint(x.ctx, prefix, "origin"); err == nil {
		x.rd = rd
	} else {
		fmt.Fprintln(x.en.Stderr, "Warning:", err)
	}
	cp, err := x.rd.ReadCheckpoint(x.ctx, prefix)
	author := ""
	if errors.Is(err, engine.ErrCheckpointNotFound) {
		var tc engine.TemporaryCheckpoint
		if tc, err = engine.FindTemporary(x.ctx, x.repo, prefix); err == nil {
			cp, err = engine.ReadTemporary(x.ctx, x.repo, tc)
			author = tc.Author
		}
	}
	if errors.Is(err, engine.ErrCheckpointNotFound) {
		return fmt.Errorf("checkpoint not found: %s", prefix)
	}
	if err != nil {
		return err
	}
	if c.RawTranscript {
		for i := len(cp.Slots) - 1; i >= 0; i-- {
			if t := cp.Slots[i].Transcript; t != nil {
				_, err := x.out.Write(t)
				return err
			}
		}
		return fmt.Errorf("checkpoint %s has no transcript", short(cp.ID, 12))
	}
	var commits []engine.LinkedCommit
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
		return writeJSON(x.out, checkpointJSON(cp, commits, author))
	}
	v := view{Checkpoint: cp, commits: commits, author: author, short: c.Short, full: c.Full}
	v.render(x.out, x.pal)
	return nil
}

// linked lists the commits reachable from HEAD that link to id (any checkpoint when id is "").
func (x *explainer) linked(id string, limit int) ([]engine.LinkedCommit, error) {
	if _, ok, err := x.repo.Head(x.ctx); err != nil || !ok {
		return nil, err
	}
	return engine.LinkedCommits(x.ctx, x.repo, "HEAD", id, limit)
}

// view renders a checkpoint as text.
type view struct {
	*engine.Checkpoint
	commits     []engine.LinkedCommit
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
		fmt.Fprintf(w, "%s %s\n", p.label("Session:"), s.Meta.SessionID)
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
		fmt.Fprintf(w, "  - %s\n", f)
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
		data := s.ScopedTranscript()
		if v.full {
			data = s.Transcript
		}
		renderTranscript(w, p, data)
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

// renderTranscript prints prompts, assistant text and tool calls, one blank line apart.
func renderTranscript(w io.Writer, p palette, data []byte) {
	entries := engine.TranscriptEntries(data)
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

// listGroup is one checkpoint of the list view with the commits that carry it. With --json
// the list is {"branch": "<name>", "checkpoints": [listGroup...]}, newest first.
type listGroup struct {
	ID        string       `json:"id"` // checkpoint ID, or the session ID of temporary checkpoints
	Temporary bool         `json:"temporary"`
	Prompt    string       `json:"prompt"`
	Sessions  []string     `json:"session_ids"`
	Commits   []jsonCommit `json:"commits"`
}

func (g *listGroup) latest() time.Time {
	var t time.Time
	for _, c := range g.Commits {
		if c.Date.After(t) {
			t = c.Date
		}
	}
	return t
}

// list shows the checkpoints of the current branch: committed ones linked from commits
// reachable from HEAD, then the temporary ones of HEAD's shadow branch.
func (c *explainCmd) list(x *explainer) error {
	branch, onBranch, err := x.repo.HeadBranch(x.ctx)
	if err != nil {
		return err
	}
	head, hasHead, err := x.repo.Head(x.ctx)
	if err != nil {
		return err
	}
	if !onBranch {
		branch = "HEAD (" + head.Short(7) + ")"
	}
	var groups []*listGroup
	if hasHead {
		if groups, err = x.committedGroups(c.SearchAll); err != nil {
			return err
		}
		temp, err := x.temporaryGroups(engine.ShadowBranch(string(head), x.repo.WorktreeID()))
		if err != nil {
			return err
		}
		groups = append(groups, temp...)
	}
	if c.Session != "" {
		var kept []*listGroup
		for _, g := range groups {
			for _, s := range g.Sessions {
				if strings.HasPrefix(s, c.Session) {
					kept = append(kept, g)
					break
				}
			}
		}
		groups = kept
	}
	sortGroups(groups)
	if c.JSON {
		if groups == nil {
			groups = []*listGroup{}
		}
		return writeJSON(x.out, struct {
			Branch      string       `json:"branch"`
			Checkpoints []*listGroup `json:"checkpoints"`
		}{branch, groups})
	}
	p := x.pal
	fmt.Fprintf(x.out, "%s %s\n%s %d\n", p.label("Branch:"), branch, p.label("Checkpoints:"), len(groups))
	if c.Session != "" {
		fmt.Fprintf(x.out, "Filtered by session: %s\n", c.Session)
	}
	if len(groups) == 0 {
		fmt.Fprintln(x.out, "\nNo checkpoints found on this branch.")
		return nil
	}
	for _, g := range groups {
		tag := ""
		if g.Temporary {
			tag = " [temporary]"
		}
		prompt := "(no prompt)"
		if g.Prompt != "" {
			prompt = fmt.Sprintf("%q", truncate(oneLine(g.Prompt), 60))
		}
		fmt.Fprintf(x.out, "\n[%s]%s %s\n", p.id(short(g.ID, 12)), tag, prompt)
		for _, cm := range g.Commits {
			fmt.Fprintf(x.out, "  %s (%s) %s\n", p.dim(cm.Date.Local().Format("01-02 15:04")), p.id(short(cm.SHA, 7)), truncate(cm.Subject, 80))
		}
	}
	return nil
}

// committedGroups groups the linked commits reachable from HEAD by checkpoint, skipping IDs
// that are not on the metadata branch.
func (x *explainer) committedGroups(all bool) ([]*listGroup, error) {
	limit := listLimit
	if all {
		limit = 0
	}
	commits, err := x.linked("", limit)
	if err != nil {
		return nil, err
	}
	ids, err := x.rd.ListCommitted(x.ctx)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
	}
	byID := map[string]*listGroup{}
	var groups []*listGroup
	for _, cm := range commits {
		if !known[cm.CheckpointID] {
			continue
		}
		g := byID[cm.CheckpointID]
		if g == nil {
			if g, err = x.committedGroup(cm.CheckpointID); err != nil {
				return nil, err
			}
			byID[cm.CheckpointID] = g
			groups = append(groups, g)
		}
		g.Commits = append(g.Commits, jsonCommit{SHA: string(cm.SHA), Subject: cm.Subject, Date: cm.Date})
	}
	return groups, nil
}

// committedGroup reads a checkpoint's sessions and first prompt (loading a transcript only
// when the checkpoint starts past its beginning).
func (x *explainer) committedGroup(id string) (*listGroup, error) {
	cp, err := x.rd.ReadCheckpointInfo(x.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint %s: %w", id, err)
	}
	g := &listGroup{ID: id}
	for i := range cp.Slots {
		s := &cp.Slots[i]
		g.Sessions = append(g.Sessions, s.Meta.SessionID)
		if g.Prompt != "" {
			continue
		}
		if s.TranscriptStart() > 0 {
			if err := engine.LoadTranscript(x.ctx, x.repo, s); err != nil {
				return nil, err
			}
		}
		if ps := s.ScopedPrompts(); len(ps) > 0 {
			g.Prompt = ps[0]
		}
	}
	return g, nil
}

// temporaryGroups groups a shadow branch's checkpoints by session; the prompt is the first
// of the session's oldest checkpoint that has one.
func (x *explainer) temporaryGroups(branch string) ([]*listGroup, error) {
	tcs, err := engine.ListTemporaryOn(x.ctx, x.repo, branch)
	if err != nil {
		return nil, err
	}
	bySession := map[string]*listGroup{}
	var groups []*listGroup
	for _, tc := range tcs {
		g := bySession[tc.SessionID]
		if g == nil {
			g = &listGroup{ID: tc.SessionID, Temporary: true, Sessions: []string{tc.SessionID}}
			bySession[tc.SessionID] = g
			groups = append(groups, g)
		}
		g.Commits = append(g.Commits, jsonCommit{SHA: string(tc.Commit), Subject: tc.Subject, Date: tc.Date})
	}
	for i := len(tcs) - 1; i >= 0; i-- {
		tc := tcs[i]
		g := bySession[tc.SessionID]
		if g.Prompt != "" {
			continue
		}
		data, ok, err := x.repo.ReadBlob(x.ctx, string(tc.Commit)+":"+tc.MetadataDir+"/prompt.txt")
		if err != nil {
			return nil, err
		}
		if ok {
			g.Prompt, _, _ = strings.Cut(string(data), claudecode.PromptSeparator)
		}
	}
	return groups, nil
}

// sortGroups orders list groups by their newest commit, newest first, keeping ties in order.
func sortGroups(groups []*listGroup) {
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].latest().After(groups[j].latest()) })
}

// jsonCheckpoint is the --json shape of a checkpoint view:
//
//	{"id": "<12 hex, or the shadow commit SHA>", "temporary": bool, "legacy": bool,
//	 "author": "Name <email>",
//	 "sessions": [{"session_id", "agent", "created_at" (RFC 3339), "files_touched": [],
//	               "token_usage": {input_tokens, cache_creation_tokens, cache_read_tokens,
//	                               output_tokens, api_call_count} or null,
//	               "prompts": [] (prompt.txt), "transcript_start": <line>}],
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
}

type jsonCommit struct {
	SHA     string    `json:"sha"`
	Subject string    `json:"subject"`
	Date    time.Time `json:"date"`
}

// checkpointJSON builds the --json object of a checkpoint.
func checkpointJSON(cp *engine.Checkpoint, commits []engine.LinkedCommit, author string) jsonCheckpoint {
	j := jsonCheckpoint{ID: cp.ID, Temporary: cp.Temporary, Legacy: cp.Legacy, Author: author,
		Sessions: []jsonSession{}, Commits: jsonCommits(commits), FilesTouched: nonNil(cp.Summary.FilesTouched)}
	for _, s := range cp.Slots {
		j.Sessions = append(j.Sessions, jsonSession{
			SessionID: s.Meta.SessionID, Agent: s.Meta.Agent, CreatedAt: s.Meta.CreatedAt,
			FilesTouched: nonNil(s.Meta.FilesTouched), TokenUsage: s.Meta.TokenUsage,
			Prompts: nonNil(s.Prompts), TranscriptStart: s.TranscriptStart(),
		})
	}
	return j
}

func jsonCommits(commits []engine.LinkedCommit) []jsonCommit {
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
