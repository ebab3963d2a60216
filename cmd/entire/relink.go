package main

import (
	"fmt"
	"strings"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// relinkCmd records, for the commits of a range that carry no trailer, the checkpoints found by
// their content (checkpoint.FindByContent), so that explain finds them at once.
type relinkCmd struct {
	Range string `arg:"" optional:"" help:"The commits to look at (a git revision range; default: the last 100 commits of HEAD)."`
}

// relinkDefault bounds the commits relink looks at without a range.
const relinkDefault = 100

func (c *relinkCmd) Run(e *env) error {
	en, done, err := openEngine(e)
	if err != nil {
		return err
	}
	defer done()
	repo := en.Repo
	args := []string{"rev-list", "--no-merges"}
	if c.Range == "" {
		args = append(args, fmt.Sprintf("-n%d", relinkDefault), "HEAD")
	} else {
		if strings.HasPrefix(c.Range, "-") {
			return fmt.Errorf("not a revision range: %s", c.Range)
		}
		args = append(args, c.Range)
	}
	out, err := repo.Run(e.ctx, nil, args...)
	if err != nil {
		return fmt.Errorf("list commits %s: %w", c.Range, err)
	}
	links, err := checkpoint.ReadLinks(repo.CommonDir)
	if err != nil {
		return err
	}
	found := 0
	for _, sha := range strings.Fields(string(out)) {
		if _, ok := links[sha]; ok {
			continue
		}
		msg, err := repo.CommitMessage(e.ctx, sha)
		if err != nil || len(checkpoint.CheckpointTrailers(msg)) > 0 {
			continue
		}
		l, err := checkpoint.FindByContent(e.ctx, repo, gitexec.OID(sha))
		if err != nil {
			return err
		}
		if len(l) == 0 {
			continue
		}
		links[sha] = l
		found++
		var ids []string
		for _, x := range l {
			ids = append(ids, x.CheckpointID)
		}
		fmt.Fprintf(e.stdout, "%s  %s\n", short(sha, 7), strings.Join(ids, ", "))
	}
	if found == 0 {
		fmt.Fprintln(e.stdout, "No new links found.")
		return nil
	}
	fmt.Fprintf(e.stdout, "Recorded %d links in %s.\n", found, checkpoint.LinksPath(repo.CommonDir))
	return checkpoint.WriteLinks(repo.CommonDir, links)
}
