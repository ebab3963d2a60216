package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/redact"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/claudecode"
	"github.com/entirerec/entire/gitexec"
)

var taskIDRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
})

// validTaskID reports whether a tool use ID or an agent ID may name files (spec §2.4): its
// characters, and at most agent.MaxFileIDLen bytes (what agent.SafeID returns at most), so
// that pre-task-<id>.json and agent-<id>.jsonl fit in a file name. Claude Code's are about 30.
func validTaskID(id string) bool { return len(id) <= agent.MaxFileIDLen && taskIDRe().MatchString(id) }

// preTask is .entire/tmp/pre-task-<tool-use-id>.json (spec §5.6), plus what the launch said.
type preTask struct {
	ToolUseID      string   `json:"tool_use_id"`
	Timestamp      string   `json:"timestamp"`
	UntrackedFiles []string `json:"untracked_files"`
	SubagentType   string   `json:"subagent_type,omitempty"`
	Description    string   `json:"description,omitempty"`
	AgentID        string   `json:"agent_id,omitempty"`
}

func (en *Engine) tmpDir() string { return filepath.Join(en.Repo.TopLevel, ".entire", "tmp") }

func (en *Engine) preTaskPath(toolUseID string) string {
	return filepath.Join(en.tmpDir(), "pre-task-"+toolUseID+".json")
}

// PreTask journals a subagent launch (subagent_started) with the untracked files before it
// starts, so that its checkpoint can tell the files it created. The spec §5.6 file
// .entire/tmp/pre-task-<tool-use-id>.json is written from the event, for tools that read it.
func (en *Engine) PreTask(ctx context.Context, in events.SubagentStarted) error {
	if !validTaskID(in.ToolUseID) {
		return fmt.Errorf("invalid tool_use_id %q", in.ToolUseID)
	}
	st, err := en.dirtyStatus(ctx)
	if err != nil {
		return err
	}
	in.UntrackedFiles = []string{}
	for _, e := range st {
		if e.Untracked() {
			in.UntrackedFiles = append(in.UntrackedFiles, e.Path)
		}
	}
	if err := en.journalTask(ctx, in); err != nil {
		return err
	}
	p := preTask{ToolUseID: in.ToolUseID, Timestamp: en.Now().UTC().Format(time.RFC3339),
		UntrackedFiles: in.UntrackedFiles, SubagentType: in.SubagentType, Description: in.Description}
	if err := writePreTask(en.preTaskPath(in.ToolUseID), p); err != nil {
		en.Log.Warn("write pre-task file", "error", err.Error())
	}
	return nil
}

// journalTask appends a subagent_started event to the session's journal.
func (en *Engine) journalTask(ctx context.Context, in events.SubagentStarted) error {
	sess, err := en.Store.Open(in.SessionID)
	if err != nil {
		return err
	}
	defer CloseSession(en, sess)
	return en.Run(ctx, sess, en.Event(in))
}

func writePreTask(path string, p preTask) error {
	data, err := checkpoint.MarshalJSON(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write pre-task state: %w", err)
	}
	return os.WriteFile(path, data, 0o644)
}

// openTask is the session's record of a launched subagent, found by tool use ID or agent ID.
func (en *Engine) openTask(sessionID, toolUseID, agentID string) (session.OpenTask, bool) {
	s, err := en.Store.Peek(sessionID)
	if err != nil {
		return session.OpenTask{}, false
	}
	return s.Task(toolUseID, agentID)
}

// TaskEnded handles a subagent's end (Claude's PostToolUse[Task|Agent] and SubagentStop). A
// subagent launched in the background (async) only records its agent ID; the checkpoint is
// written when it stops.
func (en *Engine) TaskEnded(ctx context.Context, in events.SubagentEnded, async bool) error {
	pre, found := en.openTask(in.SessionID, in.ToolUseID, in.AgentID)
	if !found && (in.SubagentType != "" || in.Description != "") {
		// An agent that names the launch and the end differently (Droid may send no tool use ID
		// with one of them): the one open task of the same type and description is this one.
		if s, err := en.Store.Peek(in.SessionID); err == nil {
			if t, ok := s.TaskLike(in.SubagentType, in.Description); ok {
				pre, found, in.ToolUseID = t, true, t.ToolUseID
			}
		}
	}
	if in.ToolUseID == "" {
		in.ToolUseID = pre.ToolUseID
	}
	if !validTaskID(in.ToolUseID) || (in.AgentID != "" && !validTaskID(in.AgentID)) {
		return fmt.Errorf("invalid task ids %q / %q", in.ToolUseID, in.AgentID)
	}
	if async {
		return en.journalTask(ctx, events.SubagentStarted{SessionID: in.SessionID, Agent: in.Agent, ToolUseID: in.ToolUseID,
			SubagentType: in.SubagentType, Description: in.Description, AgentID: in.AgentID, Background: true})
	}
	if pre.SubagentType != "" {
		in.SubagentType = pre.SubagentType
	}
	if in.Description == "" {
		in.Description = pre.Description
	}
	if in.TranscriptPath == "" && in.AgentID != "" {
		in.TranscriptPath = subagentTranscript(in.Transcript.Path, in.SessionID, in.AgentID)
	}
	if err := en.recordTask(ctx, &in, pre.UntrackedFiles); err != nil {
		return err
	}
	if err := os.Remove(en.preTaskPath(in.ToolUseID)); err != nil && !errors.Is(err, os.ErrNotExist) {
		en.Log.Warn("remove pre-task state", "error", err.Error())
	}
	return nil
}

