package journal

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// Sync pays for an fsync only when something was appended since this process's last one:
// a hook that syncs before its git work and again at close costs one.
func TestSyncSkipsWhenNothingNew(t *testing.T) {
	n := 0
	defer func(orig func(*lockedfile.File) error) { fsyncFile = orig }(fsyncFile)
	fsyncFile = func(f *lockedfile.File) error { n++; return f.Sync() }

	path := filepath.Join(t.TempDir(), "s.jsonl")
	for round, want := range []int{1, 2} { // a reopened journal syncs again once
		j, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Appendf(nil, `{"v":1,"seq":%d,"type":"test","time":"2026-01-02T15:04:05Z","data":{}}`, round+1)
		if err := j.Append(line); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := j.Sync(); err != nil {
				t.Fatal(err)
			}
		}
		if n != want {
			t.Errorf("round %d: %d fsyncs, want %d", round, n, want)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
