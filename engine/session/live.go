package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The git hook scripts decide with shell builtins whether a commit needs entire at all. For
// that, the store keeps one empty file per session state under <Dir>/live/, named
// <session-id>@<value>, so that the scripts learn everything from file names (globs, no file
// read): the value is "live" when the session may matter to any commit (not ended, uncondensed
// work, pending work, a prepared commit), else the session's base commit (an ended session
// matters only to a commit made on it: an amend restores its trailer). The directory appears
// only once it holds a marker for every state file; the scripts also compare the counts, so a
// state written by a tool that keeps no markers, or a marker being replaced, makes them ask the
// binary.

// liveDir is where the markers are.
func (st Store) liveDir() string { return filepath.Join(st.Dir, "live") }

// liveMarker is what the marker of a state says.
func liveMarker(b Brief) string {
	if Phase(b.Phase).Normalize() != PhaseEnded || b.HasWork || b.Pending || b.Prepared || b.BaseCommit == "" {
		return "live"
	}
	return b.BaseCommit
}

// markerSep separates the session ID from the value in a marker's name.
const markerSep = "@"

// hiddenMarker is written beside the marker of a session whose ID starts with a dot: the
// scripts' globs skip dot files, so they would see neither its state nor its marker and take a
// commit of its work for one no session matters to. "@live" is no session's marker (an ID is
// never empty), and the scripts seeing it ask the binary. It stays: it only costs the fast path.
const hiddenMarker = markerSep + "live"

// hiddenID reports a session ID the scripts' globs do not see.
func hiddenID(id string) bool { return strings.HasPrefix(id, ".") }

// markersOf lists the marker names of a session in dir (normally one).
func markersOf(dir, id string) []string {
	names, _ := filepath.Glob(filepath.Join(dir, globEscape(id)+markerSep+"*"))
	var out []string
	for _, n := range names {
		v := strings.TrimPrefix(filepath.Base(n), id+markerSep)
		if !strings.Contains(v, markerSep) && !strings.Contains(v, ".tmp") {
			out = append(out, n)
		}
	}
	return out
}

// globEscape quotes the glob metacharacters of a session ID.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeMarker records a state's marker, creating the marker directory (complete) first.
func (st Store) writeMarker(id string, data []byte) error {
	b, ok := briefOf(data)
	if !ok {
		return nil
	}
	if err := st.ensureLiveDir(); err != nil {
		return err
	}
	if hiddenID(id) {
		if _, err := os.Stat(filepath.Join(st.liveDir(), hiddenMarker)); err != nil {
			if err := writeSmall(filepath.Join(st.liveDir(), hiddenMarker), ""); err != nil {
				return err
			}
		}
	}
	want := filepath.Join(st.liveDir(), id+markerSep+liveMarker(b))
	old := markersOf(st.liveDir(), id)
	if len(old) == 1 && old[0] == want {
		return nil
	}
	// The new name first, then the old ones: meanwhile the counts differ and the scripts ask
	// the binary.
	if err := writeSmall(want, ""); err != nil {
		return err
	}
	for _, o := range old {
		if o != want {
			os.Remove(o)
		}
	}
	return nil
}

// RemoveMarker drops a removed session's marker.
func (st Store) RemoveMarker(id string) error {
	for _, o := range markersOf(st.liveDir(), id) {
		if err := os.Remove(o); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove session marker: %w", err)
		}
	}
	return nil
}

// ensureLiveDir creates the marker directory with a marker for every existing state, built aside
// and renamed into place so that the scripts never see it incomplete. A process that loses the
// race to rename discards its copy; every writer then writes its own marker into the winner's.
func (st Store) ensureLiveDir() error {
	if fi, err := os.Stat(st.liveDir()); err == nil && fi.IsDir() {
		return nil
	}
	tmp, err := os.MkdirTemp(st.Dir, ".live-")
	if err != nil {
		return fmt.Errorf("create session markers: %w", err)
	}
	defer os.RemoveAll(tmp)
	entries, err := os.ReadDir(st.Dir)
	if err != nil {
		return fmt.Errorf("create session markers: %w", err)
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(st.Dir, e.Name()))
		if err != nil {
			continue
		}
		marker := "live" // unreadable: the binary decides
		if b, ok := briefOf(data); ok {
			marker = liveMarker(b)
		}
		if err := writeSmall(filepath.Join(tmp, id+markerSep+marker), ""); err != nil {
			return err
		}
		if hiddenID(id) {
			if err := writeSmall(filepath.Join(tmp, hiddenMarker), ""); err != nil {
				return err
			}
		}
	}
	if err := os.Rename(tmp, st.liveDir()); err != nil {
		if fi, serr := os.Stat(st.liveDir()); serr == nil && fi.IsDir() {
			return nil // another process made it
		}
		return fmt.Errorf("create session markers: %w", err)
	}
	return nil
}

// writeSmall writes a marker atomically (temporary file and rename).
func writeSmall(path, content string) error {
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write session marker: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write session marker: %w", err)
	}
	return nil
}
