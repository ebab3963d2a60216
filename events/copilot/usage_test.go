package copilot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

// resumed is a second run of Copilot appended to the fixture (copilot --resume): one message,
// then the shutdown with that run's totals.
const resumed = `{"type":"user.message","data":{"content":"again"},"id":"r1"}` + "\n" +
	`{"type":"assistant.message","data":{"messageId":"m-8","content":"ok","outputTokens":9},"id":"r2"}` + "\n" +
	`{"type":"session.shutdown","data":{"modelMetrics":{"gpt-5":{"requests":{"count":1},"usage":{"inputTokens":700,"outputTokens":9}}}},"id":"r3"}` + "\n"

// run2Totals are resumed's shutdown totals.
var run2Totals = events.TokenUsage{InputTokens: 700, OutputTokens: 9, APICallCount: 1}

// A scan that reads a run's totals says they may reach back before it; one without, or whose
// shutdowns all lie before its start, does not.
func TestScanFlagsRunTotals(t *testing.T) {
	data := append(readEvents(t), resumed...)
	run1End := agenttest.LineOffset(t, data, shutdownLine+1)
	run2Shutdown := int64(bytes.LastIndex(data, []byte(`{"type":"session.shutdown"`)))
	tests := []struct {
		name string
		in   []byte
		want bool
	}{
		{"no shutdown", data[:agenttest.LineOffset(t, data, shutdownLine)], false},
		{"whole run", data[:run1End], true},
		{"run 1 from turn 2", data[agenttest.LineOffset(t, data, 14):run1End], true},
		{"both runs", data, true},
		{"run 2 alone", data[run1End:], true},
		{"run 2 before its shutdown", data[run1End:run2Shutdown], false},
		{"an empty modelMetrics is no totals", []byte(`{"type":"session.shutdown","data":{"modelMetrics":{}},"id":"x"}` + "\n"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScanBytes(tt.in).UsageBeforeStart; got != tt.want {
				t.Errorf("UsageBeforeStart = %v, want %v", got, tt.want)
			}
		})
	}
}

// Cut the two-run transcript into three ranges at every pair of lines: the ranges' usages,
// each computed as the engine does (agent.RangeUsage over ScanFile and ScanFileTo), sum to
// the runs' totals, and never count a run's earlier lines twice.
func TestRangeUsageSumsToRunTotals(t *testing.T) {
	data := append(readEvents(t), resumed...)
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(data, []byte{'\n'})
	want := shutdownTotals.Add(run2Totals)
	rangeUsage := func(from, to int64) events.TokenUsage {
		t.Helper()
		sc, err := ScanFileTo(path, from, to)
		if err != nil {
			t.Fatal(err)
		}
		return agent.RangeUsage(sc, from, func(end int64) (agent.Scan, bool) {
			sc, err := ScanFileTo(path, 0, end)
			return sc, err == nil
		})
	}
	for a := 0; a <= lines; a++ {
		for b := a; b <= lines; b++ {
			cuts := []int64{0, agenttest.LineOffset(t, data, a), agenttest.LineOffset(t, data, b), int64(len(data))}
			var sum events.TokenUsage
			for i := range 3 {
				sum = sum.Add(rangeUsage(cuts[i], cuts[i+1]))
			}
			if sum != want {
				t.Fatalf("cut at lines %d and %d: ranges sum to %+v, want %+v", a, b, sum, want)
			}
		}
	}
	// Turn 2 through run 1's shutdown: the totals less turn 1's five messages (output 347).
	turn2 := rangeUsage(agenttest.LineOffset(t, data, 14), agenttest.LineOffset(t, data, shutdownLine+1))
	if want := (events.TokenUsage{InputTokens: 41230, CacheCreationTokens: 2048, CacheReadTokens: 30112, OutputTokens: 125, APICallCount: 2}); turn2 != want {
		t.Errorf("turn 2 with the shutdown = %+v, want %+v", turn2, want)
	}
	// Unexact without the arithmetic: the scan alone counts turn 1 again.
	if sc, _ := ScanFile(path, agenttest.LineOffset(t, data, 14)); sc.Usage == turn2.Add(run2Totals) {
		t.Errorf("the scan from turn 2 alone is already exact (%+v): the test shows nothing", sc.Usage)
	}
}

func TestScanFileTo(t *testing.T) {
	data := readEvents(t)
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	from, to := agenttest.LineOffset(t, data, 3), agenttest.LineOffset(t, data, 14)
	got, err := ScanFileTo(path, from, to+5) // a line cut by the end is not read
	if err != nil {
		t.Fatal(err)
	}
	want := ScanBytes(data[from:to])
	if got.StartOffset != from || got.EndOffset != to || got.Lines != want.Lines || got.Usage != want.Usage || len(got.Prompts) != len(want.Prompts) {
		t.Errorf("ScanFileTo(%d, %d) = %+v, want the scan of lines 3-13 %+v", from, to+5, got, want)
	}
	if _, err := ScanFileTo(path, 0, int64(len(data))+1); err == nil {
		t.Error("an end past the file was read")
	}
}
