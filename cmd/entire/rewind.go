package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/history"
	"github.com/entirerec/entire/events/agent"
)

// rewindCmd is `entire rewind` (spec §10): go back to a checkpoint's files and transcript, or
// a committed checkpoint's transcripts. Before anything is overwritten the current state is
// saved, so --undo can put it back; a rewind that would discard uncommitted edits no commit or
// checkpoint holds asks first (or needs --force without a terminal).
type rewindCmd struct {
	List     bool   `help:"Print the rewind points as a JSON array, newest first."`
	To       string `help:"Rewind to this point without the picker: a full ID, a committed checkpoint ID, or a prefix of 7 or more characters." placeholder:"ID"`
	LogsOnly bool   `help:"Restore only the session transcript, not the files."`
	Reset    bool   `help:"For a committed checkpoint: also reset the current branch to its commit (git reset --hard)."`
	Undo     bool   `help:"Put back the state the last rewind replaced (again: redo it)."`
	Force    bool   `short:"f" help:"Discard uncommitted edits that no checkpoint holds without asking."`

	branchReset bool // --reset to a committed checkpoint: reported in the reference's words
	taskPoint   bool // a subagent's temporary checkpoint: reported in the reference's words
}

// rewindPointJSON is one element of --list, with the reference's keys (spec §10).
type rewindPointJSON struct {
	ID               string `json:"id"`
	Message          string `json:"message"`
	MetadataDir      string `json:"metadata_dir"`
	Date             string `json:"date"`
	IsTaskCheckpoint bool   `json:"is_task_checkpoint"`
	ToolUseID        string `json:"tool_use_id,omitempty"`
	IsLogsOnly       bool   `json:"is_logs_only"`
	CondensationID   string `json:"condensation_id,omitempty"`
	SessionID        string `json:"session_id,omitempty"`
	SessionPrompt    string `json:"session_prompt,omitempty"`
}

func (c *rewindCmd) validate() error {
	switch {
	case c.List && (c.To != "" || c.Undo || c.LogsOnly || c.Reset):
		return errors.New("--list cannot be combined with --to, --undo, --logs-only or --reset")
	case c.Undo && (c.To != "" || c.LogsOnly || c.Reset):
		return errors.New("--undo cannot be combined with --to, --logs-only or --reset")
	case c.LogsOnly && c.Reset:
		return errors.New("--logs-only and --reset are mutually exclusive")
	case (c.LogsOnly || c.Reset) && c.To == "":
		return errors.New("--logs-only and --reset need --to <id>")
	}
	return nil
}

func (c *rewindCmd) Run(e *env) error {
	if err := c.validate(); err != nil {
		return err
	}
	if recordingDisabled(e) {
		return nil
	}
	en, done, err := openEngine(e)
	if err != nil {
		return err
	}
	defer done()
	term := newTerminal()
	if c.Undo {
		plan, err := history.New(en).PlanUndo(e.ctx)
		if err != nil {
			return err
		}
		return c.apply(e, en, term, plan)
	}
	points, err := history.New(en).RewindPoints(e.ctx)
	if err != nil {
		return err
	}
	if c.List {
		return printPointsJSON(e, points)
	}
	var p history.RewindPoint
	if c.To != "" {
		if p, err = history.FindRewindPoint(points, c.To); err != nil {
			return err
		}
	} else {
		var ok bool
		if p, ok, err = pickPoint(e, term, points); err != nil || !ok {
			return err
		}
	}
	if c.LogsOnly && !p.IsLogsOnly && !p.AutoCommit {
		// A temporary checkpoint's files are the point of it: the reference's refusal, word for word.
		return &exitError{code: 1, err: errors.New("failed to restore logs: not a logs-only rewind point")}
	}
	kind := history.RewindFiles
	c.taskPoint = p.IsTaskCheckpoint && !p.IsLogsOnly && !p.AutoCommit
	switch {
	case c.Reset:
		kind = history.RewindReset
		c.branchReset = !p.AutoCommit
	case c.LogsOnly || p.IsLogsOnly:
		kind = history.RewindLogsOnly
	case p.AutoCommit:
		kind = history.RewindReset // the auto-commit strategy's commit: the branch goes back to it
	}
	plan, err := history.New(en).PlanRewind(e.ctx, p, kind, transcriptPlace(en.Repo))
	if err != nil {
		return err
	}
	return c.apply(e, en, term, plan)
}

