package main

import (
	"bytes"
	"testing"
)

// Control characters from recorded text are written visibly; newlines, tabs, printable text
// in any script and the palette's colour codes pass unchanged.
func TestSafeText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain café ✓\n\tindented", "plain café ✓\n\tindented"},
		{"title \x1b]0;PWNED\x07 now", `title \x1b]0;PWNED\x07 now`},
		{"clear \x1b[2J\x1b[31mred", `clear \x1b[2J\x1b[31mred`},
		{"clip \x1b]52;c;ZXZpbA==\x1b\\", `clip \x1b]52;c;ZXZpbA==\x1b\`},
		{"c1 \u009b31m and \u0085", `c1 \u009b31m and \u0085`},
		{"raw \x9b byte, del \x7f, cr \r", `raw \x9b byte, del \x7f, cr \x0d`},
		{"\x1b[1m[User]\x1b[0m \x1b[33mabc\x1b[0m \x1b[2mdim\x1b[0m", "\x1b[1m[User]\x1b[0m \x1b[33mabc\x1b[0m \x1b[2mdim\x1b[0m"},
		{"\x1b[1", `\x1b[1`},
	} {
		var b bytes.Buffer
		n, err := safeText{&b}.Write([]byte(tc.in))
		if err != nil || n != len(tc.in) {
			t.Fatalf("Write(%q) = %d, %v", tc.in, n, err)
		}
		if b.String() != tc.want {
			t.Errorf("Write(%q) wrote %q, want %q", tc.in, b.String(), tc.want)
		}
	}
}
