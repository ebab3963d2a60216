package journal_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/entirerec/entire/events/journal"
)

func TestTornLastLine(t *testing.T) {
	for _, tc := range []struct {
		name, valid, torn string
		lastSeq           uint64
	}{
		{"half a line", evs(1, 3), `{"v":1,"seq":4,"type":"te`, 3},
		{"complete object without newline", evs(1, 3), string(ev(4)), 3},
		{"only a partial line", "", `{"v":1,"se`, 0},
		{"garbage after the last newline", evs(1, 2), "\x00\x00\x00", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := journalPath(t)
			writeFile(t, path, tc.valid+tc.torn)

			var got strings.Builder
			torn, err := journal.ReadFile(path, func(line []byte, seq uint64) error {
				got.Write(line)
				got.WriteByte('\n')
				return nil
			})
			if err != nil || !torn || got.String() != tc.valid {
				t.Errorf("ReadFile: torn=%v err=%v lines:\n%s\nwant torn, lines:\n%s", torn, err, got.String(), tc.valid)
			}
			if content := readFile(t, path); content != tc.valid+tc.torn {
				t.Fatalf("ReadFile modified the file: %q", content)
			}

			j := open(t, path)
			if n, ok := j.Repaired(); !ok || n != int64(len(tc.torn)) {
				t.Errorf("Repaired() = %d, %v, want %d, true", n, ok, len(tc.torn))
			}
			if content := readFile(t, path); content != tc.valid {
				t.Errorf("after Open the file is:\n%q\nwant:\n%q", content, tc.valid)
			}
			if j.LastSeq() != tc.lastSeq || j.Size() != int64(len(tc.valid)) {
				t.Errorf("LastSeq=%d Size=%d, want %d, %d", j.LastSeq(), j.Size(), tc.lastSeq, len(tc.valid))
			}
			if got := collect(t, j, 0, 1); got != tc.valid {
				t.Errorf("ReadFrom after repair:\n%s\nwant:\n%s", got, tc.valid)
			}
			if err := j.Append(ev(tc.lastSeq + 1)); err != nil {
				t.Fatalf("Append after repair: %v", err)
			}
			j.Close()
			if want := tc.valid + evs(tc.lastSeq+1, tc.lastSeq+1); readFile(t, path) != want {
				t.Errorf("after Append the file is:\n%s\nwant:\n%s", readFile(t, path), want)
			}
		})
	}
}

// damaged lists journals with damage before the last line, and the line at fault.
var damaged = []struct {
	name    string
	content string
	line    int
}{
	{"garbage line", evs(1, 2) + "not json at all\n" + evs(4, 5), 3},
	{"empty line", evs(1, 1) + "\n" + evs(2, 3), 2},
	{"array, not object", evs(1, 1) + `[{"v":1,"seq":2}]` + "\n" + evs(3, 4), 2},
	{"missing v", evs(1, 1) + `{"seq":2,"type":"x"}` + "\n" + evs(3, 4), 2},
	{"v zero", evs(1, 1) + `{"v":0,"seq":2}` + "\n" + evs(3, 4), 2},
	{"v string", evs(1, 1) + `{"v":"1","seq":2}` + "\n" + evs(3, 4), 2},
	{"v fraction", evs(1, 1) + `{"v":1.5,"seq":2}` + "\n" + evs(3, 4), 2},
	{"missing seq", evs(1, 3) + `{"v":1,"type":"x"}` + "\n" + evs(5, 5), 4},
	{"negative seq", `{"v":1,"seq":-1}` + "\n" + evs(2, 3), 1},
	{"first seq not 1", evs(2, 4), 1},
	{"seq gap", evs(1, 3) + evs(5, 6), 4},
	{"duplicate seq", evs(1, 3) + evs(3, 6), 4},
	{"seq goes back", evs(1, 3) + evs(2, 2) + evs(5, 6), 4},
	{"truncated line in the middle", evs(1, 1) + `{"v":1,"seq":2,"da` + "\n" + evs(3, 4), 2},
}

func TestDamageInTheMiddle(t *testing.T) {
	for _, tc := range damaged {
		t.Run(tc.name, func(t *testing.T) {
			path := journalPath(t)
			writeFile(t, path, tc.content)

			torn, err := journal.ReadFile(path, func([]byte, uint64) error { return nil })
			checkCorrupt(t, "ReadFile", err, path, tc.line)
			if torn {
				t.Error("ReadFile reported a torn line")
			}

			j, err := journal.Open(path)
			if err != nil {
				t.Fatalf("Open: %v (the last line is valid)", err)
			}
			defer j.Close()
			if _, ok := j.Repaired(); ok {
				t.Error("Open repaired a file with no torn line")
			}
			var delivered int
			err = j.ReadFrom(0, 1, func([]byte, uint64) error { delivered++; return nil })
			checkCorrupt(t, "ReadFrom", err, path, tc.line)
			if delivered != tc.line-1 {
				t.Errorf("ReadFrom delivered %d lines before the damage, want %d", delivered, tc.line-1)
			}
			if got := readFile(t, path); got != tc.content {
				t.Errorf("the file was modified:\n%s", got)
			}
		})
	}
}

