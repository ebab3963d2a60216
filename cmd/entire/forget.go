package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
)

// forgetCmd is `entire forget`: remove a session's (or a checkpoint's) transcripts, prompts,
// context and summary from the whole history of entire/checkpoints/v1, leaving tombstones.
type forgetCmd struct {
	Target string `arg:"" help:"A session ID, or a checkpoint ID (or a unique prefix of one): every session slot of that checkpoint."`
	Force  bool   `short:"f" help:"Forget what the preview lists."`

	bySession bool // Target named a session (find)
}

// forgetSlot is one slot the preview lists.
type forgetSlot struct {
	checkpoint string
	slot       int
	meta       checkpoint.CommittedMetadata
	bytes      int64
}

func (c *forgetCmd) Run(e *env) error {
	en, done, err := openEngine(e)
	if err != nil {
		return err
	}
	defer done()
	// A session recorded here that no checkpoint holds yet is forgotten by recording it no more.
	live := false
	if ok, err := en.Store.Has(c.Target); err == nil && ok && !en.Store.Forgotten(c.Target) {
		live = true
	}
	tip, ok, err := en.Repo.ResolveRef(e.ctx, checkpoint.MetaRef)
	if err != nil {
		return err
	}
	if !ok {
		if live {
			return c.stopOnly(e, en)
		}
		return fmt.Errorf("there is no %s branch in this clone: nothing to forget", checkpoint.MetadataBranch)
	}
	slots, forgotten, err := c.find(e, en, &checkpoint.Reader{Repo: en.Repo, Tip: tip})
	if errors.Is(err, errNotInRecord) && live {
		return c.stopOnly(e, en)
	}
	if err != nil {
		return err
	}
	for _, s := range forgotten {
		fmt.Fprintf(e.stdout, "Checkpoint %s, session %s: already forgotten on %s.\n", s.checkpoint, s.meta.SessionID, s.meta.ForgottenAt.UTC().Format("2006-01-02"))
	}
	if len(slots) == 0 {
		if c.bySession && c.Force && !en.Store.Forgotten(c.Target) {
			if err := forgettable(en, c.Target); err != nil {
				return err
			}
			return stopRecording(e, en, c.Target)
		}
		return nil
	}
	for _, s := range slots {
		if st, err := en.Store.Peek(s.meta.SessionID); err == nil && st.Phase.Normalize() == session.PhaseActive {
			return fmt.Errorf("session %s is in the middle of a turn: its turn end would write the transcript again; forget it once the turn has ended", s.meta.SessionID)
		}
	}
	if c.bySession {
		if err := forgettable(en, c.Target); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "%s %s (transcripts, prompts, context and summary, in every commit of %s):\n",
		map[bool]string{false: "Would forget", true: "Forgetting"}[c.Force], sessionSlots(len(slots)), checkpoint.MetadataBranch)
	for _, s := range slots {
		fmt.Fprintf(e.stdout, "  %s/%d  session %s (%s, %s), %d bytes\n", s.checkpoint, s.slot, s.meta.SessionID,
			orUnknown(s.meta.Agent), s.meta.CreatedAt.UTC().Format("2006-01-02 15:04"), s.bytes)
	}
	if !c.Force {
		fmt.Fprintln(e.stdout, "Nothing was forgotten. Run with --force to forget these sessions.")
		return nil
	}
	now := time.Now().UTC().Truncate(time.Second)
	var list []checkpoint.Forgotten
	checkpoints := map[string]bool{}
	for _, s := range slots {
		list = append(list, checkpoint.Forgotten{CheckpointID: s.checkpoint, SessionID: s.meta.SessionID, ForgottenAt: now})
		checkpoints[s.checkpoint] = true
	}
	if err := en.Sharing().Forget(e.ctx, list); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Forgot %s in %s; %s a tombstone, so trailers still resolve.\n", sessionSlots(len(slots)),
		plural(len(checkpoints), "checkpoint", "checkpoints"), map[bool]string{false: "each keeps", true: "it keeps"}[len(checkpoints) == 1])
	if c.bySession {
		if err := stopRecording(e, en, c.Target); err != nil {
			return err
		}
	} else {
		warnLive(e, en, slots)
	}
	fmt.Fprintln(e.stdout, "The remote loses them at the next git push (the pre-push hook replaces its history with a lease).")
	fmt.Fprintf(e.stdout, "This clone's object store keeps the old copies until they expire: git reflog expire --expire=now refs/heads/%s && git gc --prune=now\n", checkpoint.MetadataBranch)
	return nil
}

