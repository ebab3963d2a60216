package engine

import (
	"bytes"
	"context"
	"fmt"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/gitexec"
)

// An auto-commit turn's files are captured when the turn ends: their blobs are written and
// journaled with the turn's end (events.TurnEnded.Captured), and the turn's commit holds them,
// whether this hook makes it or a later one does (the branch or the index was locked, the hook
// was killed). What the user, or the agent's next turn, writes in between stays in the worktree
// as uncommitted work, as it would after a commit made at once.

// captureFiles writes the blobs of files as the worktree holds them now, for the turn's
// commit. A failure is logged and captures nothing: the commit then reads the worktree.
func (en *Engine) captureFiles(ctx context.Context, checkpointID string, files []string) []events.FileContent {
	if len(files) == 0 {
		return nil
	}
	changes, err := en.WorktreeChanges(ctx, files)
	if err != nil {
		en.Log.Warn("capture the turn's files", "checkpoint_id", checkpointID, "error", err.Error())
		return nil
	}
	out := make([]events.FileContent, 0, len(changes))
	for _, c := range changes {
		out = append(out, events.FileContent{Path: c.Path, Mode: c.Mode, OID: string(c.OID), Deleted: c.Delete})
	}
	if en.captured == nil {
		en.captured = map[string]bool{}
	}
	en.captured[checkpointID] = true
	return out
}

// turnChanges are the tree changes of a turn's commit on head: its files as the turn left them
// (f.Content). A file that a commit since the turn's end changed, and that the worktree no
// longer holds as the turn left it, is left out: that commit's content (the user's) is newer
// than the turn's, which the worktree no longer has either. A commit journaled without content
// (an older recorder, or a capture that failed) takes the files from the worktree.
func (en *Engine) turnChanges(ctx context.Context, f session.AutoCommit, head gitexec.OID) ([]gitexec.TreeChange, error) {
	if len(f.Content) == 0 {
		return en.WorktreeChanges(ctx, f.Files)
	}
	changes := make([]gitexec.TreeChange, 0, len(f.Content))
	for _, c := range f.Content {
		changes = append(changes, gitexec.TreeChange{Path: c.Path, Mode: c.Mode, OID: gitexec.OID(c.OID), Delete: c.Deleted})
	}
	if !en.captured[f.CheckpointID] {
		var err error
		if changes, err = en.withStoredBlobs(ctx, changes); err != nil {
			return nil, err
		}
	}
	if string(head) == f.Head {
		return changes, nil
	}
	moved, err := en.changedBetween(ctx, f, head, changes)
	if err != nil || len(moved) == 0 {
		return changes, err
	}
	paths := make([]string, 0, len(moved))
	for p := range moved {
		paths = append(paths, p)
	}
	now, err := en.WorktreeChanges(ctx, session.MergeSorted(nil, paths))
	if err != nil {
		return nil, err
	}
	still := map[string]bool{}
	for _, c := range now {
		still[c.Path] = sameChange(c, moved[c.Path])
	}
	out := changes[:0]
	for _, c := range changes {
		if _, ok := moved[c.Path]; !ok || still[c.Path] {
			out = append(out, c)
		}
	}
	return out, nil
}

// withStoredBlobs checks that the captured blobs are still in the object store (an earlier
// hook wrote them, unreferenced, and a `git gc --prune=now` may have removed them since): a
// commit must never name a missing object. A missing one is taken from the worktree instead.
func (en *Engine) withStoredBlobs(ctx context.Context, changes []gitexec.TreeChange) ([]gitexec.TreeChange, error) {
	var oids []gitexec.OID
	for _, c := range changes {
		if !c.Delete {
			oids = append(oids, c.OID)
		}
	}
	if len(oids) == 0 {
		return changes, nil
	}
	stored, err := en.Repo.ReadBlobs(ctx, oids)
	if err != nil {
		return nil, fmt.Errorf("auto-commit: read the turn's files: %w", err)
	}
	var missing []string
	out := make([]gitexec.TreeChange, 0, len(changes))
	for _, c := range changes {
		if _, ok := stored[c.OID]; !c.Delete && !ok {
			missing = append(missing, c.Path)
			continue
		}
		out = append(out, c)
	}
	if len(missing) == 0 {
		return out, nil
	}
	en.Log.Warn("auto-commit: the turn's files are no longer stored; taking them from the worktree", "files", missing)
	now, err := en.WorktreeChanges(ctx, missing)
	if err != nil {
		return nil, err
	}
	return append(out, now...), nil
}

