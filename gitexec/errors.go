package gitexec

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"syscall"
)

// ErrRefMoved reports that a compare-and-swap ref update lost a race: a ref
// did not have the expected old value, already existed when it had to be
// created, or was missing when an old value was expected. Re-reading the ref
// and trying again resolves it. Only "git update-ref" failures are classified
// so. It is wrapped around the *Error that carries git's message; test with
// errors.Is.
var ErrRefMoved = errors.New("ref moved concurrently")

// ErrRefLocked reports that a ref (or packed-refs) could not be locked because
// its lock file exists: another git process (a fetch, gc, a commit) holds it,
// or one crashed and left it behind. Git waits a bounded time for the lock
// before failing (see refLockTimeoutMS); retrying at once does not help. It is
// wrapped around the *Error that carries git's message, which names the lock
// file; test with errors.Is.
var ErrRefLocked = errors.New("ref locked by another process")

// ErrObjectMissing reports that git could not find or read an object it was
// given or needed: a commit, tree or blob that does not exist (or is corrupt)
// in the object database. It is wrapped around the *Error that carries git's
// message; test with errors.Is.
var ErrObjectMissing = errors.New("object missing")

// ErrDiskFull reports that git, or a file gitexec wrote for it, ran out of
// space: "No space left on device" on git's stderr, or ENOSPC from a write.
// It is wrapped around the original error; test with errors.Is.
var ErrDiskFull = errors.New("disk full")

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

// classify wraps err in the sentinel that names its kind (ErrDiskFull,
// ErrRefLocked, ErrObjectMissing, ErrRefMoved), keeping err (and so git's
// message) in the chain; any other error comes back unchanged. It is the one
// place that reads git's stderr for these kinds; runGit and the batch
// processes apply it to every failure.
func classify(err error) error {
	kind := kindOf(err)
	if kind == nil || errors.Is(err, kind) {
		return err
	}
	return fmt.Errorf("%w: %w", kind, err)
}

// Messages of git (2.39, LC_ALL=C) that classify recognizes.
var (
	// "fatal: cannot lock ref 'refs/heads/x': Unable to create '.../refs/heads/x.lock': File exists."
	// and "fatal: Unable to create '.../packed-refs.lock': File exists." Other lock files
	// (index.lock, config.lock) are not refs.
	refLockedRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`cannot lock ref '[^']*': Unable to create '[^']*\.lock': File exists|packed-refs\.lock': File exists`)
	})
	// commit-tree: "<oid> is not a valid object"; cat-file, rev-parse: "Not a valid object
	// name <x>"; update-ref: "trying to write ref ... with nonexistent object <oid>"; diff-tree,
	// rev-list: "bad object <oid>"; read-tree: "failed to unpack tree object <oid>"; mktree:
	// "entry 'f' object <oid> is unavailable"; readers: "unable to read tree (<oid>)", "unable
	// to read <oid>", "missing blob object '<oid>'"; a corrupt object: "loose object <oid>
	// (stored in ...) is corrupt".
	objectMissingRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)is not a valid object|not a valid object name|nonexistent object|bad object [0-9a-f]{7,}|failed to unpack tree object|object [0-9a-f]{7,} is unavailable|unable to read (tree )?\(?[0-9a-f]{7,}|missing (blob|tree|commit|tag) object|(loose|packed) object [0-9a-f]{7,} .*is corrupt`)
	})
	// update-ref's lost compare-and-swap: "is at <x> but expected <y>", "reference already
	// exists", "unable to resolve reference 'x'" (missing when an old value was given),
	// "reference is missing but expected <y>".
	refMovedMessages = []string{"but expected", "reference already exists", "unable to resolve reference", "reference is missing"}
)

// kindOf returns the sentinel naming err's kind of failure, or nil.
func kindOf(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.ENOSPC) {
		return ErrDiskFull
	}
	e, ok := asError(err)
	if !ok {
		return nil
	}
	switch {
	case strings.Contains(e.Stderr, "No space left on device"):
		return ErrDiskFull
	case refLockedRE().MatchString(e.Stderr):
		return ErrRefLocked
	case objectMissingRE().MatchString(e.Stderr):
		return ErrObjectMissing
	case subcommand(e.Args) == "update-ref" && stderrHas(e, refMovedMessages...):
		return ErrRefMoved
	}
	return nil
}

// subcommand returns the git command in args, after any "-c name=value".
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}
