package agent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/entirerec/entire/events/jsonvalid"
)

// MaxTranscriptBytes bounds the transcript a hook reads: a path naming anything larger is
// refused rather than read into a checkpoint.
const MaxTranscriptBytes = 1 << 30

// ErrNotTranscript reports a transcript path that names something other than a transcript: a
// directory, a device or FIFO, an oversized file, or a file whose first line is not a JSON
// object (a private notes file, /etc/passwd).
var ErrNotTranscript = errors.New("not a transcript")

// CheckTranscript decides whether path may be read as a transcript: a regular file (after
// symbolic links) of at most MaxTranscriptBytes, empty or starting with a JSON object line (or
// the "{" line of a pretty-printed JSON document). It
// never blocks: a FIFO is refused from its mode, and the file is opened non-blocking. A missing
// file is fs.ErrNotExist (it may appear later).
func CheckTranscript(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is a %s, not a regular file", ErrNotTranscript, path, kind(fi.Mode()))
	case fi.Size() > MaxTranscriptBytes:
		return fmt.Errorf("%w: %s is %d bytes, more than %d", ErrNotTranscript, path, fi.Size(), MaxTranscriptBytes)
	case fi.Size() == 0:
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	const window = 64 << 10
	r := bufio.NewReaderSize(io.LimitReader(f, window), window)
	line, err := r.ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %s: %v", ErrNotTranscript, path, err)
	}
	whole := bytes.HasSuffix(line, []byte{'\n'}) || int64(len(line)) == fi.Size()
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0 || line[0] != '{':
	case whole && jsonvalid.Valid(line):
		return laterLines(r, path)
	case whole && string(line) == "{" && prettyObject(r):
		return nil // a pretty-printed JSON document (Gemini CLI's chat file before v0.39)
	case !whole && bytes.HasPrefix(line, []byte(`{"`)):
		return nil // a first line longer than the window (a huge prompt) that opens a JSON object
	}
	return fmt.Errorf("%w: the first line of %s is not a JSON object", ErrNotTranscript, path)
}

// laterLines checks the complete lines after the first within the window: a JSON-lines
// transcript holds nothing else, so a file that goes on with prose (notes with a JSON first line)
// is not one. A last line cut by the window is not judged.
func laterLines(r *bufio.Reader, path string) error {
	for n := 2; ; n++ {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil // the end of the file or of the window
		}
		if line = bytes.TrimSpace(line); len(line) > 0 && !jsonvalid.Valid(line) {
			return fmt.Errorf("%w: line %d of %s is not JSON", ErrNotTranscript, n, path)
		}
	}
}

// prettyObject reports whether the line after a lone "{" goes on as a JSON object: a key, or
// the closing brace.
func prettyObject(r *bufio.Reader) bool {
	next, _ := r.ReadBytes('\n')
	next = bytes.TrimSpace(next)
	return len(next) > 0 && (next[0] == '"' || next[0] == '}')
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
