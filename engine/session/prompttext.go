package session

import (
	"github.com/entirerec/entire/events/agent"
)

// FirstPrompt is the session's first prompt as spec §5.2 stores it (whitespace collapsed, at
// most 100 runes).
func FirstPrompt(p string) string { return agent.FirstPrompt(p) }
