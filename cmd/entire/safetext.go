package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// safeText is the writer of the commands' human-readable output. What they print comes from
// transcripts, prompts, commit messages and checkpoint metadata, and a checkpoint fetched from
// a remote is anyone's: a control character there (ESC starts the sequences that retitle or
// clear a terminal, or write its clipboard) is written as a visible escape instead, like
// \x1b. Newlines, tabs and the palette's own colour codes pass. Machine output (--json,
// --raw-transcript) and the hooks' output to agents go to the terminal unchanged (env.raw).
type safeText struct{ w io.Writer }

func (s safeText) Write(p []byte) (int, error) {
	i := 0
	for i < len(p) {
		size, unsafe := at(p[i:])
		if unsafe {
			break
		}
		i += size
	}
	if i == len(p) {
		return s.w.Write(p)
	}
	var b bytes.Buffer
	b.Write(p[:i])
	for i < len(p) {
		if n := paletteCode(p[i:]); n > 0 {
			b.Write(p[i : i+n])
			i += n
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, p[i])
		case controlRune(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.Write(p[i : i+size])
		}
		i += size
	}
	if _, err := s.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// at is the length of the character p starts with, and whether safeText rewrites it: a
// control character or a byte that is not UTF-8.
func at(p []byte) (size int, unsafe bool) {
	if c := p[0]; c < utf8.RuneSelf {
		return 1, controlRune(rune(c))
	}
	r, size := utf8.DecodeRune(p)
	return size, r == utf8.RuneError && size == 1 || controlRune(r)
}

// controlRune reports a C0 or C1 control character other than newline and tab, or DEL.
func controlRune(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0
}

// paletteCode is the length of a colour code of the palette at the start of p, or 0.
func paletteCode(p []byte) int {
	for _, code := range []string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[33m"} {
		if bytes.HasPrefix(p, []byte(code)) {
			return len(code)
		}
	}
	return 0
}

// pathText is a file name as a listing shows it, one to a line: quoted, as git quotes it, when
// it holds a control character (a newline or a tab too, which safeText lets through, and which
// would make the name read as two lines or a name and something else), a double quote or a
// backslash; as it is otherwise.
func pathText(p string) string {
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == utf8.RuneError {
			return strconv.Quote(p)
		}
	}
	if strings.ContainsAny(p, `"\`) {
		return strconv.Quote(p)
	}
	return p
}