// find lists the slots the target names at the reader's tip: those still to forget, and
// those already forgotten.
func (c *forgetCmd) find(e *env, en *engine.Engine, rd *checkpoint.Reader) (todo, done []forgetSlot, err error) {
	var ids []string
	bySession := true
	if id, rerr := rd.Resolve(e.ctx, c.Target); rerr == nil {
		ids, bySession = []string{id}, false
	} else if ae := (*checkpoint.AmbiguousError)(nil); errors.As(rerr, &ae) {
		return nil, nil, rerr
	} else if ids, err = rd.ListCommitted(e.ctx); err != nil {
		return nil, nil, err
	}
	c.bySession = bySession
	for _, id := range ids {
		cp, err := rd.ReadCheckpointInfo(e.ctx, id)
		if err != nil {
			return nil, nil, err
		}
		if cp.Legacy && !bySession {
			return nil, nil, fmt.Errorf("checkpoint %s has the legacy flat layout, which entire forget does not rewrite", id)
		}
		for n, s := range cp.Slots {
			if cp.Legacy || bySession && s.Meta.SessionID != c.Target {
				continue
			}
			fs := forgetSlot{checkpoint: id, slot: n, meta: s.Meta}
			if s.Meta.ForgottenAt != nil {
				done = append(done, fs)
				continue
			}
			if fs.bytes, err = treeBytes(e, en, s.Tree); err != nil {
				return nil, nil, err
			}
			todo = append(todo, fs)
		}
	}
	if len(todo) == 0 && len(done) == 0 {
		return nil, nil, fmt.Errorf("%w: no checkpoint or session %q in %s", errNotInRecord, c.Target, checkpoint.MetadataBranch)
	}
	return todo, done, nil
}

// treeBytes is the size of every file under a tree.
func treeBytes(e *env, en *engine.Engine, tree string) (int64, error) {
	out, err := en.Repo.Run(e.ctx, nil, "ls-tree", "-r", "-l", "-z", tree)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, _, _ := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); len(f) == 4 {
			n, _ := strconv.ParseInt(f[3], 10, 64)
			total += n
		}
	}
	return total, nil
}

// orUnknown is s, or "unknown agent" when empty.
func orUnknown(s string) string {
	if s == "" {
		return "unknown agent"
	}
	return s
}

// errNotInRecord: the target names no checkpoint and no session slot of the record.
var errNotInRecord = errors.New("not in the record")

// stopOnly forgets a session recorded in this clone that no checkpoint holds yet: nothing to
// rewrite, only its recording to stop (previewed without --force).
func (c *forgetCmd) stopOnly(e *env, en *engine.Engine) error {
	if st, err := en.Store.Peek(c.Target); err == nil && st.Phase.Normalize() == session.PhaseActive {
		return fmt.Errorf("session %s is in the middle of a turn: forget it once the turn has ended", c.Target)
	}
	if !c.Force {
		fmt.Fprintf(e.stdout, "Session %s is recorded in this clone but no checkpoint holds it yet. Run with --force to stop recording it.\n", c.Target)
		return nil
	}
	if err := forgettable(en, c.Target); err != nil {
		return err
	}
	return stopRecording(e, en, c.Target)
}

// forgettable refuses to forget a session whose local state still owes work: a checkpoint a
// commit's trailer names but not yet written, or an auto-commit, would be written with the
// transcript after the forgetting, or lost with the state.
func forgettable(en *engine.Engine, id string) error {
	st, err := en.Store.Peek(id)
	if err != nil {
		return nil // not recorded in this clone
	}
	for _, eff := range session.Pending(st) {
		if _, ok := eff.(session.DeleteShadow); !ok {
			return fmt.Errorf("session %s still has work to write (%s): run `entire doctor --force`, or let the next hook finish it, then forget it", id, eff.EffectName())
		}
	}
	return nil
}

// stopRecording removes a forgotten session's local state and keeps its later hooks from
// recording it again: the next checkpoint of a session holds its whole transcript.
func stopRecording(e *env, en *engine.Engine, id string) error {
	if ok, err := en.Store.Has(id); err == nil && ok {
		if err := en.RemoveSession(e.ctx, id, "entire forget"); err != nil {
			return err
		}
	}
	if err := en.Store.MarkForgotten(id); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Session %s is not recorded in this clone any more: its local state is gone and its later turns record nothing. A shadow branch no other session uses is removed by `entire clean`.\n", id)
	return nil
}

// warnLive says which sessions of forgotten checkpoint slots are still recorded here, ended
// ones too: the session's next checkpoint (after a resume, for an ended one) holds its whole
// transcript again, what was forgotten included.
func warnLive(e *env, en *engine.Engine, slots []forgetSlot) {
	seen := map[string]bool{}
	for _, s := range slots {
		id := s.meta.SessionID
		if seen[id] {
			continue
		}
		seen[id] = true
		st, err := en.Store.Peek(id)
		if err != nil {
			continue
		}
		// An ended session is still recorded: resumed (claude --resume), its next checkpoint
		// holds its whole transcript again just the same.
		if st.Phase.Normalize() == session.PhaseEnded {
			fmt.Fprintf(e.stdout, "Session %s ended but is still recorded here: resumed, its next checkpoint holds its whole transcript again, this part included. `entire forget %s` forgets the session.\n", id, id)
		} else {
			fmt.Fprintf(e.stdout, "Session %s is still recorded here: its next checkpoint holds its whole transcript again, this part included. `entire forget %s` forgets the session.\n", id, id)
		}
	}
}
