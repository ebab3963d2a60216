package history

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
	"github.com/entirerec/entire/gitexec"
)

// RewindKind is what a rewind puts back.
type RewindKind string

// The kinds of rewind.
const (
	RewindFiles    RewindKind = "files"     // a temporary checkpoint's files and transcript
	RewindLogsOnly RewindKind = "logs-only" // transcripts only
	RewindReset    RewindKind = "reset"     // transcripts, and the branch reset (--hard) to the commit
)

// RewindPlan is what a rewind will do, worked out before anything changes.
type RewindPlan struct {
	Kind        RewindKind
	Label       string // the short ID of where the rewind goes
	Undo        bool   // this undoes the last rewind
	Write       []string
	Delete      []string
	Discard     []string // files whose current content no commit or checkpoint holds: the user's own edits
	Transcripts []RewindTranscript
	Resume      []ResumeLine // how to continue the sessions, the most recent first

	// shadowBase is the base of the shadow branch the rewind moves when that is not HEAD (the
	// sessions on it keep that base, and follow HEAD at their next hook as before).
	shadowBase string

	// indexPaths are the paths whose index entries the rewind changes: a rewind unstages
	// what the user staged of the files it writes or deletes (their staged content is the
	// state rewound away); an undo puts the entries in indexEntries back.
	indexPaths   []string
	indexEntries *string

	session  string      // the session the saved state is filed under
	source   string      // the tree-ish files come from
	head     gitexec.OID // HEAD when planned
	newHead  gitexec.OID // HEAD afterwards, when the rewind moves it
	index    string      // the tree the index becomes (undoing a reset)
	shadow   string      // the shadow branch the rewind moves
	shadowTo gitexec.OID // where it moves it ("": nowhere)
	// dropShadow: the rewind deletes the shadow branch (a reset away from its base, no other
	// session's checkpoints on it); undo puts it back.
	dropShadow bool
	rewound    []sessionRewind // the sessions whose state the rewind changes, the point's first
}

// ResumeLine is the command that continues a session, with its first prompt ("" unknown).
type ResumeLine struct {
	Command, Prompt string
}

// RewindTranscript is one session transcript a rewind writes (or, undoing, removes).
type RewindTranscript struct {
	SessionID string
	Path      string
	Data      []byte
	Remove    bool // the transcript did not exist before the rewind being undone
	// CheckpointID and Agent: the committed checkpoint the transcript comes from and its
	// agent ("" for a temporary checkpoint's, and undoing).
	CheckpointID, Agent string
	// Left is the transcript the spec would have written (the recorded transcript_path under
	// $HOME), left as it is because it is another checkout's where the session went on; Path
	// is then where the agent run here looks. "" otherwise.
	Left string
	// LeftWorktree is the path of the worktree of this repository whose session reads Left,
	// when Left is that (otherCheckoutWentOn); "" otherwise.
	LeftWorktree string
}

// TranscriptPlace says where rewind and resume write restored transcripts: a Claude Code
// session's <id>.jsonl goes to Override when it is set (ENTIRE_TEST_CLAUDE_PROJECT_DIR names
// the directory Claude Code reads sessions from); otherwise, and for other agents, a
// transcript goes where the checkpoint's metadata, the session state or Default put it (spec
// §13).
type TranscriptPlace struct {
	Override string
	Default  DefaultTranscriptFunc
}

// placeTranscript is a session's restore destination; a slot without an agent is Claude
// Code's (records older than the agent field). A session ID that is not valid (a checkpoint
// fetched from someone else's remote may hold "../../x") has none: it would name the file.
func (en *History) placeTranscript(m checkpoint.CommittedMetadata, place TranscriptPlace) string {
	if agent.ValidateSessionID(m.SessionID) != nil {
		return ""
	}
	if m.Agent == "" {
		m.Agent = engine.AgentClaudeCode
	}
	if place.Override != "" && m.Agent == engine.AgentClaudeCode {
		return filepath.Join(place.Override, m.SessionID+".jsonl")
	}
	if a, ok := agents.ByType(m.Agent); ok && place.Default != nil {
		if _, own := a.(agent.Materializer); own {
			// The agent keeps no transcript file (OpenCode): the transcript is the copy the
			// hooks export into a repository's git directory, and its transcript_path names
			// that of the clone it was recorded in. It goes back into this repository's.
			return place.Default(m.Agent, m.SessionID)
		}
	}
	return en.transcriptDestination(m, place.Default)
}

