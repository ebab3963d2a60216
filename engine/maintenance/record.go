package maintenance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
)

// DanglingTrailer is an Entire-Checkpoint trailer on a local branch whose checkpoint is neither
// on entire/checkpoints/v1 nor pending in a session's journal: the record's invariant broken.
// With Err set, it is a checkpoint on entire/checkpoints/v1 that cannot be read (damaged).
type DanglingTrailer struct {
	Commit       string
	CheckpointID string
	Session      string // the session whose journal linked the commit; "" when none did
	Err          error
}

// RecordCheck is what CheckRecord found.
type RecordCheck struct {
	Dangling   []DanglingTrailer // named checkpoints neither written nor pending
	Unreadable []DanglingTrailer // named checkpoints written, but that cannot be read
	Pending    int               // named checkpoints pending in a session's journal
	// Fetched counts named checkpoints that only origin's copy of the record holds, or
	// another remote's (a teammate's, fetched with their commits): explain reads them there,
	// and the next push merges them into the local record.
	Fetched int
}

// DanglingTrailers checks the invariant of the record: every trailer of every commit on a local
// branch (entire's own branches aside) names a checkpoint that exists or is pending.
func (en *Maintenance) DanglingTrailers(ctx context.Context) ([]DanglingTrailer, error) {
	rc, err := en.CheckRecord(ctx, false)
	return rc.Dangling, err
}

// CheckRecord checks every trailer of every commit on a local branch (entire's own branches
// aside): its checkpoint exists, or is pending in a session's journal; with read, an existing
// one is also read (its metadata), so that a damaged checkpoint is found.
func (en *Maintenance) CheckRecord(ctx context.Context, read bool) (RecordCheck, error) {
	var rc RecordCheck
	out, err := en.Repo.Run(ctx, nil, "log", "--exclude=entire/*", "--branches", "--grep=Entire-Checkpoint:",
		"--format=%H%x00%B%x01")
	if err != nil {
		return rc, fmt.Errorf("list linked commits: %w", err)
	}
	// The sessions before the record: each state is read once its running hook is done
	// (ListSettled), so a commit's post-commit that was writing its checkpoint meanwhile has
	// written it by the time the record is read, or left it pending. Read the other way round,
	// or mid-hook, a checkpoint being written was reported missing.
	states, err := en.Store.ListSettled()
	if err != nil {
		return rc, err
	}
	committed, pending := map[string]bool{}, map[string]bool{}
	rd, err := checkpoint.NewReader(ctx, en.Repo)
	if err != nil {
		return rc, err
	}
	ids, err := rd.ListCommitted(ctx)
	if err != nil {
		return rc, err
	}
	for _, id := range ids {
		committed[id] = true
	}
	fetched := map[string]bool{}
	copies, _ := checkpoint.FetchedCopies(ctx, en.Repo)
	for _, c := range copies {
		if c.Tip == rd.Tip {
			continue
		}
		if ids, err := (&checkpoint.Reader{Repo: en.Repo, Tip: c.Tip}).ListCommitted(ctx); err == nil {
			for _, id := range ids {
				fetched[id] = true
			}
		}
	}
	for _, s := range states {
		for _, c := range s.Recorder.Pending {
			pending[c.Commit.CheckpointID] = true
		}
	}
	seen := map[string]bool{} // one finding per ID (an amend keeps the trailer on a new commit)
	for _, rec := range strings.Split(string(out), "\x01") {
		commit, msg, ok := strings.Cut(strings.TrimLeft(rec, "\n"), "\x00")
		if !ok {
			continue
		}
		for _, id := range checkpoint.CheckpointTrailers(msg) {
			if seen[id] {
				continue
			}
			seen[id] = true
			switch {
			case committed[id] && read:
				if _, err := rd.ReadCheckpointInfo(ctx, id); err != nil {
					rc.Unreadable = append(rc.Unreadable, DanglingTrailer{Commit: commit, CheckpointID: id, Err: err})
				}
			case committed[id]:
			case pending[id]:
				rc.Pending++
			case fetched[id]:
				rc.Fetched++
			default:
				rc.Dangling = append(rc.Dangling, DanglingTrailer{Commit: commit, CheckpointID: id, Session: en.linkedBy(id)})
			}
		}
	}
	return rc, nil
}

// linkedBy is the session whose journal linked checkpoint id (prepare-commit-msg's decision or
// a condensation into it), or "". A commit journaled to a session it did not link does not count.
func (en *Maintenance) linkedBy(id string) string {
	ids, err := en.Store.IDs()
	if err != nil {
		return ""
	}
	needle := []byte(`"checkpoint_id":"` + id + `"`)
	for _, sid := range ids {
		data, err := os.ReadFile(en.Store.JournalPath(sid))
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(data, []byte{'\n'}) {
			if bytes.Contains(line, needle) && (bytes.Contains(line, []byte(`"type":"commit_prepared"`)) ||
				bytes.Contains(line, []byte(`"type":"checkpoint_condensed"`))) {
				return sid
			}
		}
	}
	return ""
}

// ErrCannotRepair reports a dangling trailer no session recorded: there is nothing to write
// its checkpoint from.
var ErrCannotRepair = errors.New("no session recorded this checkpoint")

// RepairTrailer writes the checkpoint a dangling trailer names, from what its session recorded
// (the session's transcript, prompts and the commit's files), and journals that it did. The
// session's own state is left as it is: its current work stays uncondensed.
func (en *Maintenance) RepairTrailer(ctx context.Context, d DanglingTrailer) error {
	if d.Session == "" {
		return ErrCannotRepair
	}
	sess, err := en.Store.Open(d.Session)
	if err != nil {
		return err
	}
	defer engine.CloseSession(en.Engine, sess)
	parents, err := en.Repo.CommitParents(ctx, d.Commit)
	if err != nil {
		return err
	}
	parent := ""
	if len(parents) > 0 {
		parent = string(parents[0])
	}
	diff, err := en.Repo.DiffTree(ctx, parent, d.Commit)
	if err != nil {
		return err
	}
	c := events.GitCommitted{Commit: d.Commit, CheckpointID: d.CheckpointID}
	for _, e := range diff {
		c.Files = append(c.Files, e.Path)
	}
	res, err := en.Condense(ctx, engine.WithAllPrompts(sess), session.Condense{Commit: c})
	if err != nil {
		return err
	}
	for _, e := range res {
		if w, ok := e.Data.(events.CheckpointCondensed); ok {
			return sess.Append(en.Event(events.CheckpointRepaired{CheckpointID: w.CheckpointID, UserCommit: d.Commit, MetadataCommit: w.MetadataCommit}))
		}
	}
	return fmt.Errorf("repair checkpoint %s: nothing written", d.CheckpointID)
}
