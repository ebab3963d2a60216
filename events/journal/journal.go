package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// Journal is an open, exclusively locked journal file. Hold it for the whole
// hook so that load, decide and append for one session are serialized across
// processes. A Journal is not safe for concurrent use by several goroutines.
type Journal struct {
	f         *lockedfile.File // nil after Close
	path      string
	size      int64  // end offset; always 0 or just after a '\n'
	lastSeq   uint64 // seq of the line ending at size
	repaired  int64  // bytes cut from a torn last line at Open
	syncDirs  []string
	appendErr error // set when a failed write may have left a partial line
	synced    int64 // size at the last successful Sync by this process; -1 before
}

// Open opens the journal at path, creating it (mode 0600) and its directory
// (mode 0750) if needed, and takes an exclusive advisory lock, blocking until
// any other holder closes it.
//
// If the file does not end in '\n', the partial last line left by a crash
// mid-write is truncated away and reported by Repaired. Open reads only the
// last line, to learn LastSeq; if that line is invalid, Open leaves the file
// untouched and returns the first *CorruptError in the file. Damage before the
// last line is not looked for here: ReadFrom reports it.
func Open(path string) (*Journal, error) {
	dir := filepath.Dir(path)
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	f, err := lockedfile.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = lockedfile.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	j := &Journal{f: f, path: path, synced: -1}
	if created {
		j.syncDirs = append(j.syncDirs, dir)
		if errors.Is(statErr, fs.ErrNotExist) {
			j.syncDirs = append(j.syncDirs, filepath.Dir(dir))
		}
	}
	if err := j.load(); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// load finds the end of the last complete line and its seq, and cuts a torn
// tail after it, but only once that last complete line has proven valid.
func (j *Journal) load() error {
	fi, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("open journal: %w", err)
	}
	size := fi.Size()
	nl, err := lastIndexByte(j.f, size, '\n')
	if err != nil {
		return fmt.Errorf("open journal %s: %w", j.path, err)
	}
	end := nl + 1
	seq, reason, err := lastLineSeq(j.f, end)
	if err != nil {
		return fmt.Errorf("open journal %s: %w", j.path, err)
	}
	if reason != "" {
		return j.firstDamage(end, reason)
	}
	if end < size {
		if err := j.f.Truncate(end); err != nil {
			return fmt.Errorf("repair journal %s: %w", j.path, err)
		}
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("repair journal %s: %w", j.path, err)
		}
		j.repaired = size - end
	}
	j.size, j.lastSeq = end, seq
	return nil
}

// firstDamage scans the complete lines in [0, end) for the first invalid one;
// the last line is known to be invalid, so the scan must stop with an error.
func (j *Journal) firstDamage(end int64, lastReason string) error {
	_, err := scan(j.path, j.f, 0, end, 1, false, func([]byte, uint64) error { return nil })
	if err == nil { // unreachable: scan checks the last line too
		err = &CorruptError{Path: j.path, Reason: "last line: " + lastReason}
	}
	return err
}

// Repaired reports how many bytes of a torn last line Open cut off, and whether
// it cut any. The caller should log it: the cut bytes are lost.
func (j *Journal) Repaired() (bytes int64, ok bool) { return j.repaired, j.repaired > 0 }

// Path returns the journal's file name as given to Open.
func (j *Journal) Path() string { return j.path }

// Size returns the end offset of the journal, which is always 0 or the end of a
// line and so a valid starting point for ReadFrom.
func (j *Journal) Size() int64 { return j.size }

// LastSeq returns the seq of the last line, or 0 for an empty journal. Open
// learns it by reading backwards from the end of the file, never the whole file.
func (j *Journal) LastSeq() uint64 { return j.lastSeq }

// Append writes lines, each a JSON object without a trailing newline, adding
// '\n' to each, with a single write at the end of the file. Before writing it
// checks that every line has an integer "v" >= 1 and that the seqs continue the
// journal (LastSeq+1, +2, ...); if any line fails, nothing is written and the
// error wraps ErrInvalidLine. Append does not fsync; call Sync.
func (j *Journal) Append(lines ...[]byte) error {
	f, err := j.file()
	if err != nil {
		return err
	}
	if j.appendErr != nil {
		return j.appendErr
	}
	n, seq := 0, j.lastSeq
	for i, line := range lines {
		got, reason := parseLine(line)
		switch {
		case bytes.IndexByte(line, '\n') >= 0:
			reason = "contains a newline"
		case reason == "" && got != seq+1:
			reason = fmt.Sprintf(`"seq" is %d, want %d`, got, seq+1)
		}
		if reason != "" {
			return fmt.Errorf("append to journal %s: line %d of %d: %s: %w", j.path, i+1, len(lines), reason, ErrInvalidLine)
		}
		seq = got
		n += len(line) + 1
	}
	buf := make([]byte, 0, n)
	for _, line := range lines {
		buf = append(append(buf, line...), '\n')
	}
	if w, err := f.Write(buf); err != nil {
		err = fmt.Errorf("append to journal %s: %w", j.path, err)
		if w > 0 { // best effort: take the partial line back out
			if terr := f.Truncate(j.size); terr != nil {
				j.appendErr = errors.Join(err, terr)
				return j.appendErr
			}
		}
		return err
	}
	j.size += int64(n)
	j.lastSeq = seq
	return nil
}

// Sync flushes the journal to stable storage with fsync. The first Sync after
// Open created the file also syncs its directory (and the directory's parent
// when Open created the directory), so that the new name survives a crash.
func (j *Journal) Sync() error {
	f, err := j.file()
	if err != nil {
		return err
	}
	if j.synced == j.size && len(j.syncDirs) == 0 {
		return nil // nothing appended since this process last synced (an fsync costs ms)
	}
	if err := fsyncFile(f); err != nil {
		return fmt.Errorf("sync journal %s: %w", j.path, err)
	}
	for len(j.syncDirs) > 0 {
		if err := syncDir(j.syncDirs[0]); err != nil {
			return fmt.Errorf("sync journal directory: %w", err)
		}
		j.syncDirs = j.syncDirs[1:]
	}
	j.synced = j.size
	return nil
}

// fsyncFile is the fsync of Sync (a variable so tests can count them).
var fsyncFile = func(f *lockedfile.File) error { return f.Sync() }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close closes the file and releases the lock. It does not sync. Calling any
// method that touches the file after Close returns an error wrapping
// fs.ErrClosed.
func (j *Journal) Close() error {
	f, err := j.file()
	if err != nil {
		return err
	}
	j.f = nil
	if err := f.Close(); err != nil {
		return fmt.Errorf("close journal %s: %w", j.path, err)
	}
	return nil
}

func (j *Journal) file() (*lockedfile.File, error) {
	if j.f == nil {
		return nil, &fs.PathError{Op: "use journal", Path: j.path, Err: fs.ErrClosed}
	}
	return j.f, nil
}
