package session

import "github.com/entirerec/entire/events/claudecode"

// FirstPrompt is the session's first prompt as spec §5.2 stores it (whitespace collapsed, at
// most 100 runes).
func FirstPrompt(p string) string { return claudecode.FirstPrompt(p) }
