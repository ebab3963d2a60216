package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/claudecode"
	"github.com/entirerec/entire/gitexec"
)

// Terminal is the controlling terminal of a git hook, if there is one.
type Terminal interface {
	// Available reports whether a person can be asked (false for agents, which run without a TTY).
	Available() bool
	// Confirm asks a yes/no question and returns the answer, or def when nobody can answer.
	Confirm(context []string, question string, def bool) bool
}

// worktreeSessions are the sessions of this worktree that can matter to a commit on HEAD:
// ended sessions without work and not based on HEAD are skipped without being decoded.
func (en *Engine) worktreeSessions() ([]State, error) {
	head, _ := en.Repo.HeadAtOpen()
	return en.Store.ListWhere(func(b Brief) bool { return b.Live(en.Repo.TopLevel, string(head)) })
}

// linkFacts decides whether a set of changed files carries a session's work. overlap is the
// content-aware check of the seeds: a touched file that existed before always counts, a new
// file counts only when its content is the session's (the shadow branch's blob). grew reports
// transcript activity since the last condensation that edited one of the changed files.
func (en *Engine) linkFacts(ctx context.Context, s State, changes []gitexec.DiffEntry) (overlap, grew bool, err error) {
	touched := map[string]bool{}
	for _, f := range s.FilesTouched {
		touched[f] = true
	}
	var newFiles []string
	newOIDs := map[string]gitexec.OID{}
	for _, c := range changes {
		if !touched[c.Path] {
			continue
		}
		if c.Status != 'A' {
			overlap = true
			continue
		}
		newFiles = append(newFiles, c.Path)
		newOIDs[c.Path] = c.NewOID
	}
	if !overlap && len(newFiles) > 0 {
		if s.Recorder.LastShadowCommit == "" {
			overlap = true
		} else {
			shadow, err := en.blobOIDs(ctx, s.Recorder.LastShadowCommit, newFiles)
			if err != nil {
				return false, false, err
			}
			for _, p := range newFiles {
				if overlap, err = en.sameNewFile(ctx, shadow, p, newOIDs[p]); err != nil || overlap {
					break
				}
			}
		}
	}
	if s.Phase == PhaseEnded || s.TranscriptPath == "" {
		return overlap, false, nil
	}
	// Outside a turn the transcript only matters for a session with no work of its own whose
	// files the commit overlaps (shouldCondense); don't read it on every commit otherwise.
	if s.Phase.Normalize() != PhaseActive && (s.HasNewContent() || !overlap) {
		return overlap, false, nil
	}
	fi, err := os.Stat(s.TranscriptPath)
	if err != nil || fi.Size() <= s.Recorder.CondensedOffset {
		return overlap, false, nil
	}
	sc, err := claudecode.ScanFile(s.TranscriptPath, s.Recorder.CondensedOffset)
	if err != nil {
		return overlap, false, nil
	}
	paths := make([]string, 0, len(changes))
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	grew = len(intersect(en.relFiles(sc.ModifiedFiles), paths)) > 0
	return overlap, grew, nil
}

