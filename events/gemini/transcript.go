package gemini

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// ErrPositionPastEnd is returned (wrapped) by ScanFile and ScanBytesFrom when the position lies
// beyond the chat file: a JSONL offset past its size, or a legacy message count above the
// messages it holds. The file was truncated, rewound or replaced; the caller should rescan from
// the start. It is agent.ErrPastEnd, as every agent's scanner reports it.
var ErrPositionPastEnd = fmt.Errorf("gemini chat file: %w", agent.ErrPastEnd)

// format is one of the two chat file layouts.
type format int

const (
	formatJSONL    format = iota // v0.39+: one record per line, appended
	formatDocument               // before v0.39: one JSON document, rewritten in place
)

// detect tells the layout from the first non-blank line of a file (without its '\n';
// terminated reports whether a '\n' followed it). A line that is a JSON object with a
// "messages" array is a whole legacy document written compactly (Entire's checkpoint copy is);
// any other valid JSON line opens a JSONL file; an invalid line followed by more lines opens a
// pretty-printed legacy document. An invalid line at the very end is a JSONL record still
// being written.
func detect(first []byte, terminated bool) format {
	if jsonvalid.Valid(first) {
		if r := gjson.ParseBytes(first); r.IsObject() && r.Get("messages").IsArray() {
			return formatDocument
		}
		return formatJSONL
	}
	if terminated {
		return formatDocument
	}
	return formatJSONL
}

// detectBytes applies detect to data held in memory.
func detectBytes(data []byte) format {
	for len(data) > 0 {
		line, rest, terminated := bytes.Cut(data, []byte{'\n'})
		if len(bytes.TrimSpace(line)) > 0 {
			return detect(line, terminated)
		}
		data = rest
	}
	return formatJSONL
}

// ScanBytes scans a whole chat file held in memory, in either layout. An invalid legacy
// document gives an empty Scan.
func ScanBytes(data []byte) agent.Scan {
	s, err := ScanBytesFrom(data, events.Transcript{})
	if err != nil {
		return agent.Scan{}
	}
	return s
}

// ScanBytesFrom scans a whole chat file held in memory from position from, as ScanFile scans a
// file: a legacy document from message from.Lines, JSONL from byte offset from.Offset (a
// final line without '\n' is left unconsumed). An invalid legacy document is an error.
func ScanBytesFrom(data []byte, from events.Transcript) (agent.Scan, error) {
	if from.Offset < 0 || from.Lines < 0 {
		return agent.Scan{}, fmt.Errorf("scan gemini chat: negative position %d/%d", from.Offset, from.Lines)
	}
	if detectBytes(data) == formatDocument {
		return scanDocument(data, from.Lines, from.Offset)
	}
	if from.Offset > int64(len(data)) {
		return agent.Scan{}, fmt.Errorf("scan gemini chat: offset %d, size %d: %w", from.Offset, len(data), ErrPositionPastEnd)
	}
	data = data[from.Offset:]
	sc := newLineScanner(from.Offset)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return sc.finish(), nil
		}
		sc.consume(data[:i])
		data = data[i+1:]
	}
}

