package copilot

import (
	"github.com/entirerec/entire/events/agent"
)

// ErrOffsetPastEnd is returned by ScanFile when the offset lies beyond the end of the file: the
// transcript was truncated or replaced since the offset was recorded; rescan from 0.
var ErrOffsetPastEnd = agent.ErrPastEnd

// ScanFile scans the transcript at path from byte offset to its end, one line at a time through
// a buffered reader, so memory follows the longest line. The Scan has StartOffset = offset and
// an absolute EndOffset. A final line without '\n' is not consumed.
func ScanFile(path string, offset int64) (agent.Scan, error) {
	sc := newScanner(offset)
	if _, err := agent.ScanLines(path, offset, sc.consume); err != nil {
		return agent.Scan{}, err
	}
	return sc.result(), nil
}

// ScanFileTo is ScanFile that stops at byte offset end: the complete lines before it.
func ScanFileTo(path string, offset, end int64) (agent.Scan, error) {
	sc := newScanner(offset)
	if _, err := agent.ScanLinesTo(path, offset, end, sc.consume); err != nil {
		return agent.Scan{}, err
	}
	return sc.result(), nil
}

// ScanBytes scans a transcript held in memory as ScanFile scans a file from offset 0.
func ScanBytes(data []byte) agent.Scan {
	sc := newScanner(0)
	agent.SplitLines(data, sc.consume)
	return sc.result()
}

// ScanSteps scans a transcript held in memory as ScanBytes does, and lists its steps in the
// order written (agent.Stepper).
func ScanSteps(data []byte) (agent.Scan, []agent.Step) {
	sc := newScanner(0)
	sc.steps.On = true
	agent.SplitLines(data, sc.consume)
	return sc.result(), sc.steps.List
}
