package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
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
func (en *Engine) worktreeSessions() ([]session.State, error) {
	head, _ := en.Repo.HeadAtOpen()
	return en.Store.ListWhere(func(b session.Brief) bool { return b.Live(en.Repo.TopLevel, string(head)) })
}

// changeSource tells which of some paths a commit changes: a whole diff filtered (post-commit
// has the commit's), or the staged changes of just those paths (prepare-commit-msg, before the
// commit exists).
type changeSource func(ctx context.Context, paths []string) ([]gitexec.DiffEntry, error)

// diffSource answers from a whole diff. A path asked about may be one the journal holds for a
// file whose name is not UTF-8 (asRecorded): the diff's paths are matched in that form too.
func diffSource(diff []gitexec.DiffEntry) changeSource {
	return func(_ context.Context, paths []string) ([]gitexec.DiffEntry, error) {
		want := map[string]bool{}
		recorded := false
		for _, p := range paths {
			want[p] = true
			recorded = recorded || strings.ContainsRune(p, utf8.RuneError)
		}
		var out []gitexec.DiffEntry
		for _, d := range diff {
			if want[d.Path] || recorded && want[asRecorded(d.Path)] {
				out = append(out, d)
			}
		}
		return out, nil
	}
}

// asRecorded is a path as the journal and the state file hold it: JSON cannot say a byte that
// is not UTF-8, and encoding/json writes U+FFFD for each. A session's files come back from
// them in that form, so a file whose name is not UTF-8 is matched against git's paths so.
func asRecorded(p string) string {
	if utf8.ValidString(p) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(p[i : i+n])
		}
		i += n
	}
	return b.String()
}

// stagedSource answers from the index and HEAD for the paths asked about, reading only their
// directories; where the index cannot tell, or a path may stand for a name that is not UTF-8
// (asRecorded), from the whole staged diff, read once.
func (en *Engine) stagedSource() changeSource {
	var whole changeSource
	return func(ctx context.Context, paths []string) ([]gitexec.DiffEntry, error) {
		recorded := slices.ContainsFunc(paths, func(p string) bool { return strings.ContainsRune(p, utf8.RuneError) })
		if whole == nil {
			if !recorded {
				changes, ok, err := en.Repo.StagedPaths(ctx, paths)
				if err != nil || ok {
					return changes, err
				}
			}
			staged, err := en.Repo.StagedChanges(ctx)
			if err != nil {
				return nil, err
			}
			whole = diffSource(staged)
		}
		return whole(ctx, paths)
	}
}

// linkFacts decides whether a commit's changes carry a session's work. overlap is the
// content-aware check of the seeds: a touched file that existed before always counts, a new
// file counts only when its content is the session's (the shadow branch's blob). grew reports
// transcript activity since the last condensation that edited one of the changed files, and
// edited the files the transcript shows edited there (when it was read).
//
// The touched files are asked about a few at a time, the first ones first: the first changed
// file that existed before decides, so a commit of the session's work reads the directories of
// a few of its files, not those of the whole change.
func (en *Engine) linkFacts(ctx context.Context, s session.State, changed changeSource) (overlap, grew bool, edited []string, err error) {
	touched := slices.Clone(s.FilesTouched)
	slices.Sort(touched) // neighbours share directories
	var newFiles []string
	newOIDs := map[string]gitexec.OID{}
	for start, n := 0, 8; start < len(touched) && !overlap; start, n = start+n, n*4 {
		changes, err := changed(ctx, touched[start:min(start+n, len(touched))])
		if err != nil {
			return false, false, nil, err
		}
		for _, c := range changes {
			if c.Status != 'A' {
				overlap = true
				break
			}
			newFiles = append(newFiles, c.Path)
			newOIDs[c.Path] = c.NewOID
		}
	}
	if !overlap && len(newFiles) > 0 {
		if s.Recorder.LastShadowCommit == "" {
			overlap = true
		} else {
			shadow, err := en.blobOIDs(ctx, s.Recorder.LastShadowCommit, newFiles)
			if err != nil {
				return false, false, nil, err
			}
			for _, p := range newFiles {
				if overlap, err = en.sameNewFile(ctx, shadow, p, newOIDs[p]); err != nil || overlap {
					break
				}
			}
		}
	}
	if s.Phase == session.PhaseEnded || s.TranscriptPath == "" {
		return overlap, false, nil, nil
	}
	// Outside a turn the transcript only matters for a session with no work of its own whose
	// files the commit overlaps (shouldCondense); don't read it on every commit otherwise.
	if s.Phase.Normalize() != session.PhaseActive && (s.HasNewContent() || !overlap) {
		return overlap, false, nil, nil
	}
	fi, err := os.Stat(s.TranscriptPath)
	if err == nil {
		foreignCondensed(&s, fileSource(s.TranscriptPath, fi.Size()).of(reader(s.AgentType)))
	}
	if err != nil || fi.Size() <= s.Recorder.CondensedOffset {
		return overlap, false, nil, nil
	}
	from := s.Condensed()
	from.Path = s.TranscriptPath
	sc, err := reader(s.AgentType).ScanFile(s.TranscriptPath, from)
	if err != nil {
		return overlap, false, nil, nil
	}
	edited = en.relFiles(cmp.Or(sc.Cwd, s.Recorder.AgentCwd), sc.ModifiedFiles)
	if len(edited) > 0 {
		changes, err := changed(ctx, edited)
		if err != nil {
			return overlap, false, edited, err
		}
		grew = len(changes) > 0
	}
	return overlap, grew, edited, nil
}

