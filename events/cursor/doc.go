/*
Package cursor is Cursor's entry in the agent table: it maps the hooks of Cursor's agent (the
IDE's agent panel and the `cursor-agent` / `agent` CLI) to the recorder's lifecycle, reads
Cursor's JSONL conversation transcripts, and installs the project hooks in .cursor/hooks.json.
It does no git work and keeps no state.

Reference: agent-hooks.md §3 (configuration, payloads, transcript, pitfalls), §10, §11.

# Verbs

Cursor calls `entire hooks cursor <verb>`; the verb is the kebab-case form of the camelCase
event the entry is registered under.

	verb                  Cursor event         lifecycle kind
	session-start         sessionStart         SessionStart, opening a turn (OpensTurn)
	before-submit-prompt  beforeSubmitPrompt   TurnStart (Prompt from "prompt")
	stop                  stop                 TurnEnd
	session-end           sessionEnd           SessionEnd (Reason from "reason")
	subagent-start        subagentStart        SubagentStart
	subagent-stop         subagentStop         SubagentEnd
	after-file-edit       afterFileEdit        Ignore (accepted and logged only)
	pre-compact           preCompact           Ignore (accepted and logged only)

Install registers the six lifecycle events; the two Ignore verbs are understood so that an
entry a user adds for them does not fail, but they are not installed (each would cost a
process per edit).

The session is conversation_id (session_id, sent on the session events with the same value,
is the fallback). Subagent hooks are keyed by parent_conversation_id when they carry it, since
that names the conversation that launched the subagent. subagent_id becomes both SubagentID and
ToolUseID, so a subagentStart and its subagentStop meet on the same pre-task file; task (else
description) is the Description, agent_transcript_path the SubagentTranscript and summary the
LastMessage of a subagentStop.

IDs the engine uses as file names must match ^[A-Za-z0-9_-]+$. Cursor's tool_use_id holds a
newline ("call_x\nctc_x"), and nothing promises the other ids stay plain. SafeID keeps an id that
already matches; any other id has each run of other bytes replaced by '_' and "-" plus the first
8 hex digits of the SHA-256 of the original id appended, so the mapping is deterministic and two
ids that differ only in the replaced bytes stay apart ("call_x\nctc_x" becomes
"call_x_ctc_x-" + hash). An id over 128 bytes is cut to 128 before the hash is added.

Cursor reads a hook's stdout as JSON only where it needs a decision (permissions, follow-up
messages); the recorder decides nothing, so Reply prints nothing for every verb.

# Limits of the hook protocol and how the recorder copes

  - In headless `agent -p`, beforeSubmitPrompt and stop do not fire: only sessionStart,
    sessionEnd and the tool hooks do. So sessionStart also opens a turn (Hook.OpensTurn), and
    the agent implements agent.TurnEndUnreliable: the engine closes a turn left open from the
    transcript at the next turn start or at session end. Interactively, the first prompt closes
    the (empty) turn the session start opened.
  - transcript_path is null in the CLI and only sometimes set in the IDE. DefaultTranscript
    computes it: ~/.cursor/projects/<workspace>/agent-transcripts/<id>.jsonl (CLI, flat), or
    <id>/<id>.jsonl below the same directory (IDE, nested) when that exists. <workspace> is the
    workspace root without its leading '/' and with every character that is not an ASCII letter or
    digit replaced by '-'. ENTIRE_TEST_CURSOR_PROJECT_DIR, when set, is used instead of the
    agent-transcripts directory.
  - The payloads carry no working directory, only workspace_roots: DefaultTranscript is given the
    first of them (Hook.Workspace), which may be a subdirectory of the repository, and the
    repository root when the payload has none.
  - With third-party hooks enabled Cursor also runs Claude Code's hooks; a repository with both
    installed sees each event twice, once per agent name.

# Transcript

One JSON object per line: {"role": "user"|"assistant", "message": {"content": [blocks]}}
(a string content is accepted too). Cursor writes no ids, no timestamps outside the prompt text
and no token usage, so Scan.LastUUID stays "" and Scan.Usage stays zero.

  - Prompts: the text blocks of a user line, joined by a blank line. A leading
    <timestamp>…</timestamp> is dropped; when the text holds <user_query>…</user_query>, the
    prompt is what lies between the first opening and the last closing tag, else the whole text.
    Trimmed; empty prompts are dropped.
  - LastAssistant: the last non-empty text block of an assistant line.
  - Actions: every assistant tool_use block, Detail from the input's description, else command,
    else path (file_path), else pattern (glob_pattern).
  - ModifiedFiles: the input path of Write and StrReplace, as written (absolute in practice),
    first-seen order, no duplicates. Files changed by Shell commands are not attributable here;
    the worktree status remains the broader signal.

Positions are byte offsets after complete lines. Every newline-terminated line is counted in
Lines, whatever it holds; a final line without '\n' is not consumed (Cursor may be writing it)
and the next scan, starting at EndOffset, reads it whole. ScanFile reads through a buffered
reader, so memory follows the longest line, not the file. An offset past the end of the file is
an error wrapping ErrOffsetPastEnd: the file was replaced and the caller rescans from 0.

# Configuration

.cursor/hooks.json holds {"version": 1, "hooks": {"<event>": [{"command": "..."}]}}: flat lists
of entries, no matcher groups. Install appends {"command": "entire hooks cursor <verb>"} to each
event unless an entry with that exact command is there, keeps every other key and entry, and
writes version 1 when the file has none. Uninstall removes exactly the entries whose command
starts with "entire ", drops the event lists and the hooks object it emptied, and deletes the
file (and .cursor/ when empty) when nothing but the version is left.

ResumeCommand gives `cursor-agent --resume <id>` for the CLI; in the IDE a conversation is
reopened from the agent panel's history.
*/
package cursor
