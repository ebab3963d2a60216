package engine

import (
	"strings"
	"testing"
)

func TestLineDiff(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		added, removed int
	}{
		{"both empty", "", "", 0, 0},
		{"new file", "", "a\nb\nc\n", 3, 0},
		{"no final newline counts the last line", "", "a\nb", 2, 0},
		{"deleted file", "a\nb\n", "", 0, 2},
		{"append", "a\nb\n", "a\nb\nc\nd\n", 2, 0},
		{"modify middle line", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"reorder", "a\nb\nc\n", "c\na\nb\n", 1, 1},
		{"binary is empty", "a\n", "x\x00y\n", 0, 1},
		{"interleaved", "1\n2\n3\n4\n5\n", "1\nx\n3\ny\n5\nz\n", 3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, r := lineDiff([]byte(tc.old), []byte(tc.new))
			if a != tc.added || r != tc.removed {
				t.Fatalf("lineDiff = +%d -%d, want +%d -%d", a, r, tc.added, tc.removed)
			}
		})
	}
}

func TestLineDiffBalances(t *testing.T) {
	texts := []string{"", "a\n", "a\nb\nc\n", "c\nb\na\n", strings.Repeat("x\ny\n", 50), "a\nx\nb\ny\nc\n"}
	for _, o := range texts {
		for _, n := range texts {
			a, r := lineDiff([]byte(o), []byte(n))
			if a-r != len(splitLines([]byte(n)))-len(splitLines([]byte(o))) {
				t.Fatalf("%q -> %q: +%d -%d does not balance the line counts", o, n, a, r)
			}
			if o == n && (a != 0 || r != 0) {
				t.Fatalf("identical texts differ: +%d -%d", a, r)
			}
		}
	}
}
