package sharing

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/engine/checkpoint"
)

// With a merge base, a path changed on one side only since the base takes that side's
// version; only paths changed on both sides fall to the fetched side.
func TestUnionTreeThreeWay(t *testing.T) {
	en := shareEngine(t, t.TempDir(), nil)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fin := "ab/cdef012345" // finalized here after a provisional copy was pushed
	mix := "12/3456789abc" // finalized here while the remote added another session's slot
	base := map[string]string{
		"README":                  "base readme",
		"NOTES":                   "base notes",
		"BOTH":                    "base both",
		fin + "/metadata.json":    "provisional root",
		fin + "/0/metadata.json":  slotJSON(t, "x", "x.go", 1, t0),
		fin + "/0/full.jsonl":     "x provisional",
		mix + "/metadata.json":    "mix provisional root",
		mix + "/0/metadata.json":  slotJSON(t, "m", "m.go", 1, t0),
		mix + "/0/full.jsonl":     "m provisional",
		"cd/0000000003/other":     "kept",
		"ef/0000000004/x/file":    "base x",
		"ef/0000000004/y/file":    "base y",
		"ef/0000000004/z/removed": "base z",
	}
	local := maps.Clone(base)
	local["README"] = "local readme"                   // changed here only
	local["BOTH"] = "local both"                       // changed on both sides
	local[fin+"/metadata.json"] = "finalized root"     // the finalization
	local[fin+"/0/full.jsonl"] = "x provisional FINAL" // "
	local[mix+"/metadata.json"] = "mix finalized root"
	local[mix+"/0/full.jsonl"] = "m provisional FINAL"
	local["ef/0000000004/x/file"] = "local x"
	fetched := maps.Clone(base)
	fetched["NOTES"] = "fetched notes" // changed on the remote only
	fetched["BOTH"] = "fetched both"
	fetched[mix+"/metadata.json"] = "mix root with two slots"
	fetched[mix+"/1/metadata.json"] = slotJSON(t, "n", "n.go", 2, t0.Add(time.Minute))
	fetched[mix+"/1/full.jsonl"] = "n transcript"
	fetched["ef/0000000004/y/file"] = "fetched y"
	delete(fetched, "ef/0000000004/z/removed") // one side lacks it: the union keeps it
	fetched["99/9999999999/new"] = "fetched only"

	got, err := en.unionTree(context.Background(), "", shareTree(t, en, base), shareTree(t, en, local), shareTree(t, en, fetched))
	if err != nil {
		t.Fatal(err)
	}
	files := shareFiles(t, en, string(got))
	var root checkpoint.CheckpointSummary
	if err := json.Unmarshal([]byte(files[mix+"/metadata.json"]), &root); err != nil {
		t.Fatalf("recomputed root metadata: %v\n%s", err, files[mix+"/metadata.json"])
	}
	delete(files, mix+"/metadata.json")
	want := map[string]string{
		"README":                  "local readme",
		"NOTES":                   "fetched notes",
		"BOTH":                    "fetched both",
		fin + "/metadata.json":    "finalized root",
		fin + "/0/metadata.json":  base[fin+"/0/metadata.json"],
		fin + "/0/full.jsonl":     "x provisional FINAL",
		mix + "/0/metadata.json":  base[mix+"/0/metadata.json"],
		mix + "/0/full.jsonl":     "m provisional FINAL",
		mix + "/1/metadata.json":  fetched[mix+"/1/metadata.json"],
		mix + "/1/full.jsonl":     "n transcript",
		"cd/0000000003/other":     "kept",
		"ef/0000000004/x/file":    "local x",
		"ef/0000000004/y/file":    "fetched y",
		"ef/0000000004/z/removed": "base z",
		"99/9999999999/new":       "fetched only",
	}
	for p, c := range want {
		want[p] = strings.TrimSpace(c)
	}
	if d := cmp.Diff(want, files); d != "" {
		t.Errorf("three-way union (-want +got):\n%s", d)
	}
	if len(root.Sessions) != 2 || root.CheckpointsCount != 3 {
		t.Errorf("recomputed root = %+v, want both slots (counts 1+2)", root)
	}
}

// Without a merge base every difference counts as made on both sides: the fetched side wins,
// and a local slot of a session the remote has is dropped, as before three-way merging.
func TestUnionTreeWithoutBaseKeepsFetchedSlot(t *testing.T) {
	en := shareEngine(t, t.TempDir(), nil)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cp := "ab/cdef012345"
	fetched := map[string]string{cp + "/metadata.json": "provisional root", cp + "/0/metadata.json": slotJSON(t, "x", "x.go", 1, t0), cp + "/0/full.jsonl": "provisional"}
	local := map[string]string{cp + "/metadata.json": "finalized root", cp + "/0/metadata.json": slotJSON(t, "x", "x.go", 1, t0), cp + "/0/full.jsonl": "finalized"}
	ft := shareTree(t, en, fetched)
	got, err := en.unionTree(context.Background(), "", "", shareTree(t, en, local), ft)
	if err != nil {
		t.Fatal(err)
	}
	if got != ft {
		t.Errorf("union = %v, want the fetched tree", shareFiles(t, en, string(got)))
	}
}
