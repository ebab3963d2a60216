package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/journal"
)

// Store is the directory of session journals and their state snapshots:
// <git-common-dir>/entire-sessions/<id>.jsonl and <id>.json.
type Store struct {
	Dir string
	Log *slog.Logger // where a damaged journal set aside is reported; nil: nowhere
	// memo keeps the states this process decoded; nil (a Store not made by NewStore): none.
	memo *decodeMemo
}

// MaterializedDir is where the hooks keep the transcripts they write for an agent that keeps
// none of its own (agent.Materializer): <dir>/transcripts/<agent>/<session-id>.jsonl. Removing
// a session removes its copies there.
func (st Store) MaterializedDir(agentName string) string {
	return filepath.Join(st.Dir, "transcripts", agentName)
}

// NewStore returns the store inside a git common directory.
func NewStore(commonDir string) Store {
	return Store{Dir: filepath.Join(commonDir, "entire-sessions"), memo: &decodeMemo{}}
}

// decodeMemo keeps, for each session, the last snapshot bytes this process decoded and the
// state they hold. A hook reads the same snapshot several times (the sessions of the worktree,
// the pending work, the session it opens), and decoding a long session's state, whose lists
// of transcript chunks grow with the transcript, cost about 1 ms a time: a read of the same
// bytes gets a copy of the state instead.
type decodeMemo struct {
	mu   sync.Mutex
	byID map[string]memoEntry
}

type memoEntry struct {
	raw   []byte
	state State // never handed out: callers get clones
}

// decode is UnmarshalState of session id's snapshot bytes, through the memo. The state is
// named by id, whatever its session_id says (see named).
func (st Store) decode(id string, data []byte) (State, error) {
	m := st.memo
	if m == nil {
		s, err := UnmarshalState(data)
		return named(id, s), err
	}
	m.mu.Lock()
	e, ok := m.byID[id]
	m.mu.Unlock()
	if ok && bytes.Equal(e.raw, data) {
		return e.state.clone(), nil
	}
	s, err := UnmarshalState(data)
	if err != nil {
		return s, err
	}
	s = named(id, s)
	m.mu.Lock()
	if m.byID == nil {
		m.byID = map[string]memoEntry{}
	}
	m.byID[id] = memoEntry{raw: data, state: s.clone()}
	m.mu.Unlock()
	return s, nil
}

// named gives a session's state the store's ID for it: the name of its files. A state file
// whose session_id says otherwise (edited by hand, copied, or written by a tool with its own
// idea) is still the session of that file, which is where it is read, written and removed;
// its session_id never names a file.
func named(id string, s State) State {
	if s.Exists() && s.SessionID != id {
		s.SessionID = id
	}
	return s
}

// checkID refuses a session ID that cannot name the session's files: a path separator, "..",
// control characters (agent.ValidateSessionID). Hooks check the IDs agents send; this keeps an
// ID from anywhere else (a checkpoint's metadata, a command line) from building a path.
func checkID(id string) error {
	return agent.ValidateSessionID(id)
}

// JournalPath is the journal of a session.
func (st Store) JournalPath(id string) string { return filepath.Join(st.Dir, id+".jsonl") }

// StatePath is the materialized state of a session.
func (st Store) StatePath(id string) string { return filepath.Join(st.Dir, id+".json") }

// Session is a session opened for writing: its journal is locked until Close.
type Session struct {
	ID      string
	State   State
	j       *journal.Journal
	store   Store
	dirty   bool
	removed bool
	// written is the journal offset of the state last written to the snapshot by this
	// process (-1: none), so that Close does not write the same state again.
	written int64
	// all is the last list AllPrompts replayed, with the transcript position it was read to.
	all        []string
	allScanned events.Transcript
}