// ScanFile scans the chat file at path from position from to its end, in whichever layout
// the file has now.
//
// JSONL: from.Offset is the byte offset after a complete line; the scan reads line by line
// (memory follows the longest line) and leaves a final line without '\n' unconsumed. Lines
// counts the lines read and EndOffset is the offset after the last one.
//
// Legacy document: the whole file is parsed; from.Lines is the number of messages already
// seen and is skipped; Lines is the number of messages read, StartOffset is from.Offset and
// EndOffset is the file size. An invalid document (caught mid-rewrite) is an error.
func ScanFile(path string, from events.Transcript) (agent.Scan, error) {
	if from.Offset < 0 || from.Lines < 0 {
		return agent.Scan{}, fmt.Errorf("scan gemini chat %s: negative position %d/%d", path, from.Offset, from.Lines)
	}
	f, err := os.Open(path)
	if err != nil {
		return agent.Scan{}, fmt.Errorf("scan gemini chat: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return agent.Scan{}, fmt.Errorf("scan gemini chat: %w", err)
	}
	layout, err := detectFile(f)
	if err != nil {
		return agent.Scan{}, fmt.Errorf("scan gemini chat %s: %w", path, err)
	}
	if layout == formatDocument {
		data, err := io.ReadAll(f) // detectFile rewound f
		if err != nil {
			return agent.Scan{}, fmt.Errorf("scan gemini chat %s: %w", path, err)
		}
		s, err := scanDocument(data, from.Lines, from.Offset)
		if err != nil {
			return agent.Scan{}, fmt.Errorf("scan gemini chat %s: %w", path, err)
		}
		return s, nil
	}
	if from.Offset > fi.Size() {
		return agent.Scan{}, fmt.Errorf("scan gemini chat %s: offset %d, size %d: %w", path, from.Offset, fi.Size(), ErrPositionPastEnd)
	}
	if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
		return agent.Scan{}, fmt.Errorf("scan gemini chat: %w", err)
	}
	sc := newLineScanner(from.Offset)
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := readLine(r)
		if err == nil {
			sc.consume(line[:len(line)-1])
			continue
		}
		if errors.Is(err, io.EOF) {
			return sc.finish(), nil // a torn last line stays unconsumed
		}
		return agent.Scan{}, fmt.Errorf("scan gemini chat %s: %w", path, err)
	}
}

// ScanFileTo scans the JSONL chat file at path from position from up to byte offset end
// (agent.RangeScanner): the complete lines within [from.Offset, end), for the usage before a
// range whose scan may count messages that began before it (Scan.UsageBeforeStart). A legacy
// document has no byte ranges: it is an error wrapping ErrPositionPastEnd, and the caller reads
// it whole with ScanFile.
func ScanFileTo(path string, from events.Transcript, end int64) (agent.Scan, error) {
	f, err := os.Open(path)
	if err != nil {
		return agent.Scan{}, fmt.Errorf("scan gemini chat: %w", err)
	}
	layout, err := detectFile(f)
	f.Close()
	if err != nil {
		return agent.Scan{}, fmt.Errorf("scan gemini chat %s: %w", path, err)
	}
	if layout == formatDocument {
		return agent.Scan{}, fmt.Errorf("scan gemini chat %s: a chat document is read whole: %w", path, ErrPositionPastEnd)
	}
	sc := newLineScanner(from.Offset)
	if _, err := agent.ScanLinesTo(path, from.Offset, end, sc.consume); err != nil {
		return agent.Scan{}, err
	}
	return sc.finish(), nil
}

// detectFile reads the first non-blank line of f to tell its layout, then rewinds f.
func detectFile(f *os.File) (format, error) {
	r := bufio.NewReaderSize(f, 64<<10)
	layout := formatJSONL
	for {
		line, err := readLine(r)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		terminated := err == nil
		if terminated {
			line = line[:len(line)-1]
		}
		if len(bytes.TrimSpace(line)) > 0 {
			layout = detect(line, terminated)
			break
		}
		if !terminated {
			break
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	return layout, nil
}

// readLine returns the next line including its '\n', collecting a line longer than the
// buffer; at the end it returns what is left with io.EOF.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	long := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = r.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

// scanDocument scans a legacy document, skipping its first skip messages.
func scanDocument(data []byte, skip int, offset int64) (agent.Scan, error) {
	if !jsonvalid.Valid(data) {
		return agent.Scan{}, errors.New("legacy chat document is not valid JSON")
	}
	doc := gjson.ParseBytes(data)
	msgs := doc.Get("messages")
	if !doc.IsObject() || !msgs.IsArray() {
		return agent.Scan{}, errors.New(`legacy chat document has no "messages" array`)
	}
	var list []message
	count := 0
	msgs.ForEach(func(_, m gjson.Result) bool {
		if count >= skip {
			list = append(list, readMessage(m))
		}
		count++
		return true
	})
	if skip > count {
		return agent.Scan{}, fmt.Errorf("message %d of %d: %w", skip, count, ErrPositionPastEnd)
	}
	s := agent.Scan{Lines: len(list), StartOffset: offset, EndOffset: int64(len(data))}
	collect(&s, list)
	return s, nil
}
