package history

import (
	"context"
	"errors"
	"slices"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// A squash of linked commits keeps every trailer, oldest first, each naming the checkpoint of
// one of the commits squashed (README: readers use every trailer of a commit, in order). The
// newest is the last: resume and a rewind to the commit restore it, and the sessions only an
// earlier one holds (a session that did nothing in the later commits) as that one has them.

// commitTrailers groups linked commits (newest first, one entry per trailer in message order,
// as checkpoint.LinkedCommits lists them) by commit: for each commit, its entry naming the last
// trailer, and every trailer's checkpoint ID, oldest first and each once.
func commitTrailers(linked []checkpoint.LinkedCommit) ([]checkpoint.LinkedCommit, [][]string) {
	var commits []checkpoint.LinkedCommit
	var ids [][]string
	at := map[gitexec.OID]int{}
	for _, l := range linked {
		i, ok := at[l.SHA]
		if !ok {
			i = len(commits)
			at[l.SHA] = i
			commits = append(commits, l)
			ids = append(ids, nil)
		}
		if !slices.Contains(ids[i], l.CheckpointID) {
			ids[i] = append(ids[i], l.CheckpointID)
		}
		commits[i].CheckpointID = ids[i][len(ids[i])-1]
	}
	return commits, ids
}

// readSquash reads the checkpoints ids names, oldest first, as one: the last one's checkpoint
// with the slots of every session any of them holds, each from the newest that has it, in the
// order those checkpoints condensed them. The last checkpoint must exist; earlier ones the
// record lacks are returned in missing.
func readSquash(ctx context.Context, rd *checkpoint.Reader, ids []string) (cp *checkpoint.Checkpoint, missing []string, err error) {
	if len(ids) == 0 {
		return nil, nil, checkpoint.ErrCheckpointNotFound
	}
	newest, err := rd.ReadCheckpoint(ctx, ids[len(ids)-1])
	if err != nil || len(ids) == 1 {
		return newest, nil, err
	}
	var slots []checkpoint.Slot
	for _, id := range ids[:len(ids)-1] {
		c, err := rd.ReadCheckpoint(ctx, id)
		if errors.Is(err, checkpoint.ErrCheckpointNotFound) {
			missing = append(missing, id)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		slots = addSlots(slots, c.Slots)
	}
	merged := *newest
	merged.Slots = addSlots(slots, newest.Slots)
	return &merged, missing, nil
}

// addSlots appends newer slots, each replacing an earlier slot of its session.
func addSlots(slots, newer []checkpoint.Slot) []checkpoint.Slot {
	for _, s := range newer {
		if s.Meta.SessionID != "" {
			slots = slices.DeleteFunc(slots, func(o checkpoint.Slot) bool { return o.Meta.SessionID == s.Meta.SessionID })
		}
		slots = append(slots, s)
	}
	return slots
}
