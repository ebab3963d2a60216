package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
	"github.com/entirerec/entire/gitexec"
)

// hooksCmd is the entry point agents and git call. It always exits 0: an internal error is
// logged to .entire/logs/entire.log so that a recorder bug never blocks a turn or a commit.
type hooksCmd struct {
	Agent string   `arg:"" help:"Who calls: git or an agent (claude-code, gemini, cursor, codex, copilot, opencode, droid)."`
	Verb  string   `arg:"" help:"The hook event, e.g. stop or post-commit."`
	Args  []string `arg:"" optional:"" passthrough:"" help:"Arguments git passes to its hook."`

	noHeal bool // doctor's self-test: leave the setup as it is, to see whether it works
}

// hookRun is one hook invocation's context.
type hookRun struct {
	e        *env
	repo     *gitexec.Repo
	log      *slog.Logger
	settings setup.Settings
	// settingsErr: the settings could not be read, so settings holds the defaults. Recording
	// goes on as enabled (spec §9); the record is not pushed (see the pre-push hook).
	settingsErr error
	started     time.Time
	failed      error
	noHeal      bool
	gitHook     bool // git runs this hook: the branch must not move under it
	// notSetUp: git runs this hook in a worktree without .entire/ (Entire was never set up
	// here, or was uninstalled), through a core.hooksPath shared with repositories where it
	// is. The hook then leaves nothing behind and pushes no record.
	notSetUp bool
}

func (c *hooksCmd) Run(e *env) error {
	if c.Agent == "git" {
		switch c.Verb {
		case "commit-msg":
			// A rewrite of the message file: no settings or log needed, and the repository
			// only for its comment prefix when the message holds what the hook may remove.
			if len(c.Args) > 0 {
				_ = engine.CommitMsg(e.ctx, e.cwd, c.Args[0], engine.CommitMsgFacts{Given: messageGivenUnedited, Template: commitTemplate, Cleanup: commitCleanupArg})
			}
			return nil
		case "prepare-commit-msg", "post-commit":
			if (c.Verb == "post-commit" || len(c.Args) > 0) && !debugLogging() && engine.GitHookIdle(e.cwd) {
				return nil // no session to link or condense: cost nothing
			}
		}
	}
	h := &hookRun{e: e, started: time.Now(), noHeal: c.noHeal, gitHook: c.Agent == "git"}
	root := e.cwd
	repo, repoErr := gitexec.Open(e.ctx, e.cwd)
	level := ""
	if repoErr == nil {
		defer repo.Close()
		// post-commit starts no object reader ahead: what it reads, the new commit, the trees
		// it changed and the record's last checkpoint, git wrote as loose files that it reads
		// itself (gitexec's loose.go); cat-file starts at the first object they do not hold.
		h.repo, root = repo, repo.TopLevel
		if h.settings, h.settingsErr = setup.LoadSettings(root); h.settingsErr != nil {
			h.settings = setup.DefaultSettings() // unreadable settings: behave as enabled
		}
		level = h.settings.LogLevel
	}
	var log *slog.Logger
	closeLog := func() {}
	if fi, err := os.Stat(filepath.Join(root, ".entire")); c.Agent == "git" && repoErr == nil && (err != nil || !fi.IsDir()) {
		// No .entire/logs/ created here for `git add -A` to commit: warnings go to stderr.
		h.notSetUp = true
		log = newLogger(e.stderr, "warn", e.stderr)
	} else {
		log, closeLog = openLog(root, level, e.stderr)
	}
	defer closeLog()
	if repoErr == nil && h.settingsErr == nil && !h.settings.Enabled && c.Agent != "git" {
		// Recording is off (spec §1): an agent hook exits 0 silently, without reading stdin and
		// without a log line; the log file is still opened. Git hooks are not gated.
		return nil
	}
	// The hooks' lines; the engine's lines about a session's phase and about checkpoints are
	// its children, with their own component (engine/logs.go).
	h.log = log.With("component", "hooks", "agent", c.Agent, "hook", c.Verb)
	h.log.Debug("hook invoked")
	if h.settingsErr != nil {
		// Said at every hook: nothing else shows that the settings written are not the ones in
		// effect (a load error counts as enabled, with the default settings).
		h.log.Warn("settings cannot be read; recording as if enabled, with the default settings, until the file is fixed (see `entire doctor`)",
			"error", h.settingsErr.Error())
	}
	for _, u := range h.settings.Unsupported() {
		h.log.Warn("setting refused", "reason", u)
	}
	for _, u := range h.settings.UnknownOptions() {
		h.log.Warn("setting ignored", "reason", u) // the file is not refused for it (a free map in the reference)
	}
	defer func() {
		h.log.Debug("hook completed", "duration_ms", time.Since(h.started).Milliseconds(), "success", h.failed == nil)
	}()
	var err error
	switch {
	case repoErr != nil:
		err = fmt.Errorf("not a git repository: %s: %w", e.cwd, repoErr)
	case c.Agent == "git":
		err = h.git(c.Verb, c.Args)
	default:
		if a, ok := agents.Lookup(c.Agent); ok {
			err = h.agentHook(a, c.Verb)
		} else {
			err = fmt.Errorf("unknown hook source %q", c.Agent)
		}
	}
	if err != nil {
		h.log.Error("hook failed", "error", err.Error())
	}
	h.failed = err
	return nil
}

