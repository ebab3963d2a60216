package claudecode

import (
	"github.com/entirerec/entire/events/agent"
)

// ErrOffsetPastEnd is returned by ScanFile when the offset lies beyond the end
// of the file: the transcript was truncated or replaced since that offset was
// recorded, so the caller should rescan from 0.
var ErrOffsetPastEnd = agent.ErrPastEnd

// ScanFile scans the transcript at path from byte offset to EOF. It reads
// through a buffered reader one line at a time, so memory follows the longest
// line, not the file. The returned Scan has StartOffset = offset and an
// absolute EndOffset. A final line without '\n' is not consumed.
func ScanFile(path string, offset int64) (agent.Scan, error) {
	sc := newScanner(offset)
	if _, err := agent.ScanLines(path, offset, sc.consume); err != nil {
		return agent.Scan{}, err
	}
	return sc.s, nil
}

// ScanBytes scans transcript data held in memory, as ScanFile does a file
// read from offset 0. A final line without '\n' is not consumed.
func ScanBytes(data []byte) agent.Scan {
	sc := newScanner(0)
	agent.SplitLines(data, sc.consume)
	return sc.s
}
