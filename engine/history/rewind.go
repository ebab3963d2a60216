package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/gitexec"
)

// Rewind (spec §10, the rewind line) goes back to a rewind point: a temporary checkpoint on the
// shadow branch of HEAD in this work tree (its files and transcript), or a user commit among
// the last 50 whose Entire-Checkpoint trailer names a recorded checkpoint (a logs-only point:
// its transcripts, and with --reset the branch itself).
//
// Beyond the reference, every rewind can be undone. Before anything is overwritten the current
// state is committed as a shadow commit (message "Before rewind to <id>", the usual trailers,
// filed under the session of the point): HEAD's tree plus every changed and untracked file of
// the work tree, and under .entire/metadata/<session>/full.jsonl each transcript the rewind is
// about to replace. Its parent is the tip of HEAD's shadow branch, but the branch does not keep
// it (a rewind to a temporary checkpoint moves the branch back to that checkpoint). Instead
// refs/entire/rewind-undo/<worktree hash> keeps it from garbage collection, and
// <git-dir>/entire-rewind-undo (JSON, see rewindUndo; .git/entire-rewind-undo in the main work
// tree) records what the rewind changed: the kind, HEAD before and after, the index before a
// --reset, the shadow branch's tip before it was moved and where each transcript went.
// `entire rewind --undo` is a rewind to that snapshot, so it saves the state it replaces the
// same way and a second --undo redoes the rewind.

// RewindListLimit is how many points `entire rewind --list` and the picker show (spec §10).
const RewindListLimit = 20

// logsOnlyScan is how many commits back from HEAD logs-only points are looked for (spec §10).
const logsOnlyScan = 50

// ErrRewindPointNotFound reports an ID that names no rewind point.
var ErrRewindPointNotFound = errors.New("rewind point not found")

// RewindPoint is one place a rewind can go back to; the JSON of `entire rewind --list` shows
// these fields under the reference's names.
type RewindPoint struct {
	ID               string // the shadow commit's SHA; for a logs-only point the user commit's
	Message          string // the commit's subject
	MetadataDir      string // the checkpoint's metadata directory in the shadow tree ("" when logs-only)
	Date             time.Time
	IsTaskCheckpoint bool
	ToolUseID        string // the subagent's tool use, for a task checkpoint
	IsLogsOnly       bool
	CheckpointID     string // the committed checkpoint a logs-only point links to
	SessionID        string
	SessionPrompt    string // the first prompt of the checkpoint
	Agent            string // display type ("Claude Code"), "" when unknown
	Branch           string // the shadow branch of a temporary point
	// AutoCommit: a commit the auto-commit strategy made; rewinding to it resets the branch to
	// it (files and transcripts), so it is a full point, not a logs-only one.
	AutoCommit bool

	// branchBase is the base of Branch when that is not HEAD's: the user committed since and
	// the session's branch follows HEAD only at its next hook.
	branchBase string

	// squashed are the checkpoints of the commit's earlier trailers, oldest first, when it is a
	// squash of linked commits: CheckpointID is the newest; each of them finds the point too.
	squashed []string
}

// checkpointIDs are the point's checkpoints, oldest first: a squash's earlier ones, then CheckpointID.
func (p RewindPoint) checkpointIDs() []string {
	if p.CheckpointID == "" {
		return nil
	}
	return append(slices.Clip(p.squashed), p.CheckpointID)
}

// Short is the 7-character form of the point's ID.
func (p RewindPoint) Short() string { return engine.Short(p.ID, 7) }