// logHookUsage records a hook call kong could not parse, in the repository's log as every
// hook does (a hook may run in a subdirectory).
func logHookUsage(e *env, args []string, err error) {
	root := e.cwd
	if repo, rerr := gitexec.Open(e.ctx, e.cwd); rerr == nil {
		if repo.TopLevel != "" {
			root = repo.TopLevel
		}
		repo.Close()
	}
	log, closeLog := openLog(root, "", e.stderr)
	defer closeLog()
	log.Error("hook usage", "component", "hooks", "args", args, "error", err.Error())
}

const startMessage = "\n\nPowered by Entire:\n  This conversation will be linked to your next commit."

// startSystemMessage is what session-start shows the user (spec §9.1), with the opt-in
// multi-session warning of seed 003 when strategy_options.enable_multisession_warning is set.
func startSystemMessage(others []session.State, warn bool) string {
	msg := startMessage
	if len(others) == 0 {
		return msg
	}
	msg += fmt.Sprintf("\n  %d other active conversation(s) in this workspace will also be included.\n  Use 'entire status' for more information.", len(others))
	if !warn {
		return msg
	}
	var b strings.Builder
	b.WriteString("\n\nWarning: An existing session has uncommitted work on this branch.\n")
	for _, o := range others {
		fmt.Fprintf(&b, "\n  Session ID: %s\n  Checkpoints: %d uncommitted\n", o.SessionID, o.CheckpointCount)
		if len(o.FilesTouched) > 0 {
			fmt.Fprintf(&b, "  Files touched: %s\n", strings.Join(o.FilesTouched, ", "))
		}
	}
	b.WriteString("\n  Starting a new session will merge with the existing session.\n" +
		"  - If files overlap: both continue on the same shadow branch\n" +
		"  - If not: the next checkpoint starts the shadow branch afresh (the other session's state is kept)\n" +
		"  Commit the existing work first if you want it in a checkpoint of its own.")
	return msg + b.String()
}

