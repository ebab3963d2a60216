package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
	"github.com/entirerec/entire/gitexec"
)

// reader is the transcript reader of an agent named by its metadata type; an unknown or
// empty type (a state written before agents were recorded) reads as the default agent's.
func reader(agentType string) agent.Transcript {
	a, _ := agents.ByType(agentType)
	return a
}

// flushWait bounds how long turn end waits for the agent to finish writing its transcript.
const flushWait = 3 * time.Second

// scanPosition reads the transcript from a known position to its end, returning the new
// complete-line position. A different file than before is read from the start.
func scanPosition(rd agent.Transcript, path string, from events.Transcript) (agent.Scan, events.Transcript, error) {
	return scanPositionTo(rd, path, from, -1)
}

// scanPositionTo is scanPosition stopping at byte offset end when end >= 0 and the agent's
// reader can stop there (agent.RangeScanner).
func scanPositionTo(rd agent.Transcript, path string, from events.Transcript, end int64) (agent.Scan, events.Transcript, error) {
	pos := events.Transcript{Path: path}
	if path == "" {
		return agent.Scan{}, pos, nil
	}
	if from.Path != path {
		from = events.Transcript{Path: path}
	}
	if fi, err := os.Stat(path); err != nil {
		return agent.Scan{}, from, fmt.Errorf("stat transcript: %w", err)
	} else if fi.Size() < from.Offset {
		from = events.Transcript{Path: path} // rewritten: start over
	}
	scan := rd.ScanFile
	if rs, ok := rd.(agent.RangeScanner); ok && end >= from.Offset {
		scan = func(path string, from events.Transcript) (agent.Scan, error) { return rs.ScanFileTo(path, from, end) }
	}
	sc, err := scan(path, from)
	if errors.Is(err, agent.ErrPastEnd) {
		from = events.Transcript{Path: path} // replaced or cut: start over
		sc, err = rd.ScanFile(path, from)
	}
	if err != nil {
		return sc, from, err
	}
	pos.Lines = from.Lines + sc.Lines
	pos.Offset = sc.EndOffset
	pos.LastUUID = from.LastUUID
	if sc.LastUUID != "" {
		pos.LastUUID = sc.LastUUID
	}
	return sc, pos, nil
}

// TurnStart handles a prompt submission: it initializes the session on its first prompt,
// records the transcript position and the dirty worktree before the agent acts, and decides
// whether the shadow branch continues or starts afresh (seed "single branch with overlap").
func (en *Engine) TurnStart(ctx context.Context, in events.TurnStarted) error {
	en.closeOpenTurn(ctx, in.SessionID, in.Agent, in.Transcript.Path, in.Prompt, in.AgentTurnID)
	if j, ok := reader(in.Agent).(agent.OpenTurnJoiner); ok && j.PromptJoinsOpenTurn() {
		in.JoinsOpenTurn = true
	}
	wt, err := en.worktreeFacts(ctx)
	if err != nil {
		return err
	}
	sess, err := en.Store.Open(in.SessionID)
	if err != nil {
		return err
	}
	defer CloseSession(en, sess)
	s := sess.State
	if err := en.otherWorktree(s, wt); err != nil {
		return err
	}
	in.Worktree = wt
	in.Strategy = en.autoStrategy()
	if sc, pos, err := scanPosition(reader(in.Agent), in.Transcript.Path, s.Recorder.Scanned); err == nil {
		in.Transcript = pos
		in.PriorPrompts = sc.Prompts
		in.Cwd = cmp.Or(sc.Cwd, in.Cwd)
		in.PrePrompt = &events.Transcript{Path: pos.Path, Lines: pos.Lines - sc.Lines, Offset: sc.StartOffset}
		in.LateUsage = lateUsage(reader(in.Agent), s, sc)
		if !s.Exists() {
			in.Restored = restoredStart(reader(in.Agent), s.Recorder.Restored, pos)
		}
	} else {
		in.Transcript = events.Transcript{Path: in.Transcript.Path}
	}
	st, err := en.dirtyStatus(ctx)
	if err != nil {
		return err
	}
	in.DirtyFiles = statusPaths(st)
	if !s.Exists() {
		for _, e := range st {
			if e.Untracked() {
				in.UntrackedFiles = append(in.UntrackedFiles, e.Path)
			}
		}
	}
	if in.ShadowExists, in.ShadowFiles, err = en.shadowFacts(ctx, wt, len(in.DirtyFiles) > 0); err != nil {
		return err
	}
	in.Attribution = en.promptAttribution(ctx, s, in.DirtyFiles)
	if in.TurnID == "" {
		if in.TurnID, err = checkpoint.NewCheckpointID(); err != nil {
			return err
		}
	}
	if !s.Exists() && en.Strategy != events.StrategyAutoCommit { // auto-commit has no shadow branch
		fmt.Fprintf(en.Stderr, "Initialized shadow session: %s\n", in.SessionID)
	}
	return en.Run(ctx, sess, en.Event(in))
}

