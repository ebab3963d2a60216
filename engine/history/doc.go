// Package history is rewind and resume over a repository's record: listing rewind points
// (temporary and committed checkpoints), restoring files and transcripts with a preview and
// an undo, telling the session through its journal, and resuming a branch's sessions on
// another clone.
package history
