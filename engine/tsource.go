package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
	"github.com/entirerec/entire/events/jsonvalid"
)

// tsource is a transcript up to its last complete line, read in parts so that memory follows
// the new part of a long transcript, not its whole length. It is backed by the agent's live
// file, or by bytes (a copy read back from the shadow branch).
type tsource struct {
	rd    agent.Transcript // the agent's reader; nil reads as the default agent's
	path  string           // live file; "" when mem holds the transcript
	mem   []byte
	end   int64     // offset just after the last complete line
	scans *scanMemo // scans already made, when memoized
}

// scanMemo keeps a transcript's scans by starting position: a condensation asks for the lines
// since the last condensation for its files and again for its token usage, most often from
// the same position, and a scan parses every line. Scans of a range (scanTo) are kept by range:
// the token usage and its delta may both need the same lines before them.
type scanMemo struct {
	mu     sync.Mutex
	from   map[events.Transcript]agent.Scan // keyed by Offset and Lines only
	ranges map[[2]int64]agent.Scan
}

// memoized returns t with its scans kept for every copy of the result.
func (t tsource) memoized() tsource {
	t.scans = &scanMemo{from: map[events.Transcript]agent.Scan{}, ranges: map[[2]int64]agent.Scan{}}
	return t
}

func memSource(data []byte) tsource { return tsource{mem: data, end: int64(len(data))} }

// fileSource is the live transcript at path, complete up to end.
func fileSource(path string, end int64) tsource { return tsource{path: path, end: end} }

// of sets the agent whose format the transcript is in.
func (t tsource) of(rd agent.Transcript) tsource { t.rd = rd; return t }

func (t tsource) reader() agent.Transcript {
	if t.rd == nil {
		return agents.Default
	}
	return t.rd
}

// agentType is the type (as written in metadata) of the agent whose format the transcript is in.
func (t tsource) agentType() string {
	if a, ok := t.reader().(interface{ Type() string }); ok {
		return a.Type()
	}
	return ""
}

// valid reports whether the source has a transcript.
func (t tsource) valid() bool { return t.path != "" || t.mem != nil }