// restoredStart is where the transcript `entire resume` (or a rewind) restored for a new
// session ends (r), when the transcript at pos, read whole at the session's first prompt,
// still begins with it: its file is the one restored, at least as long, with the same bytes
// before the restored end (a document rewritten whole, agent.Positioner, counts its messages
// instead). nil otherwise.
func restoredStart(rd agent.Transcript, r *events.TranscriptRestored, pos events.Transcript) *events.Transcript {
	if r == nil {
		return nil
	}
	for _, t := range r.Transcripts {
		if t.Path != pos.Path || t.Lines > pos.Lines || t.Lines == 0 {
			continue
		}
		if _, doc := rd.(agent.Positioner); !doc && (t.Offset > pos.Offset || fileSource(pos.Path, pos.Offset).tail(t.Offset) != r.Tail) {
			continue
		}
		return &t
	}
	return nil
}

// lateUsage is the token usage of the lines sc read at a prompt that the session's last turn
// end did not read, for an agent that may run its turn-end hook before it has written the turn
// (agent.Flusher): the turn's last lines, written after the hook's wait gave up, are the
// session's usage too. What that turn counted of its last response is not counted again. nil
// for a new session, a turn still open, or lines read from a file's start.
func lateUsage(rd agent.Transcript, s session.State, sc agent.Scan) *events.TokenUsage {
	if _, ok := rd.(agent.Flusher); !ok || !s.Exists() || s.Phase.Normalize() == session.PhaseActive {
		return nil
	}
	if s.Recorder.Scanned.Path == "" || s.Recorder.Scanned.Offset == 0 || sc.StartOffset != s.Recorder.Scanned.Offset || sc.UsageBeforeStart {
		return nil
	}
	u, _ := agent.ContinueUsage(sc.Usage, sc, s.Recorder.TurnOpen)
	if u.IsZero() {
		return nil
	}
	return &u
}

// shadowFacts observes HEAD's shadow branch at prompt start for the overlap check (seed 003,
// phase 1): whether it exists, and, when wanted, the paths its tip changes against HEAD.
func (en *Engine) shadowFacts(ctx context.Context, wt events.Worktree, wantFiles bool) (bool, []string, error) {
	if wt.Head == "" {
		return false, nil, nil
	}
	tip, ok, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(session.ShadowBranch(wt.Head, wt.ID)))
	if err != nil || !ok || !wantFiles {
		return ok, nil, err
	}
	diff, err := en.Repo.DiffTree(ctx, wt.Head, string(tip))
	if err != nil {
		return false, nil, err
	}
	files := make([]string, 0, len(diff))
	for _, d := range diff {
		if !checkpoint.IsInfrastructure(d.Path) {
			files = append(files, d.Path)
		}
	}
	return true, files, nil
}

// otherWorktree refuses a hook for a session recorded from another worktree (the same
// session ID used in two): rather than write this worktree's files onto that worktree's shadow
// branch, or move or orphan its state, the hook records nothing. A worktree is told apart by
// its git name (the sessions are the repository's, and each of its worktrees has its own), not
// by its path: a repository directory renamed or a linked worktree moved (`git worktree move`)
// is the same worktree at a new path, and its session goes on there (session.Evolve takes the
// new path).
func (en *Engine) otherWorktree(s session.State, wt events.Worktree) error {
	sameMark := s.Recorder.WorktreeMark == "" || s.Recorder.WorktreeMark == wt.Mark
	if !s.Exists() || s.WorktreePath == "" || (s.WorktreePath == wt.Path || s.WorktreeID == wt.ID) && sameMark {
		return nil
	}
	fmt.Fprintf(en.Stderr, "entire: session %s is already recorded in worktree %s; not recording it in %s\n", s.SessionID, s.WorktreePath, wt.Path)
	return fmt.Errorf("session ID conflict: session %s belongs to worktree %s, not %s", s.SessionID, s.WorktreePath, wt.Path)
}

// TurnEnd handles the end of an agent turn: it waits (bounded) for the transcript to be
// flushed, reads the turn's new lines, and records which files the agent left changed.
func (en *Engine) TurnEnd(ctx context.Context, in events.TurnEnded, lastAssistant string, started time.Time) error {
	return en.turnEnd(ctx, in, lastAssistant, started, -1)
}