// PrepareCommitMsg adds the Entire-Checkpoint trailer to a commit that carries session work
// (spec §4.3): agents get it directly, people are asked or shown an explanatory comment.
// amend tells that the commit amends HEAD (git reports it only without -m, as source "commit").
// The link decision is journaled to each linked session (CommitPrepared) before the message
// is written, so post-commit condenses exactly the sessions the trailer was written for.
func (en *Engine) PrepareCommitMsg(ctx context.Context, file, source string, amend bool, term Terminal) error {
	switch {
	case en.Repo.SequencerInProgress():
		en.logNotLinked("a rebase, cherry-pick or revert is in progress")
		return nil
	case source == "merge" || source == "squash":
		en.logNotLinked(source + " commit")
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read commit message: %w", err)
	}
	msg := string(data)
	present, hasTrailer := checkpoint.ParseCheckpointTrailer(msg)
	comment := sync.OnceValue(func() string { // asked only when the message is written
		c, err := commentPrefix(ctx, en.Repo)
		if err != nil {
			en.Log.Warn("read the comment prefix; writing no comment", "error", err.Error())
		}
		return c
	})
	sessions, err := en.worktreeSessions()
	if err != nil {
		return err
	}
	if len(sessions) == 0 {
		en.logNotLinked("no session in this worktree")
		return nil
	}
	head, _ := en.Repo.HeadAtOpen()
	if source == "commit" || amend { // --amend, -c, -C: keep or restore the link
		if hasTrailer {
			en.logLinked("kept", present, nil)
			return nil
		}
		if amend { // --amend -m: the commit replaces HEAD, whose trailers it keeps
			if prev, err := en.Repo.CommitMessage(ctx, string(head)); err == nil {
				if ids := checkpoint.CheckpointTrailers(prev); len(ids) > 0 {
					for _, id := range ids {
						msg = checkpoint.AppendTrailer(msg, id, comment())
					}
					if err := writeMessage(file, msg); err != nil {
						return err
					}
					for _, id := range ids {
						en.logLinked("restored", id, nil)
					}
					return nil
				}
			}
		}
		if source == "commit" { // spec §4.3 step 3: restore the last checkpoint
			for _, s := range sessions {
				if s.BaseCommit == string(head) && s.LastCheckpointID != "" {
					if err := writeMessage(file, checkpoint.AppendTrailerReused(msg, s.LastCheckpointID, comment())); err != nil {
						return err
					}
					en.logLinked("restored", s.LastCheckpointID, []session.State{s})
					return nil
				}
			}
		}
		// Nothing to keep or restore: an amend of an unlinked HEAD (with -m, or --no-edit and
		// the editor, which arrive as "commit") or a -c/-C commit links like any other commit
		// when it carries session work, or the work it folds in would be recorded nowhere. One
		// that stages nothing (a reworded or re-dated HEAD) carries no work at all.
		if staged, err := en.Repo.StagedChanges(ctx); err == nil && len(staged) == 0 {
			en.logNotLinked("the commit reuses a message and stages nothing")
			return nil
		}
	}
	if hasTrailer {
		en.logLinked("kept", present, nil)
		return nil
	}
	if source == "message" && checkpoint.EmptyMessage(msg) {
		// git aborts a commit whose message has no text; a trailer would be its text under
		// --no-verify, which skips the commit-msg hook that removes it.
		en.logNotLinked("the message is empty: git aborts the commit")
		return nil
	}
	linked, byAgent, err := en.linkedSessions(ctx, sessions, term)
	if err != nil {
		return err
	}
	if len(linked) == 0 {
		en.logNotLinked("the commit carries no session's work")
		return nil
	}
	id, err := checkpoint.NewCheckpointID()
	if err != nil {
		return err
	}
	agentType := agentOrDefault(linked[0].AgentType)
	prompt := agent.LastPromptPreview(linked[0].Recorder.TurnPrompt)
	// A message the user gave (-m, -F) or reused (-c, -C, --amend) is asked about; the
	// trailer is appended to it, since with --no-edit or -C no editor shows a comment.
	given := source == "message" || source == "commit"
	if given && term.Available() {
		ctxLines := []string{"You have an active " + agentType + " session."}
		if prompt != "" {
			ctxLines = append(ctxLines, "Last Prompt: "+prompt)
		}
		if !term.Confirm(ctxLines, "Link this commit to "+agentType+" session context? [Y/n] ", true) {
			en.logNotLinked("declined at the prompt")
			return nil
		}
	}
	for _, s := range linked {
		if err := en.appendDurably(s.SessionID, events.CommitPrepared{CheckpointID: id}); err != nil {
			return err // no trailer without its journaled decision
		}
	}
	crashPoint("journaled:" + string(events.TypeCommitPrepared))
	switch {
	case source == "commit":
		msg = checkpoint.AppendTrailerReused(msg, id, comment())
	case given || byAgent:
		msg = checkpoint.AppendTrailer(msg, id, comment())
	default:
		msg = checkpoint.InsertTrailerWithComment(msg, id, agentType, prompt, comment())
	}
	if err := writeMessage(file, msg); err != nil {
		return err
	}
	en.logLinked("added", id, linked)
	return nil
}