// PlanRewind works out a rewind to p: RewindFiles (temporary points only), RewindLogsOnly, or
// RewindReset (logs-only points only).
func (en *History) PlanRewind(ctx context.Context, p RewindPoint, kind RewindKind, place TranscriptPlace) (*RewindPlan, error) {
	head, ok, err := en.Repo.Head(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("the repository has no commits yet")
	}
	if err := en.checkNotInterrupted(head); err != nil {
		return nil, err
	}
	plan := &RewindPlan{Kind: kind, Label: p.Short(), session: p.SessionID, head: head}
	switch {
	case kind == RewindReset && !p.IsLogsOnly && !p.AutoCommit:
		return nil, fmt.Errorf("--reset applies to committed checkpoints; %s is a temporary checkpoint", p.Short())
	case kind == RewindFiles && p.IsLogsOnly:
		return nil, fmt.Errorf("%s is a committed checkpoint: only its transcripts can be restored (--logs-only), or the branch reset to it (--reset)", p.Short())
	}
	if p.IsLogsOnly || p.AutoCommit {
		err = en.planCommittedTranscripts(ctx, plan, p, place)
	} else {
		err = en.planTemporaryTranscript(ctx, plan, p, place)
	}
	if err != nil {
		return nil, err
	}
	known := []string{string(head), p.ID}
	if p.branchBase != "" { // the branch of a base HEAD moved on from: its later checkpoints
		if tip, ok, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(p.Branch)); err != nil {
			return nil, err
		} else if ok {
			known = append(known, string(tip))
		}
	}
	if tip, ok, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(session.ShadowBranch(string(head), en.Repo.WorktreeID()))); err != nil {
		return nil, err
	} else if ok {
		known = append(known, string(tip))
	}
	switch kind {
	case RewindFiles:
		plan.shadow, plan.shadowTo, plan.shadowBase = p.Branch, gitexec.OID(p.ID), p.branchBase
		if plan.source, err = en.pointTree(ctx, p, head); err != nil {
			return nil, err
		}
		keep, err := en.untrackedAtStart()
		if err != nil {
			return nil, err
		}
		if err := en.planFiles(ctx, plan, keepUntracked, keep, known); err != nil {
			return nil, err
		}
		others, err := en.otherRewinds(ctx, plan, p)
		if err != nil {
			return nil, err
		}
		plan.rewound = append([]sessionRewind{{id: p.SessionID, commit: p.ID}}, others...)
		return plan, nil
	case RewindReset:
		plan.source, plan.newHead = p.ID, gitexec.OID(p.ID)
		// Each session whose transcript is cut back to the commit's checkpoint is told, so
		// that its next checkpoint's transcript begins inside the file (reset: everything up
		// to the commit is committed, no checkpoint or file stays the session's work).
		if p.AutoCommit {
			plan.rewound = []sessionRewind{{id: p.SessionID, reset: true}}
		}
		if !p.AutoCommit {
			if err := en.planResetSessions(plan); err != nil {
				return nil, err
			}
		}
		return plan, en.planFiles(ctx, plan, hardReset, nil, known)
	}
	// Logs only: each session whose transcript is written keeps its files and checkpoints, and
	// is told where the transcript now ends, so that its next checkpoint does not begin past it;
	// one of another worktree is not this rewind's (ofOtherWorktree).
	for _, t := range plan.Transcripts {
		if !t.Remove && t.Data != nil && !en.ofOtherWorktree(t.SessionID) {
			plan.rewound = append(plan.rewound, sessionRewind{id: t.SessionID, logsOnly: true})
		}
	}
	return plan, nil
}

// pointTree is the tree a rewind to the temporary checkpoint p makes of the work tree. A
// checkpoint holds the whole work tree over the commit that was HEAD when it was taken; when
// HEAD has moved since (the user committed, and the session's branch followed HEAD), the
// checkpoint's own changes against that base are applied to HEAD, so that the rewind does not
// undo the user's commits in files the checkpoint did not change. With no base on record (the
// session's journal is gone) it is the checkpoint's tree, as before.
func (en *History) pointTree(ctx context.Context, p RewindPoint, head gitexec.OID) (string, error) {
	base := en.pointBase(p)
	if base == "" || base == string(head) {
		return p.ID, nil
	}
	if _, err := en.Repo.CommitParents(ctx, base); err != nil {
		return p.ID, nil // the base is gone from the repository: the checkpoint's tree is all there is
	}
	diff, err := en.Repo.DiffTree(ctx, base, p.ID)
	if err != nil {
		return "", fmt.Errorf("the checkpoint's changes against its base %s: %w", engine.Short(base, 7), err)
	}
	changes := make([]gitexec.TreeChange, 0, len(diff))
	for _, d := range diff {
		if d.Status == 'D' {
			changes = append(changes, gitexec.TreeChange{Path: d.Path, Delete: true})
			continue
		}
		changes = append(changes, gitexec.TreeChange{Path: d.Path, Mode: d.NewMode, OID: d.NewOID})
	}
	tree, err := en.Repo.BuildTree(ctx, head, changes)
	if err != nil {
		return "", fmt.Errorf("apply the checkpoint to HEAD: %w", err)
	}
	return string(tree), nil
}

