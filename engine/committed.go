package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec"
)

// updateMetadataBranch commits a change to entire/checkpoints/v1 with compare-and-swap,
// recomputing the change from the new tip when another writer got there first. mutate runs
// once per attempt. Only a lost race is retried; a locked ref, a missing object or a full disk
// returns at once.
func (en *Engine) updateMetadataBranch(ctx context.Context, msg string, mutate func(tip gitexec.OID) ([]gitexec.TreeChange, error)) (gitexec.OID, error) {
	commit, _, err := en.updateMetadataBranchWith(ctx, msg, nil, mutate)
	return commit, err
}

// updateMetadataBranchWith is updateMetadataBranch with one more ref update in the same
// transaction (a shadow branch's deletion, see rideAlong). When only that ref moved, it is
// dropped and the metadata commit goes on alone; rode reports that it was applied.
func (en *Engine) updateMetadataBranchWith(ctx context.Context, msg string, extra *gitexec.RefUpdate, mutate func(tip gitexec.OID) ([]gitexec.TreeChange, error)) (commit gitexec.OID, rode bool, err error) {
	var rt gitexec.RefRetry
	for rt.Next() {
		tip, exists, err := en.Repo.ResolveRef(ctx, checkpoint.MetaRef)
		if err != nil {
			return "", false, err
		}
		var base gitexec.OID
		var parents []gitexec.OID
		from := tip // the commit the change builds on
		if !exists {
			// Missing here: start from origin's copy (or another remote's) when there is one
			// (EnsureMetadataBranch).
			tip = ""
			c, ok, err := checkpoint.FirstFetchedCopy(ctx, en.Repo)
			if err != nil {
				return "", false, err
			}
			from, exists = c.Tip, ok
		}
		if exists {
			if base, err = en.treeOf(ctx, string(from)); err != nil {
				return "", false, err
			}
			parents = []gitexec.OID{from}
		}
		changes, err := mutate(from)
		if err != nil {
			return "", false, err
		}
		_, commit, err := en.Repo.BuildCommit(ctx, base, changes, parents, msg, "")
		if err != nil {
			return "", false, fmt.Errorf("commit metadata: %w", err)
		}
		updates := []gitexec.RefUpdate{{Name: checkpoint.MetaRef, New: commit, Old: tip}}
		if extra != nil {
			updates = append(updates, *extra)
		}
		err = en.Repo.UpdateRefs(ctx, updates)
		if extra != nil && errors.Is(err, gitexec.ErrRefMoved) {
			if now, _, rerr := en.Repo.ResolveRef(ctx, checkpoint.MetaRef); rerr == nil && now == tip {
				extra = nil // only the other ref moved: leave it to its own effect
				continue
			}
		}
		if rt.Moved(err) {
			continue
		}
		if err != nil {
			return "", false, err
		}
		return commit, extra != nil, nil
	}
	return "", false, rt.Err("update " + checkpoint.MetadataBranch)
}

// EnsureMetadataBranch creates entire/checkpoints/v1 when it does not exist (spec §1.2): at
// origin's copy when a clone or fetch brought one, so that the record others pushed is read and
// extended here, else as an orphan commit of the empty tree. A local branch that holds nothing
// (the empty tree) is moved to origin's copy too, as the reference does: an empty orphan beside
// origin's record hides that record from explain, rewind and resume until the next push merges
// two unrelated histories. Without origin's copy, another remote's does (FirstFetchedCopy: a
// repository whose remote was added by hand under another name, or a fork's upstream).
func (en *Engine) EnsureMetadataBranch(ctx context.Context) error {
	local, exists, err := en.Repo.ResolveRef(ctx, checkpoint.MetaRef)
	if err != nil {
		return err
	}
	fetched, fromOrigin, err := checkpoint.FirstFetchedCopy(ctx, en.Repo)
	if err != nil {
		return err
	}
	origin := fetched.Tip
	if exists {
		if !fromOrigin || local == origin {
			return nil
		}
		tree, err := en.treeOf(ctx, string(local))
		if err != nil || !en.Repo.IsEmptyTree(tree) {
			return err
		}
	}
	commit := origin
	if !fromOrigin {
		empty, err := en.Repo.EmptyTree(ctx)
		if err != nil {
			return err
		}
		commit, err = en.Repo.CommitTree(ctx, empty, nil,
			"Initialize metadata branch\n\nThis branch stores session metadata for the auto-commit strategy.\n")
		if err != nil {
			return fmt.Errorf("create metadata branch: %w", err)
		}
		local = ""
	}
	err = en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: checkpoint.MetaRef, New: commit, Old: local}})
	if errors.Is(err, gitexec.ErrRefMoved) {
		return nil // someone else created or moved it
	}
	return err
}

