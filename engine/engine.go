// Package engine turns hook events into git work: it loads a session (snapshot + journal tail),
// asks the pure reducer what an event means, performs the resulting effects through gitexec,
// and appends the input event and each effect's result to the session's journal.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/sharing"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/gitexec"
)

// AgentClaudeCode is the display type stored for Claude Code sessions.
const AgentClaudeCode = "Claude Code"

// Engine runs one hook invocation against one repository.
type Engine struct {
	Repo   *gitexec.Repo
	Store  session.Store
	Log    *slog.Logger
	Stderr io.Writer
	Now    func() time.Time
	Home   string
	// Strategy is the configured strategy ("auto-commit"; "" or "manual-commit" otherwise). It
	// is journaled with each turn, and the reducer decides from that.
	Strategy string
	// HoldBranch is set while git runs the hook (a commit, a merge, a push): pending
	// auto-commits wait for the next hook, since moving the branch under git would fail its
	// operation or slip a commit into it.
	HoldBranch bool

	status []gitexec.StatusEntry // memoized for the hook's lifetime
	// movedHead is the commit an auto-commit of this process moved HEAD to: HeadAtOpen no
	// longer tells HEAD then.
	movedHead gitexec.OID
	// retrying: DrainPending is doing pending work an earlier hook left (killed, or failed).
	retrying bool
	// failedCommits are the pending auto-commits that failed in this process: the hook's later
	// drains leave them (and the commits after them) to the next hook rather than fail again.
	failedCommits map[string]bool
	// captured are the auto-commits (by checkpoint ID) whose files this process captured: their
	// blobs were just written.
	captured map[string]bool
	turn     *turnFacts
	ahead    *worktreeAhead // WorktreeChanges started before the checkpoint was decided
	// deleted are shadow branches a condensation deleted in its own ref transaction (see
	// rideAlong), by name, with the tip deleted; DeleteShadow records them without git.
	deleted map[string]gitexec.OID
	// recorded is the commit PostCommit has recorded for every session of the worktree, so a
	// second call for it (the post-commit hook after DrainPending did the work) returns at
	// once; drained are the sessions PostCommit recorded and drained, which DrainPending then
	// does not reopen.
	recorded string
	drained  map[string]bool
}

// New returns an engine for repo.
func New(repo *gitexec.Repo, log *slog.Logger, stderr io.Writer) *Engine {
	home, _ := os.UserHomeDir()
	store := session.NewStore(repo.CommonDir)
	store.Log = log
	// Commits written outside git's hooks (a Stop's checkpoint) take the identity commit-tree
	// gave the last time, while what it came from is unchanged: one git process fewer. One
	// file per worktree: the git directory is part of what the identity depends on.
	name := "identity"
	if wt := repo.WorktreeID(); wt != "" {
		name += "@" + wt
	}
	repo.CacheIdentity(filepath.Join(store.Dir, name))
	return &Engine{
		Repo:   repo,
		Store:  store,
		Log:    log,
		Stderr: stderr,
		Now:    time.Now,
		Home:   home,
	}
}

// Event stamps a payload with the engine's clock as an event to journal.
func (en *Engine) Event(p events.Payload) events.Event {
	return events.New(en.Now(), p)
}

// Run appends the input event, then performs and records each effect the reducer decides on.
func (en *Engine) Run(ctx context.Context, sess *session.Session, input events.Event) error {
	_, err := en.runResults(ctx, sess, input)
	return err
}

// runResults finishes the session's pending work, then records input and performs what it
// calls for, returning the result events recorded.
func (en *Engine) runResults(ctx context.Context, sess *session.Session, input events.Event) ([]events.Event, error) {
	results, err := en.drain(ctx, sess, nil, nil)
	if err != nil {
		return results, err
	}
	if sess.Removed() { // a maintenance command's removal, finished: the event starts afresh
		fresh, err := en.Store.Open(sess.ID)
		if err != nil {
			return results, err
		}
		*sess = *fresh
	}
	tried := pendingIDs(sess.State)
	effects, err := en.record(sess, input)
	if err != nil {
		return results, err
	}
	crashPoint("journaled:" + string(input.Type))
	more, err := en.apply(ctx, sess, input, effects, nil, tried)
	return append(results, more...), err
}