// TodoStep handles PostToolUse[TodoWrite]: inside a running subagent (the session's newest open
// task) with changed files, off the default branch, it writes an incremental task checkpoint.
func (en *Engine) TodoStep(ctx context.Context, in events.SubagentEnded) error {
	s, err := en.Store.Peek(in.SessionID)
	if err != nil || len(s.Recorder.Tasks) == 0 {
		return nil
	}
	if en.onDefaultBranch(ctx) {
		en.Log.Debug("todo step on the default branch: no checkpoint", "session_id", in.SessionID)
		return nil
	}
	pre := s.Recorder.Tasks[len(s.Recorder.Tasks)-1]
	in.ToolUseID, in.Incremental = pre.ToolUseID, true
	return en.recordTask(ctx, &in, pre.UntrackedFiles)
}

// recordTask observes the subagent's files and runs the event through the session.
func (en *Engine) recordTask(ctx context.Context, in *events.SubagentEnded, untrackedBefore []string) error {
	wt, err := en.worktreeFacts(ctx)
	if err != nil {
		return err
	}
	in.Worktree = wt
	st, err := en.dirtyStatus(ctx)
	if err != nil {
		return err
	}
	var edited []string
	if in.TranscriptPath != "" {
		if sc, err := reader(in.Agent).ScanFile(in.TranscriptPath, events.Transcript{Path: in.TranscriptPath}); err == nil {
			edited = en.relFiles(sc.Cwd, sc.ModifiedFiles)
		}
	}
	before := map[string]bool{}
	for _, p := range untrackedBefore {
		before[p] = true
	}
	var created []string
	for _, e := range st {
		if e.Untracked() && !before[e.Path] {
			created = append(created, e.Path)
		}
	}
	in.Files = session.MergeSorted(session.Intersect(edited, statusPaths(st)), created)
	if en.autoStrategy() != "" && (len(in.Files) > 0 || !in.Incremental) {
		// Under auto-commit a subagent's end is checkpointed with or without files, an
		// incremental step only with (spec §5 Subagents).
		if in.CheckpointID, err = checkpoint.NewCheckpointID(); err != nil {
			return err
		}
		if wt.Head != "" {
			in.Captured = en.captureFiles(ctx, in.CheckpointID, in.Files)
		}
	}
	if _, pos, err := scanPosition(reader(in.Agent), in.Transcript.Path, en.scannedFrom(in.SessionID)); err == nil {
		in.Transcript = pos
	}
	sess, err := en.Store.Open(in.SessionID)
	if err != nil {
		return err
	}
	defer CloseSession(en, sess)
	if err := en.otherWorktree(sess.State, wt); err != nil {
		return err
	}
	return en.Run(ctx, sess, en.Event(*in))
}

// subagentTranscript finds a subagent's transcript: the current layout
// <dir>/<session-id>/subagents/agent-<id>.jsonl, else the legacy sibling <dir>/agent-<id>.jsonl.
func subagentTranscript(mainTranscript, sessionID, agentID string) string {
	dir := filepath.Dir(mainTranscript)
	current := filepath.Join(dir, sessionID, "subagents", "agent-"+agentID+".jsonl")
	if _, err := os.Stat(current); err == nil {
		return current
	}
	return filepath.Join(dir, "agent-"+agentID+".jsonl")
}

// taskSubject is the commit subject of a task checkpoint (spec §2.3).
func taskSubject(typ, desc, toolUseID string) string {
	id := Short(toolUseID, 12)
	desc = agent.Clip(redact.String(desc), 60)
	switch {
	case typ != "" && desc != "":
		return fmt.Sprintf("Completed '%s' agent: %s (%s)", typ, desc, id)
	case typ != "":
		return fmt.Sprintf("Completed '%s' agent (%s)", typ, id)
	case desc != "":
		return fmt.Sprintf("Completed agent: %s (%s)", desc, id)
	}
	return "Task: " + id
}

// checkpointJSON is tasks/<id>/checkpoint.json: hand-formatted, no trailing newline (spec §2.4).
func checkpointJSON(sessionID, toolUseID, uuid, agentID string) []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return []byte("{\n  \"session_id\": " + q(sessionID) + ",\n  \"tool_use_id\": " + q(toolUseID) +
		",\n  \"checkpoint_uuid\": " + q(uuid) + ",\n  \"agent_id\": " + q(agentID) + "\n}")
}

