/*
Package copilot is GitHub Copilot CLI's entry in the agent table: it maps Copilot's command
hooks to the recorder's lifecycle, reads the session's events.jsonl transcript, and installs the
project hooks in .github/hooks/entire.json. It does no git work and keeps no state.

Reference: agent-hooks.md §5 (configuration, payloads, transcript, pitfalls), §10, §11.

# Verbs

Copilot calls `entire hooks copilot <verb>`; the verb is the kebab-case form of the camelCase
event the entry is registered under.

	verb                   Copilot event          lifecycle kind
	session-start          sessionStart           SessionStart (Source from "source")
	user-prompt-submitted  userPromptSubmitted    TurnStart (Prompt from "prompt")
	agent-stop             agentStop              TurnEnd
	session-end            sessionEnd             SessionEnd (Reason from "reason")
	subagent-start         subagentStart          SubagentStart
	subagent-stop          subagentStop           SubagentEnd
	pre-tool-use           preToolUse             Ignore
	post-tool-use          postToolUse            Ignore
	pre-compact            preCompact             Ignore
	error-occurred         errorOccurred          Ignore
	notification           notification           Ignore

Install registers the six lifecycle events; the Ignore verbs are understood (accepted and only
logged) so that an entry a user adds for them does not fail, but they are not installed: a
process per tool call costs time and records nothing.

Payloads come in two dialects, chosen by the key an entry is registered under: camelCase
(sessionId, transcriptPath, toolName, toolArgs, agentName, ...) for camelCase keys, which is
what Install writes, and snake_case (session_id, transcript_path, tool_name, tool_input,
agent_name, ...) for the PascalCase keys. Parse reads the camelCase field, else its snake_case
twin. toolArgs may be a string holding JSON; ToolInput is then the JSON it holds.

A subagent is named only by agentName. It becomes the SubagentType as sent and, mapped by SafeID
to ^[A-Za-z0-9_-]+$, both the SubagentID and the ToolUseID, so that subagentStart and
subagentStop meet on the same pre-task file. Two subagents of the same name running at once are
therefore one task to the recorder. agentDescription (else agentDisplayName) is the Description.
SafeID keeps a name that already matches (up to 128 bytes); any other name has each run of other
bytes replaced by '_', is cut to 128 bytes, and gets "-" plus the first 8 hex digits of the
SHA-256 of the original appended ("code review" becomes "code_review-" + hash).

Copilot ignores the output of sessionStart, userPromptSubmitted and sessionEnd, and reads an
optional decision or context from agentStop, subagentStart and subagentStop, where empty output
means none. The recorder decides nothing, so Reply prints nothing for every verb.

# Limits of the hook protocol and how the recorder copes

  - On the first prompt userPromptSubmitted fires before sessionStart. Parse only translates;
    the engine accepts a turn start for a session it has not seen start.
  - transcriptPath is only on agentStop, subagent and preCompact payloads. DefaultTranscript
    computes it from the session id: ~/.copilot/session-state/<sessionId>/events.jsonl
    ($COPILOT_HOME/session-state/... when Copilot runs with COPILOT_HOME set), or
    <dir>/<sessionId>/events.jsonl when ENTIRE_TEST_COPILOT_PROJECT_DIR=<dir> is set. A
    --config-dir given to Copilot moves the real file elsewhere; a payload's transcriptPath
    then still wins where it is sent.
  - session.shutdown, which holds the session's authoritative token totals, is written after
    the sessionEnd hook returns: a hook never sees it, a later rescan of the transcript does.
  - Older builds (0.0.4xx) ignore subagentStart: the subagentStop then finds no pre-task state.
  - Some events do not fire in -p mode or on resume.

# Transcript

events.jsonl holds one event per line: {"type", "data", "id", "timestamp", "parentId"}.

  - Prompts: data.content of user.message lines; when it is empty, data.transformedContent
    without the <current_datetime>…</current_datetime> and <reminder>…</reminder> blocks
    Copilot wraps around the user's text. Trimmed; empty prompts are dropped.
  - LastAssistant: the last non-empty data.content of an assistant.message.
  - Actions: every data.toolRequests[] entry of an assistant.message (name; arguments, possibly
    a string of JSON), Detail from the description, else command, else path, else pattern.
  - ModifiedFiles: arguments.path of the edit and create tool requests, and the paths in
    toolTelemetry.properties.filePaths (a string holding a JSON array) of
    tool.execution_complete lines, as written, first-seen order, no duplicates.
  - LastUUID: the id of the last line that has one.
  - Usage: an assistant.message carries only its outputTokens; each one that does is one API
    call (Scan.AddCall keyed by data.messageId, else the line id) with zero input tokens.
    Input and cache tokens exist only in session.shutdown's modelMetrics (per model:
    requests.count and inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, read
    under "usage" or on the model's object). A session.shutdown with metrics replaces the
    per-message rows read before it in the same scan with its totals (cacheWriteTokens count as
    CacheCreationTokens, requests.count as APICallCount); assistant messages after it (a
    resumed session) are counted per message again, on top. Each shutdown is taken to cover
    the run of Copilot that wrote it.
  - Ranges: the first run a scan closes may have begun before the scan's first line, and its
    totals then count messages the scan did not read. Such a scan sets Scan.UsageBeforeStart,
    and the recorder takes a range's usage as the usage up to its end less the usage before its
    start, both scanned from the transcript's start (agent.RangeUsage; ScanFileTo streams the
    prefix): the run's totals less what lies before the range. So the checkpoint or turn whose
    lines hold a shutdown (written after the sessionEnd hook, see above: the next commit's
    checkpoint, or the next turn of a resumed session that sent no userPromptSubmitted) gets
    the totals less what earlier ones counted, and sums over checkpoints and over turns equal
    Copilot's totals. A range with no shutdown counts per message. Merge still cannot tell
    that a later scan's shutdown covers the earlier scan's messages: merged across a shutdown,
    the earlier part's output tokens count twice.

Positions are byte offsets after complete lines. Every newline-terminated line is counted in
Lines, whatever it holds; a final line without '\n' is not consumed (Copilot may be writing it)
and the next scan, starting at EndOffset, reads it whole. ScanFile reads through a buffered
reader, so memory follows the longest line, not the file. An offset past the end of the file is
an error wrapping ErrOffsetPastEnd: the file was replaced and the caller rescans from 0.

# Configuration

Copilot loads every *.json in .github/hooks/; Entire writes its own file, entire.json:
{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": "...", "powershell": "...",
"timeoutSec": 30}]}}, flat lists of entries with the same command for both shells and
Copilot's default timeout spelled out. Install appends an entry unless one with the same bash
command is under the event, keeps every other key and entry, and writes version 1 when the file
has none. Uninstall removes exactly the entries whose bash or powershell command starts with
"entire ", drops the lists and hooks object it emptied, and deletes the file (then
.github/hooks/ and .github/ when empty) when nothing but the version is left.

ResumeCommand gives `copilot --resume <id>`.
*/
package copilot