// RemoveSession removes a session's journal and snapshot for a maintenance command. The
// decision is journaled (session_discarded) and the snapshot written before any file goes, so
// a removal a crash interrupts is finished by the next hook or command; a journal that cannot
// be opened (damaged) is removed directly. A session with no file, or an ID that cannot name
// one, is an error: nothing was removed.
func (en *Engine) RemoveSession(ctx context.Context, id, reason string) error {
	return en.RemoveSessionIf(ctx, id, reason, nil)
}

// RemoveSessionIf is RemoveSession after check, when not nil, accepted the session's state as
// it is under the journal's lock: a hook that ran since the caller decided is seen, and a
// check's error leaves the session whole.
func (en *Engine) RemoveSessionIf(ctx context.Context, id, reason string, check func(session.State) error) error {
	ok, err := en.Store.Has(id)
	if err != nil {
		return fmt.Errorf("remove session %s: %w", id, err)
	}
	if !ok {
		return fmt.Errorf("remove session %s: %w", id, session.ErrNoSession)
	}
	sess, err := en.Store.Open(id)
	if err != nil {
		en.Log.Warn("remove session state without its journal", "session_id", id, "error", err.Error())
		var errs []error
		for _, p := range []string{en.Store.JournalPath(id), en.Store.StatePath(id)} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("remove session state: %w", err))
			}
		}
		errs = append(errs, en.Store.RemoveMarker(id))
		return errors.Join(errs...)
	}
	defer CloseSession(en, sess)
	if check != nil {
		if err := check(sess.State); err != nil {
			return err
		}
	}
	if err := sess.Append(en.Event(events.SessionDiscarded{Reason: reason})); err != nil {
		return err
	}
	if err := sess.SyncState(); err != nil {
		return err
	}
	if _, err := en.drain(ctx, sess, nil, nil); err != nil {
		return err
	}
	if !sess.Removed() {
		return fmt.Errorf("remove session %s: its discard was journaled but its files are still there", id)
	}
	return nil
}

// pendingIDs are the keys of the session's pending work (nextPending): the checkpoint IDs of
// its condensations and of its auto-commits.
func pendingIDs(s session.State) map[string]bool {
	ids := map[string]bool{}
	for _, c := range s.Recorder.Pending {
		ids[c.Commit.CheckpointID] = true
	}
	for _, c := range s.Recorder.Commits {
		ids["commit:"+c.CheckpointID] = true
	}
	return ids
}

// record journals an input event and returns the effects it calls for. When there is git work
// to do, the journal is made durable first: whatever happens to this process afterwards, the
// next hook knows what was decided (pending work in the state).
func (en *Engine) record(sess *session.Session, input events.Event) ([]session.Effect, error) {
	before := sess.State
	effects := session.Decide(before, input)
	if err := sess.Append(input); err != nil {
		return nil, err
	}
	en.logRecorded(before, sess.State, input, effects)
	if len(effects) > 0 || len(sess.State.Recorder.Pending) > len(before.Recorder.Pending) ||
		len(sess.State.Recorder.Commits) > len(before.Recorder.Commits) {
		if err := sess.SyncState(); err != nil {
			return nil, err
		}
	}
	return effects, nil
}

// apply performs the effects of a recorded input, then the pending work it created (skipping
// the condensations in tried, which already failed in this process).
func (en *Engine) apply(ctx context.Context, sess *session.Session, input events.Event, effects []session.Effect, others map[string]session.State, tried map[string]bool) ([]events.Event, error) {
	var results []events.Event
	for _, eff := range effects {
		res := en.perform(ctx, sess, input, eff)
		if err := sess.Append(res...); err != nil {
			return results, err
		}
		en.logResults(sess, res)
		results = append(results, res...)
	}
	more, err := en.drain(ctx, sess, others, tried)
	return append(results, more...), err
}