// checkpointSlots reads a checkpoint's root summary and every slot's metadata at tip.
// exists=false when the checkpoint is not on the branch.
func (en *Engine) checkpointSlots(ctx context.Context, tip gitexec.OID, id string) (checkpoint.CheckpointSummary, []checkpoint.CommittedMetadata, bool, error) {
	var sum checkpoint.CheckpointSummary
	if tip == "" {
		return sum, nil, false, nil
	}
	cp := checkpoint.CheckpointPath(id)
	data, ok, err := en.Repo.ReadBlob(ctx, string(tip)+":"+cp+"/metadata.json")
	if err != nil || !ok {
		return sum, nil, false, err
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		return sum, nil, false, fmt.Errorf("read %s/metadata.json: %w", cp, err)
	}
	slots := make([]checkpoint.CommittedMetadata, len(sum.Sessions))
	for i := range sum.Sessions {
		p := cp + "/" + strconv.Itoa(i) + "/metadata.json"
		data, ok, err := en.Repo.ReadBlob(ctx, string(tip)+":"+p)
		if err != nil {
			return sum, nil, false, err
		}
		if !ok {
			return sum, nil, false, fmt.Errorf("checkpoint %s: missing %s", id, p)
		}
		if err := json.Unmarshal(data, &slots[i]); err != nil {
			return sum, nil, false, fmt.Errorf("read %s: %w", p, err)
		}
	}
	return sum, slots, true, nil
}

// slotEntries lists the files currently in a slot directory.
func (en *Engine) slotEntries(ctx context.Context, tip gitexec.OID, dir string) ([]gitexec.TreeEntry, error) {
	if tip == "" {
		return nil, nil
	}
	entries, _, err := en.Repo.ReadTree(ctx, string(tip)+":"+dir)
	return entries, err
}

// slotWrite is the content of one session slot.
type slotWrite struct {
	meta       checkpoint.CommittedMetadata
	commit     []string          // the files of the commit the slot is written for (nil: not a commit's)
	copied     bool              // the commit reused its parent's trailer (events.GitCommitted.Copied)
	transcript *storedTranscript // nil when no transcript could be read
	prompts    []byte            // prompt.txt; nil when there were no prompts
	context    []byte            // context.md; nil when there were no prompts
	summary    []byte            // summary.txt (an auto-commit turn's); nil: none
	// rootFiles are files at the checkpoint's root, named relative to it (an auto-commit task
	// checkpoint's tasks/<tool-use-id>/...).
	rootFiles []NamedBlob
	// attribution, when set, is awaited for meta.InitialAttribution just before the metadata
	// is written: it is computed while the record's tip is read.
	attribution func() json.RawMessage
}

// writeSlot returns the tree changes that put a session's slot into a checkpoint, replacing
// whatever that session had there and recomputing the root summary from all slots (spec §3.8).
func (en *Engine) writeSlot(ctx context.Context, tip gitexec.OID, w slotWrite) ([]gitexec.TreeChange, int, error) {
	id := w.meta.CheckpointID
	cp := checkpoint.CheckpointPath(id)
	sum, slots, _, err := en.checkpointSlots(ctx, tip, id)
	if err != nil {
		return nil, 0, err
	}
	slot := len(slots)
	for i, m := range slots {
		if m.SessionID == w.meta.SessionID {
			slot = i
			w.meta = amended(m, w.meta, w.commit, w.copied)
			break
		}
	}
	dir := cp + "/" + strconv.Itoa(slot)
	if w.attribution != nil {
		w.meta.InitialAttribution = w.attribution()
	}
	metaJSON, err := checkpoint.MarshalJSON(w.meta)
	if err != nil {
		return nil, 0, err
	}
	blobs := []NamedBlob{{"metadata.json", metaJSON}}
	files := checkpoint.SessionFiles{
		Metadata:    "/" + dir + "/metadata.json",
		Transcript:  "/" + dir + "/full.jsonl",
		ContentHash: "/" + dir + "/content_hash.txt",
	}
	var stored []gitexec.TreeChange
	if w.transcript != nil {
		blobs = append(blobs, NamedBlob{"content_hash.txt", w.transcript.hash})
		stored = w.transcript.files
	}
	if w.prompts != nil {
		blobs = append(blobs, NamedBlob{"prompt.txt", w.prompts}, NamedBlob{"context.md", w.context})
		files.Prompt = "/" + dir + "/prompt.txt"
		files.Context = "/" + dir + "/context.md"
	}
	if w.summary != nil {
		blobs = append(blobs, NamedBlob{"summary.txt", w.summary})
	}
	if slot == len(slots) {
		slots = append(slots, w.meta)
		sum.Sessions = append(sum.Sessions, files)
	} else {
		slots[slot] = w.meta
		sum.Sessions[slot] = files
	}
	rootJSON, err := checkpoint.MarshalJSON(checkpoint.Summarize(sum.Sessions, slots, w.meta))
	if err != nil {
		return nil, 0, err
	}
	// The root summary is written with the slot's files, in the same batch of blobs.
	blobs = append(blobs, NamedBlob{"../metadata.json", rootJSON})
	changes, err := en.replaceDir(ctx, tip, dir, blobs, stored)
	if err != nil {
		return nil, 0, err
	}
	root, err := en.BlobChanges(ctx, cp, w.rootFiles)
	if err != nil {
		return nil, 0, err
	}
	return append(changes, root...), slot, nil
}