// agentHook runs one agent hook: the agent's package parses the payload into a lifecycle
// kind, the engine records it, and the agent's package says what to print.
func (h *hookRun) agentHook(a agent.Agent, verb string) error {
	data, err := io.ReadAll(h.e.stdin)
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	in, err := a.Parse(verb, data)
	if err != nil {
		return err
	}

	// One line per agent hook, session or not (the reference's fields; the hook's own session
	// is model_session_id, and session_id too once the session exists, as every later line).
	attrs := []any{"hook_type", hookType(in.Kind), "model_session_id", in.SessionID, "transcript_path", in.TranscriptPath}
	if known, _ := session.NewStore(h.repo.CommonDir).Has(in.SessionID); known {
		attrs = append(attrs, "session_id", in.SessionID)
	}
	if in.Foreign != "" { // its own hooks record it, when installed
		attrs = append(attrs, "ignored", "payload of "+in.Foreign+", not of "+a.Type())
	}
	h.log.Info(verb, attrs...)
	if in.Kind == agent.Ignore { // a disabled recorder returned before reading stdin (Run)
		return nil
	}
	// A payload without a session ID is refused, not recorded under a made-up one (issue 11):
	// sessions of different conversations must never share a journal.
	if err := agent.ValidateSessionID(in.SessionID); err != nil {
		return fmt.Errorf("reject session id: %w; the hook is not recorded", err)
	}
	// Every later line names the hook's session, the engine's too; a line about another
	// session names that one instead (the log handler keeps one session_id per line).
	h.log = h.log.With("session_id", in.SessionID)
	en := h.engine()
	if en.Store.Forgotten(in.SessionID) {
		// The user forgot it (entire forget): nothing of it is recorded, and no message says
		// it will be.
		h.log.Info("session forgotten with entire forget: not recorded")
		return nil
	}
	// A tool's input is journaled (a todo list); one larger than a prompt may be is dropped, not
	// cut, since a cut would not be JSON.
	if len(in.ToolInput) > agent.MaxTextBytes {
		h.log.Warn("tool input dropped: too large to record", "bytes", len(in.ToolInput), "limit", agent.MaxTextBytes)
		in.ToolInput = nil
	}
	if in.TranscriptPath == "" {
		in.TranscriptPath = a.DefaultTranscript(cmp.Or(in.Workspace, h.repo.TopLevel), in.SessionID)
	}
	if m, ok := a.(agent.Materializer); ok && in.TranscriptPath == "" && in.Kind != agent.SessionStart {
		if in.TranscriptPath, err = m.Materialize(h.e.ctx, in.SessionID, materializedDir(h.repo, a)); err != nil {
			h.log.Error("transcript export failed", "error", err.Error())
			in.TranscriptPath = ""
		}
	}
	// The transcript path is input, not a trusted path: anything but a transcript (a FIFO, a
	// directory, a private file) is never read into the record.
	if err := agent.CheckTranscript(in.TranscriptPath); errors.Is(err, agent.ErrNotTranscript) {
		h.log.Error("transcript rejected", "error", err.Error())
		in.TranscriptPath = ""
	}
	if in.SubagentTranscript != "" {
		if err := agent.CheckTranscript(in.SubagentTranscript); errors.Is(err, agent.ErrNotTranscript) {
			h.log.Error("subagent transcript rejected", "error", err.Error())
			in.SubagentTranscript = ""
		}
	}
	ctx := h.e.ctx
	tr := events.Transcript{Path: in.TranscriptPath}
	typ := a.Type()
	reply := func(message string) {
		if out := a.Reply(in, message); len(out) > 0 {
			_, _ = h.e.stdout.Write(out)
		}
	}
	switch in.Kind {
	case agent.SessionStart:
		others, err := en.SessionStart(ctx, events.SessionStarted{SessionID: in.SessionID, Agent: typ, Source: in.Source, Transcript: tr})
		reply(startSystemMessage(others, h.settings.MultiSessionWarning()) + h.hooksWarning(in.Source))
		if err == nil && in.OpensTurn {
			healed := h.autoHeal(en)
			err = en.TurnStart(ctx, events.TurnStarted{SessionID: in.SessionID, Agent: typ, Transcript: tr})
			healed()
		}
		return err
	case agent.TurnStart:
		healed := h.autoHeal(en)
		defer healed()
		return en.TurnStart(ctx, events.TurnStarted{SessionID: in.SessionID, Agent: typ, Prompt: in.Prompt, Transcript: tr, Cwd: in.Cwd, AgentTurnID: in.TurnID})
	case agent.TurnEnd:
		return en.TurnEnd(ctx, events.TurnEnded{SessionID: in.SessionID, Agent: typ, Transcript: tr, Cwd: in.Cwd}, in.LastMessage, h.started)
	case agent.SessionEnd:
		return en.SessionEnd(ctx, events.SessionStopped{SessionID: in.SessionID, Agent: typ, Reason: in.Reason})
	case agent.SubagentStart:
		reply("")
		return en.PreTask(ctx, events.SubagentStarted{SessionID: in.SessionID, Agent: typ, ToolUseID: in.ToolUseID,
			SubagentType: in.SubagentType, Description: in.Description})
	case agent.SubagentEnd:
		reply("")
		return en.TaskEnded(ctx, events.SubagentEnded{SessionID: in.SessionID, Agent: typ, ToolUseID: in.ToolUseID, AgentID: in.SubagentID,
			SubagentType: in.SubagentType, Description: in.Description, TranscriptPath: in.SubagentTranscript, Transcript: tr}, in.Async)
	case agent.TaskStep:
		return en.TodoStep(ctx, events.SubagentEnded{SessionID: in.SessionID, Agent: typ, ToolName: in.ToolName, Todo: in.ToolInput, Transcript: tr})
	}
	return fmt.Errorf("%s hook %q: unhandled kind %s", a.Name(), verb, in.Kind)
}

