package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/copilot"
)

// A memoized transcript scans each starting offset once: a second scan from the same offset
// gives the first one's result without reading the file (here, gone by then), and a scan from
// another offset reads it as an unmemoized source would.
func TestMemoizedScanReadsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	first := `{"type":"user","uuid":"u1","message":{"role":"user","content":"first prompt"}}` + "\n"
	data := []byte(first + `{"type":"user","uuid":"u2","message":{"role":"user","content":"second prompt"}}` + "\n")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	plain := fileSource(path, int64(len(data)))
	memo := plain.memoized()
	whole, later := plain.scan(events.Transcript{}), plain.scan(events.Transcript{Offset: int64(len(first)), Lines: 1})
	if len(whole.Prompts) != 2 || len(later.Prompts) != 1 {
		t.Fatalf("scans: %q and %q", whole.Prompts, later.Prompts)
	}
	if got := memo.scan(events.Transcript{}); !reflect.DeepEqual(got, whole) {
		t.Errorf("memoized scan = %+v, want %+v", got, whole)
	}
	if got := memo.scan(events.Transcript{Offset: int64(len(first)), Lines: 1}); !reflect.DeepEqual(got, later) {
		t.Errorf("memoized scan from the second line = %+v, want %+v", got, later)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := memo.scan(events.Transcript{}); !reflect.DeepEqual(got, whole) {
		t.Errorf("second memoized scan = %+v, want the first", got)
	}
	if got := plain.scan(events.Transcript{}); len(got.Prompts) != 0 {
		t.Errorf("an unmemoized scan of a removed file = %+v", got)
	}
}

// A Copilot transcript whose second turn reads the shutdown with the whole run's totals: the
// usage from the turn's start is the totals less the first turn's messages, from the live file
// (streamed through the agent's range scanner, once) and from a copy in memory alike, and the
// two turns' usages sum to the totals.
func TestRangeUsageCopilotShutdown(t *testing.T) {
	line := func(typ, data, id string) string {
		return `{"type":"` + typ + `","data":` + data + `,"id":"` + id + `"}` + "\n"
	}
	turn1 := line("session.start", `{"sessionId":"s"}`, "1") +
		line("user.message", `{"content":"create a.txt"}`, "2") +
		line("assistant.message", `{"messageId":"m-1","outputTokens":40}`, "3") +
		line("assistant.message", `{"messageId":"m-2","content":"Created a.txt","outputTokens":10}`, "4")
	data := []byte(turn1 +
		line("user.message", `{"content":"create b.txt"}`, "5") +
		line("assistant.message", `{"messageId":"m-3","outputTokens":30}`, "6") +
		line("assistant.message", `{"messageId":"m-4","content":"Created b.txt","outputTokens":20}`, "7") +
		line("session.shutdown", `{"modelMetrics":{"claude-sonnet-4.5":{"requests":{"count":4},"usage":{"inputTokens":4000,"outputTokens":100,"cacheReadTokens":0,"cacheWriteTokens":0}}}}`, "8"))
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	totals := events.TokenUsage{InputTokens: 4000, OutputTokens: 100, APICallCount: 4}
	first := events.TokenUsage{OutputTokens: 50, APICallCount: 2}
	second := events.TokenUsage{InputTokens: 4000, OutputTokens: 50, APICallCount: 2}
	from := int64(len(turn1))
	at := events.Transcript{Offset: from, Lines: 4}
	for name, src := range map[string]tsource{
		"file":   fileSource(path, int64(len(data))).of(copilot.Agent{}),
		"memory": memSource(data).of(copilot.Agent{}),
	} {
		t.Run(name, func(t *testing.T) {
			src = src.memoized()
			if sc := src.scan(at); sc.Usage != totals {
				t.Fatalf("the scan from turn 2 = %+v, want the run's totals %+v (the case under test)", sc.Usage, totals)
			}
			if got := src.rangeUsage(from, src.scan(at)); got != second {
				t.Errorf("usage from turn 2 = %+v, want %+v", got, second)
			}
			if got := src.rangeUsage(0, src.scan(events.Transcript{})); got != totals {
				t.Errorf("usage from the start = %+v, want %+v", got, totals)
			}
			if got, ok := src.scanTo(0, from); !ok || got.Usage != first {
				t.Errorf("usage before turn 2 = %+v (ok %v), want %+v", got.Usage, ok, first)
			}
			if got, _ := usageSince(src, at, nil); got == nil || *got != second {
				t.Errorf("usageSince(turn 2) = %+v, want %+v", got, second)
			}
			// The scans before the range are kept: the file is not read again.
			if name == "file" {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				if got := src.rangeUsage(from, src.scan(at)); got != second {
					t.Errorf("usage from turn 2, memoized = %+v, want %+v", got, second)
				}
			}
		})
	}
}

// An auto-commit turn's checkpoint reads the transcript up to the turn's end when it has grown
// since, in the file or in bytes; a position that is no line end (the file was rewritten), lies
// in another file or past the end leaves the transcript whole.
func TestUpToTurnEnd(t *testing.T) {
	first := `{"type":"user","uuid":"u1","message":{"role":"user","content":"first prompt"}}` + "\n"
	data := []byte(first + `{"type":"user","uuid":"u2","message":{"role":"user","content":"second prompt"}}` + "\n")
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	pos := events.Transcript{Path: path, Lines: 2, Offset: int64(len(data))}
	end := events.Transcript{Path: path, Lines: 1, Offset: int64(len(first)), LastUUID: "u1"}
	for _, src := range []tsource{fileSource(path, int64(len(data))), memSource(data)} {
		got, at := upToTurnEnd(src, pos, end)
		if at != end || got.end != int64(len(first)) {
			t.Errorf("turn's end: read to %d at %+v, want %d at %+v", got.end, at, len(first), end)
		}
		if sc := got.scan(events.Transcript{}); len(sc.Prompts) != 1 {
			t.Errorf("turn's end: prompts %q, want the first only", sc.Prompts)
		}
		for name, to := range map[string]events.Transcript{
			"no line end":  {Path: path, Lines: 1, Offset: int64(len(first)) - 3},
			"another file": {Path: path + ".old", Lines: 1, Offset: int64(len(first))},
			"past the end": {Path: path, Lines: 3, Offset: int64(len(data)) + 10},
			"unknown":      {},
		} {
			if got, at := upToTurnEnd(src, pos, to); at != pos || got.end != int64(len(data)) {
				t.Errorf("%s: read to %d at %+v, want the whole transcript", name, got.end, at)
			}
		}
	}
}