// amended is the metadata of a session's slot written again into the same checkpoint (an
// amended commit keeps its trailer; a retried condensation): it covers what the slot covered
// that the commit still contains, and its transcript scope starts where the earlier one did.
// A commit that copied its parent's trailer (commit -C HEAD) leaves that parent in the
// history: the slot goes on covering all it covered.
func amended(old, m checkpoint.CommittedMetadata, commit []string, copied bool) checkpoint.CommittedMetadata {
	switch {
	case copied:
		m.FilesTouched = session.MergeSorted(m.FilesTouched, old.FilesTouched)
	case commit != nil:
		m.FilesTouched = session.MergeSorted(m.FilesTouched, session.Intersect(old.FilesTouched, commit))
	}
	if old.CheckpointTranscriptStart < m.CheckpointTranscriptStart {
		m.CheckpointTranscriptStart, m.TranscriptLinesAtStart = old.CheckpointTranscriptStart, old.TranscriptLinesAtStart
		m.TranscriptIdentifierAtStart = old.TranscriptIdentifierAtStart
	}
	return m
}

// replaceDir writes blobs (and already stored files, named relative to dir) into dir and
// deletes the dir's other files.
func (en *Engine) replaceDir(ctx context.Context, tip gitexec.OID, dir string, blobs []NamedBlob, stored []gitexec.TreeChange) ([]gitexec.TreeChange, error) {
	existing, err := en.slotEntries(ctx, tip, dir)
	if err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, b := range blobs {
		keep[b.Name] = true
	}
	for _, f := range stored {
		keep[f.Path] = true
	}
	var changes []gitexec.TreeChange
	for _, e := range existing {
		if !keep[e.Name] {
			changes = append(changes, gitexec.TreeChange{Path: dir + "/" + e.Name, Delete: true})
		}
	}
	written, err := en.BlobChanges(ctx, dir, blobs)
	if err != nil {
		return nil, err
	}
	for _, f := range stored {
		f.Path = dir + "/" + f.Path
		written = append(written, f)
	}
	return append(changes, written...), nil
}

// RemoveCheckpoints deletes the checkpoints ids from entire/checkpoints/v1 in one commit,
// "Cleanup: removed <n> orphaned checkpoints" (spec §3.7). When one of them is no longer on
// the branch (another writer changed the record since the caller looked), nothing is removed.
func (en *Engine) RemoveCheckpoints(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	msg := fmt.Sprintf("Cleanup: removed %d orphaned checkpoints", len(ids))
	_, err := en.updateMetadataBranch(ctx, msg, func(tip gitexec.OID) ([]gitexec.TreeChange, error) {
		present, err := (&checkpoint.Reader{Repo: en.Repo, Tip: tip}).ListCommitted(ctx)
		if err != nil {
			return nil, err
		}
		changes := make([]gitexec.TreeChange, 0, len(ids))
		for _, id := range ids {
			if _, ok := slices.BinarySearch(present, id); !ok {
				return nil, fmt.Errorf("checkpoint %s is no longer on %s: the record changed; run entire clean again", id, checkpoint.MetadataBranch)
			}
			changes = append(changes, gitexec.TreeChange{Path: checkpoint.CheckpointPath(id), Delete: true})
		}
		return changes, nil
	})
	return err
}