func TestDamageFromOffset(t *testing.T) {
	path := journalPath(t)
	writeFile(t, path, evs(1, 3)+evs(5, 6))
	j := open(t, path)
	off := int64(len(evs(1, 2)))
	err := j.ReadFrom(off, 3, func([]byte, uint64) error { return nil })
	checkCorrupt(t, "ReadFrom(offset of line 3)", err, path, 4)
}

func TestDamagedLastLine(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		line          int
	}{
		{"garbage last line", evs(1, 2) + "garbage\n", 3},
		{"last line missing seq", evs(1, 2) + `{"v":1}` + "\n", 3},
		{"garbage last line and a torn tail", evs(1, 2) + "garbage\n" + `{"v":1,"seq":4`, 3},
		{"earlier damage is reported first", evs(1, 1) + "x\n" + evs(3, 3) + "y\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := journalPath(t)
			writeFile(t, path, tc.content)
			j, err := journal.Open(path)
			if err == nil {
				j.Close()
			}
			checkCorrupt(t, "Open", err, path, tc.line)
			if got := readFile(t, path); got != tc.content {
				t.Errorf("Open modified the file:\n%q", got)
			}
		})
	}
}

func checkCorrupt(t *testing.T, op string, err error, path string, line int) {
	t.Helper()
	var ce *journal.CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("%s = %v, want *CorruptError", op, err)
	}
	if ce.Path != path || ce.Line != line || ce.Reason == "" {
		t.Errorf("%s: %#v, want Path %s, Line %d and a reason", op, ce, path, line)
	}
	if want := path + ":"; !strings.HasPrefix(ce.Error(), want) {
		t.Errorf("%s: Error() = %q, want prefix %q", op, ce.Error(), want)
	}
}

func TestAppendRejectsBadLines(t *testing.T) {
	path := journalPath(t)
	j := open(t, path)
	if err := j.Append(ev(1), ev(2)); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, path)
	for _, tc := range []struct {
		name  string
		lines [][]byte
	}{
		{"seq too high", [][]byte{ev(4)}},
		{"seq repeated", [][]byte{ev(2)}},
		{"gap inside the batch", [][]byte{ev(3), ev(5)}},
		{"bad line after a good one", [][]byte{ev(3), []byte(`{"v":1}`)}},
		{"missing v", [][]byte{[]byte(`{"seq":3}`)}},
		{"not JSON", [][]byte{[]byte(`{"v":1,"seq":3`)}},
		{"embedded newline", [][]byte{[]byte("{\"v\":1,\n\"seq\":3}")}},
		{"trailing newline", [][]byte{append(ev(3), '\n')}},
		{"empty", [][]byte{{}}},
	} {
		err := j.Append(tc.lines...)
		if !errors.Is(err, journal.ErrInvalidLine) {
			t.Errorf("%s: Append = %v, want ErrInvalidLine", tc.name, err)
		}
		if got := readFile(t, path); got != before {
			t.Fatalf("%s: Append wrote:\n%s", tc.name, got[len(before):])
		}
		if j.LastSeq() != 2 || j.Size() != int64(len(before)) {
			t.Fatalf("%s: LastSeq=%d Size=%d changed", tc.name, j.LastSeq(), j.Size())
		}
	}
	if err := j.Append(ev(3)); err != nil {
		t.Fatalf("Append after rejections: %v", err)
	}
	if got := readFile(t, path); got != evs(1, 3) {
		t.Errorf("file:\n%s", got)
	}
}

func TestAppendAcceptsSpacedNumbers(t *testing.T) {
	j := open(t, journalPath(t))
	if err := j.Append([]byte(`{ "seq" : 1 , "v" : 2 }`)); err != nil {
		t.Fatal(err)
	}
	if j.LastSeq() != 1 {
		t.Errorf("LastSeq = %d", j.LastSeq())
	}
}

func TestClosedJournal(t *testing.T) {
	j := open(t, journalPath(t))
	j.Close()
	for name, err := range map[string]error{
		"Append":   j.Append(ev(1)),
		"Sync":     j.Sync(),
		"ReadFrom": j.ReadFrom(0, 1, func([]byte, uint64) error { return nil }),
	} {
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}
