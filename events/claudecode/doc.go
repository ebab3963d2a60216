/*
Package claudecode translates what Claude Code gives a hook into plain values:
the JSON payload on stdin (ParseHookInput), the session's JSONL transcript
(ScanFile, ScanBytes), file paths made repository-relative (RepoRelative), and
the exact bytes of the metadata files Entire derives from them (PromptsText,
ShadowContext, CommittedContext, CommitSubject, FirstPrompt, LastPromptPreview).

It does no git work and keeps no state. Its only I/O is reading the transcript
(ScanFile), its subagents' transcripts (SubagentUsage), and watching it settle
after a Stop hook fires (WaitForFlush).

References: agent-hooks.md §1 (payload, transcript, pitfalls) and
entire-format.md §2.2, §2.3, §3.6, §4.3, §5.2, §6, §9.1, §12.3, §12.4.

# Transcript lines

A transcript is JSON lines. Scanning counts every newline-terminated line
(including blank, non-JSON and unknown-type lines, which are otherwise
skipped) and leaves a final line without '\n' unconsumed: Claude Code may
still be writing it, and the next scan, starting at EndOffset, reads it whole.

# Subagents

A subagent's lines are in a transcript of its own, so a scan's Usage never
counts them. The scan lists in SubagentIDs the subagents that tool_result
blocks of user lines name: "agentId: <id>" ([A-Za-z0-9]+) in the block's
content, a string or the text of its text blocks (entire-format.md §12.3).
At the Stop hook the engine asks SubagentUsage for the usage of the turn's
subagents: each one's transcript, read from its start, at
<dir of the transcript>/<session-id>/subagents/agent-<id>.jsonl, else at the
legacy sibling <dir>/agent-<id>.jsonl (agent-hooks.md §1.6); an ID is checked
to be alphanumeric before it names a file. Their sum becomes the turn's
subagent_tokens when it has an API call, and so the session state's, which
accumulates it; a checkpoint's token_usage, scanned from the transcript, has
none (§3.3). A subagent named again in a later turn (resumed through
SendMessage) is read from its start again, as the reference does.
*/
package claudecode