// pointBase is the commit that was HEAD when the temporary checkpoint p was written, as the
// journal of its session recorded it; "" when unknown.
func (en *History) pointBase(p RewindPoint) string {
	if agent.ValidateSessionID(p.SessionID) != nil {
		return ""
	}
	base := ""
	_, err := en.Store.Replay(p.SessionID, func(e events.Event, _ session.State) {
		switch w := e.Data.(type) {
		case events.ShadowCheckpointWritten:
			if w.Commit == p.ID {
				base = w.BaseCommit
			}
		case events.TaskCheckpointWritten:
			if w.Commit == p.ID {
				base = w.BaseCommit
			}
		case events.CarriedForward:
			if w.Commit == p.ID {
				base = w.NewBase
			}
		}
	})
	if err != nil {
		return ""
	}
	return base
}

// untrackedAtStart are the files that were untracked when the sessions of this work tree
// started; a rewind keeps them (spec §10).
func (en *History) untrackedAtStart() (map[string]bool, error) {
	states, err := en.Store.List()
	if err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, s := range states {
		if s.WorktreePath == "" || s.WorktreePath == en.Repo.TopLevel {
			for _, f := range s.UntrackedFilesAtStart {
				keep[f] = true
			}
		}
	}
	return keep, nil
}

// filePolicy is which work-tree files that the source tree lacks a rewind removes.
type filePolicy int

const (
	keepUntracked filePolicy = iota // untracked files not in HEAD and not there at session start (spec §10)
	exactTree                       // every one: the work tree becomes the tree (undo)
	hardReset                       // tracked ones, as git reset --hard does
)

// planFiles fills in Write, Delete and Discard for making the work tree plan.source's.
// Discard are the existing files among them whose content is in none of known's histories.
func (en *History) planFiles(ctx context.Context, plan *RewindPlan, pol filePolicy, keep map[string]bool, known []string) error {
	target, err := en.Repo.LsTree(ctx, plan.source, nil)
	if err != nil {
		return err
	}
	want := map[string]gitexec.TreeFile{}
	for _, f := range target {
		want[f.Path] = f
	}
	diff, err := en.Repo.DiffWorktree(ctx, plan.source)
	if err != nil {
		return err
	}
	st, err := en.Repo.Status(ctx)
	if err != nil {
		return err
	}
	skip := func(p string) bool { return pol != hardReset && ProtectedDir(p) }
	seen := map[string]bool{}
	var check, candidates []string
	for _, d := range diff {
		if skip(d.Path) || d.OldMode == "160000" || d.NewMode == "160000" {
			continue
		}
		seen[d.Path] = true
		switch {
		case d.Status == 'A':
			// A file the point lacks: one it had deleted, or one staged since. Only a file
			// that was untracked when the sessions started stays (spec §10).
			if en.isFile(d.Path) && (pol != keepUntracked || !keep[d.Path]) {
				plan.Delete = append(plan.Delete, d.Path)
			}
		case d.Status == 'D' && en.isFile(d.Path):
			check = append(check, d.Path) // untracked here: compare the content
		default:
			plan.Write = append(plan.Write, d.Path)
		}
	}
	for _, e := range st {
		if !e.Untracked() || seen[e.Path] || skip(e.Path) || !en.isFile(e.Path) {
			continue
		}
		if _, ok := want[e.Path]; ok {
			continue
		}
		switch pol {
		case exactTree:
			plan.Delete = append(plan.Delete, e.Path)
		case keepUntracked:
			if !keep[e.Path] {
				candidates = append(candidates, e.Path)
			}
		}
	}
	if err := en.planUntracked(ctx, plan, want, check, candidates); err != nil {
		return err
	}
	sort.Strings(plan.Write)
	sort.Strings(plan.Delete)
	if err := en.planDiscard(ctx, plan, want, known); err != nil {
		return err
	}
	if pol == keepUntracked {
		return en.planUnstage(ctx, plan, want, known)
	}
	return nil
}

