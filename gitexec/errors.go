package gitexec

import (
	"errors"
	"fmt"
	"strings"
)

// ErrRefMoved reports that a compare-and-swap ref update lost a race: a ref
// did not have the expected old value, already existed when it had to be
// created, or was locked by another writer. It is wrapped; test with
// errors.Is.
var ErrRefMoved = errors.New("ref moved concurrently")

// ErrNotRepository reports that a directory is not inside a git work tree
// (a bare repository and the inside of a .git directory included). It is
// wrapped; test with errors.Is.
var ErrNotRepository = errors.New("not inside a git work tree")

// ErrClosed reports a batch operation on a Repo after Close.
var ErrClosed = errors.New("repository closed")

// Error is a failed git invocation.
type Error struct {
	Args     []string // arguments after "git -C <dir>"
	ExitCode int      // -1 when git did not exit normally (not started, killed)
	Stderr   string   // everything git wrote to stderr
	Err      error    // the underlying error: an *exec.ExitError, a start error or the context's error
}

// Error returns "git <args>: exit N: <first stderr line>", preferring the
// line that carries git's "fatal:" or "error:" message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("git ")
	b.WriteString(strings.Join(e.Args, " "))
	if e.ExitCode >= 0 {
		fmt.Fprintf(&b, ": exit %d", e.ExitCode)
	} else if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if line := messageLine(e.Stderr); line != "" {
		b.WriteString(": ")
		b.WriteString(line)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// messageLine picks the most telling line of git's stderr: the first
// "fatal:" or "error:" line, else the first non-blank one.
func messageLine(stderr string) string {
	first := ""
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "fatal:") || strings.HasPrefix(line, "error:") {
			return line
		}
		if first == "" {
			first = line
		}
	}
	return first
}

// asError returns err's *Error, if it has one.
func asError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// exitCode returns the exit code of a failed git run, or -1.
func exitCode(err error) int {
	if e, ok := asError(err); ok {
		return e.ExitCode
	}
	return -1
}

// stderrHas reports whether err is a git failure whose stderr contains any of
// the given fragments.
func stderrHas(err error, fragments ...string) bool {
	e, ok := asError(err)
	if !ok {
		return false
	}
	for _, f := range fragments {
		if strings.Contains(e.Stderr, f) {
			return true
		}
	}
	return false
}