// linkedSessions decides which sessions the staged commit carries work of: the staged
// changes decide, content-aware. An agent committing during its turn (no terminal: byAgent)
// links the active sessions among them; when the commit carries no session's known work (files
// written by a shell command) it links every active session, so that the agent's commit is
// recorded. An active session whose work the commit does not carry (another agent's, or one
// that died mid-turn and never reached Stop) is not given a slot with someone else's files. An
// overlap check that fails counts as overlap: a link too many costs a checkpoint, a link too
// few loses the session's record of the commit.
func (en *Engine) linkedSessions(ctx context.Context, sessions []session.State, term Terminal) (linked []session.State, byAgent bool, err error) {
	var active []session.State
	if !term.Available() {
		for _, s := range sessions {
			if s.Phase == session.PhaseActive && s.Recorder.Strategy != events.StrategyAutoCommit {
				active = append(active, s)
			}
		}
		if len(sessions) == 1 && len(active) == 1 {
			return active, true, nil // the one session: linked whatever the commit carries
		}
	}
	staged := en.stagedSource()
	for _, s := range sessions {
		if session.LinksCommit(s, en.commitFacts(ctx, s, events.GitCommitted{CheckpointID: "-"}, staged)) {
			linked = append(linked, s)
		}
	}
	if len(active) == 0 {
		return linked, false, nil
	}
	var carried []session.State
	for _, s := range linked {
		if s.Phase == session.PhaseActive && s.Recorder.Strategy != events.StrategyAutoCommit {
			carried = append(carried, s)
		}
	}
	switch {
	case len(carried) > 0:
		return carried, true, nil
	case len(linked) > 0:
		return linked, true, nil // idle sessions' work: post-commit condenses them
	}
	return active, true, nil
}

// fileOwners maps each file a session's checkpoints touched to those sessions.
func fileOwners(sessions []session.State) map[string][]string {
	owners := map[string][]string{}
	for _, s := range sessions {
		for _, f := range s.FilesTouched {
			owners[f] = append(owners[f], s.SessionID)
		}
	}
	return owners
}

// claimedByOthers are the files of a commit that a session other than id touched.
func claimedByOthers(owners map[string][]string, id string, files []string) []string {
	var out []string
	for _, f := range files {
		if slices.ContainsFunc(owners[f], func(o string) bool { return o != id }) {
			out = append(out, f)
		}
	}
	return out
}

