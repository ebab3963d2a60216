package agent

import (
	"slices"
	"testing"

	"github.com/entirerec/entire/events"
)

func TestRangeUsage(t *testing.T) {
	totals := events.TokenUsage{InputTokens: 4000, OutputTokens: 100, APICallCount: 4}
	// The transcript up to offset 300 counts the run's totals; before offset 100, two of its
	// messages (50 output tokens).
	prefix := map[int64]events.TokenUsage{300: totals, 100: {OutputTokens: 50, APICallCount: 2}}
	var asked []int64
	scanTo := func(end int64) (Scan, bool) {
		asked = append(asked, end)
		u, ok := prefix[end]
		return Scan{Usage: u}, ok
	}
	tests := []struct {
		name  string
		sc    Scan
		start int64
		want  events.TokenUsage
		asked []int64
	}{
		{"totals reaching back: less what came before", Scan{Usage: totals, UsageBeforeStart: true, StartOffset: 100, EndOffset: 300}, 100,
			events.TokenUsage{InputTokens: 4000, OutputTokens: 50, APICallCount: 2}, []int64{300, 100}},
		{"a scan of bytes counts offsets from 0", Scan{Usage: totals, UsageBeforeStart: true, EndOffset: 200}, 100,
			events.TokenUsage{InputTokens: 4000, OutputTokens: 50, APICallCount: 2}, []int64{300, 100}},
		{"no run totals: the scan stands", Scan{Usage: events.TokenUsage{OutputTokens: 7}, StartOffset: 100, EndOffset: 300}, 100,
			events.TokenUsage{OutputTokens: 7}, nil},
		{"from the start: the scan stands", Scan{Usage: totals, UsageBeforeStart: true, EndOffset: 300}, 0, totals, nil},
		{"the prefix cannot be read: the scan stands", Scan{Usage: totals, UsageBeforeStart: true, StartOffset: 100, EndOffset: 250}, 100,
			totals, []int64{250}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			if got := RangeUsage(tt.sc, tt.start, scanTo); got != tt.want {
				t.Errorf("RangeUsage = %+v, want %+v", got, tt.want)
			}
			if !slices.Equal(asked, tt.asked) {
				t.Errorf("scanned up to %v, want %v", asked, tt.asked)
			}
		})
	}
}

func TestMergeKeepsSubagentsAndRunFlag(t *testing.T) {
	a := Scan{SubagentIDs: []string{"a1", "b2"}}
	b := Scan{SubagentIDs: []string{"b2", "c3"}, UsageBeforeStart: true}
	m := a.Merge(b)
	if !slices.Equal(m.SubagentIDs, []string{"a1", "b2", "c3"}) || !m.UsageBeforeStart {
		t.Errorf("Merge = IDs %q, UsageBeforeStart %v", m.SubagentIDs, m.UsageBeforeStart)
	}
	if m := b.Merge(Scan{}); !m.UsageBeforeStart {
		t.Error("the earlier scan's flag was lost")
	}
	if len(a.SubagentIDs) != 2 {
		t.Errorf("Merge changed its receiver: %q", a.SubagentIDs)
	}
}
