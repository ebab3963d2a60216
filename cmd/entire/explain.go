package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/history"
	"github.com/entirerec/entire/engine/session"
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
	Generate      bool   `help:"Not supported: entire does not call a model to write summaries (refused)."`
	Force         bool   `help:"With --generate (not supported)."`
}

// explainer carries what one explain run reads from.
type explainer struct {
	ctx  context.Context
	repo *gitexec.Repo
	en   *engine.Engine
	rd   *checkpoint.Reader
	out  io.Writer // human-readable output (safeText)
	raw  io.Writer // machine output, unchanged
	pal  palette
	// resettled: settleAgain ran (once is enough).
	resettled bool
}

// settleAgain finishes once more what hooks left pending, as the repository is now, when a
// session is recording checkpoint id (a prefix) or the record moved since rd read it. explain
// finished pending work when it opened the repository, which may have been before the commit it
// is asked about was made: that commit's post-commit may still be writing its checkpoint, or
// have died before it did. Its session's lock waits for the first, and the HEAD it now reads
// records the second. Reports whether it ran, so that the caller reads again.
func (x *explainer) settleAgain(id string) bool {
	if x.resettled {
		return false
	}
	x.resettled = true
	if !x.recording(id) {
		tip, _, err := x.repo.ResolveRef(x.ctx, checkpoint.MetaRef)
		if err != nil || x.rd == nil || tip == x.rd.Tip {
			return false
		}
	}
	repo, err := gitexec.Open(x.ctx, x.repo.TopLevel)
	if err != nil {
		return false
	}
	defer repo.Close()
	if err := engine.New(repo, x.en.Log, x.en.Stderr).DrainSettled(x.ctx); err != nil {
		x.en.Log.Error("pending work", "error", err.Error())
	}
	return true
}

// recording reports whether a session of the repository is recording checkpoint id (a prefix):
// the commit that names it was prepared, or recorded and its checkpoint not written yet.
func (x *explainer) recording(id string) bool {
	states, err := x.en.Store.ListWhere(func(b session.Brief) bool { return b.Pending || b.Prepared })
	if err != nil {
		return false
	}
	for _, s := range states {
		if s.Recorder.PreparedID != "" && strings.HasPrefix(s.Recorder.PreparedID, id) {
			return true
		}
		for _, p := range s.Recorder.Pending {
			if p.Commit.CheckpointID != "" && strings.HasPrefix(p.Commit.CheckpointID, id) {
				return true
			}
		}
	}
	return false
}