// commitFacts completes a commit's facts for one session with the content-aware overlap check,
// under the single failure policy of linkedSessions.
func (en *Engine) commitFacts(ctx context.Context, s session.State, base events.GitCommitted, changed changeSource) events.GitCommitted {
	ev := base
	ev.Transcript = events.Transcript{Path: s.TranscriptPath}
	var err error
	var edited []string
	ev.Overlap, ev.TranscriptGrew, edited, err = en.linkFacts(ctx, s, changed)
	if len(s.FilesTouched) == 0 && s.Phase.Normalize() == session.PhaseActive {
		ev.TurnEdited = edited // carry-forward's candidates before any checkpoint (one scan)
	}
	if err != nil {
		en.Log.Warn("overlap check failed; counted as overlap", "session_id", s.SessionID, "error", err.Error())
		ev.Overlap = true
	}
	return ev
}

// appendDurably journals one input event to a session and makes it durable.
func (en *Engine) appendDurably(id string, p events.Payload) error {
	sess, err := en.Store.Open(id)
	if err != nil {
		return err
	}
	defer CloseSession(en, sess)
	if err := sess.Append(en.Event(p)); err != nil {
		return err
	}
	return sess.SyncState()
}

// writeMessage replaces the commit message file by renaming a complete copy over it: a hook
// killed mid-write (a hook runner's timeout) must leave git the message it had, never an empty
// file, which would abort the commit.
func writeMessage(file, msg string) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".entire-*")
	if err != nil {
		return fmt.Errorf("write commit message: %w", err)
	}
	_, err = tmp.WriteString(msg)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write commit message: %w", err)
	}
	return nil
}

// copiedDepth bounds how far back historyCarries looks for the commit a message was reused
// from.
const copiedDepth = 100

// historyCarries reports whether one of commit's recent first-parent ancestors carries
// checkpoint trailer id: the message was reused from it with commit -c/-C (an amend replaces
// the commit it reuses instead), so that commit stays in the history, linked to the
// checkpoint. Until 2026-11-27 only the first parent was looked at: `git commit -C HEAD~1`
// took the older commit's files out of its checkpoint. A commit made on top of HEAD (the HEAD
// reflog says so) is no amend: its trailer was reused from a commit that stays, on this branch
// or another (until 2026-11-28 `git commit -C feature` took that commit's files out of its
// checkpoint). A trailer prepare-commit-msg has just written (prepared) is new: there is
// nothing to look for.
func (en *Engine) historyCarries(ctx context.Context, commit, id string, prepared bool) bool {
	parents, err := en.Repo.CommitParents(ctx, commit)
	if prepared || err != nil || len(parents) == 0 {
		return false
	}
	if prev, ok := previousHead(en.Repo.GitDir, commit); ok && prev == string(parents[0]) {
		// Made on top of HEAD, not an amend, which replaces HEAD: the trailer was reused from
		// a commit that stays, wherever it is (`git commit -C feature`, another branch's).
		return true
	}
	msg, err := en.Repo.CommitMessage(ctx, string(parents[0]))
	if err != nil || slices.Contains(checkpoint.CheckpointTrailers(msg), id) {
		return err == nil
	}
	out, err := en.Repo.Run(ctx, nil, "log", "-z", "--first-parent", "-n"+strconv.Itoa(copiedDepth), "--format=%B", string(parents[0])+"^", "--")
	if err != nil {
		return false // the parent is a root commit
	}
	for _, m := range strings.Split(string(out), "\x00") {
		if slices.Contains(checkpoint.CheckpointTrailers(m), id) {
			return true
		}
	}
	return false
}

// previousHead is what HEAD was before it moved to commit, read from the last entry of the
// worktree's HEAD reflog (gitDir/logs/HEAD); false when that entry is not commit's (no reflog,
// or HEAD moved again since).
func previousHead(gitDir, commit string) (string, bool) {
	f, err := os.Open(filepath.Join(gitDir, "logs", "HEAD"))
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false
	}
	const tail = 4096
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return "", false
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	f1 := strings.Fields(lines[len(lines)-1])
	if len(f1) < 2 || f1[1] != commit {
		return "", false
	}
	return f1[0], true
}

// CommitMsgFacts are what commit-msg may ask about the git commit running it (cmd/entire reads
// git's command line); each is asked only when the message needs the answer.
type CommitMsgFacts struct {
	// Given tells whether git commit was given the message (-m, -F, -C) and does not edit it,
	// so that its cleanup keeps comment lines as text, unless commit.cleanup is "strip": a
	// message such as "#12 fix" is then the commit's text, and its trailer is not removed as
	// the only text left (until 2026-11-27 it was, and the commit carrying the agent's work was
	// not linked).
	Given func() bool
	// Template is the template file given with -t (absolute), "" for none: commit.template
	// is read then.
	Template func() string
	// Cleanup is the --cleanup mode git commit was given (the last), "" for none: commit.cleanup
	// is read then. Only "strip" (the editor flow's default) lets git abort an untouched template.
	Cleanup func() string
}

