package main

import (
	"context"
	"fmt"
	"slices"
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
	rev := []string{c.Range}
	if c.Range == "" {
		if _, ok, err := en.Repo.Head(e.ctx); err != nil || !ok {
			fmt.Fprintln(e.stdout, "No commits yet: nothing to relink.")
			return err
		}
		rev = []string{fmt.Sprintf("-n%d", relinkDefault), "HEAD"}
	} else if strings.HasPrefix(c.Range, "-") {
		return fmt.Errorf("not a revision range: %s", c.Range)
	}
	found, err := relinkCommits(e.ctx, en.Repo, rev, func(sha string, l []checkpoint.ContentLink) {
		var ids []string
		for _, x := range l {
			ids = append(ids, x.CheckpointID)
		}
		fmt.Fprintf(e.stdout, "%s  %s\n", short(sha, 7), strings.Join(ids, ", "))
	})
	if err != nil {
		return err
	}
	if found == 0 {
		fmt.Fprintln(e.stdout, "No new links found.")
		return nil
	}
	fmt.Fprintf(e.stdout, "Recorded %s in %s.\n", plural(found, "link", "links"), checkpoint.LinksPath(en.Repo.CommonDir))
	return nil
}

// hookRelink bounds the commits post-rewrite and post-merge look at.
const hookRelink = 20

// relinkCommits looks at the commits rev-list lists for rev, and records the content links of
// those without a trailer that have none recorded yet; it returns how many it found. A commit
// found to have none is remembered too (an empty entry), so that the hooks do not search it
// again; an explicit relink (found != nil) searches those again.
func relinkCommits(ctx context.Context, repo *gitexec.Repo, rev []string, found func(sha string, l []checkpoint.ContentLink)) (int, error) {
	out, err := repo.Run(ctx, nil, append([]string{"rev-list", "--no-merges"}, rev...)...)
	if err != nil {
		return 0, fmt.Errorf("list commits %s: %w", strings.Join(rev, " "), err)
	}
	links, err := checkpoint.ReadLinks(repo.CommonDir)
	if err != nil {
		return 0, err
	}
	var index *checkpoint.ContentIndex // built once, when a commit needs a search
	n, checked := 0, 0
	for _, sha := range strings.Fields(string(out)) {
		if l, ok := links[sha]; ok && (len(l) > 0 || found == nil) {
			continue
		}
		msg, err := repo.CommitMessage(ctx, sha)
		if err != nil || len(checkpoint.CheckpointTrailers(msg)) > 0 {
			continue
		}
		if index == nil {
			if index, err = checkpoint.NewContentIndex(ctx, repo); err != nil {
				return n, err
			}
		}
		l, err := index.Find(ctx, gitexec.OID(sha))
		if err != nil {
			return n, err
		}
		checked++
		links[sha] = l
		if len(l) == 0 {
			continue
		}
		n++
		if found != nil {
			found(sha, l)
		}
	}
	if checked == 0 {
		return 0, nil
	}
	return n, checkpoint.WriteLinks(repo.CommonDir, links)
}

// maxRewrittenList bounds the list of rewritten commits post-rewrite reads (about 80 bytes a
// commit: a rebase of some hundred thousand commits).
const maxRewrittenList = 16 << 20

// keepFoldedTrailers reads git's list of the commits a rebase or an amend rewrote ("<old> <new>"
// lines, as post-rewrite gets it) and records, for each new commit that still carries a
// trailer, the checkpoints of its old commits whose trailer it lost: a fixup's message is
// dropped when `rebase --autosquash` folds it into the commit it fixes, so the work of the
// fixup's session was in the commit while its checkpoint was named by none. They are recorded
// as links of the new commit (checkpoint.Links), which explain reads beside its trailers. The
// links recorded for an old commit carry on to the new one likewise, or a later rebase of the
// fixed-up commit (onto a moved main, `git pull --rebase`) lost them again. A new commit without
// any trailer is left to the content search (relinkCommits). It returns how many commits got
// links.
func keepFoldedTrailers(ctx context.Context, repo *gitexec.Repo, list []byte) (int, error) {
	olds := map[string][]string{}
	var news []string
	for _, line := range strings.Split(string(list), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !isObjectName(f[0]) || !isObjectName(f[1]) {
			continue
		}
		if _, ok := olds[f[1]]; !ok {
			news = append(news, f[1])
		}
		olds[f[1]] = append(olds[f[1]], f[0])
	}
	if len(news) == 0 {
		return 0, nil
	}
	links, err := checkpoint.ReadLinks(repo.CommonDir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, sha := range news {
		folded := len(olds[sha]) >= 2
		recorded := slices.ContainsFunc(olds[sha], func(old string) bool { return len(links[old]) > 0 && old != sha })
		if !folded && !recorded {
			continue // nothing was folded into it, and nothing recorded carries on
		}
		msg, err := repo.CommitMessage(ctx, sha)
		if err != nil {
			return n, err
		}
		kept := checkpoint.CheckpointTrailers(msg)
		if len(kept) == 0 {
			continue
		}
		added := false
		add := func(l checkpoint.ContentLink) {
			if slices.Contains(kept, l.CheckpointID) || slices.ContainsFunc(links[sha], func(o checkpoint.ContentLink) bool { return o.CheckpointID == l.CheckpointID }) {
				return
			}
			links[sha] = append(links[sha], l)
			added = true
		}
		for _, old := range olds[sha] {
			if old != sha {
				for _, l := range links[old] {
					add(l)
				}
			}
			if !folded {
				continue
			}
			m, err := repo.CommitMessage(ctx, old)
			if err != nil {
				continue // gone: nothing to keep
			}
			for _, id := range checkpoint.CheckpointTrailers(m) {
				add(checkpoint.ContentLink{Commit: gitexec.OID(old), CheckpointID: id})
			}
		}
		if added {
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	return n, checkpoint.WriteLinks(repo.CommonDir, links)
}

// isObjectName reports a full object name, SHA-1 or SHA-256, as git writes them.
func isObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
