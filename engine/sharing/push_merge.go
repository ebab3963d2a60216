package sharing

import (
	"context"
	"fmt"
	"regexp"
	"sync"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// Merge semantics. Two clones that both recorded produce two histories of
// entire/checkpoints/v1; readers only look at the tip tree, so integrating is a
// union of the two tip trees, committed with both tips as parents. It is a
// three-way union: the tree of the tips' merge base says which side changed a
// path both have, so a clone's newer version of its own data (a checkpoint
// finalized after a provisional copy was pushed mid-turn) is not replaced by
// the remote's stale copy of it. Without a merge base every such path counts
// as changed on both sides.
//   - A path on one side only is kept. Checkpoint IDs are random, so this is
//     nearly every path; subtrees equal on both sides are never read, and
//     nothing is ever dropped because the other side lacks it (the record
//     loses paths only through forgetting, which the ledger carries).
//   - A path present on both sides with different content takes the side
//     that changed it since the merge base. Directories are merged entry by
//     entry by these same rules (only subtrees whose ids differ are read).
//   - A checkpoint directory (<id[:2]>/<id[2:]>) present on both sides with
//     different content is merged slot by slot. The fetched slots keep their
//     numbers (other clones may already have read them). A local slot
//     replaces the fetched slot of its number when only this clone changed it
//     since the merge base (the same session on all three sides). Otherwise a
//     local slot is dropped when a fetched slot has the same content or the
//     same session_id (the same session's slot, rewritten on both sides or
//     only on the remote: the fetched version wins, as the spec says for any
//     path); every other local slot is appended as the next free number, so no
//     session is lost. The root metadata.json is the one of the side whose
//     slots the merge kept; when it kept slots of both, it is recomputed from
//     all slots the way a condensation does (sessions, counts, files, token
//     usage; writer fields from the slot written last). If a slot's or the
//     root's metadata cannot be read, the fetched root is kept unchanged (the
//     slots still survive).
//   - Any other path changed on both sides (a file, or a file against a
//     directory) takes the fetched version (spec §9.5).

// mergeMessage is the message of a commit joining two metadata histories.
const mergeMessage = "Merge remote session logs"

// mergeCommit commits the union of two metadata tips' trees with parents [local, fetched].
func (r *Record) mergeCommit(ctx context.Context, local, fetched gitexec.OID) (gitexec.OID, error) {
	lt, err := r.treeOf(ctx, string(local))
	if err != nil {
		return "", err
	}
	ft, err := r.treeOf(ctx, string(fetched))
	if err != nil {
		return "", err
	}
	var bt gitexec.OID // none when the histories share no commit: every difference is a conflict
	base, ok, err := r.Repo.MergeBase(ctx, local, fetched)
	if err != nil {
		return "", fmt.Errorf("merge session logs: %w", err)
	}
	if ok {
		if bt, err = r.treeOf(ctx, string(base)); err != nil {
			return "", err
		}
	}
	tree, err := r.unionTree(ctx, "", bt, lt, ft)
	if err != nil {
		return "", fmt.Errorf("merge session logs: %w", err)
	}
	return r.Repo.CommitTree(ctx, tree, []gitexec.OID{local, fetched}, mergeMessage)
}

var checkpointDirRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{2}/[0-9a-f]{10}$`)
})

// unionTree merges the directory dir ("" for the root) of two trees, with base the same
// directory at the merge base ("" when there is none): entries on one side are kept, equal
// entries are not read, differing directories are merged recursively (a checkpoint directory
// slot by slot), and any other difference takes the side that changed it, the fetched one
// when both did.
func (r *Record) unionTree(ctx context.Context, dir string, base, local, fetched gitexec.OID) (gitexec.OID, error) {
	if local == fetched {
		return fetched, nil
	}
	le, fe, be, err := r.readTrees(ctx, local, fetched, base)
	if err != nil {
		return "", err
	}
	var changes []gitexec.TreeChange
	for name := range le {
		c, ok, err := r.mergeEntry(ctx, dir, name, le, fe, be)
		if err != nil {
			return "", err
		}
		if ok {
			changes = append(changes, c)
		}
	}
	return r.applyChanges(ctx, fetched, changes)
}

// mergeEntry merges the entry name of directory dir present on the local side, by the rules
// of unionTree; ok=false when the fetched entry stands.
func (r *Record) mergeEntry(ctx context.Context, dir, name string, le, fe, be map[string]gitexec.TreeEntry) (gitexec.TreeChange, bool, error) {
	l := le[name]
	f, both := fe[name]
	b, inBase := be[name]
	switch {
	case !both:
		return gitexec.TreeChange{Path: name, Mode: l.Mode, OID: l.OID}, true, nil
	case f.OID == l.OID:
		return gitexec.TreeChange{}, false, nil
	case dir == "" && name == checkpoint.LedgerFile:
		// Both sides forgot something: the union, so neither list is lost.
		oid, err := r.unionLedgers(ctx, l.OID, f.OID)
		return gitexec.TreeChange{Path: name, Mode: f.Mode, OID: oid}, err == nil, err
	case f.Type == "tree" && l.Type == "tree":
		path := joinPath(dir, name)
		merge := r.unionTree
		if checkpointDirRe().MatchString(path) {
			merge = r.unionCheckpoint
		}
		var bsub gitexec.OID
		if inBase && b.Type == "tree" {
			bsub = b.OID
		}
		sub, err := merge(ctx, path, bsub, l.OID, f.OID)
		return gitexec.TreeChange{Path: name, Mode: f.Mode, OID: sub}, err == nil && sub != f.OID, err
	case inBase && b.OID == f.OID && b.Mode == f.Mode:
		// Changed on this side only since the merge base.
		return gitexec.TreeChange{Path: name, Mode: l.Mode, OID: l.OID}, true, nil
	}
	// Changed on the remote only, or on both sides: the fetched side wins.
	return gitexec.TreeChange{}, false, nil
}

// readTrees reads one level of each tree, keyed by entry name; an empty id reads as an
// empty directory (a side or merge base that lacks it).
func (r *Record) readTrees(ctx context.Context, trees ...gitexec.OID) (local, fetched, base map[string]gitexec.TreeEntry, err error) {
	out := make([]map[string]gitexec.TreeEntry, 3)
	for i, t := range trees {
		if t == "" {
			continue
		}
		entries, ok, err := r.Repo.ReadTree(ctx, string(t))
		if err == nil && !ok {
			err = fmt.Errorf("tree %s is missing", t)
		}
		if err != nil {
			return nil, nil, nil, err
		}
		out[i] = make(map[string]gitexec.TreeEntry, len(entries))
		for _, e := range entries {
			out[i][e.Name] = e
		}
	}
	return out[0], out[1], out[2], nil
}

// applyChanges builds base with one-level changes, or returns base when there are none.
func (r *Record) applyChanges(ctx context.Context, base gitexec.OID, changes []gitexec.TreeChange) (gitexec.OID, error) {
	if len(changes) == 0 {
		return base, nil
	}
	return r.Repo.BuildTree(ctx, base, changes)
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