// drain performs the session's pending work (Pending) and records each outcome. A failure is
// recorded and leaves the work pending for the next hook; others, when not nil, are the
// states of sessions held open by the caller, fresher than their snapshots.
func (en *Engine) drain(ctx context.Context, sess *session.Session, others map[string]session.State, skip map[string]bool) ([]events.Event, error) {
	var results []events.Event
	done := map[string]bool{}
	for k := range skip {
		done[k] = true
	}
	for k := range en.failedCommits {
		done[k] = true
	}
	for {
		next, key := nextPending(sess.State, done, en.HoldBranch)
		if next == nil {
			return results, nil
		}
		done[key] = true
		var res []events.Event
		switch d := next.(type) {
		case session.RemoveSession:
			crashPoint("journaled:" + string(events.TypeSessionDiscarded))
			if err := sess.Remove(); err != nil {
				return results, fmt.Errorf("remove session %s: %w", sess.ID, err)
			}
			en.Log.Info("removed session state", "session_id", sess.ID)
			return results, nil
		case session.DeleteShadow:
			res = en.DeleteShadow(ctx, sess, d, others)
		case session.Condense:
			// Files the session touched since the decision (a condensation a later hook
			// performs) are carried too: carry-forward replaces files_touched. Not under
			// auto-commit, which keeps no shadow branch: a later turn's files are its own
			// commit's, pending.
			if d.Commit.Strategy != events.StrategyAutoCommit {
				d.CarryForward = session.MergeSorted(d.CarryForward, touchedSince(sess.State, d))
			}
			res = en.perform(ctx, sess, events.Event{}, d)
		default:
			res = en.perform(ctx, sess, events.Event{}, next)
		}
		if err := sess.Append(res...); err != nil {
			return results, err
		}
		en.logResults(sess, res)
		results = append(results, res...)
		if failed(res) {
			if _, ok := next.(session.AutoCommit); ok {
				if en.failedCommits == nil {
					en.failedCommits = map[string]bool{}
				}
				en.failedCommits[key] = true
				fmt.Fprintln(en.Stderr, "Could not commit the turn's changes (see .entire/logs/entire.log); the next hook tries again")
			}
			return results, nil // git is failing: leave the rest for the next hook
		}
	}
}

// nextPending picks the session's next pending work not in done, and its key. Auto-commits are
// made in order: once one is held (hold: git runs this hook) or was tried, the later ones wait.
func nextPending(s session.State, done map[string]bool, hold bool) (session.Effect, string) {
	waiting := hold
	for _, eff := range session.Pending(s) {
		key := ""
		switch d := eff.(type) {
		case session.Condense:
			key = d.Commit.CheckpointID
		case session.AutoCommit:
			key = "commit:" + d.CheckpointID
			if waiting || done[key] {
				waiting = true
				continue
			}
		case session.DeleteShadow:
			key = "shadow:" + d.Branch
		case session.RemoveSession:
			key = "remove"
		}
		if !done[key] {
			return eff, key
		}
	}
	return nil, ""
}

// touchedSince are the session's files that a pending condensation's commit neither contains
// nor settled: those touched after the decision, when a later hook performs it.
func touchedSince(s session.State, c session.Condense) []string {
	skip := map[string]bool{}
	for _, p := range append(append([]string(nil), c.Commit.Files...), c.Commit.Settled...) {
		skip[p] = true
	}
	var out []string
	for _, p := range s.FilesTouched {
		if !skip[p] {
			out = append(out, p)
		}
	}
	return out
}

// failedEffect logs a failed effect and returns the event that records it; key is the
// checkpoint ID of a condensation, so the failure is tied to its pending work.
func (en *Engine) failedEffect(sess *session.Session, eff session.Effect, key string, err error) []events.Event {
	en.Log.Error("effect failed", "effect", eff.EffectName(), "session_id", sess.ID, "checkpoint_id", key, "error", err.Error())
	return []events.Event{en.Event(events.EffectFailed{Effect: eff.EffectName(), CheckpointID: key, Error: err.Error()})}
}