// CommitMsg removes the explanatory comment prepare-commit-msg wrote, and a checkpoint trailer
// that is the message's only content (spec §4.4), from the message of a commit in the worktree
// at dir. It opens the repository, to learn the comment prefix, only when the message holds
// either. In the editor flow, a template the user left as it was loses its trailer too, so that
// git aborts the commit as the user meant ("you did not edit the message"; until 2026-11-27 the
// trailer made the message differ from the template, and the unedited template was committed).
func CommitMsg(ctx context.Context, dir, file string, facts CommitMsgFacts) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read commit message: %w", err)
	}
	msg := string(data)
	if !checkpoint.MayNeedCleaning(msg) {
		return nil
	}
	comment := "" // unknown: any character git could pick counts
	repo, err := gitexec.Open(ctx, dir)
	if err == nil {
		defer repo.Close()
		comment, _ = commentPrefix(ctx, repo)
	}
	out, changed := checkpoint.CleanCommitMsg(msg, comment)
	if !changed {
		return nil
	}
	if repo != nil && !checkpoint.EmptyMessage(out) && facts.Given() {
		if mode, err := repo.CommitCleanup(ctx); err == nil && !strings.EqualFold(mode, "strip") {
			return nil // the comment-like lines are the message's text: git keeps them
		}
	}
	if repo != nil && checkpoint.HasHelpComment(msg) {
		if _, linked := checkpoint.ParseCheckpointTrailer(out); linked && templateUntouched(ctx, repo, out, comment, facts.Template) && stripCleanup(ctx, repo, facts.Cleanup) {
			out = checkpoint.DropTrailers(out)
		}
	}
	return writeMessage(file, out)
}

// stripCleanup reports whether the editor flow's git commit cleans its message in "strip" mode
// (its --cleanup, else commit.cleanup, else the default): git compares the message with the
// template only then (verbatim, whitespace and scissors keep comment lines, and git commits an
// untouched template). An unreadable commit.cleanup counts as the default.
func stripCleanup(ctx context.Context, repo *gitexec.Repo, given func() string) bool {
	mode := ""
	if given != nil {
		mode = given()
	}
	if mode == "" {
		mode, _ = repo.CommitCleanup(ctx)
	}
	return mode == "" || mode == "default" || mode == "strip"
}

// templateUntouched reports whether msg is the commit template (given, else commit.template)
// left as it was but for the trailer (checkpoint.TemplateUntouched).
func templateUntouched(ctx context.Context, repo *gitexec.Repo, msg, comment string, given func() string) bool {
	path := given()
	if path == "" {
		p, err := repo.CommitTemplate(ctx)
		if err != nil || p == "" {
			return false
		}
		if path = p; !filepath.IsAbs(path) {
			path = filepath.Join(repo.TopLevel, path)
		}
	}
	tmpl, err := os.ReadFile(path)
	return err == nil && checkpoint.TemplateUntouched(msg, string(tmpl), comment)
}

// commentPrefix is the prefix of the comment lines git writes into, and drops from, the
// messages of commits in repo; "" when git picks it for each message (core.commentChar=auto)
// or it is one a hook cannot write (empty, or with blanks).
func commentPrefix(ctx context.Context, repo *gitexec.Repo) (string, error) {
	v, err := repo.CommentString(ctx)
	if err != nil || v == "" || strings.EqualFold(v, "auto") || strings.ContainsAny(v, " \t\r\n") {
		return "", err
	}
	return v, nil
}

// PostCommit condenses every session of this worktree that the new commit links to (spec
// §3.8), then deletes the shadow branches that no longer hold anyone's uncondensed work. The
// commit's facts are journaled to every involved session, durably, before any git work: if
// this process dies or git fails, the condensation stays pending and the next hook or command
// writes it, into the same checkpoint ID and slot.
func (en *Engine) PostCommit(ctx context.Context) error {
	head, ok := en.Repo.HeadAtOpen()
	if !ok || en.recorded == string(head) {
		return nil
	}
	all, err := en.worktreeSessions()
	if err != nil {
		return err
	}
	if missed := en.missedPrepared(ctx, string(head), all); missed != "" {
		if err := en.postCommitAt(ctx, missed, nil); err != nil {
			en.Log.Error("record an earlier linked commit", "commit", missed, "error", err.Error())
		}
		all = nil // their states moved on: read again
	}
	return en.postCommitAt(ctx, string(head), all)
}

