package checkpoint

import "strings"

// prepare-commit-msg edits the message git hands it before the editor opens, commit-msg the
// message the editor left (spec §4.3, §4.4). Git then cleans that up by its cleanup mode: the
// default drops the lines that start with the comment prefix (core.commentChar, "#" unless set);
// scissors, whitespace and verbatim keep them; scissors and `commit -v` drop everything from the
// scissors line on, below which git writes its status (scissors) or the diff (-v); and git aborts
// the commit when nothing but blanks and sign-offs is left (verbatim: nothing at all). The
// functions here take that prefix as comment; "" stands for one they do not know: git picks it
// for each message (core.commentChar=auto), and any character git could pick counts.

// scissors is git's scissors line after its comment prefix and a space.
const scissors = "------------------------ >8 ------------------------"

// autoComment are the characters git picks the comment prefix from under core.commentChar=auto.
const autoComment = "#;@!$%^&|:"

// The lines of the explanatory comment InsertTrailerWithComment writes, without the prefix.
const (
	helpRemove     = "Remove the Entire-Checkpoint trailer above if you don't want to link this commit to "
	helpRemoveEnd  = " session context."
	helpLastPrompt = "Last Prompt: "
	helpNext       = "The trailer will be added to your next commit based on this branch."
)

// isComment reports whether git counts line (with or without its newline) as a comment.
func isComment(line, comment string) bool {
	if comment == "" {
		return line != "" && strings.IndexByte(autoComment, line[0]) >= 0
	}
	return strings.HasPrefix(line, comment)
}

// cutAt is the offset of git's scissors line in msg, len(msg) without one: what git keeps of a
// message cut at scissors ends there.
func cutAt(msg, comment string) int {
	pos := 0
	for _, l := range strings.SplitAfter(msg, "\n") {
		if p, ok := strings.CutSuffix(l, " "+scissors+"\n"); ok && (p == comment || comment == "" && len(p) == 1 && isComment(p, "")) {
			return pos
		}
		pos += len(l)
	}
	return len(msg)
}

// AppendTrailer adds the trailer with the plain-append rule of spec §4.3: join an existing
// trailer block at the end of the message, or open one after a blank line. The end is the
// scissors line's when there is one: below it the trailer would be cut away.
func AppendTrailer(msg, id, comment string) string {
	cut := cutAt(msg, comment)
	body, below := strings.TrimRight(msg[:cut], "\n"), msg[cut:]
	sep := "\n\n"
	if endsInTrailerBlock(body, comment) {
		sep = "\n"
	}
	out := body + sep + CheckpointTrailer + ": " + id + "\n"
	if below != "" {
		out += "\n" + below
	}
	return out
}

// AppendTrailerReused is AppendTrailer for a message git reuses (prepare-commit-msg's source
// "commit": --amend, -c, -C), which the editor may show with git's comment section below the
// text. The plain-append rule stops at the blank line above that section, so the trailer went
// below it, in a paragraph of its own once git dropped the comments: a sign-off or a
// Co-authored-by that ended the text was no longer in the message's last paragraph, where git's
// trailer tools and forges read trailers. When the text above the comment section ends in a
// trailer block, the trailer joins that block there; otherwise it is appended as AppendTrailer
// appends it.
func AppendTrailerReused(msg, id, comment string) string {
	cut := cutAt(msg, comment)
	lines := strings.SplitAfter(msg[:cut], "\n")
	start, comments := len(lines), false
	for start > 0 {
		l := lines[start-1]
		if isComment(l, comment) {
			comments = true
		} else if strings.TrimSpace(l) != "" {
			break
		}
		start--
	}
	text := strings.TrimRight(strings.Join(lines[:start], ""), "\n")
	if !comments || !endsInTrailerBlock(text, comment) {
		return AppendTrailer(msg, id, comment)
	}
	return text + "\n" + CheckpointTrailer + ": " + id + "\n" + strings.Join(lines[start:], "") + msg[cut:]
}

