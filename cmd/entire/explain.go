package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
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

// explainer carries what one explain run reads from.
type explainer struct {
	ctx  context.Context
	repo *gitexec.Repo
	en   *engine.Engine
	rd   *checkpoint.Reader
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
	rd, err := checkpoint.NewReader(e.ctx, repo)
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
	ids := checkpoint.CheckpointTrailers(msg)
	if len(ids) == 0 {
		fmt.Fprintf(x.out, "No associated Entire checkpoint\n\nCommit %s does not have an Entire-Checkpoint trailer.\n", short(sha, 7))
		fmt.Fprintln(x.out, "It was not made during a recorded session, or the trailer was removed.")
		return nil
	}
	// A squash of linked commits carries a trailer for each: explain them all, in order.
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

// linked lists the commits reachable from HEAD that link to id (any checkpoint when id is "").
func (x *explainer) linked(id string, limit int) ([]checkpoint.LinkedCommit, error) {
	if _, ok, err := x.repo.Head(x.ctx); err != nil || !ok {
		return nil, err
	}
	return checkpoint.LinkedCommits(x.ctx, x.repo, "HEAD", id, limit)
}
