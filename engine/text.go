package engine

import (
	"strings"
	"unicode/utf8"
)

// Version is the writer version recorded as cli_version; set at build time with -ldflags.
var Version = "dev"

// firstPrompt is the session's first prompt as spec §5.2 stores it: whitespace collapsed,
// at most 100 runes (97 and "...").
func firstPrompt(p string) string {
	return truncateRunes(strings.Join(strings.Fields(p), " "), 100)
}

// truncateRunes shortens s to max runes, ending in "..." when it had to cut.
func truncateRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-3]) + "..."
}