// endsInTrailerBlock reports whether text (without trailing newlines) ends in a trailer block
// that the trailer joins: its last line that is not a comment holds ": " (spec §4.3), and its
// paragraph is not the message's first. Git reads the first paragraph as the subject, never as
// trailers, and joins its lines into the subject: "feat: add b" is a conventional-commit
// subject, and a trailer right under it became part of it ("feat: add b Entire-Checkpoint:
// ..." in git log --oneline). A paragraph after a lone blank first line is the first one too:
// git's template for --trailer, where the user types the subject on that blank line.
func endsInTrailerBlock(text, comment string) bool {
	lines := strings.Split(text, "\n")
	i := len(lines) - 1
	for i >= 0 && isComment(lines[i], comment) {
		i--
	}
	if i < 0 || strings.TrimSpace(lines[i]) == "" || !strings.Contains(lines[i], ": ") {
		return false
	}
	for ; i >= 0; i-- {
		if !isComment(lines[i], comment) && strings.TrimSpace(lines[i]) == "" {
			return i >= 1 // a blank line above the paragraph, with a line above it
		}
	}
	return false
}

// InsertTrailerWithComment adds the trailer for the editor flow of spec §4.3, before git's
// comment lines (and above the scissors line), followed by comment lines telling the user how
// to unlink the commit. Those are written with git's comment prefix, so that git's cleanup
// drops them; without one (comment "") there are none. Cleanup modes that keep comments rely on
// the commit-msg hook to remove them (CleanCommitMsg).
func InsertTrailerWithComment(msg, id, agent, lastPrompt, comment string) string {
	block := CheckpointTrailer + ": " + id
	if comment != "" {
		block += "\n" + comment + " " + helpRemove + agent + helpRemoveEnd
		if lastPrompt != "" {
			block += "\n" + comment + " " + helpLastPrompt + lastPrompt
		}
		block += "\n" + comment + " " + helpNext
	}
	idx := cutAt(msg, comment)
	if comment != "" {
		pos := 0
		for _, l := range strings.SplitAfter(msg[:idx], "\n") {
			if isComment(l, comment) {
				idx = pos
				break
			}
			pos += len(l)
		}
	}
	switch {
	case idx == len(msg):
		return strings.TrimRight(msg, "\n") + "\n\n" + block + "\n"
	case strings.TrimSpace(msg[:idx]) == "":
		return "\n\n" + block + "\n\n" + msg[idx:]
	default:
		// Text that ends in a trailer block (a sign-off, a --trailer, a template's) keeps it the
		// message's last paragraph, as git's trailer tools and forges read it (a Co-authored-by
		// below which another paragraph follows is no trailer to them).
		text, sep := strings.TrimRight(msg[:idx], "\n"), "\n\n"
		if endsInTrailerBlock(text, comment) {
			sep = "\n"
		}
		return text + sep + block + "\n\n" + msg[idx:]
	}
}

// MayNeedCleaning reports whether CleanCommitMsg may change msg: it holds a trailer or the
// explanatory comment. The commit-msg hook learns the comment prefix only then.
func MayNeedCleaning(msg string) bool {
	return strings.Contains(msg, CheckpointTrailer)
}

// CleanCommitMsg is the commit-msg hook's edit (spec §4.4), made before git cleans the message
// up: it removes the explanatory comment InsertTrailerWithComment wrote, with whatever prefix,
// since the cleanup modes other than the default keep comments; and when a checkpoint trailer
// is then the only content above the scissors line (the rest blank or comments), it removes the
// trailer too, so that git aborts the commit the user emptied. changed=false when msg stays.
func CleanCommitMsg(msg, comment string) (string, bool) {
	cut := cutAt(msg, comment)
	lines := strings.SplitAfter(msg[:cut], "\n")
	kept := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		prefix, ok := helpPrefix(lines[i])
		if !ok {
			kept = append(kept, lines[i])
			continue
		}
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], prefix+" "+helpLastPrompt) {
			i++
		}
		if i+1 < len(lines) && strings.TrimRight(lines[i+1], "\r\n") == prefix+" "+helpNext {
			i++
		}
	}
	changed := len(kept) < len(lines)
	if _, ok := ParseCheckpointTrailer(strings.Join(kept, "")); ok && onlyTrailer(kept, comment) {
		kept = dropTrailers(kept)
		changed = true
	}
	if !changed {
		return msg, false
	}
	return strings.Join(kept, "") + msg[cut:], true
}

