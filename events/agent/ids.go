package agent

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxSessionIDLen is the longest session ID, in bytes, that ValidateSessionID accepts. A file
// name may have 255 bytes, and the longest made from a session ID is its live marker's
// temporary file: the ID, "@", a SHA-256 commit ID, ".tmp" and a process ID (76 bytes more).
// At 256 an ID of more than 179 bytes passed and then failed to open its journal. Agents'
// IDs are UUIDs and the like (36 bytes).
const MaxSessionIDLen = 160

// ValidateSessionID reports whether id is safe to use as a file name and a
// path element (state file, .entire/metadata/<id>/, trailers). Entire itself
// only forbids an empty id, '/' and '\\' (entire-format.md §6); this also
// rejects control characters (including NUL and newlines, which would break
// trailers and log lines), "." and "..", invalid UTF-8 (JSON state files
// could not round-trip it) and ids longer than MaxSessionIDLen bytes.
// The error names the problem; it is meant for the log.
func ValidateSessionID(id string) error {
	switch {
	case id == "":
		return errors.New("invalid session id: empty")
	case len(id) > MaxSessionIDLen:
		return fmt.Errorf("invalid session id: %d bytes long, limit is %d", len(id), MaxSessionIDLen)
	case id == "." || id == "..":
		return fmt.Errorf("invalid session id %q: a relative path element", id)
	}
	for i, r := range id {
		switch {
		case r == '/' || r == '\\':
			return fmt.Errorf("invalid session id %q: contains path separator %q at byte %d", id, r, i)
		case r == 0:
			return fmt.Errorf("invalid session id %q: contains a NUL byte at byte %d", id, i)
		case r == utf8.RuneError && !validRuneAt(id, i):
			return fmt.Errorf("invalid session id %q: invalid UTF-8 at byte %d", id, i)
		case unicode.IsControl(r):
			return fmt.Errorf("invalid session id %q: contains control character %U at byte %d", id, r, i)
		}
	}
	return nil
}

// validRuneAt reports whether the U+FFFD decoded at s[i:] was really encoded
// there rather than produced by an invalid byte.
func validRuneAt(s string, i int) bool {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n == 3
}