// apply asks before discarding the user's own edits, then rewinds and reports.
func (c *rewindCmd) apply(e *env, en *engine.Engine, term terminal, plan *history.RewindPlan) error {
	if len(plan.Discard) > 0 && !c.Force {
		fmt.Fprintln(e.stderr, "This rewind would discard uncommitted changes that no commit or checkpoint holds:")
		for _, f := range plan.Discard {
			fmt.Fprintf(e.stderr, "  %s\n", pathText(f))
		}
		if !term.Available() {
			return fmt.Errorf("rewind would discard uncommitted changes to %s; commit or stash them, or pass --force "+
				"(the current state is saved first either way: `entire rewind --undo` brings it back)", strings.Join(plan.Discard, ", "))
		}
		if !term.Confirm(nil, "Discard them and rewind? [y/N] ", false) {
			fmt.Fprintln(e.stdout, "Rewind cancelled.")
			return nil
		}
	}
	// Moving the branch is asked first on a terminal (the reference resets without asking).
	if plan.Kind == history.RewindReset && len(plan.Discard) == 0 && !c.Force && term.Available() &&
		!term.Confirm(nil, fmt.Sprintf("Reset the current branch to %s? [Y/n] ", plan.Label), true) {
		fmt.Fprintln(e.stdout, "Rewind cancelled.")
		return nil
	}
	saved, err := history.New(en).ApplyRewind(e.ctx, plan)
	if err != nil {
		return err
	}
	for _, f := range plan.Delete {
		fmt.Fprintf(e.stdout, "  Deleted: %s\n", pathText(f))
	}
	for _, f := range plan.Write {
		fmt.Fprintf(e.stdout, "  Restored: %s\n", pathText(f))
	}
	for _, t := range plan.Transcripts {
		if t.Remove {
			fmt.Fprintf(e.stdout, "  Removed transcript: %s\n", t.Path)
		} else {
			fmt.Fprintf(e.stdout, "  Transcript: %s\n", t.Path)
		}
		switch {
		case t.LeftWorktree != "":
			fmt.Fprintf(e.stderr, "  left as it is the transcript of %s that worktree %s keeps, where the session is recorded: %s\n", t.SessionID, t.LeftWorktree, t.Left)
		case t.Left != "":
			fmt.Fprintf(e.stderr, "  left as it is the transcript of %s that the checkout it was recorded in keeps, which holds what the checkpoint's lacks: %s\n", t.SessionID, t.Left)
		}
	}
	switch {
	case plan.Undo:
		fmt.Fprintf(e.stdout, "Undid the last rewind: back to the state saved in %s.%s", plan.Label, resumeLines(plan.Resume, false))
		fmt.Fprintf(e.stdout, "The state it replaced is saved in %s; `entire rewind --undo` again redoes the rewind.\n", saved.Short(7))
		return nil
	case plan.Kind == history.RewindLogsOnly:
		// The reference's lines for a logs-only rewind: how to resume, and that no file changed.
		fmt.Fprint(e.stdout, strings.TrimPrefix(resumeLines(plan.Resume, true), " "))
		fmt.Fprintln(e.stdout, "Note: Working directory unchanged. Use interactive mode for full checkout.")
	case plan.Kind == history.RewindReset && c.branchReset:
		// The reference's lines for --reset: the branch moved, then the logs-only resume lines.
		fmt.Fprintf(e.stdout, "Reset branch to %s.\n", plan.Label)
		fmt.Fprint(e.stdout, strings.TrimPrefix(resumeLines(plan.Resume, true), " "))
	case plan.Kind == history.RewindFiles && c.taskPoint:
		fmt.Fprintf(e.stdout, "Rewound to task checkpoint.%s", resumeLines(plan.Resume, false))
	default:
		fmt.Fprintf(e.stdout, "Rewound to %s.%s", plan.Label, resumeLines(plan.Resume, false))
	}
	fmt.Fprintf(e.stdout, "The previous state is saved in %s; `entire rewind --undo` puts it back.\n", saved.Short(7))
	return nil
}