// turnEnd is TurnEnd reading the transcript up to byte offset until when until >= 0 (a turn
// closed at the next prompt ends before that prompt's line). A turn the agent never closed
// (in.Implicit) is over: its transcript is read as it is, without waiting for a flush.
func (en *Engine) turnEnd(ctx context.Context, in events.TurnEnded, lastAssistant string, started time.Time, until int64) error {
	wt, err := en.worktreeFacts(ctx)
	if err != nil {
		return err
	}
	in.Worktree = wt
	if wt.Head == "" {
		fmt.Fprintln(en.Stderr, "Entire: skipping checkpoint. Will activate after first commit.")
		return fmt.Errorf("repository has no commits yet")
	}
	if _, err := os.Stat(in.Transcript.Path); err != nil {
		return fmt.Errorf("transcript missing: %w", err)
	}
	sess, err := en.Store.Open(in.SessionID)
	if err != nil {
		return err
	}
	defer CloseSession(en, sess)
	s := sess.State
	if err := en.otherWorktree(s, wt); err != nil {
		return err
	}
	from := s.Recorder.Scanned
	rd := reader(in.Agent)
	scan, pos, err := scanPositionTo(rd, in.Transcript.Path, from, until)
	if err != nil {
		return err
	}
	if in.Implicit {
		in.Flushed = true
	} else if scan, pos, in.Flushed, err = waitForTurnEnd(ctx, rd, in.Transcript.Path, from, scan, pos, lastAssistant, started); err != nil {
		return err
	}
	if !in.Flushed {
		en.Log.Warn("transcript not flushed within the wait; recording what is there", "path", in.Transcript.Path, "wait", flushWait.String())
	}
	if scan.LastAssistant == "" {
		scan.LastAssistant = lastAssistant
	}
	transcript := fileSource(in.Transcript.Path, pos.Offset).of(rd)
	en.turn = &turnFacts{scan: scan, prompt: s.Recorder.TurnPrompt, transcript: transcript, pos: pos}
	in.Transcript = pos
	in.Prompts = scan.Prompts
	in.Usage = transcript.rangeUsage(scan.StartOffset, scan)
	if scan.LastCall != "" {
		in.UsageOpen = &events.OpenCall{ID: scan.LastCall, Usage: scan.Calls[scan.LastCall]}
	}
	in.Usage.SubagentTokens = subagentUsage(rd, in.Transcript.Path, in.SessionID, scan.SubagentIDs)
	in.Cwd = cmp.Or(scan.Cwd, in.Cwd)
	in.Summary = agent.Truncate(scan.LastAssistant, agent.MaxTextBytes)
	if len(scan.ModifiedFiles) > 0 {
		// The agent edited files: a checkpoint is most likely. Its writers (the files' blobs,
		// the trees, the shadow branch's move) start up while git status runs; a turn that
		// only talked starts none.
		en.Repo.PrestartFileHashes()
		en.Repo.PrestartWrites()
	}
	st, err := en.dirtyStatus(ctx)
	if err != nil {
		return err
	}
	in.Edited, in.Dirty = session.MergeSorted(nil, en.relFiles(cmp.Or(in.Cwd, s.Recorder.AgentCwd), scan.ModifiedFiles)), statusPaths(st)
	if in.Implicit && scan.Lines == 0 {
		// A turn the agent never closed whose transcript holds nothing new (the turn a session
		// start opened, before the first prompt): nothing the worktree gained is the agent's.
		in.Edited, in.Dirty = nil, nil
	}
	if !s.Exists() || in.Implicit && s.Phase.Normalize() != session.PhaseActive {
		// No turn start is known (a Stop arriving after its session ended and was retired, or
		// after its state was removed, or a turn whose hooks never ran, closed from an idle
		// session): nothing says what was dirty before the turn, so only the dirty files the
		// transcript shows the agent editing are its, not the user's edits.
		in.Dirty = onlyIn(in.Dirty, in.Edited)
	}
	if len(scan.ModifiedFiles) > 0 {
		en.startWorktreeChanges(ctx, wt.Head, in.Dirty)
		defer en.settleAhead()
	}
	if in.Strategy = en.autoStrategy(); in.Strategy != "" {
		if in.CheckpointID, err = checkpoint.NewCheckpointID(); err != nil {
			return err
		}
		in.Modified = modifiedPaths(st)
		candidates := autoCommitCandidates(in.Dirty, in.Modified, in.Edited, s.Recorder.DirtyAtTurnStart)
		in.Claimed = en.claimedByPeers(in.SessionID, candidates)
		if s.BaseCommit != "" && s.BaseCommit != wt.Head {
			in.Claimed = session.MergeSorted(in.Claimed, en.unchangedSince(ctx, s.BaseCommit, candidates))
		}
		in.Captured = en.captureFiles(ctx, in.CheckpointID, session.AutoCommitFiles(s, in))
	}
	return en.Run(ctx, sess, en.Event(in))
}