// PrepareCommitMsg adds the Entire-Checkpoint trailer to a commit that carries session work
// (spec §4.3): agents get it directly, people are asked or shown an explanatory comment.
// amend tells that the commit amends HEAD (git reports it only without -m, as source "commit").
func (en *Engine) PrepareCommitMsg(ctx context.Context, file, source string, amend bool, term Terminal) error {
	if en.Repo.SequencerInProgress() || source == "merge" || source == "squash" {
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read commit message: %w", err)
	}
	msg := string(data)
	_, hasTrailer := ParseCheckpointTrailer(msg)
	sessions, err := en.worktreeSessions()
	if err != nil || len(sessions) == 0 {
		return err
	}
	head, _ := en.Repo.HeadAtOpen()
	if source == "commit" || amend { // --amend, -c, -C: keep or restore the link
		if hasTrailer {
			return nil
		}
		for _, s := range sessions {
			if s.BaseCommit == string(head) && s.LastCheckpointID != "" {
				return writeMessage(file, AppendTrailer(msg, s.LastCheckpointID))
			}
		}
		return nil
	}
	if !term.Available() {
		for _, s := range sessions {
			if s.Phase == PhaseActive {
				if hasTrailer {
					return nil
				}
				id, err := NewCheckpointID()
				if err != nil {
					return err
				}
				return writeMessage(file, AppendTrailer(msg, id))
			}
		}
	}
	staged, err := en.Repo.StagedChanges(ctx)
	if err != nil {
		return err
	}
	var linked []State
	for _, s := range sessions {
		overlap, grew, err := en.linkFacts(ctx, s, staged)
		if err != nil {
			en.Log.Warn("overlap check failed", "session_id", s.SessionID, "error", err.Error())
			overlap = true
		}
		if shouldCondense(s, s.Phase.Normalize(), events.GitCommitted{CheckpointID: "-", Overlap: overlap, TranscriptGrew: grew}) {
			linked = append(linked, s)
		}
	}
	if len(linked) == 0 || hasTrailer {
		return nil
	}
	id, err := NewCheckpointID()
	if err != nil {
		return err
	}
	agent := agentOrDefault(linked[0].AgentType)
	prompt := claudecode.LastPromptPreview(linked[0].Recorder.TurnPrompt)
	if source == "message" {
		ctxLines := []string{"You have an active " + agent + " session."}
		if prompt != "" {
			ctxLines = append(ctxLines, "Last Prompt: "+prompt)
		}
		if !term.Confirm(ctxLines, "Link this commit to "+agent+" session context? [Y/n] ", true) {
			return nil
		}
		return writeMessage(file, AppendTrailer(msg, id))
	}
	return writeMessage(file, InsertTrailerWithComment(msg, id, agent, prompt))
}

func writeMessage(file, msg string) error {
	if err := os.WriteFile(file, []byte(msg), 0o644); err != nil {
		return fmt.Errorf("write commit message: %w", err)
	}
	return nil
}

// CommitMsg strips a checkpoint trailer that is the message's only content (spec §4.4).
func CommitMsg(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read commit message: %w", err)
	}
	if out, changed := StripLoneTrailer(string(data)); changed {
		return writeMessage(file, out)
	}
	return nil
}

// PostCommit condenses every session of this worktree that the new commit links to (spec §3.8),
// then deletes the shadow branches that no longer hold anyone's uncondensed work.
//
// A deferred worker passes the facts observed when the hook ran (the commit, its branch,
// whether a rebase, cherry-pick or revert was going on), as they may have changed since.
func (en *Engine) PostCommit(ctx context.Context, at *CommitFacts) error {
	if at == nil {
		head, ok := en.Repo.HeadAtOpen()
		if !ok {
			return nil
		}
		f := en.ObserveCommit(ctx, string(head))
		at = &f
	}
	head := gitexec.OID(at.Commit)
	sessions, err := en.worktreeSessions()
	if err != nil || len(sessions) == 0 {
		return err
	}
	msg, err := en.Repo.CommitMessage(ctx, string(head))
	if err != nil {
		return err
	}
	id, _ := ParseCheckpointTrailer(msg)
	base := events.GitCommitted{Commit: string(head), CheckpointID: id, Sequencer: at.Sequencer, Branch: at.Branch}
	var diff []gitexec.DiffEntry
	if id != "" && !base.Sequencer {
		parents, err := en.Repo.CommitParents(ctx, string(head))
		if err != nil {
			return err
		}
		parent := ""
		if len(parents) > 0 {
			parent = string(parents[0])
		}
		if diff, err = en.Repo.DiffTree(ctx, parent, string(head)); err != nil {
			return err
		}
		for _, d := range diff {
			base.Files = append(base.Files, d.Path)
		}
	}
	var open []*Session
	defer func() {
		for _, s := range open {
			closeSession(en, s)
		}
	}()
	type outcome struct {
		sess            *Session
		oldBase, oldTip string
	}
	var condensed []outcome
	var unchanged []State
	for _, peek := range sessions {
		if peek.Phase == PhaseEnded && !peek.HasNewContent() {
			continue // finished sessions cost nothing to later commits
		}
		if id == "" && peek.Phase != PhaseActive {
			continue
		}
		sess, err := en.Store.Open(peek.SessionID)
		if err != nil {
			en.Log.Error("open session", "session_id", peek.SessionID, "error", err.Error())
			continue
		}
		open = append(open, sess)
		ev := base
		ev.Transcript = events.Transcript{Path: sess.State.TranscriptPath}
		if id != "" && !base.Sequencer {
			if ev.Overlap, ev.TranscriptGrew, err = en.linkFacts(ctx, sess.State, diff); err != nil {
				en.Log.Warn("overlap check failed", "session_id", sess.ID, "error", err.Error())
			}
		}
		oldBase, oldTip := sess.State.BaseCommit, sess.State.Recorder.LastShadowCommit
		results, err := en.runResults(ctx, sess, en.event(ev))
		if err != nil {
			en.Log.Error("post-commit", "session_id", sess.ID, "error", err.Error())
			continue
		}
		if hasCondensed(results) {
			condensed = append(condensed, outcome{sess, oldBase, oldTip})
		} else {
			unchanged = append(unchanged, sess.State)
		}
	}
	for _, c := range condensed {
		en.deleteShadow(ctx, c.sess, ShadowBranch(c.oldBase, c.sess.State.WorktreeID), c.oldTip, unchanged)
	}
	return nil
}

