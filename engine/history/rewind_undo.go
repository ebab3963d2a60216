package history

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec"
)

// rewindUndoFile is the record of the last rewind, in the work tree's git dir.
const rewindUndoFile = "entire-rewind-undo"

// ErrNothingToUndo reports that this work tree has no rewind to undo.
var ErrNothingToUndo = errors.New("nothing to undo: no rewind recorded in this work tree")

// rewindUndo is <git-dir>/entire-rewind-undo: what the last rewind changed and where the state
// it replaced is kept.
type rewindUndo struct {
	Kind          RewindKind       `json:"kind"`
	Snapshot      string           `json:"snapshot"` // shadow commit with the state before the rewind
	Target        string           `json:"target"`   // where the rewind went
	SessionID     string           `json:"session_id"`
	Head          string           `json:"head"`            // HEAD before the rewind
	HeadAfter     string           `json:"head_after"`      // HEAD after it (differs after --reset)
	Index         string           `json:"index,omitempty"` // the index before a --reset, as a tree
	ShadowBranch  string           `json:"shadow_branch,omitempty"`
	ShadowTip     string           `json:"shadow_tip,omitempty"` // that branch before the rewind moved it
	Transcripts   []undoTranscript `json:"transcripts,omitempty"`
	IndexPaths    []string         `json:"index_paths,omitempty"`    // the paths whose index entries the rewind changed
	IndexEntries  string           `json:"index_entries,omitempty"`  // their entries before it (git ls-files -s -z), for --undo
	Session       *undoSession     `json:"session_state,omitempty"`  // the session's state before
	OtherSessions []undoSession    `json:"other_sessions,omitempty"` // other sessions the rewind changed, before
	// InProgress: the rewind had not finished (it failed or was killed half way), so the work
	// tree may be partly rewound. Another rewind is refused until --undo puts back Snapshot:
	// it would save the partly rewound state in its place, and the state before would be lost.
	InProgress bool      `json:"in_progress,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
}

// undoTranscript is a transcript the rewind wrote; Existed says whether it replaced a file.
type undoTranscript struct {
	SessionID string `json:"session_id"`
	Path      string `json:"path"`
	Existed   bool   `json:"existed"`
}

func (en *History) undoPath() string { return filepath.Join(en.Repo.GitDir, rewindUndoFile) }

// undoRef keeps this work tree's undo snapshot from garbage collection.
func (en *History) undoRef() gitexec.RefName {
	return gitexec.RefName(session.RewindUndoRef(en.Repo.WorktreeID()))
}

// PlanUndo works out putting back the state the last rewind replaced. It refuses when HEAD
// has moved since, as the saved files belong with the HEAD of that time.
func (en *History) PlanUndo(ctx context.Context) (*RewindPlan, error) {
	data, err := os.ReadFile(en.undoPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNothingToUndo
	}
	if err != nil {
		return nil, fmt.Errorf("read undo record: %w", err)
	}
	var rec rewindUndo
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("read undo record %s: %w", en.undoPath(), err)
	}
	head, _, err := en.Repo.Head(ctx)
	if err != nil {
		return nil, err
	}
	if string(head) != rec.HeadAfter {
		return nil, fmt.Errorf("HEAD has moved since the rewind (it left HEAD at %s, now %s); undo would mix the two", engine.Short(rec.HeadAfter, 7), head.Short(7))
	}
	if _, err := en.Repo.CommitParents(ctx, rec.Snapshot); err != nil {
		return nil, fmt.Errorf("the saved state %s is gone: %w", engine.Short(rec.Snapshot, 7), err)
	}
	plan := &RewindPlan{Kind: rec.Kind, Label: engine.Short(rec.Snapshot, 7), Undo: true, session: rec.SessionID, head: head}
	for _, t := range rec.Transcripts {
		rt := RewindTranscript{SessionID: t.SessionID, Path: t.Path, Remove: !t.Existed}
		if t.Existed {
			entries, _, err := en.Repo.ReadTree(ctx, rec.Snapshot+":.entire/metadata/"+t.SessionID)
			if err != nil {
				return nil, err
			}
			if rt.Data, _, err = checkpoint.ReadTranscript(ctx, en.Repo, entries, ""); err != nil {
				return nil, err
			}
		}
		plan.Transcripts = append(plan.Transcripts, rt)
		plan.Resume = append(plan.Resume, ResumeLine{Command: resumeCommand("", t.SessionID)})
	}
	if len(plan.Resume) == 0 && rec.SessionID != "unknown" {
		plan.Resume = append(plan.Resume, ResumeLine{Command: resumeCommand("", rec.SessionID)})
	}
	if rec.Session != nil {
		plan.rewound = append(plan.rewound, sessionRewind{id: rec.SessionID, commit: rec.Session.LastShadowCommit, files: rec.Session.FilesTouched,
			undo: true, reset: rec.Kind == RewindReset, positions: rec.Session.Positions, base: rec.Session.BaseCommit})
	}
	for _, u := range rec.OtherSessions {
		plan.rewound = append(plan.rewound, sessionRewind{id: u.SessionID, commit: u.LastShadowCommit, files: u.FilesTouched, undo: true,
			reset: rec.Kind == RewindReset, positions: u.Positions, base: u.BaseCommit})
	}
	if rec.Kind == RewindLogsOnly {
		return plan, nil
	}
	if len(rec.IndexPaths) > 0 {
		plan.indexPaths, plan.indexEntries = rec.IndexPaths, &rec.IndexEntries
	}
	plan.source = rec.Snapshot
	known := []string{string(head), rec.Snapshot}
	if rec.ShadowBranch != "" {
		if tip, ok, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(rec.ShadowBranch)); err != nil {
			return nil, err
		} else if ok {
			known = append(known, string(tip))
		}
		plan.shadow, plan.shadowTo = rec.ShadowBranch, gitexec.OID(rec.ShadowTip)
		plan.dropShadow = rec.ShadowTip == "" // the rewind made it: undone, it goes again
	}
	if rec.Kind == RewindReset {
		plan.newHead, plan.index = gitexec.OID(rec.Head), rec.Index
		if plan.index == "" {
			plan.index = rec.Head
		}
	}
	return plan, en.planFiles(ctx, plan, exactTree, nil, known)
}

// ApplyRewind saves the current state, records how to undo, and carries out the plan. It
// returns the commit holding the saved state.
func (en *History) ApplyRewind(ctx context.Context, plan *RewindPlan) (gitexec.OID, error) {
	sessions, err := en.openRewoundSessions(plan)
	if err != nil {
		return "", err
	}
	defer closeRewound(en, sessions)
	rec, err := en.saveBeforeRewind(ctx, plan)
	if err != nil {
		return "", err
	}
	rec.Session, rec.OtherSessions = undoSessions(plan, sessions)
	rec.InProgress = true
	if err := en.recordUndo(ctx, plan, &rec); err != nil {
		return "", err
	}
	if err := en.applyPlan(ctx, plan); err != nil {
		return "", fmt.Errorf("%w\nThe rewind stopped half way; the state before it is saved in %s: `entire rewind --undo` puts it back",
			err, engine.Short(rec.Snapshot, 7))
	}
	en.recordRewound(ctx, sessions, plan)
	en.recordRestoredHere(plan, sessions)
	rec.InProgress = false
	if err := en.writeUndoRecord(rec); err != nil {
		fmt.Fprintf(en.Stderr, "entire: %v\n", err)
	}
	return gitexec.OID(rec.Snapshot), nil
}

// applyPlan changes the branch, the index, the files and the transcripts as the plan says.
func (en *History) applyPlan(ctx context.Context, plan *RewindPlan) error {
	if plan.newHead != "" && !plan.Undo {
		if err := en.writeTranscripts(plan); err != nil {
			return err
		}
		return en.Repo.Reset(ctx, gitexec.ResetHard, plan.newHead)
	}
	if plan.newHead != "" {
		if err := en.Repo.Reset(ctx, gitexec.ResetSoft, plan.newHead); err != nil {
			return err
		}
		if err := en.Repo.ReadTreeIndex(ctx, plan.index); err != nil {
			return err
		}
	}
	for _, p := range plan.Delete {
		if err := en.removeFile(p); err != nil {
			return err
		}
	}
	if err := en.Repo.CheckoutFiles(ctx, plan.source, plan.Write); err != nil {
		return err
	}
	if plan.indexEntries != nil {
		if err := en.Repo.RestoreIndexEntries(ctx, plan.indexPaths, []byte(*plan.indexEntries)); err != nil {
			return err
		}
	} else if err := en.Repo.ResetPaths(ctx, plan.head, plan.indexPaths); err != nil {
		return err
	}
	return en.writeTranscripts(plan)
}

// checkNotInterrupted refuses a new rewind while the last one in this work tree is unfinished
// and can still be undone (HEAD is where it left it).
func (en *History) checkNotInterrupted(head gitexec.OID) error {
	data, err := os.ReadFile(en.undoPath())
	if err != nil {
		return nil // no record (or none readable): nothing to protect
	}
	var rec rewindUndo
	if json.Unmarshal(data, &rec) != nil || !rec.InProgress || rec.HeadAfter != string(head) {
		return nil
	}
	return fmt.Errorf("the last rewind (to %s) did not finish, so the files may be partly rewound; "+
		"`entire rewind --undo` puts back the state saved before it (%s), then rewind again",
		rec.Target, engine.Short(rec.Snapshot, 7))
}

// saveBeforeRewind commits the current state (spec: see rewind.go) and returns the undo record
// describing it.
func (en *History) saveBeforeRewind(ctx context.Context, plan *RewindPlan) (rewindUndo, error) {
	head, _, err := en.Repo.Head(ctx)
	if err != nil {
		return rewindUndo{}, err
	}
	if head != plan.head {
		return rewindUndo{}, fmt.Errorf("HEAD moved while planning the rewind (%s, now %s): run it again", plan.head.Short(7), head.Short(7))
	}
	rec := rewindUndo{Kind: plan.Kind, Target: plan.Label, SessionID: plan.session, Head: string(head),
		HeadAfter: string(head), ShadowBranch: plan.shadow, CreatedAt: en.Now().UTC()}
	if plan.newHead != "" {
		rec.HeadAfter = string(plan.newHead)
		if idx, ok, err := en.Repo.WriteTree(ctx); err != nil {
			return rec, err
		} else if ok {
			rec.Index = string(idx)
		}
	}
	if rec.SessionID == "" {
		rec.SessionID = "unknown"
	}
	if len(plan.indexPaths) > 0 {
		entries, err := en.Repo.IndexEntries(ctx, plan.indexPaths)
		if err != nil {
			return rec, err
		}
		rec.IndexPaths, rec.IndexEntries = plan.indexPaths, string(entries)
	}
	st, err := en.Repo.Status(ctx)
	if err != nil {
		return rec, fmt.Errorf("git status: %w", err)
	}
	var paths []string
	for _, e := range st {
		if !checkpoint.IsInfrastructure(e.Path) {
			paths = append(paths, e.Path)
		}
	}
	changes, err := en.WorktreeChanges(ctx, paths)
	if err != nil {
		return rec, err
	}
	for _, t := range plan.Transcripts {
		data, err := os.ReadFile(t.Path)
		rec.Transcripts = append(rec.Transcripts, undoTranscript{SessionID: t.SessionID, Path: t.Path, Existed: err == nil})
		if err != nil {
			continue
		}
		blob, err := en.BlobChanges(ctx, ".entire/metadata/"+t.SessionID, []engine.NamedBlob{{Name: "full.jsonl", Data: data}})
		if err != nil {
			return rec, err
		}
		changes = append(changes, blob...)
	}
	tree, err := en.Repo.BuildTree(ctx, head, changes)
	if err != nil {
		return rec, fmt.Errorf("build the saved state: %w", err)
	}
	var parents []gitexec.OID
	if tip, ok, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(cmp.Or(plan.shadow, session.ShadowBranch(string(head), en.Repo.WorktreeID())))); err != nil {
		return rec, err
	} else if ok {
		parents = []gitexec.OID{tip}
	}
	metaDir := ".entire/metadata/" + rec.SessionID
	msg := "Before rewind to " + plan.Label + "\n\nEntire-Metadata: " + metaDir + "\nEntire-Session: " + rec.SessionID +
		"\nEntire-Strategy: " + checkpoint.StrategyManualCommit + "\n"
	snap, err := en.Repo.CommitTree(ctx, tree, parents, msg)
	if err != nil {
		return rec, fmt.Errorf("save the state before the rewind: %w", err)
	}
	rec.Snapshot = string(snap)
	return rec, nil
}

// recordUndo moves the undo ref to the snapshot and the shadow branch to its new tip in one
// transaction, then writes the record. A shadow branch moved meanwhile (a hook wrote a
// checkpoint) fails the rewind before any file changed.
func (en *History) recordUndo(ctx context.Context, plan *RewindPlan, rec *rewindUndo) error {
	oldUndo, _, err := en.Repo.ResolveRef(ctx, en.undoRef())
	if err != nil {
		return err
	}
	updates := []gitexec.RefUpdate{{Name: en.undoRef(), New: gitexec.OID(rec.Snapshot), Old: oldUndo}}
	if plan.shadow != "" {
		tip, _, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(plan.shadow))
		if err != nil {
			return err
		}
		rec.ShadowTip = string(tip)
		switch {
		case plan.dropShadow && tip != "":
			updates = append(updates, gitexec.RefUpdate{Name: gitexec.BranchRef(plan.shadow), Old: tip})
		case plan.shadowTo != "" && plan.shadowTo != tip:
			updates = append(updates, gitexec.RefUpdate{Name: gitexec.BranchRef(plan.shadow), New: plan.shadowTo, Old: tip})
		}
	}
	tmp, err := en.writeUndoTemp(*rec)
	if err != nil {
		return err
	}
	if err := en.Repo.UpdateRefs(ctx, updates); err != nil {
		os.Remove(tmp)
		if errors.Is(err, gitexec.ErrRefMoved) {
			return fmt.Errorf("a checkpoint was written while rewinding; nothing was changed, run the rewind again: %w", err)
		}
		return err
	}
	if err := os.Rename(tmp, en.undoPath()); err != nil {
		return fmt.Errorf("write undo record: %w", err)
	}
	return nil
}

// writeUndoTemp writes the record next to its place and returns the temporary file's name.
func (en *History) writeUndoTemp(rec rewindUndo) (string, error) {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode undo record: %w", err)
	}
	tmp := en.undoPath() + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("write undo record: %w", err)
	}
	return tmp, nil
}

// writeUndoRecord replaces the undo record.
func (en *History) writeUndoRecord(rec rewindUndo) error {
	tmp, err := en.writeUndoTemp(rec)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, en.undoPath()); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write undo record: %w", err)
	}
	return nil
}

// writeTranscripts writes (or, undoing, removes) the plan's transcripts.
func (en *History) writeTranscripts(plan *RewindPlan) error {
	for _, t := range plan.Transcripts {
		if t.Remove {
			if err := os.Remove(t.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove transcript: %w", err)
			}
			continue
		}
		if err := WriteTranscript(TranscriptRestore{SessionID: t.SessionID, Path: t.Path, Data: t.Data}); err != nil {
			return err
		}
	}
	return nil
}

// removeFile deletes a work-tree file and the directories it leaves empty, up to the top.
func (en *History) removeFile(p string) error {
	full := filepath.Join(en.Repo.TopLevel, filepath.FromSlash(p))
	if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	for dir := filepath.Dir(full); dir != en.Repo.TopLevel && len(dir) > len(en.Repo.TopLevel); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break // not empty (or gone): stop
		}
	}
	return nil
}
