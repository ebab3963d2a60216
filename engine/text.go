package engine

import "github.com/entirerec/entire/events/claudecode"

// Version is the writer version recorded as cli_version; set at build time with -ldflags.
var Version = "dev"

// firstPrompt is the session's first prompt as spec §5.2 stores it (whitespace collapsed, at
// most 100 runes).
func firstPrompt(p string) string { return claudecode.FirstPrompt(p) }
