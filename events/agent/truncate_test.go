package agent

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		max      int
		want     string
	}{
		{"short", "hello", 10, "hello"},
		{"exact", "hello", 5, "hello"},
		{"cut", "hello world", 5, "hello\n[entire: truncated, 6 more bytes]"},
		{"inside a rune", "aé", 2, "a\n[entire: truncated, 2 more bytes]"}, // é is 2 bytes
	} {
		if got := Truncate(tc.in, tc.max); got != tc.want {
			t.Errorf("%s: Truncate(%q, %d) = %q, want %q", tc.name, tc.in, tc.max, got, tc.want)
		}
	}
	big := strings.Repeat("x", MaxTextBytes+100)
	if got := Truncate(big, MaxTextBytes); !strings.HasPrefix(got, big[:MaxTextBytes]) || !strings.HasSuffix(got, "[entire: truncated, 100 more bytes]") {
		t.Errorf("a long prompt is not cut at the cap with its marker: ...%q", got[len(got)-60:])
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 60, "short"},
		{strings.Repeat("a", 60), 60, strings.Repeat("a", 60)},
		{strings.Repeat("a", 61), 60, strings.Repeat("a", 57) + "..."},
		// A rune across the cut is left out whole: the result stays valid UTF-8.
		{strings.Repeat("a", 56) + "é" + strings.Repeat("b", 10), 60, strings.Repeat("a", 56) + "..."},
	} {
		got := Clip(tt.in, tt.n)
		if got != tt.want || len(got) > tt.n || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q; want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
