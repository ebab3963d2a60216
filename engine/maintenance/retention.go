package maintenance

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/setup"
)

// Retention (`entire clean --retention`): the session slots a retention policy would forget,
// oldest first. Applying the plan is entire forget of those slots (engine/sharing.Forget).

// RetainedSlot is one slot of the record, as the retention plan sees it.
type RetainedSlot struct {
	CheckpointID string
	Slot         int
	SessionID    string
	Agent        string
	CreatedAt    time.Time
	Bytes        int64
	Reason       string // why the plan forgets it
}

// RetentionPlan is what a retention policy would forget.
type RetentionPlan struct {
	Forget    []RetainedSlot
	Kept      int            // slots left, forgotten ones aside
	Bytes     int64          // of the record's slots before the plan
	KeptBytes int64          // after it
	Skipped   []RetainedSlot // would go, but their session is mid-turn
}

// PlanRetention lists the slots older than the policy's days, then the oldest remaining ones
// while the record is over its size cap. Slots already forgotten count for nothing; a slot of
// a session in the middle of a turn is skipped (its turn end writes it again).
func (m *Maintenance) PlanRetention(ctx context.Context, policy setup.Retention, now time.Time) (RetentionPlan, error) {
	var plan RetentionPlan
	tip, ok, err := m.Repo.ResolveRef(ctx, checkpoint.MetaRef)
	if err != nil || !ok {
		return plan, err
	}
	sizes, err := m.slotSizes(ctx, string(tip))
	if err != nil {
		return plan, err
	}
	rd := &checkpoint.Reader{Repo: m.Repo, Tip: tip}
	ids, err := rd.ListCommitted(ctx)
	if err != nil {
		return plan, err
	}
	var slots []RetainedSlot
	for _, id := range ids {
		cp, err := rd.ReadCheckpointInfo(ctx, id)
		if err != nil {
			return plan, err
		}
		if cp.Legacy {
			continue // the flat layout is not rewritten by forget
		}
		for n, s := range cp.Slots {
			if s.Meta.ForgottenAt != nil {
				continue
			}
			size := sizes[checkpoint.CheckpointPath(id)+"/"+strconv.Itoa(n)]
			slots = append(slots, RetainedSlot{CheckpointID: id, Slot: n, SessionID: s.Meta.SessionID, Agent: s.Meta.Agent, CreatedAt: s.Meta.CreatedAt, Bytes: size})
			plan.Bytes += size
		}
	}
	midTurn := func(sid string) bool {
		st, err := m.Store.Peek(sid)
		return err == nil && st.Phase.Normalize() == session.PhaseActive
	}
	return choose(plan, slots, policy, now, midTurn), nil
}

// choose applies a policy to the record's slots, oldest first: past the age limit, then while
// over the size cap; a slot of a session mid-turn stays (skipped).
func choose(plan RetentionPlan, slots []RetainedSlot, policy setup.Retention, now time.Time, midTurn func(string) bool) RetentionPlan {
	slices.SortStableFunc(slots, func(a, b RetainedSlot) int { return a.CreatedAt.Compare(b.CreatedAt) })
	kept := plan.Bytes
	for _, s := range slots {
		switch {
		case policy.Days > 0 && now.Sub(s.CreatedAt) > time.Duration(policy.Days)*24*time.Hour:
			s.Reason = "older than " + plural(policy.Days, "day", "days")
		case policy.MaxBytes > 0 && kept > policy.MaxBytes:
			s.Reason = fmt.Sprintf("oldest while the record is over %d MiB", policy.MaxBytes>>20)
		default:
			plan.Kept++
			continue
		}
		if midTurn(s.SessionID) {
			plan.Skipped = append(plan.Skipped, s)
			plan.Kept++
			continue
		}
		kept -= s.Bytes
		plan.Forget = append(plan.Forget, s)
	}
	plan.KeptBytes = kept
	return plan
}

// slotSizes sums the file sizes under every <shard>/<id>/<slot> directory at tip, with one
// ls-tree of the whole branch.
func (m *Maintenance) slotSizes(ctx context.Context, tip string) (map[string]int64, error) {
	out, err := m.Repo.Run(ctx, nil, "ls-tree", "-r", "-l", "-z", tip)
	if err != nil {
		return nil, fmt.Errorf("list the record's files: %w", err)
	}
	sizes := map[string]int64{}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		parts := strings.SplitN(path, "/", 4)
		if !ok || len(f) != 4 || len(parts) < 4 {
			continue
		}
		n, _ := strconv.ParseInt(f[3], 10, 64)
		sizes[strings.Join(parts[:3], "/")] += n
	}
	return sizes, nil
}