// planUnstage lists the files the rewind writes or deletes whose staged content differs from
// the point's: their index entries go back to HEAD's, so that a commit after the rewind does
// not bring back what it took away. Staged content that no history holds and the work tree
// does not have either is the user's own, and counts as discarded.
func (en *History) planUnstage(ctx context.Context, plan *RewindPlan, want map[string]gitexec.TreeFile, known []string) error {
	touched := map[string]bool{}
	for _, p := range append(append([]string(nil), plan.Write...), plan.Delete...) {
		touched[p] = true
	}
	if len(touched) == 0 {
		return nil
	}
	staged, err := en.Repo.StagedChanges(ctx)
	if err != nil {
		return err
	}
	blobs := map[string]gitexec.OID{}
	var paths []string
	for _, d := range staged {
		if !touched[d.Path] || (d.NewOID == want[d.Path].OID && d.NewMode == want[d.Path].Mode) {
			continue
		}
		plan.indexPaths = append(plan.indexPaths, d.Path)
		if d.Status != 'D' && !slices.Contains(plan.Discard, d.Path) {
			blobs[d.Path] = d.NewOID
			paths = append(paths, d.Path)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	recorded, err := en.recordedVersions(ctx, known, paths)
	if err != nil {
		return err
	}
	var present []string
	for _, p := range paths {
		if en.isFile(p) {
			present = append(present, p)
		}
	}
	oids, err := en.Repo.HashFiles(ctx, present)
	if err != nil {
		return err
	}
	cur := map[string]gitexec.OID{}
	for i, p := range present {
		cur[p] = oids[i]
	}
	for _, p := range paths {
		if !recorded[p+"\x00"+string(blobs[p])] && cur[p] != blobs[p] {
			plan.Discard = append(plan.Discard, p)
		}
	}
	sort.Strings(plan.Discard)
	return nil
}

// planUntracked writes the untracked files in check that differ from the tree, and deletes
// the candidates HEAD does not track.
func (en *History) planUntracked(ctx context.Context, plan *RewindPlan, want map[string]gitexec.TreeFile, check, candidates []string) error {
	if len(check) > 0 {
		oids, err := en.Repo.HashFiles(ctx, check)
		if err != nil {
			return err
		}
		for i, p := range check {
			if mode, _ := engine.FileMode(en.Repo.TopLevel, p); oids[i] != want[p].OID || mode != want[p].Mode {
				plan.Write = append(plan.Write, p)
			}
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	inHead, err := en.Repo.LsTree(ctx, string(plan.head), candidates)
	if err != nil {
		return err
	}
	tracked := map[string]bool{}
	for _, f := range inHead {
		tracked[f.Path] = true
	}
	for _, p := range candidates {
		if !tracked[p] {
			plan.Delete = append(plan.Delete, p)
		}
	}
	return nil
}

// planDiscard finds the files the rewind overwrites or deletes whose current content is no
// version that the histories of known (HEAD, shadow branches, the source) hold.
func (en *History) planDiscard(ctx context.Context, plan *RewindPlan, want map[string]gitexec.TreeFile, known []string) error {
	var present []string
	for _, p := range append(append([]string(nil), plan.Write...), plan.Delete...) {
		if en.isFile(p) {
			present = append(present, p)
		}
	}
	if len(present) == 0 {
		return nil
	}
	cur, err := en.Repo.HashFiles(ctx, present)
	if err != nil {
		return err
	}
	recorded, err := en.recordedVersions(ctx, known, present)
	if err != nil {
		return err
	}
	for i, p := range present {
		if cur[i] != want[p].OID && !recorded[p+"\x00"+string(cur[i])] {
			plan.Discard = append(plan.Discard, p)
		}
	}
	sort.Strings(plan.Discard)
	return nil
}

// isFile reports whether a work-tree path is a file or symbolic link (not missing, not a directory).
func (en *History) isFile(p string) bool {
	_, ok := engine.FileMode(en.Repo.TopLevel, p)
	return ok
}

// recordedVersions are the versions of paths the commits known reach hold, as "<path>\x00<blob>"
// keys: content one of them recorded is not the user's unrecorded work.
func (en *History) recordedVersions(ctx context.Context, known []string, paths []string) (map[string]bool, error) {
	versions, err := en.Repo.LogRaw(ctx, known, paths)
	if err != nil {
		return nil, err
	}
	recorded := map[string]bool{}
	for _, v := range versions {
		recorded[v.Path+"\x00"+string(v.NewOID)] = true
	}
	return recorded, nil
}