func failed(res []events.Event) bool {
	for _, e := range res {
		if _, ok := e.Data.(events.EffectFailed); ok {
			return true
		}
	}
	return false
}

// perform carries out one effect. A failure is recorded as an EffectFailed event and logged;
// the hook goes on (fail open), and the state stays as it was for that effect.
func (en *Engine) perform(ctx context.Context, sess *session.Session, input events.Event, eff session.Effect) []events.Event {
	var res []events.Event
	var err error
	key := ""
	switch f := eff.(type) {
	case session.MigrateShadow:
		res, err = en.migrateShadow(ctx, sess.State, f)
	case session.FollowCommit:
		res, err = en.followCommit(ctx, sess.State, f)
	case session.WriteShadowCheckpoint:
		res, err = en.writeShadowCheckpoint(ctx, sess.State, input, f)
	case session.Condense:
		key = f.Commit.CheckpointID
		res, err = en.Condense(ctx, WithAllPrompts(sess), f)
	case session.Finalize:
		res, err = en.finalize(ctx, WithAllPrompts(sess), f)
	case session.WriteTaskCheckpoint:
		res, err = en.writeTaskCheckpoint(ctx, sess.State, input, f)
	case session.AutoCommit:
		key = f.CheckpointID
		res, err = en.autoCommit(ctx, f)
	default:
		err = fmt.Errorf("unknown effect %T", eff)
	}
	if err != nil {
		return en.failedEffect(sess, eff, key, err)
	}
	return res
}

// worktreeFacts observes HEAD and the worktree identity.
func (en *Engine) worktreeFacts(ctx context.Context) (events.Worktree, error) {
	return events.Worktree{Path: en.Repo.TopLevel, ID: en.Repo.WorktreeID(), Mark: en.Repo.WorktreeMark(), Head: string(en.head()), CLIVersion: Version}, nil
}

// head is HEAD for this hook. Hooks run while git holds HEAD still: the value read when the
// repository was opened saves a process, unless an auto-commit of this process moved it.
func (en *Engine) head() gitexec.OID {
	if en.movedHead != "" {
		return en.movedHead
	}
	head, _ := en.Repo.HeadAtOpen()
	return head
}

// dirtyStatus is `git status` without the recorder's own infrastructure, memoized per hook.
func (en *Engine) dirtyStatus(ctx context.Context) ([]gitexec.StatusEntry, error) {
	if en.status != nil {
		return en.status, nil
	}
	st, err := en.Repo.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("git status: %w", err)
	}
	out := make([]gitexec.StatusEntry, 0, len(st))
	for _, e := range st {
		if checkpoint.IsInfrastructure(e.Path) {
			continue
		}
		out = append(out, e)
	}
	en.status = out
	return out, nil
}

// statusPaths are the paths of a status, each once: git lists a path twice when the index and
// the worktree disagree about what it is (`git rm --cached` leaves "D " and "??" entries).
func statusPaths(st []gitexec.StatusEntry) []string {
	out := make([]string, 0, len(st))
	for _, e := range st {
		out = append(out, e.Path)
	}
	return session.MergeSorted(nil, out)
}

// treeOf resolves the tree of a commit (no new process: the repository's cat-file batch).
func (en *Engine) treeOf(ctx context.Context, commit string) (gitexec.OID, error) {
	tree, err := en.Repo.CommitTreeOID(ctx, commit)
	if err != nil {
		return "", fmt.Errorf("resolve tree of %s: %w", commit, err)
	}
	return tree, nil
}

// homeRelative is a path relative to $HOME, or "" when it is not under $HOME (spec §3.3).
func (en *Engine) homeRelative(p string) string {
	if en.Home == "" || p == "" {
		return ""
	}
	rel, ok := strings.CutPrefix(p, strings.TrimRight(en.Home, "/")+"/")
	if !ok {
		return ""
	}
	return rel
}

// Sharing is the repository's record as shared through remotes (pre-push, fetch).
func (en *Engine) Sharing() *sharing.Record {
	return &sharing.Record{Repo: en.Repo, Log: en.Log, Stderr: en.Stderr}
}