// materializedDir is where the hooks keep the transcripts they write for an agent that keeps
// none of its own (agent.Materializer): <git-common-dir>/entire-sessions/transcripts/<agent>.
func materializedDir(repo *gitexec.Repo, a agent.Agent) string {
	return session.NewStore(repo.CommonDir).MaterializedDir(a.Name())
}

// autoHeal repairs the setup at every prompt (spec §5.3): .entire/.gitignore, the metadata
// branch and the git hooks (also brought up to this version's scripts). Failures are only logged. Where the hooks live may take a git
// process (core.hooksPath may come from any config file; gitexec.HooksDir reads the files
// first): it runs beside the turn's start, and
// the returned function, called once the turn has started, finishes the hooks' repair.
func (h *hookRun) autoHeal(en *engine.Engine) (healed func()) {
	if h.noHeal {
		return func() {}
	}
	type gitPath struct {
		dir string
		err error
	}
	hooks := make(chan gitPath, 1)
	go func() {
		dir, err := h.repo.HooksDir(h.e.ctx)
		hooks <- gitPath{dir, err}
	}()
	if err := setup.EnsureGitignore(h.repo.TopLevel); err != nil {
		h.log.Warn("auto-heal gitignore", "error", err.Error())
	}
	if err := en.EnsureMetadataBranch(h.e.ctx); err != nil {
		h.log.Warn("auto-heal metadata branch", "error", err.Error())
	}
	return func() {
		p := <-hooks
		err := p.err
		if err == nil && !setup.GitHooksCurrent(p.dir) { // missing, or an older version's
			_, err = setup.InstallGitHooks(p.dir)
		}
		if err != nil {
			h.log.Warn("auto-heal git hooks", "error", err.Error())
		}
	}
}

// engine opens the engine for this hook after finishing what earlier hooks left pending (a
// condensation or an auto-commit interrupted by a crash or a git failure), so that every hook
// sees the record whole. A git hook leaves auto-commits to the next hook.
func (h *hookRun) engine() *engine.Engine {
	en := engine.New(h.repo, h.log, h.e.stderr)
	en.Strategy = h.settings.Strategy
	en.HoldBranch = h.gitHook
	if err := en.DrainPending(h.e.ctx); err != nil {
		h.log.Error("pending work", "error", err.Error())
	}
	return en
}

