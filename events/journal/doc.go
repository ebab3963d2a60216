/*
Package journal stores a session's events as an append-only file of JSON lines.
It is file I/O only: it knows the two keys every line must carry and nothing
about event types, which belong to package events.

# Location

Each session has one journal:

	<git-common-dir>/entire-sessions/<session-id>.jsonl

The caller passes the full path. Open creates the directory with mode 0750 and
the file with mode 0600 if they are missing. Living in the common directory,
the journal is shared by every worktree of the repository and never committed.

# Format

A journal is a sequence of lines. Each line is one JSON object, encoded by the
caller on a single line, followed by '\n' (no blank lines, no framing, no
checksums: a line is complete exactly when its '\n' is on disk). For example
(the event names are illustrative):

	{"v":1,"seq":1,"type":"session_started","time":"2026-01-02T15:04:05Z","data":{...}}
	{"v":1,"seq":2,"type":"prompt_submitted","time":"2026-01-02T15:04:09Z","data":{...}}

The journal requires two keys in every line:

  - "v", the format version of the line: an unsigned integer literal >= 1.
    The journal only checks it; package events decides how to decode each
    version, so one journal may hold lines of several versions.
  - "seq", the sequence number: an unsigned integer literal. The first line has
    seq 1 and each following line has the previous seq plus one, so the seq of
    a line is also its 1-based line number.

Every other key belongs to package events; by convention they are "type",
"time" and "data". Key order does not matter.

Because lines are self-delimiting and seqs count lines, a reader may resume at
any byte offset that ends a line, provided it knows the seq expected there: a
snapshot records (Size, LastSeq) and loading reads only the tail with ReadFrom.

# Locking

Writers hold an exclusive advisory lock (flock on Unix, LockFileEx on Windows,
via go-internal's lockedfile) from Open to Close, that is, for a whole hook:
reading the state, deciding and appending are one critical section per session.
Open blocks while another process or goroutine holds the lock. ReadFile takes a
shared lock, so readers such as `entire replay` wait for a running hook and never
see its half-written batch, and never block each other.

# Appending

Append validates every line first ("v", and seqs continuing from LastSeq) and
then writes the whole batch, newlines included, with a single write(2) on a
descriptor opened with O_APPEND. A rejected batch writes nothing. If the write
itself fails part-way, Append truncates the file back to its previous size; if
that fails too, the Journal refuses further appends.

# Durability

Append does not fsync. Sync calls fsync on the file and, the first time after
Open created the file, on its directory (and on the directory's parent if Open
created the directory), so that the file's name is durable as well as its
contents. A hook calls Sync before it reports success; until then a crash may
lose the batch or leave part of it.

# Repair

A crash during a write can leave a torn last line: bytes after the final '\n'.
Open truncates exactly those bytes (and fsyncs the truncation) and reports how
many through Repaired, for the caller to log. That is the only repair: the
journal never drops, rewrites or skips a complete line. Open first checks the
last complete line; if it is invalid, Open changes nothing and fails. ReadFile
never repairs: it stops before a torn last line and says so.

# Errors

Damage anywhere but a torn last line (a line that is not a JSON object, lacks
a valid "v" or "seq", or whose seq is not the previous one plus one, including a
gap or a duplicate) is reported as a *CorruptError naming the file, the line
number and the reason, e.g.

	.git/entire-sessions/abc.jsonl:17: "seq" is 19, want 17

Open detects damage only in the last line, cheaply; ReadFrom and ReadFile
validate every line they read and stop at the first damaged one. Appending
an invalid line is refused with an error wrapping ErrInvalidLine.
*/
package journal
