/*
Package claudecode translates what Claude Code gives a hook into plain values:
the JSON payload on stdin (ParseHookInput), the session's JSONL transcript
(ScanFile, ScanBytes), file paths made repository-relative (RepoRelative), and
the exact bytes of the metadata files Entire derives from them (PromptsText,
ShadowContext, CommittedContext, CommitSubject, FirstPrompt, LastPromptPreview).

It does no git work and keeps no state. Its only I/O is reading the transcript
(ScanFile) and watching it settle after a Stop hook fires (WaitForFlush).

References: agent-hooks.md §1 (payload, transcript, pitfalls) and
entire-format.md §2.2, §2.3, §3.6, §4.3, §5.2, §6, §9.1, §12.3, §12.4.

# Transcript lines

A transcript is JSON lines. Scanning counts every newline-terminated line
(including blank, non-JSON and unknown-type lines, which are otherwise
skipped) and leaves a final line without '\n' unconsumed: Claude Code may
still be writing it, and the next scan, starting at EndOffset, reads it whole.
*/
package claudecode