// onlyIn is the elements of list that keep holds, in list's order; nil when none.
func onlyIn(list, keep []string) []string {
	var out []string
	for _, x := range list {
		if slices.Contains(keep, x) {
			out = append(out, x)
		}
	}
	return out
}

// subagentUsage is the usage of the subagents a turn's lines report (entire-format.md §12.3),
// read from their own transcripts when the agent keeps them (agent.SubagentCounter), or nil.
// The session's token usage counts it; a checkpoint's does not.
func subagentUsage(rd agent.Transcript, transcript, sessionID string, ids []string) *events.TokenUsage {
	c, ok := rd.(agent.SubagentCounter)
	if !ok || len(ids) == 0 {
		return nil
	}
	return c.SubagentUsage(transcript, sessionID, ids)
}

// SessionStart handles the agent's session-start hook. It returns the other sessions of this
// worktree that have uncommitted checkpoints on the current HEAD (they will share the next
// commit's checkpoint).
func (en *Engine) SessionStart(ctx context.Context, in events.SessionStarted) ([]session.State, error) {
	wt, err := en.worktreeFacts(ctx)
	if err != nil {
		return nil, err
	}
	in.Worktree = wt
	var others []session.State
	states, err := en.Store.List()
	if err != nil {
		return nil, err
	}
	for _, s := range states {
		if s.SessionID == in.SessionID {
			continue
		}
		// Any phase: an ended session's uncommitted checkpoints join the next commit too.
		if s.WorktreePath == wt.Path && s.BaseCommit == wt.Head && s.CheckpointCount > 0 {
			others = append(others, s)
		}
	}
	// Journaled for a new session too: its state begins with the first prompt, and a session
	// that ends before one leaves nothing behind (session_stopped discards it).
	sess, err := en.Store.Open(in.SessionID)
	if err != nil {
		return others, err
	}
	defer CloseSession(en, sess)
	return others, en.Run(ctx, sess, en.Event(in))
}

// closeOpenTurn ends, from the transcript, a turn the agent never closed: for agents whose
// turn-end hook may not fire (agent.TurnEndUnreliable), the next turn start records the turn
// first. The new prompt's line, when the agent wrote it before the hook, is left to the new
// turn; a prompt the agent gives the open turn's own ID (turnID, Codex's turn_id of a message
// typed while the model works) is more input to that turn and closes nothing. A failure is
// logged; the hook goes on.
func (en *Engine) closeOpenTurn(ctx context.Context, sessionID, agentType, transcript, prompt, turnID string) {
	a, _ := agents.ByType(agentType)
	if u, ok := a.(agent.TurnEndUnreliable); !ok || !u.TurnEndUnreliable() {
		return
	}
	en.closeTurn(ctx, sessionID, agentType, transcript, prompt, turnID)
}

// closeTurn is closeOpenTurn for every agent: at the session's end, a turn still open never
// got its end hook (an interrupt), whatever the agent, and its work is recorded first.
func (en *Engine) closeTurn(ctx context.Context, sessionID, agentType, transcript, prompt, turnID string) {
	a, _ := agents.ByType(agentType)
	s, err := en.Store.Peek(sessionID)
	if err != nil || !s.Exists() {
		return
	}
	open := s.Phase.Normalize() == session.PhaseActive
	if open && session.ContinuesTurn(s, events.TurnStarted{AgentTurnID: turnID}) {
		return // the open turn goes on
	}
	if transcript == "" {
		transcript = s.TranscriptPath
	}
	if _, err := os.Stat(transcript); err != nil {
		return // nothing written yet: the turn has nothing to record
	}
	until := newPromptLine(a, transcript, s.Recorder.Scanned, prompt)
	if !open && !en.lostTurnEdits(reader(agentType), transcript, s.Recorder.Scanned, prompt, until) {
		return
	}
	en.Log.Info("closing a turn the agent did not end", "session_id", sessionID)
	if err := en.turnEnd(ctx, events.TurnEnded{SessionID: sessionID, Agent: agentType, Transcript: events.Transcript{Path: transcript}, Implicit: true}, "", time.Now(), until); err != nil {
		en.Log.Warn("close open turn", "session_id", sessionID, "error", err.Error())
	}
	en.turn = nil // the hook's own event is not that turn's
}