// HasHelpComment reports whether msg holds the explanatory comment InsertTrailerWithComment
// writes in the editor flow.
func HasHelpComment(msg string) bool {
	for _, l := range strings.SplitAfter(msg, "\n") {
		if _, ok := helpPrefix(l); ok {
			return true
		}
	}
	return false
}

// helpPrefix reports whether line is the first line of the explanatory comment, and with which
// comment prefix (one word) it was written.
func helpPrefix(line string) (string, bool) {
	prefix, rest, ok := strings.Cut(strings.TrimRight(line, "\r\n"), " "+helpRemove)
	if !ok || prefix == "" || strings.ContainsAny(prefix, " \t") || !strings.HasSuffix(rest, helpRemoveEnd) {
		return "", false
	}
	return prefix, true
}

// EmptyMessage reports whether a message given on the command line (-m, -F) holds nothing git
// counts as text (only blank lines and Signed-off-by lines; git keeps a given message's comment
// lines unless it is edited), so that git aborts the commit unless a trailer is added to it.
// commit-msg removes such a lone trailer, but `git commit --no-verify` runs no commit-msg.
func EmptyMessage(msg string) bool {
	for _, l := range strings.Split(msg, "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "Signed-off-by: ") {
			return false
		}
	}
	return true
}

// onlyTrailer reports whether every line that is not one git's emptiness check passes over
// (blank, a comment, a Signed-off-by) is an Entire-Checkpoint one.
func onlyTrailer(lines []string, comment string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && !isComment(l, comment) && !strings.HasPrefix(l, "Signed-off-by: ") &&
			!strings.HasPrefix(t, CheckpointTrailer+":") {
			return false
		}
	}
	return true
}

// DropTrailers removes msg's Entire-Checkpoint lines.
func DropTrailers(msg string) string {
	return strings.Join(dropTrailers(strings.SplitAfter(msg, "\n")), "")
}

// dropTrailers removes the Entire-Checkpoint lines.
func dropTrailers(lines []string) []string {
	var kept []string
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), CheckpointTrailer+":") {
			kept = append(kept, l)
		}
	}
	return kept
}

// TemplateUntouched reports whether msg, a message the editor flow of `git commit -t` (or
// commit.template) leaves, holds nothing but the template's text once its Entire-Checkpoint
// trailer is set aside: git then aborts the commit ("you did not edit the message"), as the
// user meant by leaving the template as it was, unless the trailer makes the message differ.
// It compares as git does: both with comment lines (comment; "" is any character git could
// pick) and what follows the scissors line removed and blank lines collapsed, the template's
// text a prefix of the message's, the rest only blank or Signed-off-by lines.
func TemplateUntouched(msg, template, comment string) bool {
	text := stripSpace(dropTrailers(strings.SplitAfter(msg[:cutAt(msg, comment)], "\n")), comment)
	tmpl := stripSpace(strings.SplitAfter(template, "\n"), comment)
	rest, ok := strings.CutPrefix(text, tmpl)
	if !ok || tmpl == "" {
		return false
	}
	return EmptyMessage(rest)
}

// stripSpace is git's cleanup of a message in "strip" mode: comment lines dropped, trailing
// blanks cut, runs of blank lines made one, none at the start or the end.
func stripSpace(lines []string, comment string) string {
	var out []string
	blank := false
	for _, l := range lines {
		if isComment(l, comment) {
			continue
		}
		l = strings.TrimRight(l, " \t\r\n")
		if l == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}