// Open locks the session's journal and loads its state from the snapshot plus the journal tail,
// or by replaying the whole journal when the snapshot is missing or does not match.
//
// A journal damaged before its last line (a disk error, an editor) is set aside once
// (quarantine) and the session goes on from the events before the damage.
func (st Store) Open(id string) (*Session, error) {
	s, err := st.open(id)
	var ce *journal.CorruptError
	if !errors.As(err, &ce) {
		return s, err
	}
	log := st.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if qerr := st.quarantine(id, ce, log); qerr != nil {
		return nil, errors.Join(err, qerr)
	}
	return st.open(id)
}

func (st Store) open(id string) (*Session, error) {
	if err := checkID(id); err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	if st.Forgotten(id) {
		return nil, fmt.Errorf("open session %s: %w", id, ErrForgotten)
	}
	j, err := journal.Open(st.JournalPath(id))
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err) // err says "open journal"
	}
	s := &Session{ID: id, j: j, store: st, written: -1}
	state, stale, err := st.load(j, id)
	if err != nil {
		j.Close()
		return nil, err
	}
	s.State = state
	if err := s.adopt(); err != nil {
		j.Close()
		return nil, err
	}
	// A repaired journal or a stale snapshot is rewritten on Close.
	cut, repaired := j.Repaired()
	if repaired && st.Log != nil {
		st.Log.Warn("journal's torn last line cut (a write interrupted by a crash)", "session_id", id, "bytes", cut)
	}
	if repaired || stale {
		s.dirty = true
	}
	return s, nil
}

// adopt journals the state of a session-state file that has no journal (the reference tool
// wrote it, or an older build) as the journal's first event, so that the state rebuilt from
// the journal alone (entire replay, a snapshot that went missing) starts from it too, not from
// nothing: its worktree, start time and counts would otherwise be lost.
func (s *Session) adopt() error {
	if s.j.LastSeq() != 0 || !s.State.Exists() {
		return nil
	}
	data, err := MarshalState(s.State)
	if err != nil {
		return err
	}
	return s.Append(events.New(time.Now().UTC(), events.StateRestored{State: data, Reason: "session-state file without a journal adopted"}))
}

// load returns the session's state and whether the snapshot on disk was missing or behind the
// journal (stale), so that Close rewrites it.
func (st Store) load(j *journal.Journal, id string) (State, bool, error) {
	if data, err := os.ReadFile(st.StatePath(id)); err == nil {
		snap, err := st.decode(id, data)
		r := snap.Recorder
		if err == nil && r.JournalOffset <= j.Size() && r.JournalSeq <= j.LastSeq() &&
			(r.JournalSeq > 0 || r.JournalOffset == 0) {
			if s, err := replayFrom(j, snap, r.JournalOffset, r.JournalSeq+1); err == nil {
				return named(id, s), r.JournalSeq < j.LastSeq(), nil
			}
		}
	}
	s, err := replayFrom(j, State{}, 0, 1)
	return named(id, s), j.LastSeq() > 0, err
}

func replayFrom(j *journal.Journal, s State, off int64, wantSeq uint64) (State, error) {
	err := j.ReadFrom(off, wantSeq, func(line []byte, seq uint64) error {
		e, err := events.Decode(line)
		if err != nil {
			return &journal.CorruptError{Path: j.Path(), Line: int(seq), Reason: err.Error()}
		}
		s = Evolve(s, e)
		return nil
	})
	if err != nil {
		return State{}, fmt.Errorf("replay journal: %w", err)
	}
	s.Recorder.JournalOffset = j.Size()
	return s, nil
}

// AllPrompts returns every prompt of the session, getting those its snapshot left out
// (Recorder.PromptsOmitted) back from its journal, read through the lock this session holds;
// ok=false when the journal does not give back the same list (it was damaged and set aside).
func (s *Session) AllPrompts() (prompts []string, ok bool) {
	r := s.State.Recorder
	if r.PromptsOmitted == 0 {
		return r.Prompts, true
	}
	// The list holds the state's prompts when it was read as far as the state and ends in
	// the prompts the state holds: a hook that condenses and finalizes replays once.
	fits := func(all []string, scanned events.Transcript) bool {
		return scanned == r.Scanned && len(all) == r.PromptsOmitted+len(r.Prompts) &&
			slices.Equal(all[r.PromptsOmitted:], r.Prompts)
	}
	if s.all != nil && fits(s.all, s.allScanned) {
		return s.all, true
	}
	if s.j == nil {
		return nil, false
	}
	full, err := replayJournal(s.j, State{}, 0, 1)
	if err != nil || !fits(full.Recorder.Prompts, full.Recorder.Scanned) {
		return nil, false
	}
	s.all, s.allScanned = full.Recorder.Prompts, full.Recorder.Scanned
	return s.all, true
}

