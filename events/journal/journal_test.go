package journal_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirerec/entire/events/journal"
)

// ev returns a valid journal line with the given seq.
func ev(seq uint64) []byte {
	return fmt.Appendf(nil, `{"v":1,"seq":%d,"type":"test","time":"2026-01-02T15:04:05Z","data":{"n":%d}}`, seq, seq)
}

// evs returns the lines with seqs from..to, each followed by '\n'.
func evs(from, to uint64) string {
	var b strings.Builder
	for s := from; s <= to; s++ {
		b.Write(ev(s))
		b.WriteByte('\n')
	}
	return b.String()
}

func journalPath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "entire-sessions", "s1.jsonl")
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func open(t testing.TB, path string) *journal.Journal {
	t.Helper()
	j, err := journal.Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// collect returns the lines ReadFrom yields, joined as file content, and checks
// that fn sees the seq it is told.
func collect(t testing.TB, j *journal.Journal, off int64, wantSeq uint64) string {
	t.Helper()
	var b strings.Builder
	err := j.ReadFrom(off, wantSeq, func(line []byte, seq uint64) error {
		if want := ev(seq); !bytes.Equal(line, want) {
			t.Errorf("line with seq %d = %s, want %s", seq, line, want)
		}
		b.Write(line)
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatalf("ReadFrom(%d, %d): %v", off, wantSeq, err)
	}
	return b.String()
}

func TestRoundTrip(t *testing.T) {
	path := journalPath(t)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := j.Repaired(); ok || j.Size() != 0 || j.LastSeq() != 0 {
		t.Fatalf("new journal: Repaired ok=%v Size=%d LastSeq=%d", ok, j.Size(), j.LastSeq())
	}
	var offs []int64 // Size before each batch
	var seqs []uint64
	for _, batch := range [][]uint64{{1}, {2, 3}, {4, 5, 6}} {
		offs, seqs = append(offs, j.Size()), append(seqs, j.LastSeq())
		var lines [][]byte
		for _, s := range batch {
			lines = append(lines, ev(s))
		}
		if err := j.Append(lines...); err != nil {
			t.Fatalf("Append %v: %v", batch, err)
		}
		if err := j.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}

	want := evs(1, 6)
	if got := readFile(t, path); got != want {
		t.Fatalf("file content:\n%s\nwant:\n%s", got, want)
	}
	for p, perm := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o750} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&^perm != 0 {
			t.Errorf("%s: mode %v (err %v), want within %v", p, fi.Mode().Perm(), err, perm)
		}
	}

	j = open(t, path)
	if j.LastSeq() != 6 || j.Size() != int64(len(want)) {
		t.Errorf("reopened: LastSeq=%d Size=%d, want 6, %d", j.LastSeq(), j.Size(), len(want))
	}
	if got := collect(t, j, 0, 1); got != want {
		t.Errorf("ReadFrom(0, 1):\n%s\nwant:\n%s", got, want)
	}
	for i, off := range offs {
		if got, want := collect(t, j, off, seqs[i]+1), evs(seqs[i]+1, 6); got != want {
			t.Errorf("ReadFrom(%d, %d):\n%s\nwant:\n%s", off, seqs[i]+1, got, want)
		}
	}
	if got := collect(t, j, j.Size(), 7); got != "" {
		t.Errorf("ReadFrom(Size, 7) = %q, want nothing", got)
	}
	j.Close() // ReadFile waits for the exclusive lock
	var fromFile strings.Builder
	torn, err := journal.ReadFile(path, func(line []byte, seq uint64) error {
		fromFile.Write(line)
		fromFile.WriteByte('\n')
		return nil
	})
	if err != nil || torn || fromFile.String() != want {
		t.Errorf("ReadFile: torn=%v err=%v content:\n%s", torn, err, fromFile.String())
	}
}

func TestLastSeqLargeFile(t *testing.T) {
	const n = 100_000
	path := journalPath(t)
	writeFile(t, path, evs(1, n))
	j := open(t, path)
	if j.LastSeq() != n {
		t.Fatalf("LastSeq = %d, want %d", j.LastSeq(), n)
	}
	if err := j.Append(ev(n + 1)); err != nil {
		t.Fatal(err)
	}
	if got, want := collect(t, j, j.Size()-int64(len(ev(n+1))+1), n+1), evs(n+1, n+1); got != want {
		t.Errorf("tail = %q, want %q", got, want)
	}
}

func TestReadFromBadStart(t *testing.T) {
	path := journalPath(t)
	writeFile(t, path, evs(1, 3))
	j := open(t, path)
	second := int64(len(evs(1, 1)))
	for _, tc := range []struct {
		off  int64
		want uint64
	}{
		{off: 1, want: 2},            // middle of a line
		{off: 0, want: 2},            // offset 0 starts with seq 1
		{off: second, want: 1},       // seq 1 only at offset 0
		{off: j.Size() + 1, want: 5}, // past the end
		{off: j.Size(), want: 9},     // the end is followed by LastSeq+1
	} {
		err := j.ReadFrom(tc.off, tc.want, func([]byte, uint64) error {
			t.Errorf("ReadFrom(%d, %d) delivered a line", tc.off, tc.want)
			return nil
		})
		var ce *journal.CorruptError
		if err == nil || errors.As(err, &ce) {
			t.Errorf("ReadFrom(%d, %d) = %v, want a usage error", tc.off, tc.want, err)
		}
	}
}

func TestReadFromStopsOnCallbackError(t *testing.T) {
	path := journalPath(t)
	writeFile(t, path, evs(1, 3))
	j := open(t, path)
	stop := errors.New("stop")
	var seen []uint64
	err := j.ReadFrom(0, 1, func(_ []byte, seq uint64) error {
		seen = append(seen, seq)
		if seq == 2 {
			return stop
		}
		return nil
	})
	if err != stop || len(seen) != 2 {
		t.Errorf("ReadFrom = %v after seqs %v, want stop after [1 2]", err, seen)
	}
}

func TestLongLine(t *testing.T) {
	path := journalPath(t)
	j := open(t, path)
	big := fmt.Appendf(nil, `{"v":1,"seq":2,"data":%q}`, strings.Repeat("x", 200_000))
	if err := j.Append(ev(1), big, ev(3)); err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	if err := j.ReadFrom(0, 1, func(line []byte, _ uint64) error {
		got = append(got, bytes.Clone(line))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !bytes.Equal(got[1], big) || !bytes.Equal(got[2], ev(3)) {
		t.Errorf("read %d lines, long line intact: %v", len(got), len(got) > 1 && bytes.Equal(got[1], big))
	}
	j.Close()
	writeFile(t, path, string(ev(1))+"\n"+string(big)+"\n")
	if j = open(t, path); j.LastSeq() != 2 {
		t.Errorf("LastSeq with a long last line = %d, want 2", j.LastSeq())
	}
}
