package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// ReadFrom calls fn for each complete line starting at byte offset off, which
// must be 0 or the end of a line, typically a Size recorded earlier. wantSeq is
// the seq the first line must have: 1 when off is 0, else the seq after the line
// ending at off. Every line is validated (a JSON object, integer "v" >= 1, seq
// one more than the previous); the first violation stops the read with a
// *CorruptError whose Line is the seq expected at that point, which is the true
// line number because seqs count lines from 1.
//
// The line passed to fn excludes the '\n' and is only valid during the call. An
// error from fn stops the read and is returned unchanged.
func (j *Journal) ReadFrom(off int64, wantSeq uint64, fn func(line []byte, seq uint64) error) error {
	f, err := j.file()
	if err != nil {
		return err
	}
	if err := j.checkStart(off, wantSeq); err != nil {
		return fmt.Errorf("read journal %s from offset %d: %w", j.path, off, err)
	}
	_, err = scan(j.path, f, off, j.size, wantSeq, false, fn)
	return err
}

// checkStart rejects a starting point that cannot be the start of a line with
// the given seq.
func (j *Journal) checkStart(off int64, wantSeq uint64) error {
	switch {
	case off < 0 || off > j.size:
		return fmt.Errorf("offset outside [0, %d]", j.size)
	case (off == 0) != (wantSeq == 1):
		return fmt.Errorf("seq %d cannot start there (only offset 0 starts with seq 1)", wantSeq)
	case off == j.size && wantSeq != j.lastSeq+1:
		return fmt.Errorf("seq %d at the end, want %d", wantSeq, j.lastSeq+1)
	case off == 0:
		return nil
	}
	var b [1]byte
	if _, err := j.f.ReadAt(b[:], off-1); err != nil {
		return err
	}
	if b[0] != '\n' {
		return errors.New("not the end of a line")
	}
	return nil
}

// ReadFile reads the journal at path without taking the exclusive lock: it
// holds a shared lock, so it waits for a writer's hook to finish but never
// modifies the file. A torn last line (no '\n', left by a crash) is treated as
// the end of the journal and reported as torn; damage anywhere else is a
// *CorruptError. fn is called as in ReadFrom.
func ReadFile(path string, fn func(line []byte, seq uint64) error) (torn bool, err error) {
	f, err := lockedfile.Open(path)
	if err != nil {
		return false, fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("read journal: %w", err)
	}
	return scan(path, f, 0, fi.Size(), 1, true, fn)
}

// scan validates the lines in r[off:end), the first of which must carry seq,
// and passes each to fn. A final segment without '\n' is reported as torn when
// allowTorn is set and as damage otherwise.
func scan(path string, r io.ReaderAt, off, end int64, seq uint64, allowTorn bool,
	fn func(line []byte, seq uint64) error) (torn bool, err error) {
	br := bufio.NewReaderSize(io.NewSectionReader(r, off, end-off), 64<<10)
	var long []byte // accumulates a line longer than br's buffer
	for ; ; seq++ {
		line, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			long = append(long, line...)
			line, err = br.ReadSlice('\n')
		}
		if len(long) > 0 {
			long = append(long, line...)
			line, long = long, long[:0]
		}
		switch {
		case err == io.EOF && len(line) == 0:
			return false, nil
		case err == io.EOF && allowTorn:
			return true, nil
		case err == io.EOF:
			return false, corrupt(path, seq, "last line has no trailing newline")
		case err != nil:
			return false, fmt.Errorf("read journal %s: %w", path, err)
		}
		line = line[:len(line)-1]
		got, reason := parseLine(line)
		if reason == "" && got != seq {
			reason = fmt.Sprintf(`"seq" is %d, want %d`, got, seq)
		}
		if reason != "" {
			return false, corrupt(path, seq, reason)
		}
		if err := fn(line, seq); err != nil {
			return false, err
		}
	}
}

func corrupt(path string, line uint64, reason string) *CorruptError {
	return &CorruptError{Path: path, Line: int(line), Reason: reason}
}