// lostTurnEdits reports whether the transcript since from, up to the new prompt's line until
// (to its end at the session's end, prompt ""), shows the agent editing files while the session
// was not in a turn: a whole turn whose hooks never ran (its prompt and its end both killed or
// lost), whose files no later turn claims (they were there before that turn's prompt), so that
// its work was committed nowhere under auto-commit and a commit of it was not linked.
func (en *Engine) lostTurnEdits(rd agent.Transcript, path string, from events.Transcript, prompt string, until int64) bool {
	if until < 0 && prompt != "" {
		return false // the new prompt's line cannot be left out of the range
	}
	if from.Path != path {
		return false // no position of this transcript was read yet (a state the reference left)
	}
	// A lost turn begins with its prompt's line: edits with none before them are the last lines
	// of the turn recorded last, written after its end hook read the transcript (agent.Flusher).
	sc, _, err := scanPositionTo(rd, path, from, until)
	return err == nil && len(sc.Prompts) > 0 && len(sc.ModifiedFiles) > 0
}

// SessionEnd handles the agent's session-end hook.
func (en *Engine) SessionEnd(ctx context.Context, in events.SessionStopped) error {
	en.closeTurn(ctx, in.SessionID, in.Agent, "", "", "")
	if _, err := os.Stat(en.Store.JournalPath(in.SessionID)); err != nil {
		return nil // nothing recorded for this session
	}
	sess, err := en.Store.Open(in.SessionID)
	if err != nil {
		return err
	}
	defer CloseSession(en, sess)
	return en.Run(ctx, sess, en.Event(in))
}

// newPromptLine is the byte offset of prompt's line when it is the transcript's last prompt
// since from and no answer follows it (the agent wrote the prompt before running the hook),
// else -1. Only for agents whose reader can stop at an offset (agent.RangeScanner).
func newPromptLine(rd agent.Transcript, path string, from events.Transcript, prompt string) int64 {
	if _, ok := rd.(agent.RangeScanner); !ok || strings.TrimSpace(prompt) == "" {
		return -1
	}
	if from.Path != path {
		from = events.Transcript{Path: path}
	}
	start, last, off := int64(-1), "", from.Offset
	_, err := agent.ScanLines(path, from.Offset, func(line []byte) {
		sc := rd.ScanBytes(append(line, '\n'))
		switch {
		case len(sc.Prompts) > 0:
			start, last = off, sc.Prompts[len(sc.Prompts)-1]
		case sc.LastAssistant != "" || len(sc.Actions) > 0:
			start, last = -1, "" // answered: not the new prompt
		}
		off += int64(len(line)) + 1
	})
	// The transcript keeps the prompt without the tags the agent adds around it.
	if err != nil || last == "" || !strings.Contains(prompt, last) {
		return -1
	}
	return start
}

// CloseSession closes a session opened for writing, logging a failure to write its state.
func CloseSession(en *Engine, sess *session.Session) {
	if err := sess.Close(); err != nil {
		en.Log.Error("close session", "session_id", sess.ID, "error", err.Error())
	}
}

// waitForTurnEnd waits, at most flushWait from the hook's start, until the transcript holds the
// turn's last assistant message: Claude Code can run Stop before it has written the last lines
// (agent-hooks §1.7). With the message from the payload the criterion is exact; without it,
// the transcript tail is watched for Claude's hook_progress record or a stable size.
func waitForTurnEnd(ctx context.Context, rd agent.Transcript, path string, from events.Transcript, scan agent.Scan, pos events.Transcript, last string, started time.Time) (agent.Scan, events.Transcript, bool, error) {
	if last == "" {
		flushed := true
		if f, ok := rd.(agent.Flusher); ok {
			flushed = f.WaitForFlush(ctx, path, started, flushWait)
		}
		scan, pos, err := scanPosition(rd, path, from)
		return scan, pos, flushed, err
	}
	deadline := started.Add(flushWait)
	for !sameMessage(scan.LastAssistant, last) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return scan, pos, false, nil
		}
		time.Sleep(50 * time.Millisecond)
		var err error
		if scan, pos, err = scanPosition(rd, path, from); err != nil {
			return scan, pos, false, err
		}
	}
	return scan, pos, true, nil
}

// sameMessage compares the transcript's last text block with the payload's last message, which
// may join several blocks.
func sameMessage(block, payload string) bool {
	block, payload = strings.TrimSpace(block), strings.TrimSpace(payload)
	return block != "" && (block == payload || strings.HasSuffix(payload, block))
}