func (c *explainCmd) Run(e *env) error {
	if err := c.validate(); err != nil {
		return err
	}
	if recordingDisabled(e) {
		return nil
	}
	if c.Generate {
		return errors.New("--generate is not supported: entire does not call a model to write checkpoint summaries")
	}
	en, done, err := openEngine(e)
	if err != nil {
		return err
	}
	defer done()
	repo := en.Repo
	rd, err := history.New(en).Reader(e.ctx)
	if err != nil {
		return err
	}
	x := &explainer{ctx: e.ctx, repo: repo, en: en, rd: rd, out: e.stdout, raw: e.raw, pal: newPalette(e.raw)}
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
	// The reference's messages, so that scripts written for it keep working.
	group := func(name string, flags map[string]bool) error {
		var set []string
		for f, on := range flags {
			if on {
				set = append(set, f)
			}
		}
		if len(set) < 2 {
			return nil
		}
		sort.Strings(set)
		return fmt.Errorf("if any flags in the group [%s] are set none of the others can be; [%s] were all set", name, strings.Join(set, " "))
	}
	if count(c.Session != "", c.Commit != "", c.Checkpoint != "") > 1 {
		return errors.New("cannot specify multiple of --session, --commit, --checkpoint")
	}
	if err := group("short full raw-transcript", map[string]bool{"short": c.Short, "full": c.Full, "raw-transcript": c.RawTranscript}); err != nil {
		return err
	}
	if err := group("generate raw-transcript", map[string]bool{"generate": c.Generate, "raw-transcript": c.RawTranscript}); err != nil {
		return err
	}
	switch {
	case c.Generate && c.Checkpoint == "":
		return errors.New("--generate requires --checkpoint/-c flag")
	case c.Force && !c.Generate:
		return errors.New("--force requires --generate flag")
	case c.RawTranscript && c.Commit == "" && c.Checkpoint == "":
		return errors.New("--raw-transcript requires --checkpoint/-c flag")
	case count(c.Short, c.Full) > 0 && c.Commit == "" && c.Checkpoint == "":
		return errors.New("--short and --full need --checkpoint/-c or --commit")
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
	ids := checkpoint.CheckpointTrailers(msg)
	note := x.out // what is said about the commit; machine output keeps stdout one document
	if c.JSON || c.RawTranscript {
		note = x.en.Stderr
	}
	if len(ids) == 0 {
		// The trailer may have been lost in a rewrite: look for the linked commits this one's
		// change was made from.
		recorded, err := checkpoint.ReadLinks(x.repo.CommonDir)
		if err != nil {
			return err
		}
		links := recorded[sha]
		if len(links) == 0 {
			links, err = checkpoint.FindByContent(x.ctx, x.repo, gitexec.OID(sha))
		}
		if err != nil || len(links) == 0 {
			fmt.Fprintf(note, "No associated Entire checkpoint\n\nCommit %s does not have an Entire-Checkpoint trailer.\n", short(sha, 7))
			fmt.Fprintln(note, "It was not made during a recorded session, or the trailer was removed.")
			if err == nil && c.JSON {
				_, err = fmt.Fprintln(x.raw, "null")
			}
			return err
		}
		how := "the same change as"
		switch {
		case links[0].Edited:
			how = "an edited version of"
		case links[0].Part:
			how = "a part of"
		case !links[0].Same:
			how = "a squash of"
		}
		var from []string
		for _, l := range links {
			if !slices.Contains(ids, l.CheckpointID) {
				ids = append(ids, l.CheckpointID)
			}
			if c := short(string(l.Commit), 7); !slices.Contains(from, c) {
				from = append(from, c)
			}
		}
		fmt.Fprintf(note, "Commit %s has no Entire-Checkpoint trailer; found by content: it is %s %s (checkpoint %s).\n\n",
			short(sha, 7), how, strings.Join(from, ", "), strings.Join(ids, ", "))
	} else if folded, err := foldedInto(x, sha, ids); err != nil {
		return err
	} else if len(folded) > 0 {
		// A rebase folded other linked commits into this one and dropped their trailers (a
		// fixup's message): the post-rewrite hook kept their checkpoints as links.
		var from, more []string
		for _, l := range folded {
			from = append(from, short(string(l.Commit), 7))
			more = append(more, l.CheckpointID)
		}
		ids = append(ids, more...)
		fmt.Fprintf(note, "Commit %s also holds %s, folded into it by a rebase that dropped its trailer (checkpoint %s).\n\n",
			short(sha, 7), strings.Join(from, ", "), strings.Join(more, ", "))
	}
	// A squash of linked commits carries a trailer for each: explain them all, in order. With
	// --json, several are one array.
	if c.JSON && len(ids) > 1 {
		return c.explainAllJSON(x, ids)
	}
	for i, id := range ids {
		if i > 0 {
			fmt.Fprintln(x.out)
		}
		if err := c.explainCheckpoint(x, id); err != nil {
			return err
		}
	}
	return nil
}

// foldedInto is what the recorded links add to commit sha's trailers ids: the checkpoints of
// the commits a rebase folded into it (keepFoldedTrailers), oldest first.
func foldedInto(x *explainer, sha string, ids []string) ([]checkpoint.ContentLink, error) {
	recorded, err := checkpoint.ReadLinks(x.repo.CommonDir)
	if err != nil {
		return nil, err
	}
	var out []checkpoint.ContentLink
	for _, l := range recorded[sha] {
		if !slices.Contains(ids, l.CheckpointID) {
			out = append(out, l)
		}
	}
	return out, nil
}

// explainAllJSON writes the JSON of several checkpoints as one array.
func (c *explainCmd) explainAllJSON(x *explainer, ids []string) error {
	raw := x.raw
	defer func() { x.raw = raw }()
	all := make([]json.RawMessage, 0, len(ids))
	for _, id := range ids {
		var b bytes.Buffer
		x.raw = &b
		if err := c.explainCheckpoint(x, id); err != nil {
			return err
		}
		all = append(all, json.RawMessage(bytes.TrimSpace(b.Bytes())))
	}
	return writeJSON(raw, all)
}

// linked lists the commits reachable from HEAD that link to id (any checkpoint when id is ""),
// newest first: by their trailer, or, for commits whose trailer a rewrite lost (a squash merge
// on a hosting service), by the links relink or the post-merge and post-rewrite hooks recorded.
func (x *explainer) linked(id string, limit int) ([]checkpoint.LinkedCommit, error) {
	if _, ok, err := x.repo.Head(x.ctx); err != nil || !ok {
		return nil, err
	}
	commits, err := checkpoint.LinkedCommits(x.ctx, x.repo, "HEAD", id, limit)
	if err != nil {
		return nil, err
	}
	recorded, err := checkpoint.RecordedLinkedCommits(x.ctx, x.repo, "HEAD")
	if err != nil {
		return nil, err
	}
	n := len(commits)
	for _, c := range recorded {
		if id == "" || c.CheckpointID == id {
			commits = append(commits, c)
		}
	}
	if len(commits) == n {
		return commits, nil
	}
	sort.SliceStable(commits, func(i, j int) bool { return commits[i].Date.After(commits[j].Date) })
	if limit > 0 && len(commits) > limit {
		commits = commits[:limit]
	}
	return commits, nil
}
