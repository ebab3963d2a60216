package agent

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestScanLinesLeavesTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	long := strings.Repeat("x", 200<<10)
	if err := os.WriteFile(path, []byte("a\n"+long+"\nb\ntorn"), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	end, err := ScanLines(path, 0, func(l []byte) { got = append(got, string(l)) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", long, "b"}; !slices.Equal(got, want) {
		t.Errorf("lines = %d, want the 3 complete ones", len(got))
	}
	if want := int64(2 + len(long) + 1 + 2); end != want {
		t.Errorf("end = %d, want %d", end, want)
	}
	got = nil
	if end2, err := ScanLines(path, end, func(l []byte) { got = append(got, string(l)) }); err != nil || end2 != end || len(got) != 0 {
		t.Errorf("from the end: %d lines, end %d, err %v", len(got), end2, err)
	}
	if _, err := ScanLines(path, end+100, func([]byte) {}); !errors.Is(err, ErrPastEnd) {
		t.Errorf("past the end: %v, want ErrPastEnd", err)
	}
	var mem []string
	SplitLines([]byte("a\n"+long+"\nb\ntorn"), func(l []byte) { mem = append(mem, string(l)) })
	if !slices.Equal(mem, []string{"a", long, "b"}) {
		t.Errorf("SplitLines gave %d lines", len(mem))
	}
}

func TestScanLinesTo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	long := strings.Repeat("x", 200<<10)
	data := "a\n" + long + "\nb\nc\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	bEnd := int64(2 + len(long) + 1 + 2)
	tests := []struct {
		name          string
		offset, limit int64
		want          []string
		end           int64
	}{
		{"up to a line end", 0, bEnd, []string{"a", long, "b"}, bEnd},
		{"a line cut by the limit is not consumed", 0, bEnd + 1, []string{"a", long, "b"}, bEnd},
		{"from an offset", 2, bEnd, []string{long, "b"}, bEnd},
		{"empty range", 2, 2, nil, 2},
		{"to the end", 2, -1, []string{long, "b", "c"}, int64(len(data))},
		{"limit at the size", 0, int64(len(data)), []string{"a", long, "b", "c"}, int64(len(data))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			end, err := ScanLinesTo(path, tt.offset, tt.limit, func(l []byte) { got = append(got, string(l)) })
			if err != nil || end != tt.end || !slices.Equal(got, tt.want) {
				t.Errorf("ScanLinesTo(%d, %d) = %d lines, end %d, err %v; want %d lines, end %d", tt.offset, tt.limit, len(got), end, err, len(tt.want), tt.end)
			}
		})
	}
	if _, err := ScanLinesTo(path, 0, int64(len(data))+1, func([]byte) {}); !errors.Is(err, ErrPastEnd) {
		t.Errorf("limit past the end: %v, want ErrPastEnd", err)
	}
	if _, err := ScanLinesTo(path, 4, 2, func([]byte) {}); err == nil {
		t.Error("a limit before the offset was accepted")
	}
}

func TestSafeID(t *testing.T) {
	safe := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	if got := SafeID("toolu_01AbC-x"); got != "toolu_01AbC-x" {
		t.Errorf("a safe ID changed: %q", got)
	}
	a, b := SafeID("call_x\nctc_x"), SafeID("call_x\tctc_x")
	if !safe.MatchString(a) || !strings.HasPrefix(a, "call_x_ctc_x-") || a == b {
		t.Errorf("SafeID mapped %q and %q", a, b)
	}
	if got := SafeID(strings.Repeat("é", 100)); !safe.MatchString(got) || len(got) > maxIDLen+9 {
		t.Errorf("SafeID(long) = %q", got)
	}
	if SafeID("") != "" {
		t.Error("SafeID(\"\") is not empty")
	}
}