// changedBetween are the captured changes whose path a commit since the turn's end changed, by
// path: HEAD (to) no longer holds what it held then, which is what HEAD held at the turn's end
// (f.Head) or, for a file of the session's commits owed then (made since, in order), what the
// last of them holds (f.Since). All of them when f.Head cannot be read.
func (en *Engine) changedBetween(ctx context.Context, f session.AutoCommit, to gitexec.OID, changes []gitexec.TreeChange) (map[string]gitexec.TreeChange, error) {
	paths := make([]string, len(changes))
	for i, c := range changes {
		paths[i] = c.Path
	}
	after, err := en.Repo.PathEntries(ctx, string(to), paths)
	if err != nil {
		return nil, fmt.Errorf("auto-commit: read HEAD's files: %w", err)
	}
	before := map[string]gitexec.TreeEntry{}
	if f.Head != "" {
		if before, err = en.Repo.PathEntries(ctx, f.Head, paths); err != nil {
			en.Log.Warn("auto-commit: read the turn's HEAD", "commit", f.Head, "error", err.Error())
			before = nil
		}
	}
	for _, c := range f.Since {
		if before != nil {
			delete(before, c.Path)
			if !c.Deleted {
				before[c.Path] = gitexec.TreeEntry{Mode: c.Mode, OID: gitexec.OID(c.OID)}
			}
		}
	}
	moved := map[string]gitexec.TreeChange{}
	for _, c := range changes {
		b, had := before[c.Path]
		a, has := after[c.Path]
		if before == nil || had != has || b.OID != a.OID || b.Mode != a.Mode {
			moved[c.Path] = c
		}
	}
	return moved, nil
}

// sameChange reports whether two tree changes put the same thing at their path.
func sameChange(a, b gitexec.TreeChange) bool {
	if a.Delete || b.Delete {
		return a.Delete == b.Delete
	}
	return a.OID == b.OID && a.Mode == b.Mode
}

// notStagedSince are the paths of a delayed turn commit (made by a later hook than the turn's
// end) whose index entry it may set to the commit's: all but those the user staged since the
// turn ended. The commit holds the files as the turn left them, so an edit the user staged in
// between (the index holds what the worktree holds, which is neither HEAD's nor the commit's,
// a `git rm` too) stays staged, on top of the turn's commit, as it would after a commit made
// at the turn's end; resetting it would silently unstage the user's work.
func (en *Engine) notStagedSince(ctx context.Context, paths []string, index []byte, head gitexec.OID, changes []gitexec.TreeChange) ([]string, error) {
	committed := make(map[string]gitexec.TreeChange, len(changes))
	for _, c := range changes {
		committed[c.Path] = c
	}
	staged := map[string]gitexec.TreeChange{} // stage-0 entries; a path without one is absent
	for _, rec := range bytes.Split(index, []byte{0}) {
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		if f := bytes.Fields(meta); ok && len(f) == 3 && string(f[2]) == "0" {
			staged[string(p)] = gitexec.TreeChange{Path: string(p), Mode: string(f[0]), OID: gitexec.OID(f[1])}
		}
	}
	before, err := en.Repo.PathEntries(ctx, string(head), paths)
	if err != nil {
		return nil, fmt.Errorf("auto-commit: read HEAD's files: %w", err)
	}
	now, err := en.WorktreeChanges(ctx, paths)
	if err != nil {
		return nil, err
	}
	worktree := make(map[string]gitexec.TreeChange, len(now))
	for _, c := range now {
		worktree[c.Path] = c
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		c, inCommit := committed[p]
		w, seen := worktree[p]
		ix, indexed := staged[p]
		if !indexed {
			ix = gitexec.TreeChange{Path: p, Delete: true}
		}
		parent := gitexec.TreeChange{Path: p, Delete: true}
		if e, ok := before[p]; ok {
			parent = gitexec.TreeChange{Path: p, Mode: e.Mode, OID: e.OID}
		}
		if inCommit && seen && sameChange(ix, w) && !sameChange(ix, c) && !sameChange(ix, parent) {
			continue // the user's staged change
		}
		out = append(out, p)
	}
	return out, nil
}
