// Package gitexec is the only place in entire that starts processes: it runs
// git plumbing and turns its output into typed values.
//
// Every call takes a context, names the repository explicitly (git -C with the
// absolute work-tree root) and runs git with an environment built from an
// allowlist of the parent's variables. Git hooks run with GIT_DIR,
// GIT_INDEX_FILE and similar variables set, often to relative paths; none of
// them reach a child. GIT_OPTIONAL_LOCKS=0 and LC_ALL=C are always set, so
// read-only commands never take the index lock and messages are stable.
//
// Work is batched: one long-lived "git cat-file --batch" per Repo answers all
// object reads, one "git hash-object --stdin-paths" writes many blobs, or many
// trees serialized here, in one process, and "git update-ref --stdin -z"
// applies several ref updates as one transaction. Close ends the long-lived
// processes.
//
// A failed invocation is an *Error. Outcomes that git reports through
// documented exit codes (a missing ref, an unborn branch, a missing config key)
// come back as ok=false instead, so callers never parse stderr. Failures of a
// kind callers act on wrap a sentinel, with git's message kept in the chain: a
// lost compare-and-swap on a ref is ErrRefMoved, a ref locked by another
// process ErrRefLocked, a missing object ErrObjectMissing and a full disk
// ErrDiskFull. One function, classify, reads git's stderr for them.
//
// Methods are named after the git command they run, so each maps to its man
// page.
package gitexec
