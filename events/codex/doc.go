/*
Package codex is the OpenAI Codex CLI's entry in the agent table: it maps Codex's command hooks
to the recorder's lifecycle, reads Codex's rollout files (the JSONL transcript of a thread), and
installs the project hooks in .codex/hooks.json. It does no git work and keeps no state.

Reference: agent-hooks.md §4 (configuration, payloads, rollout, pitfalls), §10, §11.

# Verbs

Codex calls `entire hooks codex <verb>`; the verb is the kebab-case form of the event.

	verb                Codex event        lifecycle kind
	session-start       SessionStart       SessionStart (Source from "source")
	user-prompt-submit  UserPromptSubmit   TurnStart (Prompt from "prompt")
	stop                Stop               TurnEnd (LastMessage from "last_assistant_message")
	stop-failure        StopFailure        TurnEnd (the turn ended on an API error)
	interrupt           Interrupt          TurnEnd (the user interrupted the turn)
	session-end         SessionEnd         SessionEnd (Reason from "reason")
	subagent-start      SubagentStart      SubagentStart
	subagent-stop       SubagentStop       SubagentEnd
	pre-tool-use        PreToolUse         Ignore (accepted and logged only)
	post-tool-use       PostToolUse        Ignore
	pre-compact         PreCompact         Ignore
	post-compact        PostCompact        Ignore

Every payload's session_id is the session, transcript_path the rollout and model the Model.
Codex sends no tool_use_id for subagents: agent_id becomes both SubagentID and ToolUseID, so a
SubagentStart and its SubagentStop meet on the same pre-task file; agent_type is the
SubagentType, and SubagentStop's agent_transcript_path (the child's own rollout) the
SubagentTranscript. IDs used as file names must match ^[A-Za-z0-9_-]+$; Codex's are UUIDs,
and agent.SafeID maps any other form deterministically (runs of other bytes become '_', plus
a hash).

Subagent threads: Codex fires the thread-scoped hooks (SessionStart, UserPromptSubmit, Stop,
StopFailure, Interrupt) for subagent threads as well, with the parent's session_id. Acting on
them would open and close turns of the parent session on the child's rollout, so Parse maps
such a call to Ignore when the payload shows it comes from a subagent thread: it carries an
agent_id, or its transcript_path is a rollout (rollout-<timestamp>-<thread id>.jsonl) whose
thread id is not the session_id (a root thread's rollout ends in its own id, which is the
session id). A payload whose transcript_path is null or not named like a rollout, and that has
no agent_id, is taken as the root thread's. The subagent's work is still recorded, through
SubagentStop and the child rollout it names.

Reply prints nothing for every verb: Codex validates hook output against strict schemas
(additionalProperties false), and empty output is valid everywhere.

# Limits of the hook protocol and how the recorder copes

  - Hooks run only once trusted: Codex skips a non-managed hook until the user reviews it in
    /hooks, and any change to its definition (a reinstall with other fields) makes it
    untrusted again. Install therefore writes the same bytes every time.
  - transcript_path is nullable (--ephemeral threads have no rollout). DefaultTranscript
    searches $CODEX_HOME/sessions (default ~/.codex/sessions) for
    YYYY/MM/DD/rollout-*-<session id>.jsonl and returns the newest match, or "" when there is
    none (an ephemeral thread); ENTIRE_TEST_CODEX_PROJECT_DIR, when set, replaces the sessions
    directory, and a rollout placed directly in it is found too.
  - Stop's last_assistant_message is nullable; the recorder then takes the turn's summary from
    the rollout.
  - A turn may end three ways (Stop, StopFailure on an API error, Interrupt when the user
    interrupts): all three are TurnEnd, so the turn is closed whichever comes. StopFailure and
    Interrupt exist only in newer builds; an older Codex ignores their entries and sends nothing
    when the user interrupts a turn. The agent is therefore agent.TurnEndUnreliable: the next
    prompt closes a turn left open from the rollout, unless it carries that turn's turn_id
    (Hook.TurnID): Codex runs UserPromptSubmit for a message the user types while the model
    works too, with the running turn's turn_id, and that message is more input to the turn.
  - SessionEnd and Interrupt are clamped to 3 s (their entries ask for exactly 3 so Codex does not
    warn at start); older builds send no SessionEnd at all, so no hook marks the session ended.
  - Matchers only apply to some events; only SessionStart gets one ("startup|resume|clear",
    tested against source): a compaction keeps the thread and is not a new session.

# Rollout

One JSON object per line: {"timestamp", "type", "payload"} with type session_meta,
turn_context, response_item, event_msg or compacted. Unknown types are skipped.

  - Prompts: the message of every event_msg user_message, trimmed, empty ones dropped. Codex
    writes each prompt twice, as a response_item user message and as that event; the events
    are the prompts. A scan that sees no user_message event falls back to the response_item
    messages of role user: their input_text blocks, trimmed and joined by a blank line, without
    the blocks Codex writes itself (<environment_context>, <user_instructions>,
    <user_shell_command>, <turn_aborted>, "# AGENTS.md instructions ..."); developer messages
    are never prompts. The fallback is decided per scan, so a scan boundary that falls between a
    prompt's response_item and its event (two adjacent lines written together) counts the
    prompt twice when the scan before the boundary holds no user_message event at all. Turn
    boundaries (UserPromptSubmit fires before either line is written, Stop after both) never
    split them.
  - LastAssistant: the message of the last event_msg agent_message or the last non-empty
    output_text block of a response_item assistant message, whichever comes last (they hold the
    same text).
  - ModifiedFiles: the paths of apply_patch envelopes, as written (relative to the thread's cwd,
    which Cwd holds: the cwd of the last session_meta or turn_context line; the recorder takes
    them from it when it lies inside the repository), first-seen order, no duplicates: the input of a custom_tool_call named
    apply_patch, and every string in the arguments of a function_call named apply_patch, or of
    any function_call (shell, exec_command, ...) whose arguments mention apply_patch. Between
    "*** Begin Patch" and "*** End Patch" the lines "*** Add File: p", "*** Update File: p",
    "*** Delete File: p" and "*** Move to: p" each name p. Files changed by other shell
    commands are not attributable here; the worktree status remains the broader signal.
  - Actions: every function_call (Tool = name, Detail = the arguments' "cmd", else "command",
    whose shell argv ["bash", "-lc", script] gives the script and any other argv its words
    joined) and every custom_tool_call (Tool = name); an apply_patch call without another
    detail is described by the first path it writes.
  - Usage: token_count events carry info.total_token_usage, cumulative over the thread, and
    info.last_token_usage, the usage of the API response just received. A scan from an offset
    cannot see the total before its first event, so instead of differencing totals it sums
    last_token_usage: InputTokens = input_tokens - cached_input_tokens, CacheReadTokens =
    cached_input_tokens, OutputTokens = output_tokens (reasoning tokens are part of them), one
    API call per token_count whose info is not null. Codex repeats a token_count with
    unchanged totals (a rate-limit update); the total identifies the response, so the
    repetition is counted once, across scan boundaries too (Scan.AddCall keyed by the
    total). A scan that starts past the file's start cannot know the total before it: when a
    token_count comes before any response item of the model (a commit made between the two
    copies), the scan says its usage may count a response before it (Scan.UsageBeforeStart)
    and the recorder takes the usage up to its end less the usage before it (ScanFileTo, an
    agent.RangeScanner). Over a whole rollout the sum equals the last total. Usage of subagent
    threads lives in their own rollouts.
  - LastUUID: the turn_id of the last turn_context or event_msg task_started.

Positions are byte offsets after complete lines. Every newline-terminated line is counted in
Lines, whatever it holds; a final line without '\n' is not consumed (Codex may be writing it)
and the next scan, starting at EndOffset, reads it whole. ScanFile reads through a buffered
reader, so memory follows the longest line, not the file. An offset past the end of the file is
an error wrapping ErrOffsetPastEnd: the file was replaced and the caller rescans from 0.

# Configuration

.codex/hooks.json holds {"hooks": {"<Event>": [{"matcher", "hooks": [{"type": "command",
"command", "timeout"}]}]}}, the layout Claude Code uses. Install adds one command entry per
event, `entire hooks codex <verb>`:

	SessionStart      matcher "startup|resume|clear"   session-start
	UserPromptSubmit                                   user-prompt-submit
	Stop                                               stop
	StopFailure                                        stop-failure
	Interrupt                                          interrupt (timeout 3)
	SessionEnd                                         session-end (timeout 3)
	SubagentStart                                      subagent-start
	SubagentStop                                       subagent-stop

A group without a matcher gets no "matcher" key (Codex reads an absent matcher as "all"). The
Ignore verbs are understood so that an entry a user (or another tool) adds for them does not
fail, but are not installed: each would cost a process per tool call. Install keeps every other
key, event and entry, and adds nothing that is there already; with force it first removes
Entire's entries. Uninstall removes exactly the entries whose command starts with "entire ",
drops the groups and events it emptied, and deletes the file (and .codex/ when empty) when
nothing else is left.

ResumeCommand gives `codex resume <id>`.
*/
package codex
