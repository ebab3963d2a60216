/*
Package gemini is Gemini CLI's entry in the agent table: it maps the hooks Gemini CLI runs
(`entire hooks gemini <verb>`, JSON on stdin) to the recorder's lifecycle, answers them on
stdout, reads Gemini's chat files, finds a session's chat file, and installs the hooks into
.gemini/settings.json.

References: agent-hooks.md §2 (events, payloads, chat storage, pitfalls), §10, §11;
entire-format.md §3.4, §8.2, §9.2, §12.3, §12.4, §13.

# Verbs

	verb                   Gemini event         kind
	session-start          SessionStart         SessionStart (source: startup, resume, clear)
	session-end            SessionEnd           SessionEnd   (reason; installed for exit and logout only)
	before-agent           BeforeAgent          TurnStart    (prompt)
	after-agent            AfterAgent           TurnEnd      (prompt_response as LastMessage)
	before-model           BeforeModel          Ignore       (llm_request.model as Model)
	after-model            AfterModel           Ignore
	before-tool-selection  BeforeToolSelection  Ignore
	before-tool            BeforeTool           Ignore       (tool_name, tool_input)
	after-tool             AfterTool            Ignore
	pre-compress           PreCompress          Ignore
	notification           Notification         Ignore

Every verb, log-only ones included, needs a JSON object on stdin; a field of the wrong JSON
type reads as "". Gemini CLI sends no subagent events and no tool-use ids, so the subagent
kinds never occur and ToolUseID stays empty.

# Output

Gemini CLI parses a hook's stdout as JSON and shows any other text as a system message. Only
session-start prints, one line {"systemMessage": "..."}; every other hook prints nothing.

# Limits of the protocol and how the recorder copes

  - AfterAgent has fired per step, not after text-only replies, or not at all, depending on
    the release (agent-hooks.md §2.5). Agent implements agent.TurnEndUnreliable: the engine
    closes a turn left open from the chat file at the next BeforeAgent or SessionEnd.
  - SessionEnd is not awaited and PreCompress runs asynchronously: neither can carry
    essential work.
  - transcript_path is on every event but the file may not exist yet at session start;
    DefaultTranscript finds it by the session id's first 8 characters, and returns "" when
    no file exists (its name holds a start time that cannot be computed).

# Chat files

Two layouts exist, told apart by content (the file name is not reliable: Entire's checkpoint
copy is full.jsonl whatever it holds):

  - Legacy (before v0.39): one JSON document {sessionId, projectHash, startTime, lastUpdated,
    messages: [...]}, pretty-printed and rewritten in place. A position is a message count,
    kept in events.Transcript.Lines; ScanFile parses the whole file and skips that many
    messages; Lines is the number of messages read and EndOffset the file size. A count above
    the messages in the file (a rewind) is ErrPositionPastEnd. Messages changed in place
    before the position (tokens recorded after the scan) are not seen again.
  - JSONL (v0.39+): one record per line, appended: a metadata record, message records, {"$set":
    {...}} updates and {"$rewindTo": id} markers. A position is the byte offset after a
    complete line; a final line without '\n' is left for the next scan; an offset past the end
    is ErrPositionPastEnd.

A message is user, gemini, info, error or warning. Prompts are the user messages' text
(displayContent when it has text, else content; a string or a list of parts with "text"),
trimmed, empty ones dropped. LastAssistant is the text of the last gemini message that has
some. ModifiedFiles come from gemini toolCalls named write_file, edit_file, save_file or
replace (args file_path, else path, else filename). Each gemini message with a tokens object
is one API call: input, output and cached become InputTokens, OutputTokens and
CacheReadTokens, under the message id (Scan.AddCall). LastUUID is the id of the last message.

Within one JSONL scan the last record of a message id wins (Gemini appends a message again
when its tokens or tool calls change) and "$rewindTo" drops that message and all later ones.
"$set" records are ignored: they update metadata or restate the whole history (after masking
or compression, with synthetic messages that are not the user's), and every real message was
appended as its own record first.

What one scan cannot know about an earlier one: a message re-appended after the boundary
has its Actions listed again (Prompts do not change, user messages are not re-appended;
ModifiedFiles and Usage are de-duplicated by Scan.Merge); a "$rewindTo" naming a message of
an earlier scan drops what this scan holds but cannot take back what the earlier scan
reported.
*/
package gemini