func (h *hookRun) git(verb string, args []string) error {
	en := h.engine()
	ctx := h.e.ctx
	switch verb {
	case "prepare-commit-msg":
		if len(args) == 0 {
			return errors.New("prepare-commit-msg: missing message file")
		}
		source := ""
		if len(args) > 1 {
			source = args[1]
		}
		return en.PrepareCommitMsg(ctx, args[0], source, source == "message" && amending(), newTerminal())
	case "commit-msg":
		if len(args) == 0 {
			return errors.New("commit-msg: missing message file")
		}
		return engine.CommitMsg(ctx, h.repo.TopLevel, args[0], engine.CommitMsgFacts{Given: messageGivenUnedited, Template: commitTemplate, Cleanup: commitCleanupArg})
	case "post-commit":
		return en.PostCommit(ctx)
	case "post-rewrite", "post-merge":
		if verb == "post-rewrite" && len(args) > 0 && (args[0] == "rebase" || args[0] == "amend") {
			list, err := io.ReadAll(io.LimitReader(h.e.stdin, maxRewrittenList))
			if err != nil {
				return fmt.Errorf("read rewritten commits: %w", err)
			}
			folded, err := keepFoldedTrailers(ctx, en.Repo, list)
			if err != nil {
				h.log.Warn("folded commits' checkpoints", "error", err.Error())
			} else if folded > 0 {
				h.log.Info("folded commits' checkpoints kept", "commits", folded)
			}
		}
		// Bounded work per rewrite or merge: the newest commits only (entire relink does more).
		found, err := relinkCommits(ctx, en.Repo, []string{fmt.Sprintf("-n%d", hookRelink), "HEAD"}, nil)
		if found > 0 {
			h.log.Info("links found by content", "commits", found)
		}
		return err
	case "pre-push":
		if len(args) == 0 {
			return errors.New("pre-push: missing remote")
		}
		warnShadowPush(h.e.stderr, args[0], pushedShadowBranches(h.e.stdin))
		if h.notSetUp {
			// Uninstalled here (`disable --uninstall` leaves hooks in a shared directory) or
			// never set up: the local record is not this repository's to push any more.
			return nil
		}
		held := setup.RecordHeld(h.settings, h.settingsErr)
		if h.settingsErr != nil {
			// The defaults would push, but a setting written to keep transcripts private is no
			// consent because its file is broken: keep the record home, let the user's push go.
			fmt.Fprintf(h.e.stderr, "[entire] Warning: session logs not pushed to %s: %s\n", args[0], held)
			h.log.Warn("session logs not pushed", "remote", args[0], "reason", held)
			return nil
		}
		push, dryRun := held == "", pushDryRun()
		if push && !dryRun && h.settings.ConfirmPush() {
			push = h.confirmPush(en, args[0])
		}
		return en.Sharing().PrePush(ctx, args[0], push, dryRun)
	}
	return fmt.Errorf("unknown git hook %q", verb)
}

// hookType is the reference's hook_type log field for a lifecycle kind.
func hookType(k agent.Kind) string {
	switch k {
	case agent.SessionStart, agent.SessionEnd:
		return "session"
	case agent.TurnStart, agent.TurnEnd:
		return "agent"
	case agent.SubagentStart, agent.SubagentEnd:
		return "subagent"
	}
	return "tool"
}

// confirmPush shows on stderr what the push would send of the record (strategy_options
// .confirm_push) and, on a terminal, asks first; without one the record goes, as announced.
func (h *hookRun) confirmPush(en *engine.Engine, remote string) bool {
	out, err := en.Sharing().Outgoing(h.e.ctx, remote)
	if err != nil || len(out.Checkpoints) == 0 {
		return true
	}
	printOutgoing(h.e.stderr, out)
	term := newTerminal()
	if term.Available() && !term.Confirm(nil, "Push these session logs to "+remote+"? [Y/n] ", true) {
		fmt.Fprintln(h.e.stderr, "[entire] Not pushing session logs (declined); your push goes on.")
		h.log.Info("push of session logs declined", "remote", remote)
		return false
	}
	return true
}

// hooksWarning tells a new session, in the agent's own channel, that git would not run Entire's
// hooks (core.hooksPath elsewhere, a hook that lost its run bit, another tool's hook in its
// place): its work would be recorded but never linked to a commit. Resumed, cleared or compacted
// sessions were told when they started.
func (h *hookRun) hooksWarning(source string) string {
	if source != "" && source != "startup" {
		return ""
	}
	dir, err := h.repo.HooksDir(h.e.ctx)
	if err != nil {
		return ""
	}
	why, _ := setup.GitHooksProblems(dir) // without the extra relinking hooks, commits are linked
	if why == "" {
		return ""
	}
	h.log.Warn("git hooks would not run", "reason", why)
	return "\n\nWarning: Entire's git hooks would not run (" + why + "): commits will not be linked to this conversation. Run `entire doctor` to see how to fix it."
}