// resumeLines is how to continue the rewound sessions (spec §3.5), given the most recent first:
// one session's command after a space on the line it ends, with its first prompt when prompts
// is set; several on lines of their own under "Restored <n> sessions. Resume with:", the oldest
// first and the most recent marked. It ends with a newline.
func resumeLines(lines []history.ResumeLine, prompts bool) string {
	line := func(l history.ResumeLine, note string) string {
		if c := strings.TrimSpace(truncate(oneLine(l.Prompt), 60) + note); c != "" && (prompts || note != "") {
			return l.Command + "  # " + c
		}
		return l.Command
	}
	switch len(lines) {
	case 0:
		return "\n"
	case 1:
		return " " + line(lines[0], "") + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nRestored %d sessions. Resume with:\n", len(lines))
	for i := len(lines) - 1; i >= 0; i-- {
		note := ""
		if i == 0 {
			note = " (most recent)"
		}
		b.WriteString("  " + line(lines[i], note) + "\n")
	}
	return b.String()
}

func printPointsJSON(e *env, points []history.RewindPoint) error {
	if len(points) > history.RewindListLimit {
		points = points[:history.RewindListLimit]
	}
	out := make([]rewindPointJSON, 0, len(points))
	for _, p := range points {
		out = append(out, rewindPointJSON{
			ID: p.ID, Message: p.Message, MetadataDir: p.MetadataDir, Date: p.Date.Format(time.RFC3339),
			IsTaskCheckpoint: p.IsTaskCheckpoint, ToolUseID: p.ToolUseID, IsLogsOnly: p.IsLogsOnly,
			CondensationID: p.CheckpointID, SessionID: p.SessionID, SessionPrompt: agent.Clip(p.SessionPrompt, 60),
		})
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.raw, "%s\n\n", data) // the reference prints two newlines after it
	return err
}

// pickPoint prints the numbered points and reads a choice from the terminal; ok=false when
// the user cancels. Without a terminal it prints the list and fails with a hint.
func pickPoint(e *env, term terminal, points []history.RewindPoint) (history.RewindPoint, bool, error) {
	if len(points) == 0 {
		fmt.Fprintln(e.stdout, "No rewind points found. They appear when an agent session's turn ends.")
		return history.RewindPoint{}, false, nil
	}
	if len(points) > history.RewindListLimit {
		points = points[:history.RewindListLimit]
	}
	for i, p := range points {
		fmt.Fprintf(e.stdout, "%3d. %s\n", i+1, pointLabel(p))
	}
	if !term.Available() {
		return history.RewindPoint{}, false, &exitError{code: 1, err: errors.New(
			"no terminal to choose on: rerun with `entire rewind --to <id>` (IDs as above), or --list for JSON")}
	}
	n := askNumber(term, fmt.Sprintf("Rewind to which point? [1-%d, Enter cancels] ", len(points)), len(points))
	if n == 0 {
		fmt.Fprintln(e.stdout, "Rewind cancelled.")
		return history.RewindPoint{}, false, nil
	}
	return points[n-1], true, nil
}

// pointLabel is one line of the picker.
func pointLabel(p history.RewindPoint) string {
	tag := ""
	switch {
	case p.IsLogsOnly:
		tag = " [logs only, checkpoint " + p.CheckpointID + "]"
	case p.IsTaskCheckpoint:
		tag = " [task]"
	}
	who := "session " + short(p.SessionID, 12)
	if p.Agent != "" {
		who = p.Agent + " " + who
	}
	return fmt.Sprintf("%s  %s  %s%s  (%s)", p.Short(), p.Date.Local().Format("01-02 15:04"),
		truncate(p.Message, 60), tag, who)
}

// askNumber reads a number in 1..n from the terminal; 0 means cancel. A terminal pretended by
// ENTIRE_TEST_TTY answers with the default, cancel.
func askNumber(t terminal, question string, n int) int {
	if t.forced != "" {
		return 0
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return 0
	}
	defer f.Close()
	in := bufio.NewReader(f)
	for {
		fmt.Fprint(f, question)
		line, err := in.ReadString('\n')
		line = strings.TrimSpace(line)
		if line == "" || err != nil {
			return 0
		}
		if k, err := strconv.Atoi(line); err == nil && k >= 1 && k <= n {
			return k
		}
		fmt.Fprintf(f, "%q is not a number from 1 to %d.\n", line, n)
	}
}
