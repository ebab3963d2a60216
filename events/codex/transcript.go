package codex

import "github.com/entirerec/entire/events/agent"

// ErrOffsetPastEnd is returned (wrapped) by ScanFile when the offset lies beyond the end of the
// file: the rollout was replaced since that offset was recorded, and the caller rescans from 0.
// It is agent.ErrPastEnd, which every agent's scanner wraps.
var ErrOffsetPastEnd = agent.ErrPastEnd

// ScanFile scans the rollout at path from byte offset to its last complete line. It reads one
// line at a time through a buffered reader (agent.ScanLines), so memory follows the longest
// line, not the file. The Scan has StartOffset = offset and an absolute EndOffset; a final
// line without '\n' is not consumed.
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

// ScanBytes scans a rollout held in memory, as ScanFile does a file read from offset 0. A final
// line without '\n' is not consumed.
func ScanBytes(data []byte) agent.Scan {
	sc := newScanner(0)
	agent.SplitLines(data, sc.consume)
	return sc.result()
}

// ScanSteps scans a rollout held in memory as ScanBytes does, and lists its steps in the order
// written (agent.Stepper).
func ScanSteps(data []byte) (agent.Scan, []agent.Step) {
	sc := newScanner(0)
	sc.steps.On = true
	agent.SplitLines(data, sc.consume)
	return sc.result(), sc.stepList()
}