// RewindPoints lists every rewind point of this work tree, newest first, each once: the
// temporary checkpoints on HEAD's shadow branch, then logs-only points (spec §10). Points with
// the same date keep that order.
func (en *History) RewindPoints(ctx context.Context) ([]RewindPoint, error) {
	head, ok, err := en.Repo.Head(ctx)
	if err != nil || !ok {
		return nil, err
	}
	points, err := en.temporaryPoints(ctx, head)
	if err != nil {
		return nil, err
	}
	logs, err := en.logsOnlyPoints(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []RewindPoint
	for _, p := range append(points, logs...) {
		if !seen[p.ID] {
			seen[p.ID] = true
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Date.After(out[j].Date) })
	return out, nil
}

// temporaryPoints are the checkpoint commits on the shadow branch of HEAD in this work tree,
// and on the branches of this work tree's sessions whose base HEAD has moved on from (the
// user committed without a link: each session renames its branch for HEAD at its next hook,
// and until then its checkpoints are still its rewind points).
func (en *History) temporaryPoints(ctx context.Context, head gitexec.OID) ([]RewindPoint, error) {
	out, err := en.temporaryPointsOn(ctx, session.ShadowBranch(string(head), en.Repo.WorktreeID()), "")
	if err != nil {
		return nil, err
	}
	states, err := en.Store.ListWhere(func(b session.Brief) bool {
		return b.WorktreePath == en.Repo.TopLevel && b.HasWork && b.BaseCommit != "" && b.BaseCommit != string(head)
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, s := range states {
		if s.Recorder.LastShadowCommit == "" || seen[s.BaseCommit] {
			continue
		}
		seen[s.BaseCommit] = true
		if ok, err := en.Repo.IsAncestor(ctx, gitexec.OID(s.BaseCommit), head); err != nil || !ok {
			continue // not a base HEAD moved on from (or gone): not this work tree's line
		}
		more, err := en.temporaryPointsOn(ctx, session.ShadowBranch(s.BaseCommit, en.Repo.WorktreeID()), s.BaseCommit)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// temporaryPointsOn are the checkpoint commits on a shadow branch of this work tree whose base
// is base ("": HEAD).
func (en *History) temporaryPointsOn(ctx context.Context, branch, base string) ([]RewindPoint, error) {
	tcs, err := checkpoint.ListTemporaryOn(ctx, en.Repo, branch)
	if err != nil {
		return nil, err
	}
	agents := map[string]string{}
	var out []RewindPoint
	for _, tc := range tcs {
		agent, ok := agents[tc.SessionID]
		if !ok {
			if s, err := en.Store.Peek(tc.SessionID); err == nil {
				agent = s.AgentType
			}
			agents[tc.SessionID] = agent
		}
		p := RewindPoint{
			ID: string(tc.Commit), Message: tc.Subject, MetadataDir: tc.MetadataDir, Date: tc.Date,
			IsTaskCheckpoint: tc.IsTask, SessionID: tc.SessionID, Agent: agent, Branch: branch, branchBase: base,
		}
		if tc.IsTask {
			p.ToolUseID = path.Base(tc.MetadataDir)
		}
		p.SessionPrompt = en.firstPrompt(ctx, string(tc.Commit)+":.entire/metadata/"+tc.SessionID+"/prompt.txt")
		out = append(out, p)
	}
	return out, nil
}

// logsOnlyPoints are the user commits among the last 50 from HEAD whose checkpoint trailer
// names a checkpoint on the metadata branch.
func (en *History) logsOnlyPoints(ctx context.Context) ([]RewindPoint, error) {
	rd, err := en.Reader(ctx)
	if err != nil {
		return nil, err
	}
	ids, err := rd.ListCommitted(ctx)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	recent, err := en.Repo.RevList(ctx, "HEAD", logsOnlyScan)
	if err != nil {
		return nil, err
	}
	inRecent := map[gitexec.OID]bool{}
	for _, c := range recent {
		inRecent[c] = true
	}
	linked, err := checkpoint.LinkedCommits(ctx, en.Repo, "HEAD", "", logsOnlyScan)
	if err != nil {
		return nil, err
	}
	recorded := func(id string) bool {
		i := sort.SearchStrings(ids, id)
		return i < len(ids) && ids[i] == id
	}
	var out []RewindPoint
	commits, trailers := commitTrailers(linked)
	for k, l := range commits {
		// One point per commit, for its newest recorded checkpoint (a squash's last trailer).
		cps := slices.DeleteFunc(trailers[k], func(id string) bool { return !recorded(id) })
		if !inRecent[l.SHA] || len(cps) == 0 {
			continue
		}
		l.CheckpointID = cps[len(cps)-1]
		cp, err := rd.ReadCheckpointInfo(ctx, l.CheckpointID)
		if err == nil && len(cp.Slots) == 0 {
			err = errors.New("it has no session")
		}
		if err != nil { // not a point to offer; said, so that it is not a silent gap
			fmt.Fprintf(en.Stderr, "Warning: checkpoint %s of commit %s cannot be read (%v); it is not offered. See `entire doctor`.\n",
				l.CheckpointID, l.SHA.Short(7), err)
			continue
		}
		last := cp.Slots[len(cp.Slots)-1]
		p := RewindPoint{
			ID: string(l.SHA), Message: l.Subject, Date: l.Date, IsLogsOnly: true,
			CheckpointID: l.CheckpointID, SessionID: last.Meta.SessionID, Agent: last.Meta.Agent,
			squashed: cps[:len(cps)-1],
		}
		if last.Meta.Strategy == events.StrategyAutoCommit {
			p.IsLogsOnly, p.AutoCommit = false, true
			p.MetadataDir = checkpoint.CheckpointPath(l.CheckpointID)
			if last.Meta.IsTask && last.Meta.ToolUseID != "" { // a subagent's: its task record (spec §5)
				p.IsTaskCheckpoint, p.ToolUseID = true, last.Meta.ToolUseID
				p.MetadataDir += "/tasks/" + last.Meta.ToolUseID
			}
		}
		if len(last.Prompts) > 0 {
			p.SessionPrompt = strings.TrimSpace(last.Prompts[0])
		}
		out = append(out, p)
	}
	return out, nil
}

// firstPrompt is the first prompt of a prompt.txt blob, "" when there is none.
func (en *History) firstPrompt(ctx context.Context, rev string) string {
	data, ok, err := en.Repo.ReadBlob(ctx, rev)
	if err != nil || !ok || len(data) == 0 {
		return ""
	}
	first, _, _ := strings.Cut(string(data), agent.PromptSeparator)
	return strings.TrimSpace(first)
}

// FindRewindPoint picks the point id names: a full ID or checkpoint ID, else a prefix of at
// least 7 characters of either that matches exactly one point. A squash's earlier checkpoint
// names its commit's point, restoring that checkpoint.
func FindRewindPoint(points []RewindPoint, id string) (RewindPoint, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return RewindPoint{}, fmt.Errorf("%w: empty ID", ErrRewindPointNotFound)
	}
	for _, p := range points {
		if p.ID == id {
			return p, nil
		}
		if i := slices.Index(p.checkpointIDs(), id); i >= 0 {
			return p.at(i), nil
		}
	}
	var match []RewindPoint
	var names []string
	if len(id) >= 7 {
		for _, p := range points {
			if strings.HasPrefix(p.ID, id) {
				match, names = append(match, p), append(names, p.ID)
				continue
			}
			for i, cp := range p.checkpointIDs() {
				if strings.HasPrefix(cp, id) {
					match, names = append(match, p.at(i)), append(names, cp)
				}
			}
		}
	}
	switch len(match) {
	case 0:
		if len(id) < 7 {
			return RewindPoint{}, fmt.Errorf("%w: %s (give the full ID or at least 7 characters)", ErrRewindPointNotFound, id)
		}
		return RewindPoint{}, fmt.Errorf("%w: %s", ErrRewindPointNotFound, id)
	case 1:
		return match[0], nil
	}
	amb := &checkpoint.AmbiguousError{Prefix: id, Candidates: names}
	sort.Strings(amb.Candidates)
	return RewindPoint{}, amb
}

// at is the point restoring the i-th of its checkpoints (checkpointIDs order).
func (p RewindPoint) at(i int) RewindPoint {
	ids := p.checkpointIDs()
	p.CheckpointID, p.squashed = ids[i], ids[:i:i]
	return p
}

// resumeCommand is how to continue a session; sessions of an unknown agent were Claude Code's,
// the only agent this tool records.
func resumeCommand(agent, sessionID string) string {
	if c := ResumeCommand(agent, sessionID); c != "" {
		return c
	}
	return ResumeCommand(engine.AgentClaudeCode, sessionID)
}

// ProtectedDir reports whether a path lies in a directory a rewind never touches (spec §13).
func ProtectedDir(p string) bool {
	top, _, _ := strings.Cut(p, "/")
	switch top {
	case ".git", ".entire", ".claude", ".gemini":
		return true
	}
	return false
}

// planTemporaryTranscript reads the session's transcript from the shadow commit; a task
// checkpoint's ends at the line its checkpoint.json names (spec §2.4).
func (en *History) planTemporaryTranscript(ctx context.Context, plan *RewindPlan, p RewindPoint, place TranscriptPlace) error {
	entries, ok, err := en.Repo.ReadTree(ctx, p.ID+":.entire/metadata/"+p.SessionID)
	if err != nil || !ok {
		if err == nil {
			fmt.Fprintf(en.Stderr, "Checkpoint %s has no transcript for session %s.\n", p.Short(), p.SessionID)
		}
		plan.Resume = append(plan.Resume, ResumeLine{Command: resumeCommand(p.Agent, p.SessionID), Prompt: p.SessionPrompt})
		return err
	}
	data, _, err := checkpoint.ReadTranscript(ctx, en.Repo, entries, p.Agent)
	if err != nil {
		return err
	}
	if p.IsTaskCheckpoint {
		data = en.truncateAtTask(ctx, data, p.ID+":"+p.MetadataDir)
	}
	if data != nil {
		dest := en.placeTranscript(checkpoint.CommittedMetadata{SessionID: p.SessionID, Agent: p.Agent}, place)
		plan.Transcripts = append(plan.Transcripts, RewindTranscript{SessionID: p.SessionID, Path: dest, Data: data})
	}
	plan.Resume = append(plan.Resume, ResumeLine{Command: resumeCommand(p.Agent, p.SessionID), Prompt: p.SessionPrompt})
	return nil
}

// planCommittedTranscripts reads every session slot of the point's committed checkpoint (and
// of a squash's earlier ones, the sessions only they hold), the latest session's resume
// command first.
func (en *History) planCommittedTranscripts(ctx context.Context, plan *RewindPlan, p RewindPoint, place TranscriptPlace) error {
	rd, err := en.Reader(ctx)
	if err != nil {
		return err
	}
	cp, _, err := readSquash(ctx, rd, p.checkpointIDs())
	if err != nil {
		return fmt.Errorf("read checkpoint %s: %w", p.CheckpointID, err)
	}
	var forgotten []string
	for i := len(cp.Slots) - 1; i >= 0; i-- {
		s := cp.Slots[i]
		if s.Meta.ForgottenAt != nil {
			forgotten = append(forgotten, forgottenNote(s.Meta))
		}
		if s.Meta.SessionID == "" || s.Transcript == nil {
			continue
		}
		data := s.Transcript
		if p.AutoCommit && p.IsTaskCheckpoint && s.Meta.ToolUseID == p.ToolUseID {
			data = en.truncateAtTask(ctx, data, string(rd.Tip)+":"+p.MetadataDir)
		}
		t := RewindTranscript{SessionID: s.Meta.SessionID, Path: en.placeTranscript(s.Meta, place), Data: data,
			CheckpointID: s.Meta.CheckpointID, Agent: s.Meta.Agent}
		if here, wt := en.otherCheckoutWentOn(s.Meta, place, t.Path, data); here != "" {
			t.Left, t.LeftWorktree, t.Path = t.Path, wt, here
		}
		plan.Transcripts = append(plan.Transcripts, t)
		line := ResumeLine{Command: resumeCommand(s.Meta.Agent, s.Meta.SessionID)}
		if ps := s.AllPrompts(); len(ps) > 0 {
			line.Prompt = session.FirstPrompt(ps[0])
		}
		plan.Resume = append(plan.Resume, line)
	}
	if len(plan.Transcripts) == 0 && len(forgotten) > 0 && plan.Kind == RewindLogsOnly {
		return fmt.Errorf("checkpoint %s has no transcript to restore: %s", p.CheckpointID, strings.Join(forgotten, "; "))
	}
	return nil
}

// otherCheckoutWentOn is where the agent run here looks for a committed slot's transcript when
// the place the spec gives it (§13: the recorded transcript_path under $HOME, dest) is another
// checkout's file on this machine that holds what data lacks, as resume finds it
// (RestoreElsewhere: the agent here looks in another directory, ownPlace, and no session of
// this worktree records dest): the session went on there, and a rewind here would cut that
// checkout's session back. The transcript then goes where the agent here looks instead, and
// the other checkout's is left alone. So it does, whatever dest holds, when dest is the
// transcript of a session of another worktree of this repository that git still has (wt is
// that worktree's path): its agent reads and appends to that file, a rewind here has no
// business there, and an undo of it would put back over that file what it held before the
// rewind, cutting off what the session added since. "" otherwise.
func (en *History) otherCheckoutWentOn(m checkpoint.CommittedMetadata, place TranscriptPlace, dest string, data []byte) (here, wt string) {
	if dest == "" {
		return "", ""
	}
	here = ownPlace(dest, m, place)
	if here == "" || en.recordedHere(m.SessionID, dest) {
		return "", ""
	}
	if s, err := en.Store.Peek(m.SessionID); err == nil && s.TranscriptPath == dest && en.ofOtherWorktree(m.SessionID) {
		return here, s.WorktreePath
	}
	if local, err := os.ReadFile(dest); err != nil || bytes.HasPrefix(data, local) {
		return "", "" // nothing there the checkpoint's transcript lacks
	}
	return here, ""
}

// forgottenNote says that a slot's transcript was removed by entire forget.
func forgottenNote(m checkpoint.CommittedMetadata) string {
	return fmt.Sprintf("session %s was forgotten on %s (entire forget)", m.SessionID, m.ForgottenAt.UTC().Format("2006-01-02"))
}

// truncateAtTask cuts a task point's transcript at the line that answered the task, as its
// checkpoint.json in the tree-ish dir names it (spec §2.4); an incremental step has none and
// keeps the whole transcript.
func (en *History) truncateAtTask(ctx context.Context, data []byte, dir string) []byte {
	raw, ok, _ := en.Repo.ReadBlob(ctx, dir+"/checkpoint.json")
	if !ok {
		return data
	}
	var cj struct {
		UUID string `json:"checkpoint_uuid"`
	}
	if json.Unmarshal(raw, &cj) == nil && cj.UUID != "" {
		return TruncateAtUUID(data, cj.UUID)
	}
	return data
}

// TruncateAtUUID keeps a JSONL transcript up to and including the line whose uuid is uuid.
func TruncateAtUUID(data []byte, uuid string) []byte {
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		var l struct {
			UUID string `json:"uuid"`
		}
		if json.Unmarshal(bytes.TrimSpace(data[off:next]), &l) == nil && l.UUID == uuid {
			return data[:next]
		}
		off = next
	}
	return data
}