// writeTaskCheckpoint commits a subagent's work onto the shadow branch: the worktree snapshot,
// the session's overlay so far, and the task's files under tasks/<tool-use-id>/.
func (en *Engine) writeTaskCheckpoint(ctx context.Context, s session.State, input events.Event, f session.WriteTaskCheckpoint) ([]events.Event, error) {
	in, _ := input.Data.(events.SubagentEnded)
	head := in.Worktree.Head
	meta := ".entire/metadata/" + s.SessionID
	taskDir := meta + "/tasks/" + f.ToolUseID
	var main tsource
	if in.Transcript.Path != "" && in.Transcript.Offset > 0 {
		main = fileSource(in.Transcript.Path, in.Transcript.Offset).of(reader(in.Agent))
	}
	seq := s.Recorder.TaskSteps + 1
	rec, err := taskRecordOf(s.SessionID, in, seq, input.Time, main, s.Recorder.TurnStart.Offset)
	if err != nil {
		return nil, err
	}
	files, subject, trailer := rec.files, rec.subject, path.Join(taskDir, rec.named)
	st, err := en.dirtyStatus(ctx)
	if err != nil {
		return nil, err
	}
	changes, err := en.WorktreeChanges(ctx, statusPaths(st))
	if err != nil {
		return nil, err
	}
	away, err := en.stashedFiles(ctx, s, head, statusPaths(st), in.Files)
	if err != nil {
		return nil, err
	}
	changes = append(changes, away...)
	branch := session.ShadowBranch(head, s.WorktreeID)
	own, err := en.ownOverlay(ctx, branch, meta, taskDir, files)
	if err != nil {
		return nil, err
	}
	changes = append(changes, own...)
	if main.valid() {
		stored, err := en.storeRawTranscript(ctx, main, shadowChunkCache(s, in.Transcript.Path))
		if err != nil {
			return nil, err
		}
		for _, f := range stored.files {
			f.Path = meta + "/" + f.Path
			changes = append(changes, f)
		}
	}
	tc, err := en.BlobChanges(ctx, taskDir, files)
	if err != nil {
		return nil, err
	}
	changes = append(changes, tc...)
	headTree, err := en.treeOf(ctx, head)
	if err != nil {
		return nil, err
	}
	msg := subject + "\n\nEntire-Metadata-Task: " + trailer + "\nEntire-Session: " + s.SessionID +
		"\nEntire-Strategy: " + checkpoint.StrategyManualCommit + "\n"
	commit, err := en.commitShadow(ctx, branch, headTree, changes, msg, s.SessionID, f.Reset)
	if err != nil {
		return nil, err
	}
	return []events.Event{en.Event(events.TaskCheckpointWritten{Branch: branch, Commit: string(commit),
		BaseCommit: head, ToolUseID: f.ToolUseID, Files: in.Files, Incremental: f.Incremental, Sequence: seq, Reset: f.Reset})}, nil
}

// ownOverlay keeps the session's existing overlay files from the shadow tip, except the
// transcript and the task files about to be rewritten.
func (en *Engine) ownOverlay(ctx context.Context, branch, meta, taskDir string, replacing []NamedBlob) ([]gitexec.TreeChange, error) {
	tip, ok, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(branch))
	if err != nil || !ok {
		return nil, err
	}
	out, err := en.Repo.Run(ctx, nil, "ls-tree", "-r", "-z", string(tip), "--", meta+"/")
	if err != nil {
		return nil, fmt.Errorf("list session overlay: %w", err)
	}
	skip := map[string]bool{meta + "/full.jsonl": true}
	for _, f := range replacing {
		skip[taskDir+"/"+f.Name] = true
	}
	var keep []gitexec.TreeChange
	for _, rec := range strings.Split(string(out), "\x00") {
		info, path, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(info)
		if !ok || len(fields) != 3 || skip[path] || checkpoint.IsTranscriptChunk(strings.TrimPrefix(path, meta+"/")) {
			continue
		}
		keep = append(keep, gitexec.TreeChange{Path: path, Mode: fields[0], OID: gitexec.OID(fields[2])})
	}
	return keep, nil
}

// redactJSON redacts a JSON value's strings, keeping it valid JSON.
func redactJSON(raw []byte) []byte {
	if len(raw) == 0 {
		return []byte("null")
	}
	return redact.JSONL(raw)
}

// scannedFrom is how far a session's transcript was already read, so that a position can be
// found by reading only the new lines.
func (en *Engine) scannedFrom(sessionID string) events.Transcript {
	s, err := en.Store.Peek(sessionID)
	if err != nil {
		return events.Transcript{}
	}
	return s.Recorder.Scanned
}

// toolResultUUID finds the transcript line answering a tool call, reading from the turn's start.
func toolResultUUID(main tsource, from int64, toolUseID string) string {
	if !main.valid() {
		return ""
	}
	data, err := main.read(from)
	if err != nil {
		return ""
	}
	return claudecode.ToolResultUUID(data, toolUseID)
}
