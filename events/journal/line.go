package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/jsonvalid"
)

// CorruptError reports damage in a journal other than a torn last line: a line
// that is not a JSON object, lacks a valid "v" or "seq", or breaks the sequence.
// The journal never skips or repairs such a line.
type CorruptError struct {
	Path   string // the journal file
	Line   int    // 1-based line number; equal to the seq the line should carry
	Reason string // what is wrong with the line
}

// Error returns "<path>:<line>: <reason>".
func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Reason)
}

// ErrInvalidLine is wrapped by the error Append returns when a line it was given
// is not a JSON object with integer "v" >= 1 and the next "seq", or contains a newline.
var ErrInvalidLine = errors.New("invalid journal line")

// parseLine checks that line (without its '\n') is a JSON object carrying an
// integer "v" >= 1 and an integer "seq" >= 1, and returns the seq. A non-empty
// reason means the line is invalid.
func parseLine(line []byte) (seq uint64, reason string) {
	if len(line) == 0 {
		return 0, "empty line"
	}
	if !jsonvalid.Valid(line) {
		return 0, "not valid JSON"
	}
	if trimmed := bytes.TrimLeft(line, " \t\r"); len(trimmed) == 0 || trimmed[0] != '{' {
		return 0, "not a JSON object"
	}
	fields := gjson.GetManyBytes(line, "v", "seq")
	if _, reason := positiveInt("v", fields[0]); reason != "" {
		return 0, reason
	}
	return positiveInt("seq", fields[1])
}

// positiveInt returns the value of an integer field that must be >= 1.
func positiveInt(key string, r gjson.Result) (uint64, string) {
	if !r.Exists() {
		return 0, fmt.Sprintf("missing %q", key)
	}
	if r.Type != gjson.Number {
		return 0, fmt.Sprintf("%q is not a number: %.40s", key, r.Raw)
	}
	n, err := strconv.ParseUint(r.Raw, 10, 64)
	if err != nil {
		return 0, fmt.Sprintf("%q is not an unsigned integer: %.40s", key, r.Raw)
	}
	if n == 0 {
		return 0, fmt.Sprintf("%q must be >= 1", key)
	}
	return n, ""
}

// blockSize is how much lastIndexByte reads per step when walking backwards.
const blockSize = 8 << 10

// lastIndexByte returns the offset of the last c in r[0:end), or -1 if there is
// none. It reads backwards from end in blocks, so finding the start of the last
// line costs about one block, however long the file is.
func lastIndexByte(r io.ReaderAt, end int64, c byte) (int64, error) {
	buf := make([]byte, blockSize)
	for end > 0 {
		n := min(int64(len(buf)), end)
		start := end - n
		if _, err := r.ReadAt(buf[:n], start); err != nil {
			return -1, err
		}
		if i := bytes.LastIndexByte(buf[:n], c); i >= 0 {
			return start + int64(i), nil
		}
		end = start
	}
	return -1, nil
}

// lastLineSeq returns the seq of the line that ends just before end (end is 0
// or the offset after a '\n'). It reads only the last line. An empty range has
// seq 0; a non-empty reason means that line is invalid.
func lastLineSeq(r io.ReaderAt, end int64) (seq uint64, reason string, err error) {
	if end == 0 {
		return 0, "", nil
	}
	nl, err := lastIndexByte(r, end-1, '\n')
	if err != nil {
		return 0, "", err
	}
	line := make([]byte, end-1-(nl+1))
	if _, err := r.ReadAt(line, nl+1); err != nil {
		return 0, "", err
	}
	seq, reason = parseLine(line)
	return seq, reason, nil
}
