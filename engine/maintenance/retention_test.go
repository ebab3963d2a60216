package maintenance

import (
	"testing"
	"time"

	"github.com/entirerec/entire/engine/setup"
)

func TestChooseRetention(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	slot := func(id, sid string, age time.Duration, mib int64) RetainedSlot {
		return RetainedSlot{CheckpointID: id, SessionID: sid, CreatedAt: now.Add(-age), Bytes: mib << 20}
	}
	slots := func() []RetainedSlot {
		return []RetainedSlot{
			slot("c3", "fresh", 1*day, 3),
			slot("c1", "old", 40*day, 2),
			slot("c2", "busy", 20*day, 4),
			slot("c4", "newest", 0, 1),
		}
	}
	total := int64(10 << 20)
	notBusy := func(string) bool { return false }
	ids := func(p RetentionPlan) (out []string) {
		for _, s := range p.Forget {
			out = append(out, s.CheckpointID+":"+s.Reason)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		policy  setup.Retention
		midTurn func(string) bool
		want    []string
		kept    int64
		skipped int
	}{
		{"days only", setup.Retention{Days: 30}, notBusy, []string{"c1:older than 30 days"}, 8 << 20, 0},
		{"one day", setup.Retention{Days: 1}, notBusy, []string{"c1:older than 1 day", "c2:older than 1 day"}, 4 << 20, 0},
		// Over a 5 MiB cap, the oldest go until it fits: c1 (2), c2 (4) leaves 4 MiB.
		{"size cap", setup.Retention{MaxBytes: 5 << 20}, notBusy, []string{"c1:oldest while the record is over 5 MiB", "c2:oldest while the record is over 5 MiB"}, 4 << 20, 0},
		{"both", setup.Retention{Days: 30, MaxBytes: 7 << 20}, notBusy, []string{"c1:older than 30 days", "c2:oldest while the record is over 7 MiB"}, 4 << 20, 0},
		// A session mid-turn is skipped, and the next oldest goes instead.
		{"mid-turn skipped", setup.Retention{MaxBytes: 5 << 20}, func(sid string) bool { return sid == "busy" },
			[]string{"c1:oldest while the record is over 5 MiB", "c3:oldest while the record is over 5 MiB"}, 5 << 20, 1},
		{"within", setup.Retention{Days: 60, MaxBytes: 20 << 20}, notBusy, nil, total, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := choose(RetentionPlan{Bytes: total}, slots(), tc.policy, now, tc.midTurn)
			got := ids(p)
			if len(got) != len(tc.want) {
				t.Fatalf("forget %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("forget %q, want %q", got, tc.want)
				}
			}
			if p.KeptBytes != tc.kept || len(p.Skipped) != tc.skipped || p.Kept+len(p.Forget) != 4 {
				t.Errorf("kept %d bytes (want %d), skipped %d (want %d), kept %d slots", p.KeptBytes, tc.kept, len(p.Skipped), tc.skipped, p.Kept)
			}
		})
	}
}
