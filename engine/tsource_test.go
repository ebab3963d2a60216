package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
	whole, later := plain.scan(0), plain.scan(int64(len(first)))
	if len(whole.Prompts) != 2 || len(later.Prompts) != 1 {
		t.Fatalf("scans: %q and %q", whole.Prompts, later.Prompts)
	}
	if got := memo.scan(0); !reflect.DeepEqual(got, whole) {
		t.Errorf("memoized scan = %+v, want %+v", got, whole)
	}
	if got := memo.scan(int64(len(first))); !reflect.DeepEqual(got, later) {
		t.Errorf("memoized scan from the second line = %+v, want %+v", got, later)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := memo.scan(0); !reflect.DeepEqual(got, whole) {
		t.Errorf("second memoized scan = %+v, want the first", got)
	}
	if got := plain.scan(0); len(got.Prompts) != 0 {
		t.Errorf("an unmemoized scan of a removed file = %+v", got)
	}
}
