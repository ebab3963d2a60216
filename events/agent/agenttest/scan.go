package agenttest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// LineOffset returns the byte offset at which line n (0-based) of data starts.
func LineOffset(t testing.TB, data []byte, n int) int64 {
	t.Helper()
	off := 0
	for range n {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			t.Fatalf("data has fewer than %d lines", n)
		}
		off += i + 1
	}
	return int64(off)
}

// ScanContract checks what the engine relies on from a JSON-lines transcript scanner, on data
// (complete lines, each ending in '\n'): scanning the file from any line's offset reads what
// scanning the bytes from there reads, and ends at the end; a last line without '\n' is not
// consumed; a missing file, an offset past the end (agent.ErrPastEnd) and an offset at the end
// behave as documented.
func ScanContract(t *testing.T, rd agent.Transcript, data []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	WriteFile(t, path, string(data), 0o600)
	lines := bytes.Count(data, []byte{'\n'})
	if lines < 2 || data[len(data)-1] != '\n' {
		t.Fatalf("ScanContract needs at least two complete lines, got %d", lines)
	}
	for n := 0; n <= lines; n++ {
		off := LineOffset(t, data, n)
		got, err := rd.ScanFile(path, events.Transcript{Path: path, Offset: off, Lines: n})
		if err != nil {
			t.Fatalf("ScanFile from line %d: %v", n, err)
		}
		want := rd.ScanBytes(data[off:])
		if got.Lines != lines-n || got.StartOffset != off || got.EndOffset != int64(len(data)) {
			t.Errorf("ScanFile from line %d: Lines %d, offsets %d-%d; want %d, %d-%d", n, got.Lines, got.StartOffset, got.EndOffset, lines-n, off, len(data))
		}
		if !slices.Equal(got.Prompts, want.Prompts) || !slices.Equal(got.ModifiedFiles, want.ModifiedFiles) || got.LastAssistant != want.LastAssistant || got.Usage != want.Usage {
			t.Errorf("ScanFile from line %d differs from ScanBytes of the same bytes:\n file %+v\nbytes %+v", n, got, want)
		}
	}
	last := LineOffset(t, data, lines-1)
	for _, cut := range [][]byte{data[:len(data)-1], data[:last+(int64(len(data))-last)/2]} {
		if got := rd.ScanBytes(cut); got.Lines != lines-1 || got.EndOffset != last {
			t.Errorf("a torn last line was consumed: Lines %d EndOffset %d, want %d and %d", got.Lines, got.EndOffset, lines-1, last)
		}
	}
	if _, err := rd.ScanFile(filepath.Join(t.TempDir(), "missing.jsonl"), events.Transcript{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := rd.ScanFile(path, events.Transcript{Path: path, Offset: int64(len(data)) + 100}); !errors.Is(err, agent.ErrPastEnd) {
		t.Errorf("offset past the end: %v, want agent.ErrPastEnd", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
