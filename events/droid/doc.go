/*
Package droid is Factory Droid's entry in the agent table: it maps Droid's command hooks (a
Claude Code-compatible protocol) to the recorder's lifecycle, reads Droid's JSONL session
transcripts, and installs the project hooks in .factory/hooks.json. It does no git work and
keeps no state.

Reference: agent-hooks.md §7 (and §1 for the Claude-compatible payloads and layout), §10, §11.

# Verbs

Droid calls `entire hooks droid <verb>`; the verbs are Claude Code's.

	verb                Droid event             lifecycle kind
	session-start       SessionStart            SessionStart (Source from "source")
	user-prompt-submit  UserPromptSubmit        TurnStart (Prompt from "prompt")
	stop                Stop                    TurnEnd
	session-end         SessionEnd              SessionEnd (Reason from "reason")
	pre-task            PreToolUse [Task]       SubagentStart
	post-task           PostToolUse [Task]      SubagentEnd with Async (the Worker was dispatched)
	subagent-stop       SubagentStop            SubagentEnd

Every payload's session_id is the session, transcript_path the transcript; model (sent on
UserPromptSubmit and Stop) is the Model. On the task verbs a tool other than Task is Ignore;
for Task, tool_use_id is the ToolUseID, tool_input's subagent_type and description the
SubagentType and Description, and tool_input itself the ToolInput. Droid may leave
tool_use_id out of its tool hooks: the ToolUseID is then "task-" and a hash of the session
id and the call's subagent_type, description and prompt, the same for the PreToolUse and the
PostToolUse of one call (two identical Task calls in flight at once share it). post-task
takes the SubagentID from tool_response's agentId, or an "agentId: <id>" line of a text
response, when there is one. subagent-stop takes agent_id, agent_type and
agent_transcript_path when Droid sends them; a SubagentStop without any id cannot be paired
with its task by the engine. IDs used as file names must match ^[A-Za-z0-9_-]+$; agent.SafeID
maps any other form deterministically (runs of other bytes become '_', plus a hash).

Reply prints {"systemMessage": message} as one JSON line at session start (when there is a
message) and nothing for the other verbs: Droid shows plain stdout to the user as is.

# Limits of the hook protocol and how the recorder copes

  - Stop does not fire when the user interrupts a turn. The agent implements
    agent.TurnEndUnreliable, and the engine closes a turn left open from the transcript at the
    next turn start or at session end.
  - In `droid exec` UserPromptSubmit does not fire: there is no TurnStart, only SessionStart and
    Stop. SessionStart therefore also opens a turn (Hook.OpensTurn), which records the worktree's
    dirty files before the agent acts (the baseline for telling the agent's changes from the
    user's); the prompt, the files and the usage come from the transcript at Stop.
    Interactively, the first prompt closes that empty turn (TurnEndUnreliable, below) and opens
    its own.
  - PostToolUse[Task] fires when a Worker is dispatched, not when it is done. It is a
    SubagentEnd with Async set: the engine notes the launch and waits for a SubagentEnd that
    is not async (subagent-stop). Workers run as sessions of their own, with their own
    SessionStart and Stop and a transcript whose session_start line names the calling session
    (callingSessionId, callingToolUseId); payloads do not say so, and the recorder records a
    Worker as a session of its own.
  - Droid reads the "hooks" of .factory/settings.json and settings.local.json only while no
    .factory/hooks.json exists. Install therefore refuses (ErrSettingsHooks) to create
    hooks.json while one of them declares hooks, which would silently stop running; the user
    moves them first. A settings file that is not plain JSON cannot be checked and does not
    block.
  - On Windows Droid runs hook commands through cmd.exe: the installed commands are plain
    `entire hooks droid <verb>`, without shell redirections.

# Transcript

Droid keeps a session at ~/.factory/sessions/<sanitized cwd>/<session id>.jsonl, the cwd with
every character that is not an ASCII letter or digit replaced by '-' (SessionDirName, as
Claude Code names its project directories; Droid's cwd is the repository root when it is
started there). $FACTORY_HOME_OVERRIDE relocates the home directory. DefaultTranscript
computes that path; ENTIRE_TEST_DROID_PROJECT_DIR, when set, replaces the whole
sessions/<sanitized cwd> directory.

One JSON object per line. Conversation lines are {"type": "message", "id", "message": {"role",
"content"}}: the role is inside message. Other records (session_start, ...) are counted and
skipped.

  - Prompts: a user message's string content, or its text blocks joined by a blank line,
    without the <system-reminder>…</system-reminder> blocks Droid adds (the todo list, the
    environment), trimmed. Messages holding only tool results are not prompts; empty prompts
    are dropped.
  - LastAssistant: the last non-empty text block (or string content) of an assistant message.
  - Actions: every assistant tool_use block, Detail from the input's description, else
    command, else file_path, else path, else pattern.
  - ModifiedFiles: the input file_path (else path, else notebook_path) of tool_use blocks named
    Create, Edit, MultiEdit, Write and NotebookEdit, as written, first-seen order, no
    duplicates. Files changed by shell commands are not attributable here; the worktree status
    remains the broader signal.
  - Usage: the Anthropic-style usage of assistant messages (input_tokens,
    cache_creation_input_tokens, cache_read_input_tokens, output_tokens), one API call per
    response, keyed by message.id (else the line's id): a response written over several lines
    counts once, with its largest output_tokens (Scan.AddCall). Messages without usage count no
    call.
  - LastUUID: the id of the last message line.

Positions are byte offsets after complete lines. Every newline-terminated line is counted in
Lines, whatever it holds; a final line without '\n' is not consumed (Droid may be writing it)
and the next scan, starting at EndOffset, reads it whole. ScanFile reads through a buffered
reader, so memory follows the longest line, not the file. An offset past the end of the file is
an error wrapping ErrOffsetPastEnd: the file was replaced and the caller rescans from 0.

# Configuration

.factory/hooks.json holds {"hooks": {"<Event>": [{"matcher", "hooks": [{"type": "command",
"command"}]}]}}, Claude Code's layout. Install adds one command entry per event,
`entire hooks droid <verb>`:

	SessionStart      matcher ""      session-start
	UserPromptSubmit  matcher ""      user-prompt-submit
	Stop              matcher ""      stop
	SessionEnd        matcher ""      session-end
	PreToolUse        matcher "Task"  pre-task
	PostToolUse       matcher "Task"  post-task
	SubagentStop      matcher ""      subagent-stop

It keeps every other key, event and entry, and adds nothing that is there already; with force
it first removes Entire's entries. Uninstall removes exactly the entries whose command starts
with "entire ", drops the groups and events it emptied, and deletes the file (and .factory/
when empty) when nothing else is left. The legacy .factory/hooks/hooks.json and the user's
~/.factory/hooks.json are not touched.

ResumeCommand gives `droid --resume <id>`.
*/
package droid
