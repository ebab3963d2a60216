package agent

import (
	"fmt"
	"unicode/utf8"
)

// MaxTextBytes caps a prompt or a turn summary kept in session state, the journal and a
// checkpoint's prompt.txt: a 50 MB prompt would otherwise be copied into every later hook's
// state. The transcript itself (full.jsonl) keeps the whole text.
const MaxTextBytes = 64 << 10

// Truncate cuts s to at most max bytes at a UTF-8 boundary and says so with a marker naming
// how many bytes were dropped; a shorter s is returned as it is.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[entire: truncated, %d more bytes]", len(s)-cut)
}

// Clip is s in at most n bytes (n > 3): when longer, cut at a rune boundary to leave room for
// "...", which ends it (the reference's 57 + "..." for 60).
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