// read returns the bytes [from, end).
func (t tsource) read(from int64) ([]byte, error) {
	if from < 0 || from > t.end {
		from = 0
	}
	if t.path == "" {
		return t.mem[from:t.end], nil
	}
	f, err := os.Open(t.path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	buf := make([]byte, t.end-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	return buf, nil
}

// byteAt is the byte at offset off, when the transcript has one there.
func (t tsource) byteAt(off int64) (byte, bool) {
	if off < 0 || off >= t.end {
		return 0, false
	}
	if t.path == "" {
		return t.mem[off], true
	}
	f, err := os.Open(t.path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var b [1]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		return 0, false
	}
	return b[0], true
}

// start is the offset a scan from offset from starts at: from itself, or 0 when it lies
// outside the transcript.
func (t tsource) start(from int64) int64 {
	if from < 0 || from > t.end {
		return 0
	}
	return from
}

// scan parses the records from position from (its byte offset and its count of records, as
// events.Transcript holds them; the agent's reader decides which one places it: a JSON-lines
// transcript's offset, a Gemini CLI document's message count) to the last complete line,
// streaming a file. A position outside the transcript reads it from its start. A memoized
// source returns the scan it made before from the same position; its slices are shared,
// read only.
func (t tsource) scan(from events.Transcript) agent.Scan {
	from = events.Transcript{Offset: from.Offset, Lines: from.Lines}
	if from.Offset != t.start(from.Offset) || from.Lines < 0 {
		from = events.Transcript{}
	}
	if t.scans == nil {
		return t.scanOnce(from)
	}
	t.scans.mu.Lock()
	defer t.scans.mu.Unlock()
	if sc, ok := t.scans.from[from]; ok {
		return sc
	}
	sc := t.scanOnce(from)
	t.scans.from[from] = sc
	return sc
}

// scanOnce is scan without the memo.
func (t tsource) scanOnce(from events.Transcript) agent.Scan {
	var sc agent.Scan
	var err error
	switch p, ok := t.reader().(agent.Positioner); {
	case t.path != "":
		at := events.Transcript{Path: t.path, Offset: from.Offset, Lines: from.Lines}
		err = agent.ErrPastEnd
		if rs, ok := t.reader().(agent.RangeScanner); ok {
			sc, err = rs.ScanFileTo(t.path, at, t.end) // lines written since are not the source's
		}
		if errors.Is(err, agent.ErrPastEnd) {
			sc, err = t.reader().ScanFile(t.path, at)
		}
	case ok:
		sc, err = p.ScanBytesFrom(t.mem[:t.end], from)
	default:
		return t.reader().ScanBytes(t.mem[from.Offset:t.end])
	}
	if errors.Is(err, agent.ErrPastEnd) && from != (events.Transcript{}) {
		return t.scanOnce(events.Transcript{}) // cut or rewritten shorter: read it all
	}
	if err != nil {
		return agent.Scan{}
	}
	return sc
}

// scanTo parses the complete lines in [from, to); a file streams through the agent's
// agent.RangeScanner. ok is false when the range is not in the transcript (any more), or the
// agent cannot read part of a file. A memoized source returns the scan it made before of the
// same range.
func (t tsource) scanTo(from, to int64) (agent.Scan, bool) {
	if t.scans == nil {
		return t.scanToOnce(from, to)
	}
	t.scans.mu.Lock()
	defer t.scans.mu.Unlock()
	key := [2]int64{from, to}
	if sc, ok := t.scans.ranges[key]; ok {
		return sc, true
	}
	sc, ok := t.scanToOnce(from, to)
	if ok {
		t.scans.ranges[key] = sc
	}
	return sc, ok
}

// scanToOnce is scanTo without the memo.
func (t tsource) scanToOnce(from, to int64) (sc agent.Scan, ok bool) {
	if from < 0 || to < from {
		return agent.Scan{}, false
	}
	if t.path == "" {
		if to > int64(len(t.mem)) {
			return agent.Scan{}, false
		}
		return t.reader().ScanBytes(t.mem[from:to]), true
	}
	rs, ok := t.reader().(agent.RangeScanner)
	if !ok {
		return agent.Scan{}, false
	}
	sc, err := rs.ScanFileTo(t.path, events.Transcript{Path: t.path, Offset: from}, to)
	return sc, err == nil
}

// rangeUsage is the token usage of the transcript's lines from offset from, given sc, their
// scan: exact also when sc counts a run's totals that reach back before from
// (agent.RangeUsage).
func (t tsource) rangeUsage(from int64, sc agent.Scan) events.TokenUsage {
	return agent.RangeUsage(sc, t.start(from), func(end int64) (agent.Scan, bool) { return t.scanTo(0, end) })
}

// lineOffset is the offset just after the transcript's first n complete lines; ok is false
// when it has fewer.
func (t tsource) lineOffset(n int) (off int64, ok bool) {
	if n <= 0 {
		return 0, n == 0
	}
	if t.path == "" {
		for i, b := range t.mem[:t.end] {
			if b == '\n' {
				if n--; n == 0 {
					return int64(i) + 1, true
				}
			}
		}
		return 0, false
	}
	f, err := os.Open(t.path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for off < t.end {
		k, err := f.Read(buf[:min(int64(len(buf)), t.end-off)])
		for i, b := range buf[:k] {
			if b == '\n' {
				if n--; n == 0 {
					return off + int64(i) + 1, true
				}
			}
		}
		off += int64(k)
		if err != nil {
			break
		}
	}
	return 0, false
}

// foreignCondensed gives a session state the reference wrote the byte offset of its
// checkpoint_transcript_start. The reference counts the lines it condensed and nothing more
// (recorder.condensed_offset is this tool's), so without it a JSON-lines transcript would be
// read from its first line: the next checkpoint's token usage and files would count what the
// reference's checkpoints already hold. The usage delta starts there too. A transcript whose
// positions are not lines (agent.Positioner) is placed by its count alone.
func foreignCondensed(s *session.State, t tsource) {
	if s.CheckpointTranscriptStart <= 0 || s.Recorder.CondensedOffset != 0 || !t.valid() {
		return
	}
	if _, ok := t.reader().(agent.Positioner); ok {
		return
	}
	off, ok := t.lineOffset(s.CheckpointTranscriptStart)
	if !ok {
		return
	}
	s.Recorder.CondensedOffset = off
	if s.Recorder.UsageOffset == 0 && s.Recorder.UsageLines == 0 {
		s.Recorder.UsageOffset, s.Recorder.UsageLines = off, s.CheckpointTranscriptStart
	}
}

// finalSource is the transcript of an ended session whose last line, after pos (its complete
// lines), has no '\n' but is a whole JSON object: the agent will write no more of it, so it is
// the transcript's last line, as the reference reads it. The source holds the file with that
// line ended, and end counts it. ok is false for any other tail (none, or a line cut short),
// and for a transcript whose positions are not lines (agent.Positioner). The whole file is
// read, once for such a session's commit.
func finalSource(rd agent.Transcript, pos events.Transcript) (_ tsource, end events.Transcript, ok bool) {
	if _, isDoc := rd.(agent.Positioner); isDoc || pos.Path == "" {
		return tsource{}, pos, false
	}
	fi, err := os.Stat(pos.Path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= pos.Offset {
		return tsource{}, pos, false
	}
	data, err := os.ReadFile(pos.Path)
	if err != nil || int64(len(data)) <= pos.Offset {
		return tsource{}, pos, false
	}
	last := data[pos.Offset:]
	if bytes.IndexByte(last, '\n') >= 0 || !bytes.HasPrefix(bytes.TrimSpace(last), []byte("{")) || !jsonvalid.Valid(last) {
		return tsource{}, pos, false
	}
	data = append(data, '\n')
	end = events.Transcript{Path: pos.Path, Lines: pos.Lines + 1, Offset: int64(len(data)), LastUUID: pos.LastUUID}
	if u := rd.ScanBytes(data[pos.Offset:]).LastUUID; u != "" {
		end.LastUUID = u
	}
	return memSource(data).of(rd), end, true
}

// tailLen is how many bytes before a chunk's end its fingerprint covers.
const tailLen = 64

// tail fingerprints the tailLen bytes before offset end ("" when they cannot be read).
func (t tsource) tail(end int64) string {
	from := max(0, end-tailLen)
	var b []byte
	if t.path == "" {
		if end > int64(len(t.mem)) {
			return ""
		}
		b = t.mem[from:end]
	} else {
		f, err := os.Open(t.path)
		if err != nil {
			return ""
		}
		defer f.Close()
		b = make([]byte, end-from)
		if _, err := f.ReadAt(b, from); err != nil {
			return ""
		}
	}
	return TailFingerprint(b)
}

// TailFingerprint fingerprints a transcript's bytes before a position: b is the tailLen bytes
// before it, or all of them when there are fewer.
func TailFingerprint(b []byte) string {
	b = b[max(0, len(b)-tailLen):]
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
