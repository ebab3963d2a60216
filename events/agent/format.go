package agent

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PromptSeparator joins prompts in prompt.txt (entire-format.md §2.2, §3.6).
const PromptSeparator = "\n\n---\n\n"

// DefaultCommitSubject is the shadow commit subject when the prompt is empty
// after cleaning (entire-format.md §2.3).
const DefaultCommitSubject = "Claude Code session updates"

// subjectPrefixes are the polite openings CommitSubject strips (§2.3).
var subjectPrefixes = []string{
	"Can you ", "can you ", "Please ", "please ", "Let's ", "let's ",
	"Could you ", "could you ", "Would you ", "would you ",
	"I want you to ", "I'd like you to ", "I need you to ",
}

// CommitSubject turns the last prompt of a turn into a shadow commit subject
// (entire-format.md §2.3): strip the polite prefixes, repeatedly and in any
// order, until none matches; drop one trailing '?'; trim; keep the first 72
// runes (no ellipsis); trim; upper-case the first rune. An empty result gives
// DefaultCommitSubject. Read literally, the steps do not trim before
// stripping prefixes (so " please x" keeps its "please"); callers pass
// prompts from Scan, which are already trimmed. Newlines are kept (a
// multi-line prompt gives a multi-line subject, as Entire does).
func CommitSubject(lastPrompt string) string {
	s := lastPrompt
	for stripped := true; stripped; {
		stripped = false
		for _, p := range subjectPrefixes {
			if strings.HasPrefix(s, p) {
				s, stripped = s[len(p):], true
			}
		}
	}
	s = strings.TrimSuffix(s, "?")
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(firstRunes(s, 72))
	if s == "" {
		return DefaultCommitSubject
	}
	if r, n := utf8.DecodeRuneInString(s); r != utf8.RuneError {
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	return s
}

// PromptsText is the content of prompt.txt: prompts joined by
// PromptSeparator, no trailing newline ("" for none).
func PromptsText(prompts []string) string {
	return strings.Join(prompts, PromptSeparator)
}

// LastPrompt returns the last prompt of a prompt.txt content ("" if empty).
func LastPrompt(promptsText string) string {
	if i := strings.LastIndex(promptsText, PromptSeparator); i >= 0 {
		return promptsText[i+len(PromptSeparator):]
	}
	return promptsText
}

// MaxKeyActions is the number of actions ShadowContext lists.
const MaxKeyActions = 10

// ShadowContext is the context.md that the Claude Stop hook writes to the
// shadow branch (entire-format.md §2.2). prompt is the prompt.txt content,
// summary the summary.txt content. Layout, every heading and field followed
// by one blank line:
//
//	# Session Context
//
//	**Session ID:** <sessionID>
//
//	**Commit Message:** <subject>
//
//	## Prompt
//
//	<prompt>
//
//	## Summary
//
//	<summary>
//
//	## Key Actions
//
//	- - **<Tool>**: <detail>
//
// The spec says "blank line(s)" after the prompt; this writes exactly one
// ("\n\n" after the text), as after the summary. The first MaxKeyActions
// actions are listed, one line each ending in "\n", keeping Entire's doubled
// dash; an action without detail still gets ": " (trailing space), as the
// line format reads literally. With no actions the file ends in
// "## Key Actions\n\n".
func ShadowContext(sessionID, subject, prompt, summary string, actions []Action) string {
	var b strings.Builder
	b.WriteString("# Session Context\n\n")
	b.WriteString("**Session ID:** " + sessionID + "\n\n")
	b.WriteString("**Commit Message:** " + subject + "\n\n")
	b.WriteString("## Prompt\n\n" + prompt + "\n\n")
	b.WriteString("## Summary\n\n" + summary + "\n\n")
	b.WriteString("## Key Actions\n\n")
	for i, a := range actions {
		if i == MaxKeyActions {
			break
		}
		b.WriteString("- - **" + a.Tool + "**: " + a.Detail + "\n")
	}
	return b.String()
}

// maxContextPromptBytes is the per-prompt limit of the committed context.md.
const maxContextPromptBytes = 500

// CommittedContext is the context.md of a committed checkpoint
// (entire-format.md §3.6): a heading, then "### Prompt i" (1-based) and each
// prompt, a prompt longer than 500 bytes cut to its first 500 bytes plus
// "...". The cut is at the byte, as specified, even inside a multi-byte rune.
// Every block ends in "\n\n", so the file ends in a blank line. Returns ""
// when there are no prompts (the file is then not written).
func CommittedContext(prompts []string) string {
	if len(prompts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Session Context\n\n## User Prompts\n\n")
	for i, p := range prompts {
		if len(p) > maxContextPromptBytes {
			p = p[:maxContextPromptBytes] + "..."
		}
		b.WriteString("### Prompt " + strconv.Itoa(i+1) + "\n\n" + p + "\n\n")
	}
	return b.String()
}

// FirstPrompt is the session state's first_prompt (entire-format.md §5.2):
// whitespace runs collapsed to one space, trimmed, and at most 100 runes
// (the first 97 plus "..." when longer).
func FirstPrompt(prompt string) string {
	return truncateRunes(collapseSpace(prompt), 100)
}

// LastPromptPreview is the "Last Prompt" shown by prepare-commit-msg
// (entire-format.md §4.3 step 8): whitespace collapsed, trimmed, at most 80
// runes including the "..." that marks a cut (77 + "...").
func LastPromptPreview(prompt string) string {
	return truncateRunes(collapseSpace(prompt), 80)
}

// collapseSpace replaces every run of Unicode white space with one space
// and trims both ends.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// truncateRunes returns s if it has at most max runes, else its first
// max-3 runes followed by "...".
func truncateRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return firstRunes(s, max-3) + "..."
}

// firstRunes returns the prefix of s holding its first n runes (invalid
// bytes count as one rune each and are kept as they are).
func firstRunes(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}