// replayJournal is replayFrom, a variable so that tests can count the replays.
var replayJournal = replayFrom

// ErrRemoved reports an append to a session whose files Remove deleted.
var ErrRemoved = errors.New("session removed")

// Removed reports whether Remove deleted the session's files.
func (s *Session) Removed() bool { return s.removed }

// Append sequences the events, writes them to the journal in one write, and applies them.
func (s *Session) Append(evs ...events.Event) error {
	if s.removed {
		return ErrRemoved
	}
	lines := make([][]byte, 0, len(evs))
	next := s.j.LastSeq()
	state := s.State
	for i := range evs {
		next++
		evs[i].Seq = next
		evs[i].V = events.FormatVersion
		line, err := events.Encode(evs[i])
		if err != nil {
			return err
		}
		lines = append(lines, line)
		if bytes.Contains(line, []byte(`\ufffd`)) {
			// A string that is not UTF-8 (a file name) is journaled with U+FFFD for each bad
			// byte: the state evolves from what the journal holds, as a replay of it would.
			if evs[i], err = events.Decode(line); err != nil {
				return err
			}
		}
		state = Evolve(state, evs[i])
	}
	if err := s.j.Append(lines...); err != nil {
		return fmt.Errorf("append to journal: %w", err)
	}
	state.Recorder.JournalOffset = s.j.Size()
	s.State = state
	s.dirty = true
	return nil
}

// Sync makes the journal durable now, before git work whose intent it records.
func (s *Session) Sync() error {
	if s.removed {
		return ErrRemoved
	}
	if err := s.j.Sync(); err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	return nil
}

// Remove deletes the session's journal and snapshot while holding the journal's lock, so a
// hook writing the session finishes first; the session is closed.
func (s *Session) Remove() error {
	if s.j == nil {
		return errors.New("remove session: not open")
	}
	var errs []error
	for _, p := range []string{s.store.JournalPath(s.ID), s.store.StatePath(s.ID)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove session state: %w", err))
		}
	}
	errs = append(errs, s.store.RemoveMarker(s.ID), s.store.removeMaterialized(s.ID))
	errs = append(errs, s.j.Close())
	s.j = nil
	s.removed = true
	s.State = State{}
	return errors.Join(errs...)
}

// removeMaterialized deletes the transcripts the hooks wrote for session id (any agent's
// MaterializedDir): a copy exported from the agent's own store, written again by its next hook
// if the session comes back.
func (st Store) removeMaterialized(id string) error {
	dirs, err := os.ReadDir(filepath.Join(st.Dir, "transcripts"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("remove session transcripts: %w", err)
	}
	var errs []error
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		p := filepath.Join(st.MaterializedDir(d.Name()), id+".jsonl")
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove session transcript: %w", err))
		}
	}
	return errors.Join(errs...)
}

// SyncState makes the journal durable and writes the snapshot now, so that other processes'
// session briefs see pending work this process may not live to finish.
func (s *Session) SyncState() error {
	if err := s.Sync(); err != nil {
		return err
	}
	if !s.State.Exists() {
		return nil
	}
	return s.writeSnapshot()
}

// writeSnapshot writes the state file and remembers which state it holds.
func (s *Session) writeSnapshot() error {
	if err := s.store.writeSnapshot(s.ID, s.State); err != nil {
		return err
	}
	s.written = s.State.Recorder.JournalOffset
	return nil
}

// snapshotCurrent reports whether the state file holds the state as it is now.
func (s *Session) snapshotCurrent() bool {
	return s.written == s.State.Recorder.JournalOffset
}

