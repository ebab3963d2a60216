package agent

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrPastEnd is returned (wrapped) by a scanner when a position lies beyond the end of the
// transcript: the file was truncated or replaced since the position was recorded, and the
// caller rescans from the start.
var ErrPastEnd = errors.New("position past the end of the transcript")

// ScanLines calls consume with each complete line (without its '\n') of the file at path from
// byte offset to the end, reading through a buffer so that memory follows the longest line,
// not the file. A final line without '\n' is not consumed: the agent may still be writing it,
// and the next scan, from the returned end offset, reads it whole.
func ScanLines(path string, offset int64, consume func(line []byte)) (end int64, err error) {
	return ScanLinesTo(path, offset, -1, consume)
}

// ScanLinesTo is ScanLines that stops at byte offset limit (a negative limit reads to the end
// of the file): the complete lines within [offset, limit) are consumed, and a line running past
// limit is not. A limit beyond the end of the file is an error wrapping ErrPastEnd.
func ScanLinesTo(path string, offset, limit int64, consume func(line []byte)) (end int64, err error) {
	if offset < 0 || limit >= 0 && limit < offset {
		return 0, fmt.Errorf("scan transcript %s: bad range %d-%d", path, offset, limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("scan transcript: %w", err)
	}
	defer f.Close()
	var src io.Reader = f
	if offset > 0 || limit >= 0 {
		fi, err := f.Stat()
		if err != nil {
			return 0, fmt.Errorf("scan transcript: %w", err)
		}
		if max(offset, limit) > fi.Size() {
			return 0, fmt.Errorf("scan transcript %s: range %d-%d, size %d: %w", path, offset, limit, fi.Size(), ErrPastEnd)
		}
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			return 0, fmt.Errorf("scan transcript: %w", err)
		}
		if limit >= 0 {
			src = io.LimitReader(f, limit-offset)
		}
	}
	end = offset
	r := bufio.NewReaderSize(src, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		switch {
		case err == nil:
			end += int64(len(line))
			consume(line[:len(line)-1])
		case errors.Is(err, io.EOF):
			return end, nil
		default:
			return end, fmt.Errorf("scan transcript %s: %w", path, err)
		}
	}
}

// SplitLines calls consume with each complete line of data held in memory, as ScanLines does
// for a file read from offset 0.
func SplitLines(data []byte, consume func(line []byte)) {
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return
		}
		consume(data[:i])
		data = data[i+1:]
	}
}

// maxIDLen bounds an ID mapped by SafeID, before its hash suffix.
const maxIDLen = 128

// MaxFileIDLen is the longest ID SafeID returns (maxIDLen, "-" and 8 hex digits): the engine
// refuses a longer one as a file name.
const MaxFileIDLen = maxIDLen + 9

// SafeID maps an agent's ID to one the engine may use in a file name (^[A-Za-z0-9_-]+$). An ID
// that already matches, and is at most 128 bytes, is kept. Any other has each run of other bytes
// replaced by '_', is cut to 128 bytes, and gets "-" and the first 8 hex digits of the SHA-256
// of the original appended, so IDs that differ only in replaced bytes stay distinct. "" stays "".
func SafeID(id string) string {
	if id == "" {
		return ""
	}
	out := make([]byte, 0, len(id))
	changed := len(id) > maxIDLen
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			out = append(out, c)
			continue
		}
		changed = true
		if len(out) == 0 || out[len(out)-1] != '_' {
			out = append(out, '_')
		}
	}
	if !changed {
		return id
	}
	if len(out) > maxIDLen {
		out = out[:maxIDLen]
	}
	sum := sha256.Sum256([]byte(id))
	return string(out) + "-" + hex.EncodeToString(sum[:4])
}

// SkipLines drops the first n newline-terminated lines of data; nil when it has fewer.
func SkipLines(data []byte, n int) []byte {
	for ; n > 0 && len(data) > 0; n-- {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
	return data
}
