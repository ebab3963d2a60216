package session

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/journal"
)

// damagedSuffix marks a journal set aside because a line in it was damaged.
const damagedSuffix = ".damaged-"

// quarantine sets a damaged journal aside and puts the valid lines before the damage back in
// its place, so that the session continues from its last good state instead of failing every
// hook. The damaged file is kept beside it (<id>.jsonl.damaged-<unix time>) for inspection.
// It holds the journal's lock, and does nothing if another process replaced the file first.
func (st Store) quarantine(id string, ce *journal.CorruptError, log *slog.Logger) error {
	path := st.JournalPath(id)
	f, err := lockedfile.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("quarantine journal: %w", err)
	}
	defer f.Close()
	held, err1 := f.Stat()
	now, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		return nil // replaced meanwhile: open it again
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("quarantine journal: %w", err)
	}
	lines := bytes.SplitAfter(data, []byte{'\n'})
	keep := max(ce.Line-1, 0)
	if keep > len(lines) {
		keep = len(lines)
	}
	prefix := bytes.Join(lines[:keep], nil)
	restored := false
	if line, ok := st.restoreLine(id, prefix); ok {
		prefix, restored = append(prefix, line...), true
	}
	damaged := path + damagedSuffix + strconv.FormatInt(time.Now().Unix(), 10)
	if err := os.WriteFile(damaged, data, 0o600); err != nil {
		return fmt.Errorf("quarantine journal: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, prefix, 0o600); err != nil {
		return fmt.Errorf("quarantine journal: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("quarantine journal: %w", err)
	}
	lost := len(lines) - keep
	if len(lines) > 0 && len(bytes.TrimSpace(lines[len(lines)-1])) == 0 {
		lost--
	}
	log.Error("damaged journal set aside; the session continues from the events before the damage",
		"session_id", id, "damage", ce.Error(), "kept_events", keep, "lost_events", lost, "damaged_copy", damaged,
		"snapshot_restored", restored)
	return nil
}

// Damaged lists the journals set aside as damaged, for status and doctor.
func (st Store) Damaged() ([]string, error) {
	entries, err := os.ReadDir(st.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".jsonl"+damagedSuffix) {
			out = append(out, filepath.Join(st.Dir, e.Name()))
		}
	}
	return out, nil
}

// restoreLine is a state_restored event to append to the kept prefix of a damaged journal when
// the session's snapshot is newer than that prefix (it was written after events the damage
// cost), so that the session goes on from the snapshot rather than from the older prefix.
func (st Store) restoreLine(id string, prefix []byte) ([]byte, bool) {
	data, err := os.ReadFile(st.StatePath(id))
	if err != nil {
		return nil, false
	}
	snap, err := UnmarshalState(data)
	if err != nil || snap.SessionID != id {
		return nil, false
	}
	last := uint64(0)
	for _, line := range bytes.Split(prefix, []byte{'\n'}) {
		if e, err := events.Decode(line); err == nil {
			last = e.Seq
		}
	}
	if snap.Recorder.JournalSeq <= last {
		return nil, false
	}
	e := events.New(time.Now().UTC(), events.StateRestored{State: data, Reason: "journal damaged after the snapshot was written"})
	e.Seq = last + 1
	line, err := events.Encode(e)
	if err != nil {
		return nil, false
	}
	return append(line, '\n'), true
}
