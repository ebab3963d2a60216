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