// deleteShadow removes a condensed session's shadow branch unless an uncondensed active session
// still builds on it.
func (en *Engine) deleteShadow(ctx context.Context, sess *Session, branch, oldTip string, others []State) {
	for _, o := range others {
		if o.Phase == PhaseActive && ShadowBranch(o.BaseCommit, o.WorktreeID) == branch {
			return
		}
	}
	ref := gitexec.BranchRef(branch)
	// The session's own last checkpoint is usually the tip: try it first, which saves a
	// lookup; if another session moved the branch, look it up.
	tip := gitexec.OID(oldTip)
	err := gitexec.ErrRefMoved
	if tip != "" {
		err = en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: ref, Old: tip}})
	}
	if errors.Is(err, gitexec.ErrRefMoved) {
		var ok bool
		if tip, ok, err = en.Repo.ResolveRef(ctx, ref); err != nil || !ok {
			return
		}
		err = en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: ref, Old: tip}})
	}
	if err != nil {
		en.Log.Warn("delete shadow branch", "branch", branch, "error", err.Error())
		return
	}
	fmt.Fprintf(en.Stderr, "[entire] Cleaned up shadow branch: %s\n", branch)
	if err := sess.Append(en.event(events.ShadowBranchDeleted{Branch: branch, Commit: string(tip)})); err != nil {
		en.Log.Error("record shadow deletion", "session_id", sess.ID, "error", err.Error())
	}
}

func hasCondensed(results []events.Event) bool {
	for _, e := range results {
		if e.Type == events.TypeCheckpointCondensed {
			return true
		}
	}
	return false
}

// sameNewFile decides whether a new file in a commit is the session's. Missing from the shadow
// tree (stashed when it was carried forward), the name still links it (seed scenario 5). With
// the shadow's content, or part of it (partial staging, seed scenario 7: most of the committed
// lines are the agent's), it links. Reverted and rewritten by the user, it does not.
func (en *Engine) sameNewFile(ctx context.Context, shadow map[string]gitexec.OID, path string, committed gitexec.OID) (bool, error) {
	sb, ok := shadow[path]
	if !ok || sb == committed {
		return true, nil
	}
	agent, ok1, err := en.Repo.ReadBlob(ctx, string(sb))
	if err != nil {
		return false, err
	}
	mine, ok2, err := en.Repo.ReadBlob(ctx, string(committed))
	if err != nil || !ok1 || !ok2 {
		return false, err
	}
	return mostLinesFrom(mine, agent), nil
}

// mostLinesFrom reports whether at least half of part's non-blank lines occur in whole.
func mostLinesFrom(part, whole []byte) bool {
	have := map[string]int{}
	for _, l := range strings.Split(string(whole), "\n") {
		have[strings.TrimSpace(l)]++
	}
	total, found := 0, 0
	for _, l := range strings.Split(string(part), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		total++
		if have[l] > 0 {
			have[l]--
			found++
		}
	}
	return total > 0 && 2*found >= total
}

// CommitFacts is what post-commit observes about the new commit at the moment git runs it.
type CommitFacts struct {
	Commit    string
	Branch    string
	Sequencer bool // a rebase, cherry-pick or revert made the commit
}

// ObserveCommit reads the facts about commit that later work must not re-read.
func (en *Engine) ObserveCommit(ctx context.Context, commit string) CommitFacts {
	branch, _, _ := en.Repo.HeadBranch(ctx)
	return CommitFacts{Commit: commit, Branch: branch,
		Sequencer: en.Repo.SequencerInProgress() || en.Repo.HeadMovedBySequencer()}
}
