package claudecode

import (
	"bytes"
	"context"
	"io"
	"os"
	"time"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/jsonvalid"
)

// Tuning of WaitForFlush.
const (
	flushPoll      = 50 * time.Millisecond  // time between two looks at the file
	flushStable    = 300 * time.Millisecond // unchanged size that counts as flushed
	flushTailBytes = 4096                   // how much of the file end is read
	flushSkew      = 2 * time.Second        // accepted distance of the marker's timestamp from since
)

// stopMarker is what Claude Code's hook_progress line for our Stop hook
// contains (entire-format.md §9.1).
var stopMarker = []byte("hooks claude-code stop")

// WaitForFlush waits for Claude Code to finish writing the transcript at
// path after a Stop hook started at since: the Stop hook can run before the
// turn's last lines are on disk (agent-hooks.md §1.7). Every 50 ms it stats
// the file and reads its last 4 KiB, and reports true as soon as
//
//   - the tail holds a valid JSON "hook_progress" line naming
//     "hooks claude-code stop" whose timestamp is within 2 s of since, or
//   - the size has not changed for 300 ms and the file ends in '\n'.
//
// It reports false when maxWait passes or ctx ends first, and at once when
// the file cannot be read (missing, not yet created).
func WaitForFlush(ctx context.Context, path string, since time.Time, maxWait time.Duration) (flushed bool) {
	deadline := time.Now().Add(maxWait)
	lastSize := int64(-1)
	var sameSince time.Time
	for {
		size, tail, err := readTail(path)
		if err != nil {
			return false
		}
		if hasStopMarker(tail, since) {
			return true
		}
		now := time.Now()
		if size != lastSize {
			lastSize, sameSince = size, now
		} else if now.Sub(sameSince) >= flushStable && bytes.HasSuffix(tail, []byte("\n")) {
			return true
		}
		left := deadline.Sub(now)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(min(flushPoll, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// readTail returns the size of the file at path and its last flushTailBytes bytes.
func readTail(path string) (int64, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	size := fi.Size()
	start := max(0, size-flushTailBytes)
	tail := make([]byte, size-start)
	n, err := f.ReadAt(tail, start)
	if err != nil && err != io.EOF {
		return 0, nil, err
	}
	return size, tail[:n], nil
}

// hasStopMarker reports whether tail holds a valid JSON line containing the
// token "hook_progress" and our Stop hook's command, timestamped within
// flushSkew of since.
// The first line of tail may be cut by the 4 KiB window and the last one may
// still be being written; both then fail JSON validation and are ignored.
func hasStopMarker(tail []byte, since time.Time) bool {
	for line := range bytes.SplitSeq(tail, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"hook_progress"`)) || !bytes.Contains(line, stopMarker) {
			continue
		}
		if !jsonvalid.Valid(line) {
			continue
		}
		ts := gjson.GetBytes(line, "timestamp")
		if ts.Type != gjson.String {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, ts.Str)
		if err != nil {
			continue
		}
		if d := t.Sub(since); d >= -flushSkew && d <= flushSkew {
			return true
		}
	}
	return false
}
