/*
Package opencode is OpenCode's entry in the agent table (agent-hooks.md §6, §10): the plugin that
turns OpenCode's events into `entire hooks opencode <verb>` calls, the parsing of those calls,
the transcript file made from `opencode export`, and the scan of that file.

It does no git work and keeps no state. Its I/O: Install/Uninstall write and delete one file,
Materialize runs `opencode export` and writes the transcript, ScanFile reads it.

# The plugin

OpenCode has no command hooks. `entire enable` writes a plugin module, .opencode/plugins/entire.ts
(embedded from entire.ts; mode 0644), which OpenCode loads at startup. For each
lifecycle event it runs `entire hooks opencode <verb>` with a JSON object on stdin, through
node:child_process spawnSync (so it works under Bun and under the Desktop app's Node sidecar),
waiting for the recorder (at most 60 s): `opencode run` exits as soon as the session goes idle,
so an asynchronous turn end would be lost. stdout and stderr are discarded, and the plugin
never throws.

	OpenCode event                                  verb            kind           payload keys
	session.created, info.parentID unset            session-start   SessionStart   session_id, source ("startup")
	chat.message (or user message.updated + part)   turn-start      TurnStart      session_id, prompt, model
	session.status idle, session.idle               turn-end        TurnEnd        session_id
	session.deleted / server.instance.disposed      session-end     SessionEnd     session_id, reason ("deleted"/"exit")
	tool.execute.before, tool "task"                subagent-start  SubagentStart  session_id, tool_use_id, subagent_type, description
	tool.execute.after, tool "task"                 subagent-end    SubagentEnd    session_id, tool_use_id, subagent_id
	tool.execute.after, write/edit/multiedit/patch  tool-after      Ignore         session_id, tool_name, tool_use_id

tool_use_id is the tool call's callID and subagent_id the child session's id (the task tool's
metadata.sessionId). Both are used as file names, so Parse passes them through FileSafeID. Every
payload key is optional to Parse (a missing or non-string value reads as ""); transcript_path is
accepted but the plugin does not send it.

Install writes the file when it is absent or holds another version of Entire's plugin (first
line starting with "// Entire session recorder for OpenCode"); force rewrites it. A file at that
path without the marker line is the user's: Install refuses with an error and never overwrites
it; Uninstall leaves it. Uninstall deletes Entire's file and then the directories it empties.

# Limits of OpenCode's events, and how the recorder copes

  - Subagents run as child sessions that emit their own session.created, chat.message,
    tool and idle events. The plugin remembers every session created with a parentID (and every
    task's metadata.sessionId) and reports nothing for them. A child's work is not in the
    parent's export: its files and tokens are not in the parent's Scan.
  - A turn start is reported once per user message id. chat.message runs before OpenCode stores
    the message; when it does not fire, a new user message.updated waits for its first text
    part (or the session's busy/idle status, then with an empty prompt: the prompts still come
    from the transcript). User messages created before the plugin loaded are never turn starts.
  - session.idle is deprecated and both idle events arrive for one turn: a turn end is sent only
    for a turn whose start was sent. No idle comes when OpenCode is killed or quits mid-turn, so
    the agent reports TurnEndUnreliable and the engine closes such a turn from the transcript.
  - There is no session-end on quit other than server.instance.disposed, sent for every
    top-level session this process saw; whether OpenCode delivers it before exiting is not
    guaranteed, and an instance disposed while OpenCode keeps running ends its sessions early
    (the next prompt starts a turn again). Sessions resumed with --session get no session.created, hence no session-start:
    the engine accepts a turn start first.
  - session.created also fires for a forked session, which is reported as a new one: source
    is always "startup".

# Transcript

OpenCode keeps sessions in a SQLite database (older versions: JSON files under
~/.local/share/opencode/storage/), so DefaultTranscript is "" (except under
ENTIRE_TEST_OPENCODE_PROJECT_DIR, for tests). The engine calls Materialize, which runs
`opencode export <id>` and writes <dir>/<id>.jsonl: one line per message, the message object
{"info": {...}, "parts": [...]} compacted, lines of settled messages kept byte for byte so byte
offsets stay valid (see Materialize). Exporting needs the opencode executable on PATH (or
ENTIRE_OPENCODE_BIN) and, for the file-based storage of older versions, the project directory
as the working directory.

Scanning reads that file as JSON lines. Every newline-terminated line counts in Lines; a final
line without '\n' is not consumed; positions are byte offsets after complete lines; an offset
past the end is ErrOffsetPastEnd (rescan from 0). From each message line:

  - Prompts: a user message's text parts, synthetic and ignored parts left out, joined "\n\n",
    trimmed; empty prompts dropped.
  - LastAssistant: the text parts of the last assistant message that has text.
  - ModifiedFiles: state.input.filePath (else path) of tool parts named write, edit, multiedit,
    patch or apply_patch, and for patch and apply_patch the files named by the patch's
    "*** Add File:", "*** Update File:", "*** Delete File:" and "*** Move to:" lines; parts whose
    state.status is "error" are left out. Paths are as written (absolute for write and edit,
    relative for patches).
  - Cwd: the info.path.cwd of the last assistant message that has an absolute one, the
    directory OpenCode runs in, which relative paths are relative to (a subdirectory of the
    repository when OpenCode was started there).
  - Actions: every tool part; Detail is input.description, else command, filePath, pattern,
    path, else the first patched file.
  - Usage: one API call per assistant message with info.tokens, under its info.id: input →
    InputTokens, output + reasoning → OutputTokens, cache.read → CacheReadTokens, cache.write →
    CacheCreationTokens. No subagent tokens.
  - LastUUID: the info.id of the last message.
*/
package opencode