// Snapshot writes the state file now (not synced: it is a view the journal can rebuild), so
// that readers see the session as its journal has it while the session stays open.
func (s *Session) Snapshot() error {
	if !s.dirty || !s.State.Exists() || s.removed || s.snapshotCurrent() {
		return nil
	}
	return s.writeSnapshot()
}

// Close makes the journal durable, writes the snapshot atomically and releases the lock.
func (s *Session) Close() error {
	if s.j == nil {
		return nil
	}
	var errs []error
	if s.dirty {
		if err := s.j.Sync(); err != nil {
			errs = append(errs, fmt.Errorf("sync journal: %w", err))
		} else if s.State.Exists() && !s.snapshotCurrent() {
			if err := s.writeSnapshot(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	errs = append(errs, s.j.Close())
	s.j = nil
	return errors.Join(errs...)
}

// Refresh rewrites a session's snapshot when it is behind its journal (a process died between
// appending an event and writing the snapshot). It reports whether it was behind. A session
// without a journal (a state file alone) cannot be behind it, and gets none.
func (st Store) Refresh(id string) (bool, error) {
	if err := checkID(id); err != nil {
		return false, fmt.Errorf("refresh session: %w", err)
	}
	if _, err := os.Stat(st.JournalPath(id)); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	s, err := st.Open(id)
	if err != nil {
		return false, err
	}
	stale := s.dirty && s.State.Exists()
	return stale, s.Close()
}

// WriteSnapshot writes <id>.json, id being the state's session ID, through a temporary file
// and a rename.
func (st Store) WriteSnapshot(s State) error {
	return st.writeSnapshot(s.SessionID, s)
}

// writeSnapshot writes session id's state file; the state says it is session id's.
func (st Store) writeSnapshot(id string, s State) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("write session state: %w", err)
	}
	s.SessionID = id
	data, err := MarshalState(s)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(st.Dir, 0o750); err != nil {
		return fmt.Errorf("write session state: %w", err)
	}
	path := st.StatePath(id)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write session state: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write session state: %w", err)
	}
	return st.writeMarker(id, data)
}

// Replay rebuilds a session's state from its journal alone, calling fn after each event with
// the state it produced. It repairs nothing, and holds the journal's shared lock only while
// reading: fn runs after it is released, so a slow reader of its output (a pager) never holds
// up the hooks that append.
func (st Store) Replay(id string, fn func(e events.Event, s State)) (State, error) {
	if err := checkID(id); err != nil {
		return State{}, fmt.Errorf("replay session: %w", err)
	}
	var s State
	var size int64
	var evs []events.Event
	path := st.JournalPath(id)
	_, err := journal.ReadFile(path, func(line []byte, seq uint64) error {
		e, err := events.Decode(line)
		if err != nil {
			return &journal.CorruptError{Path: path, Line: int(seq), Reason: err.Error()}
		}
		size += int64(len(line)) + 1
		evs = append(evs, e)
		return nil
	})
	if err != nil {
		return State{}, err
	}
	for _, e := range evs {
		s = Evolve(s, e)
		if fn != nil {
			fn(e, s)
		}
	}
	s.Recorder.JournalOffset = size
	return named(id, s), nil
}

