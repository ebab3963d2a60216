package journal_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirerec/entire/events/journal"
)

// FuzzReadFrom writes arbitrary bytes as a journal and checks that ReadFile,
// Open and ReadFrom never panic, fail only with *CorruptError, and agree:
// ReadFile stops where Open cuts, both see the same lines, and LastSeq counts them.
func FuzzReadFrom(f *testing.F) {
	for _, seed := range []string{
		"",
		evs(1, 3),
		evs(1, 3) + `{"v":1,"seq":4,"ty`,
		evs(1, 2) + "garbage\n" + evs(4, 4),
		evs(1, 2) + evs(2, 2),
		"{\"v\":1,\"seq\":1}\n\n",
		`{"v":1e0,"seq":1}` + "\n",
		"\n\n\n",
	} {
		f.Add([]byte(seed))
	}
	for _, tc := range damaged {
		f.Add([]byte(tc.content))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		path := filepath.Join(t.TempDir(), "j.jsonl")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		var fileLines [][]byte
		torn, fileErr := journal.ReadFile(path, func(line []byte, _ uint64) error {
			fileLines = append(fileLines, bytes.Clone(line))
			return nil
		})
		mustBeCorrupt(t, "ReadFile", fileErr)
		if torn != (len(content) > 0 && content[len(content)-1] != '\n') && fileErr == nil {
			t.Errorf("ReadFile torn=%v for content ending %q", torn, content[max(0, len(content)-1):])
		}

		j, err := journal.Open(path)
		mustBeCorrupt(t, "Open", err)
		if err != nil {
			if fileErr == nil {
				t.Fatalf("Open failed (%v) on a journal ReadFile accepts", err)
			}
			return
		}
		defer j.Close()
		cut, _ := j.Repaired()
		if j.Size()+cut != int64(len(content)) {
			t.Errorf("Size %d + Repaired %d != %d", j.Size(), cut, len(content))
		}
		var lines [][]byte
		err = j.ReadFrom(0, 1, func(line []byte, _ uint64) error {
			lines = append(lines, bytes.Clone(line))
			return nil
		})
		mustBeCorrupt(t, "ReadFrom", err)
		var fileCE, ce *journal.CorruptError
		if errors.As(fileErr, &fileCE) != errors.As(err, &ce) || (ce != nil && ce.Line != fileCE.Line) {
			t.Fatalf("ReadFile: %v, ReadFrom: %v", fileErr, err)
		}
		if len(lines) != len(fileLines) {
			t.Fatalf("ReadFrom saw %d lines, ReadFile %d", len(lines), len(fileLines))
		}
		for i := range lines {
			if !bytes.Equal(lines[i], fileLines[i]) {
				t.Fatalf("line %d: ReadFrom %q, ReadFile %q", i+1, lines[i], fileLines[i])
			}
		}
		if err == nil && j.LastSeq() != uint64(len(lines)) {
			t.Errorf("LastSeq %d, %d lines", j.LastSeq(), len(lines))
		}
	})
}

func mustBeCorrupt(t *testing.T, op string, err error) {
	t.Helper()
	var ce *journal.CorruptError
	if err != nil && !errors.As(err, &ce) {
		t.Fatalf("%s: %v is not a *CorruptError", op, err)
	}
}