// commitCheckpoint is the checkpoint a commit naming ids is recorded in: the one
// prepare-commit-msg linked it to, else its last one, the one readers take for its newest
// (resume, rewind) when it names several (a squash, amended): recorded in the first, an
// amend's new turn was restored by none of them.
func commitCheckpoint(ids []string, sessions []session.State) string {
	for _, s := range sessions {
		if id := s.Recorder.PreparedID; id != "" && slices.Contains(ids, id) {
			return id
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return ids[len(ids)-1]
}

// missedPrepared is a commit below head that prepare-commit-msg linked (a session's PreparedID
// is its trailer) but whose post-commit never recorded it: killed, and head's commit made
// without prepare-commit-msg, which would otherwise have journaled a new decision first. Only
// head's recent first-parent ancestors after the session's last recorded commit are looked
// at; "" when none carries it.
func (en *Engine) missedPrepared(ctx context.Context, head string, sessions []session.State) string {
	const depth = 10
	var headID string
	headRead := false
	for _, s := range sessions {
		id := s.Recorder.PreparedID
		if id == "" || s.Recorder.LastCommit == head {
			continue
		}
		if !headRead {
			headRead = true
			msg, err := en.Repo.CommitMessage(ctx, head)
			if err != nil {
				return ""
			}
			headID, _ = checkpoint.ParseCheckpointTrailer(msg)
		}
		if id == headID {
			continue // head's own: recorded next, as always
		}
		c := head
		for range depth {
			parents, err := en.Repo.CommitParents(ctx, c)
			if err != nil || len(parents) == 0 || string(parents[0]) == s.Recorder.LastCommit {
				break
			}
			c = string(parents[0])
			msg, err := en.Repo.CommitMessage(ctx, c)
			if err != nil {
				break
			}
			if slices.Contains(checkpoint.CheckpointTrailers(msg), id) {
				return c
			}
		}
	}
	return ""
}

// postCommitAt records commit (HEAD, or a commit below it that missedPrepared found) for the
// worktree's sessions; all is their listing when the caller has it, else nil.
func (en *Engine) postCommitAt(ctx context.Context, commit string, all []session.State) error {
	head := gitexec.OID(commit)
	var err error
	if all == nil {
		if all, err = en.worktreeSessions(); err != nil {
			return err
		}
	}
	var sessions []session.State
	for _, s := range all {
		if s.Recorder.LastCommit != string(head) { // recorded already (by a hook after a crash)
			sessions = append(sessions, s)
		}
	}
	if len(sessions) == 0 {
		en.recorded = string(head)
		return nil
	}
	at := en.ObserveCommit(ctx, string(head))
	msg, err := en.Repo.CommitMessage(ctx, string(head))
	if err != nil {
		return err
	}
	id := commitCheckpoint(checkpoint.CheckpointTrailers(msg), sessions)
	base := events.GitCommitted{Commit: string(head), CheckpointID: id, Sequencer: at.Sequencer, Branch: at.Branch}
	var diff []gitexec.DiffEntry
	if id != "" && !base.Sequencer {
		// The record's commits get the author and committer commit-tree would give them
		// here, in the pack of their trees: one git process fewer.
		en.Repo.AdoptIdentity(ctx, head)
		if diff, err = en.commitDiff(ctx, string(head)); err != nil {
			return err
		}
		prepared := slices.ContainsFunc(sessions, func(s session.State) bool { return s.Recorder.PreparedID == id })
		base.Copied = en.historyCarries(ctx, string(head), id, prepared)
		for _, d := range diff {
			base.Files = append(base.Files, d.Path)
		}
	}
	type recorded struct {
		sess    *session.Session
		input   events.Event
		effects []session.Effect
		tried   map[string]bool
	}
	var recs []recorded
	defer func() {
		for _, r := range recs {
			CloseSession(en, r.sess)
		}
	}()
	others := map[string]session.State{}
	complete := true // every session recorded (or with nothing to record)
	owners := fileOwners(sessions)
	for _, peek := range sessions {
		if peek.Phase == session.PhaseEnded && !peek.HasNewContent() && len(session.Pending(peek)) == 0 {
			continue // finished sessions cost nothing to later commits
		}
		if id == "" && peek.Phase != session.PhaseActive && len(session.Pending(peek)) == 0 {
			continue
		}
		sess, err := en.Store.Open(peek.SessionID)
		if err != nil {
			en.Log.Error("open session", "session_id", peek.SessionID, "error", err.Error())
			complete = false
			continue
		}
		if sess.State.Recorder.LastCommit == string(head) {
			CloseSession(en, sess) // another hook recorded it while we looked (see DrainPending)
			continue
		}
		if _, err := en.drain(ctx, sess, nil, nil); err != nil { // earlier commits first
			en.Log.Error("pending work", "session_id", sess.ID, "error", err.Error())
		}
		if sess.Removed() {
			continue // a maintenance command removed it: no commit to record
		}
		ev := base
		ev.Transcript = events.Transcript{Path: sess.State.TranscriptPath}
		if id != "" && !base.Sequencer {
			ev = en.commitFacts(ctx, sess.State, base, diffSource(diff))
			ev.Claimed = claimedByOthers(owners, sess.ID, base.Files)
			// A session with work carries its uncommitted files onto the new HEAD whether the
			// commit condenses it or not (session.FollowCommit).
			if sess.State.Recorder.PreparedID == id || sess.State.HasNewContent() || session.LinksCommit(sess.State, ev) {
				if ev, err = en.carryFacts(ctx, sess.State, ev); err != nil {
					// Without the facts nothing counts as settled or diverged: the files the
					// commit lacks are carried, as before content-aware checks.
					en.Log.Warn("carry-forward facts", "session_id", sess.ID, "error", err.Error())
				}
			}
		}
		tried := pendingIDs(sess.State)
		input := en.Event(ev)
		effects, err := en.record(sess, input)
		recs = append(recs, recorded{sess, input, effects, tried})
		if err != nil {
			en.Log.Error("record commit", "session_id", sess.ID, "error", err.Error())
			recs[len(recs)-1].input = events.Event{} // nothing recorded: nothing to do
			complete = false
		}
		others[sess.ID] = sess.State
	}
	crashPoint("journaled:" + string(events.TypeGitCommitted))
	for _, r := range recs {
		if r.input.Data == nil {
			continue
		}
		if _, err := en.apply(ctx, r.sess, r.input, r.effects, others, r.tried); err != nil {
			en.Log.Error("post-commit", "session_id", r.sess.ID, "error", err.Error())
		} else {
			en.markDrained(r.sess.ID)
		}
		// The snapshot follows each session's journal at once, not when all are done: a hook
		// killed while working on the next session leaves this one's view current.
		if err := r.sess.Snapshot(); err != nil {
			en.Log.Warn("write session state", "session_id", r.sess.ID, "error", err.Error())
		}
		others[r.sess.ID] = r.sess.State
	}
	if complete {
		en.recorded = string(head)
	}
	return nil
}

// markDrained notes that session id's pending work was done by this engine just now.
func (en *Engine) markDrained(id string) {
	if en.drained == nil {
		en.drained = map[string]bool{}
	}
	en.drained[id] = true
}

// commitDiff is what a commit changed against its first parent.
func (en *Engine) commitDiff(ctx context.Context, commit string) ([]gitexec.DiffEntry, error) {
	parents, err := en.Repo.CommitParents(ctx, commit)
	if err != nil {
		return nil, err
	}
	parent := ""
	if len(parents) > 0 {
		parent = string(parents[0])
	}
	return en.Repo.DiffTree(ctx, parent, commit)
}

// DrainPending finishes the pending work of every session of this worktree (condensations and
// shadow-branch deletions a crash or a git failure interrupted). Hooks and commands call it
// before anything else; it costs one read of each session's snapshot when nothing is pending.
//
// A commit that prepare-commit-msg linked but post-commit never recorded (it died, or git
// failed before it journaled anything) is recorded here when it is HEAD.
func (en *Engine) DrainPending(ctx context.Context) error { return en.drainPending(ctx, false) }

// DrainSettled is DrainPending for a command that judges what the hooks leave (doctor, clean,
// explain): a session whose state file is behind its journal is opened too, waiting for its
// running hook, since the work a killed hook journaled last is not in its state file. Hooks
// leave those to the session's own next hook rather than wait for another session's hook.
func (en *Engine) DrainSettled(ctx context.Context) error { return en.drainPending(ctx, true) }

func (en *Engine) drainPending(ctx context.Context, stale bool) error {
	ids, err := en.Store.ListWhere(func(b session.Brief) bool {
		return (b.Pending || b.Prepared || stale && b.Stale) && b.WorktreePath == en.Repo.TopLevel
	})
	if err != nil {
		return err
	}
	var errs []error
	if en.unrecordedHead(ctx, ids) {
		errs = append(errs, en.PostCommit(ctx))
	}
	en.retrying = true // work an earlier hook left: it may have been done in part
	defer func() { en.retrying = false }()
	for _, peek := range ids {
		if en.drained[peek.SessionID] {
			continue // PostCommit just recorded and drained it
		}
		sess, err := en.Store.Open(peek.SessionID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := en.drain(ctx, sess, nil, nil); err != nil {
			errs = append(errs, err)
		}
		CloseSession(en, sess)
	}
	return errors.Join(errs...)
}

// unrecordedHead reports whether HEAD carries a trailer that prepare-commit-msg journaled to one
// of the sessions and that no post-commit recorded.
func (en *Engine) unrecordedHead(ctx context.Context, sessions []session.State) bool {
	head, ok := en.Repo.HeadAtOpen()
	if !ok {
		return false
	}
	// Another session may still hold the prepared ID of a commit that was aborted (an empty
	// message): every session's is compared, not the first one's.
	id, read := "", false
	for _, s := range sessions {
		if s.Recorder.PreparedID == "" || s.Recorder.LastCommit == string(head) {
			continue
		}
		if !read {
			msg, err := en.Repo.CommitMessage(ctx, string(head))
			if err != nil {
				return false
			}
			id, _ = checkpoint.ParseCheckpointTrailer(msg)
			read = true
		}
		if id != "" && id == s.Recorder.PreparedID {
			return true
		}
	}
	return false
}

// DeleteShadow removes the shadow branch a condensation emptied unless another session of the
// worktree with uncommitted work, active or idle, still builds on it. others are the fresher
// states of sessions the caller holds open.
func (en *Engine) DeleteShadow(ctx context.Context, sess *session.Session, d session.DeleteShadow, others map[string]session.State) []events.Event {
	// The peers' briefs tell which have work and on which base (others, when fresher).
	kept := false
	err := en.eachPeer(sess.ID, func(b session.Brief) {
		work, base := b.HasWork, b.BaseCommit
		if fresh, ok := others[b.SessionID]; ok {
			work, base = fresh.HasNewContent(), fresh.BaseCommit
		}
		kept = kept || work && session.ShadowBranch(base, sess.State.WorktreeID) == d.Branch
	})
	if err != nil {
		return en.failedEffect(sess, d, "", err)
	}
	if kept {
		return []events.Event{en.Event(events.ShadowBranchDeleted{Branch: d.Branch, Kept: true})}
	}
	ref := gitexec.BranchRef(d.Branch)
	if tip, ok := en.deleted[string(ref)]; ok { // deleted with the condensation (rideAlong)
		delete(en.deleted, string(ref))
		fmt.Fprintf(en.Stderr, "[entire] Cleaned up shadow branch: %s\n", d.Branch)
		return []events.Event{en.Event(events.ShadowBranchDeleted{Branch: d.Branch, Commit: string(tip)})}
	}
	// The session's own last checkpoint is usually the tip: try it first, which saves a
	// lookup; if another session moved the branch, look it up.
	tip := gitexec.OID(d.Tip)
	err = gitexec.ErrRefMoved
	if tip != "" {
		err = en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: ref, Old: tip}})
	}
	if errors.Is(err, gitexec.ErrRefMoved) {
		var ok bool
		if tip, ok, err = en.Repo.ResolveRef(ctx, ref); err == nil && !ok {
			return []events.Event{en.Event(events.ShadowBranchDeleted{Branch: d.Branch})} // already gone
		}
		if err == nil {
			err = en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: ref, Old: tip}})
		}
	}
	if err != nil {
		return en.failedEffect(sess, d, "", err)
	}
	crashPoint("delete-shadow:deleted")
	fmt.Fprintf(en.Stderr, "[entire] Cleaned up shadow branch: %s\n", d.Branch)
	return []events.Event{en.Event(events.ShadowBranchDeleted{Branch: d.Branch, Commit: string(tip)})}
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
	agentBlob, ok1, err := en.Repo.ReadBlob(ctx, string(sb))
	if err != nil {
		return false, err
	}
	mine, ok2, err := en.Repo.ReadBlob(ctx, string(committed))
	if err != nil || !ok1 || !ok2 {
		return false, err
	}
	return mostLinesFrom(mine, agentBlob), nil
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