// IDs lists the sessions that have a journal or a snapshot: the names of those files. A name
// that is not a valid session ID (no hook writes one) is not a session's.
func (st Store) IDs() ([]string, error) {
	entries, err := os.ReadDir(st.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	seen := map[string]bool{}
	var ids []string
	for _, e := range entries {
		name := e.Name()
		id, ok := strings.CutSuffix(name, ".jsonl")
		if !ok {
			id, ok = strings.CutSuffix(name, ".json")
		}
		if ok && !seen[id] && checkID(id) == nil {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// ErrForgotten reports a session `entire forget` removed: its later hooks record nothing, or
// its next checkpoint would hold its whole transcript again.
var ErrForgotten = errors.New("the session was forgotten (entire forget): it is not recorded any more")

// forgottenPath is the marker MarkForgotten leaves for a forgotten session.
func (st Store) forgottenPath(id string) string { return filepath.Join(st.Dir, "forgotten", id) }

// Forgotten reports whether the session was forgotten in this clone.
func (st Store) Forgotten(id string) bool {
	if checkID(id) != nil {
		return false
	}
	_, err := os.Stat(st.forgottenPath(id))
	return err == nil
}

// MarkForgotten makes every later Open of the session fail with ErrForgotten.
func (st Store) MarkForgotten(id string) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("mark session forgotten: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(st.forgottenPath(id)), 0o755); err != nil {
		return fmt.Errorf("mark session forgotten: %w", err)
	}
	if err := os.WriteFile(st.forgottenPath(id), nil, 0o644); err != nil {
		return fmt.Errorf("mark session forgotten: %w", err)
	}
	return nil
}

// ErrNoSession reports a session ID with neither a journal nor a state file.
var ErrNoSession = errors.New("no such session")

// Has reports whether session id has a journal or a state file.
func (st Store) Has(id string) (bool, error) {
	if err := checkID(id); err != nil {
		return false, err
	}
	for _, p := range []string{st.JournalPath(id), st.StatePath(id)} {
		_, err := os.Lstat(p)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("find session: %w", err)
		}
	}
	return false, nil
}

// Peek reads a session's state without locking: the snapshot if present and readable,
// else a replay of the journal.
func (st Store) Peek(id string) (State, error) {
	if err := checkID(id); err != nil {
		return State{}, fmt.Errorf("read session: %w", err)
	}
	if data, err := os.ReadFile(st.StatePath(id)); err == nil {
		if s, err := st.decode(id, data); err == nil {
			return s, nil
		}
	}
	if _, err := os.Stat(st.JournalPath(id)); err != nil {
		return State{}, fmt.Errorf("read session %s: %w", id, err)
	}
	return st.Replay(id, nil)
}

// List returns the states of every session, skipping unreadable ones.
func (st Store) List() ([]State, error) { return st.listWith(st.Peek) }

// listWith reads every session's state with read, skipping unreadable ones.
func (st Store) listWith(read func(id string) (State, error)) ([]State, error) {
	ids, err := st.IDs()
	if err != nil {
		return nil, err
	}
	var out []State
	for _, id := range ids {
		s, err := read(id)
		if err != nil || !s.Exists() {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// ListSettled is List with each session's running hook waited for: a state is read under its
// journal's lock (and its snapshot brought up to date), so what a hook did before this call,
// a shadow branch it wrote and the move of its session there, is seen whole. A state file
// without a journal, or a journal that cannot be opened, is read as List reads it.
func (st Store) ListSettled() ([]State, error) { return st.listWith(st.settled) }

// Settled is one session's state read as ListSettled reads it: once its running hook is done.
func (st Store) Settled(id string) (State, error) { return st.settled(id) }

func (st Store) settled(id string) (State, error) {
	if _, err := os.Stat(st.JournalPath(id)); err != nil {
		return st.Peek(id)
	}
	sess, err := st.Open(id)
	if err != nil {
		return st.Peek(id)
	}
	s := sess.State
	if err := sess.Close(); err != nil && st.Log != nil {
		st.Log.Warn("close session", "session_id", id, "error", err.Error())
	}
	return s, nil
}

// Brief is the handful of session-state keys that hooks filter sessions by, read without
// decoding the whole state, so that finished sessions cost later commits next to nothing.
type Brief struct {
	SessionID                       string
	WorktreePath, Phase, BaseCommit string
	HasWork                         bool // checkpoint_count > 0 or files_touched non-empty
	Pending                         bool // owes a condensation, an auto-commit or a shadow-branch deletion
	Prepared                        bool // prepare-commit-msg linked a commit not recorded yet
	// Stale: the journal holds events the snapshot lacks (its hook was killed before it
	// wrote the snapshot, or is still running), so the brief may be missing pending work.
	Stale bool

	journalOffset int64 // the snapshot's recorder.journal_offset
}

// Live reports whether a session of worktree may still matter to a commit on head: it is not
// ended, has uncondensed work, or is based on head (an amend restores its trailer).
func (b Brief) Live(worktree, head string) bool {
	return b.WorktreePath == worktree && (Phase(b.Phase).Normalize() != PhaseEnded || b.HasWork || b.Pending || b.Prepared || b.BaseCommit == head)
}

// briefOf reads a snapshot's brief; ok=false when it lacks a worktree path (damaged or not
// ours), and the caller decodes it properly.
func briefOf(data []byte) (Brief, bool) {
	r := gjson.GetManyBytes(data, "worktree_path", "phase", "base_commit", "checkpoint_count", "files_touched.#",
		"recorder.pending.#", "recorder.shadow_to_delete", "recorder.prepared_id", "recorder.discarded", "recorder.commits.#",
		"recorder.journal_offset")
	if r[0].Type != gjson.String || r[0].Str == "" {
		return Brief{}, false
	}
	return Brief{WorktreePath: r[0].Str, Phase: r[1].String(), BaseCommit: r[2].String(),
		HasWork: r[3].Int() > 0 || r[4].Int() > 0, Pending: r[5].Int() > 0 || r[6].Exists() || r[8].Bool() || r[9].Int() > 0, Prepared: r[7].Str != "",
		journalOffset: r[10].Int()}, true
}

// ListWhere returns the states of the sessions whose brief satisfies keep; the others are
// not decoded. A session without a readable snapshot is rebuilt and then tested.
func (st Store) ListWhere(keep func(Brief) bool) ([]State, error) {
	return st.ListOthersWhere("", keep)
}

// ListOthersWhere is ListWhere leaving out session self unread: a caller that holds self open
// holds its journal's lock, and rebuilding self's state (no snapshot yet: a session's first
// hook) would wait for that lock for ever.
func (st Store) ListOthersWhere(self string, keep func(Brief) bool) ([]State, error) {
	var out []State
	err := st.eachWhere(self, keep, true, func(s State) bool {
		out = append(out, s)
		return true
	})
	return out, err
}

// AnyWhere reports whether some session's brief satisfies keep, as ListWhere would list it,
// without decoding any state but those whose snapshot has no readable brief.
func (st Store) AnyWhere(keep func(Brief) bool) (bool, error) {
	found := false
	err := st.eachWhere("", keep, false, func(State) bool {
		found = true
		return false
	})
	return found, err
}

// eachWhere gives yield, until it returns false, each session whose brief satisfies keep:
// its state when decode is set, a zero State otherwise. A session without a readable
// snapshot is rebuilt, then tested.
func (st Store) eachWhere(skip string, keep func(Brief) bool, decode bool, yield func(State) bool) error {
	ids, err := st.IDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if id == skip {
			continue
		}
		var s State
		decoded, stale := false, false
		if data, err := os.ReadFile(st.StatePath(id)); err == nil {
			if b, ok := briefOf(data); ok {
				if fi, err := os.Stat(st.JournalPath(id)); err == nil && fi.Size() > b.journalOffset {
					b.Stale, stale = true, true
				}
				if b.SessionID = id; !keep(b) {
					continue
				}
				if !decode {
					if !yield(State{}) {
						return nil
					}
					continue
				}
			}
			s, err = st.decode(id, data) // the bytes just read, not a second read
			decoded = err == nil
		}
		if !decoded {
			var err error
			if s, err = st.Peek(id); err != nil {
				continue
			}
		}
		if !s.Exists() {
			continue
		}
		b := Brief{SessionID: id, WorktreePath: s.WorktreePath, Phase: string(s.Phase), BaseCommit: s.BaseCommit, HasWork: s.HasNewContent(),
			Pending: len(Pending(s)) > 0, Prepared: s.Recorder.PreparedID != "", Stale: stale && decoded}
		if keep(b) && !yield(s) {
			return nil
		}
	}
	return nil
}
