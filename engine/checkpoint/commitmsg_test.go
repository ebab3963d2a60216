package checkpoint_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/engine/checkpoint"
)

// The messages below are what git 2.39 writes for the editor (see `git commit` with an editor
// that copies its file), cut short.
const (
	id         = "0123456789ab"
	trailer    = "Entire-Checkpoint: 0123456789ab\n"
	cut        = "# ------------------------ >8 ------------------------\n"
	help       = "# Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n"
	helpPrompt = "# Last Prompt: Add a\n"
	helpNext   = "# The trailer will be added to your next commit based on this branch.\n"
)

// Git's default cleanup, commit -v, commit.cleanup=scissors, core.commentChar=; or auto, and
// git 2.45's core.commentString.
func TestInsertTrailerWithComment(t *testing.T) {
	for _, tc := range []struct {
		name, msg, comment, want string
	}{
		{"default", "\n# Please enter the commit message\n#\n# On branch main\n", "#",
			"\n\n" + trailer + help + helpPrompt + helpNext + "\n# Please enter the commit message\n#\n# On branch main\n"},
		{"template text before the comments", "Add b\n\n# Please enter\n", "#",
			"Add b\n\n" + trailer + help + helpPrompt + helpNext + "\n# Please enter\n"},
		{"scissors: above git's scissors line", "\n" + cut + "# Do not modify or remove the line above.\n#\n", "#",
			"\n\n" + trailer + help + helpPrompt + helpNext + "\n" + cut + "# Do not modify or remove the line above.\n#\n"},
		{"commit -v", "\n# Please enter\n" + cut + "diff --git a/a b/a\n+# x\n", "#",
			"\n\n" + trailer + help + helpPrompt + helpNext + "\n# Please enter\n" + cut + "diff --git a/a b/a\n+# x\n"},
		{"commentChar ;: # is text", "Fix #12\n# kept\n\n; Please enter\n;\n", ";",
			"Fix #12\n# kept\n\n" + trailer +
				"; Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n" +
				"; Last Prompt: Add a\n" +
				"; The trailer will be added to your next commit based on this branch.\n" +
				"\n; Please enter\n;\n"},
		{"commentString //", "\n// Please enter\n", "//",
			"\n\n" + trailer +
				"// Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n" +
				"// Last Prompt: Add a\n" +
				"// The trailer will be added to your next commit based on this branch.\n" +
				"\n// Please enter\n"},
		{"auto: no comment, the trailer at the end", "\n@ Please enter\n@\n", "",
			"\n@ Please enter\n@\n\n" + trailer},
		{"auto with commit -v: above the scissors line", "\n@ Please enter\n@ ------------------------ >8 ------------------------\ndiff\n", "",
			"\n@ Please enter\n\n" + trailer + "\n@ ------------------------ >8 ------------------------\ndiff\n"},
		{"no comments (commit.status=false)", "", "#",
			"\n\n" + trailer + help + helpPrompt + helpNext},
		{"commit -s: the trailer joins the sign-off's block", "\n\nSigned-off-by: A <a@b>\n\n# Please enter\n", "#",
			"\n\nSigned-off-by: A <a@b>\n" + trailer + help + helpPrompt + helpNext + "\n# Please enter\n"},
		{"commit --trailer: its line follows the subject's blank line", "\nCo-authored-by: X <x@e>\n\n# Please enter\n", "#",
			"\nCo-authored-by: X <x@e>\n\n" + trailer + help + helpPrompt + helpNext + "\n# Please enter\n"},
		{"a conventional-commit subject is no trailer block", "feat: add b\n\n# Please enter\n", "#",
			"feat: add b\n\n" + trailer + help + helpPrompt + helpNext + "\n# Please enter\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := checkpoint.InsertTrailerWithComment(tc.msg, id, "Claude Code", "Add a", tc.comment)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	got := checkpoint.InsertTrailerWithComment("\n# Please enter\n", id, "Claude Code", "", "#")
	if want := "\n\n" + trailer + help + helpNext + "\n# Please enter\n"; got != want {
		t.Errorf("without a prompt: %q, want %q", got, want)
	}
}

func TestAppendTrailer(t *testing.T) {
	for _, tc := range []struct {
		name, msg, comment, want string
	}{
		{"a message", "Add a\n", "#", "Add a\n\n" + trailer},
		{"an empty message", "", "#", "\n\n" + trailer},
		{"joins a trailer block", "Add a\n\nSigned-off-by: A <a@b>\n", "#", "Add a\n\nSigned-off-by: A <a@b>\n" + trailer},
		{"commit -v: above the scissors line", "Add a\n\n# Please enter\n" + cut + "diff --git a/a b/a\n+Key: value\n", "#",
			"Add a\n\n# Please enter\n\n" + trailer + "\n" + cut + "diff --git a/a b/a\n+Key: value\n"},
		{"commentChar ;", "Add a\n\nKey: v\n; Please enter\n", ";", "Add a\n\nKey: v\n; Please enter\n" + trailer},
		{"commentChar ;: # is text", "Add a\n\nKey: v\n# text\n", ";", "Add a\n\nKey: v\n# text\n\n" + trailer},
		{"a conventional-commit subject is no trailer block", "feat: add b\n", "#", "feat: add b\n\n" + trailer},
		{"nor is a first paragraph of several lines", "fix: x\nRefs: y\n", "#", "fix: x\nRefs: y\n\n" + trailer},
		{"a sign-off after the subject is", "fix: x\n\nSigned-off-by: A <a@b>\n", "#", "fix: x\n\nSigned-off-by: A <a@b>\n" + trailer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, checkpoint.AppendTrailer(tc.msg, id, tc.comment)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A reused message (--amend, -c) as the editor shows it: the text, then git's comment section.
func TestAppendTrailerReused(t *testing.T) {
	for _, tc := range []struct {
		name, msg, comment, want string
	}{
		{"a sign-off above git's comments: the trailer joins it there",
			"fix: x\n\nSigned-off-by: A <a@b>\n\n# Please enter\n#\n# On branch main\n", "#",
			"fix: x\n\nSigned-off-by: A <a@b>\n" + trailer + "\n# Please enter\n#\n# On branch main\n"},
		{"commit -v: above the comments and the scissors line",
			"fix: x\n\nSigned-off-by: A <a@b>\n\n# Please enter\n" + cut + "diff --git a/a b/a\n+Key: value\n", "#",
			"fix: x\n\nSigned-off-by: A <a@b>\n" + trailer + "\n# Please enter\n" + cut + "diff --git a/a b/a\n+Key: value\n"},
		{"no trailer block: appended as by AppendTrailer", "feat: x\n\n# Please enter\n", "#",
			"feat: x\n\n# Please enter\n\n" + trailer},
		{"no comments (--no-edit, -C): joins the block at the end", "fix: x\n\nSigned-off-by: A <a@b>\n", "#",
			"fix: x\n\nSigned-off-by: A <a@b>\n" + trailer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, checkpoint.AppendTrailerReused(tc.msg, id, tc.comment)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The commit-msg hook sees the message as the editor left it, before git's cleanup.
func TestCleanCommitMsg(t *testing.T) {
	for _, tc := range []struct {
		name, msg, comment, want string // want "" for unchanged
	}{
		{"text: the explanatory comment goes", "Add a\n\n" + trailer + help + helpPrompt + helpNext + "\n# Please enter\n", "#",
			"Add a\n\n" + trailer + "\n# Please enter\n"},
		{"text without the comment: unchanged", "Add a\n\n" + trailer + "\n# Please enter\n", "#", ""},
		{"text, the comment edited by the user: unchanged", "Add a\n\n" + trailer + "# Remove the Entire-Checkpoint trailer above, or not\n", "#", ""},
		{"emptied, scissors", "\n\n" + trailer + help + helpPrompt + helpNext + "\n" + cut + "# Do not modify\n#\n", "#",
			"\n\n\n" + cut + "# Do not modify\n#\n"},
		{"emptied, commit -v: the diff is not text", "\n\n" + trailer + help + helpNext + "\n# Please enter\n" + cut + "diff --git a/a b/a\n+text\n", "#",
			"\n\n\n# Please enter\n" + cut + "diff --git a/a b/a\n+text\n"},
		{"emptied, commentChar ;",
			"\n\n" + trailer + "; Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n" +
				"; The trailer will be added to your next commit based on this branch.\n\n; Please enter\n;\n", ";",
			"\n\n\n; Please enter\n;\n"},
		{"commentChar ;: # is text", "# 12 fixed\n\n" + trailer + "\n; Please enter\n", ";", ""},
		{"commentChar #: ; is text", "# 12 fixed\n\n" + trailer + "\n; Please enter\n", "#", ""},
		{"commentChar #: all comments", "# 12 fixed\n\n" + trailer + "\n# Please enter\n", "#", "# 12 fixed\n\n\n# Please enter\n"},
		{"an indented # is text to git", "\n  # x\n" + trailer, "#", ""},
		{"emptied, auto", "\n\n" + trailer + "\n@ Please enter\n@\n", "", "\n\n\n@ Please enter\n@\n"},
		{"emptied, a sign-off is no text to git", "\n\nSigned-off-by: A <a@b>\n\n" + trailer + help + helpNext + "\n# Please enter\n", "#",
			"\n\nSigned-off-by: A <a@b>\n\n\n# Please enter\n"},
		{"emptied, a sign-off the trailer joined", "\n\nSigned-off-by: A <a@b>\n" + trailer + help + helpNext + "\n# Please enter\n", "#",
			"\n\nSigned-off-by: A <a@b>\n\n# Please enter\n"},
		{"the comment in another prefix than git's now", "Add a\n\n" + trailer + help + helpNext + "\n; Please enter\n", ";",
			"Add a\n\n" + trailer + "\n; Please enter\n"},
		{"the trailer removed by the user, its comment kept", "Add a\n\n" + help + helpNext, "#", "Add a\n\n"},
		{"below the scissors line is git's", "Add a\n\n" + trailer + cut + "+" + help, "#", ""},
		{"no trailer", "\n# Please enter\n", "#", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := checkpoint.CleanCommitMsg(tc.msg, tc.comment)
			want := tc.want
			if want == "" {
				want = tc.msg
			}
			if diff := cmp.Diff(want, got); diff != "" || changed != (tc.want != "") {
				t.Errorf("changed = %v, (-want +got):\n%s", changed, diff)
			}
		})
	}
}

func TestTemplateUntouched(t *testing.T) {
	const tmpl = "Subject line\n\nWhy:\n"
	help := "# Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n"
	tests := []struct {
		name, msg string
		want      bool
	}{
		{"the template and the trailer", "Subject line\n\nWhy:\n\nEntire-Checkpoint: 0123456789ab\n\n# Please enter the commit message\n", true},
		{"and the help comment, a sign-off, blank lines", "Subject line\n\n\nWhy:   \n\nEntire-Checkpoint: 0123456789ab\n" + help + "\nSigned-off-by: U <u@e.com>\n", true},
		{"edited", "Real subject\n\nWhy:\n\nEntire-Checkpoint: 0123456789ab\n", false},
		{"text added", "Subject line\n\nWhy: because\n\nEntire-Checkpoint: 0123456789ab\n", false},
		{"below the scissors only", "Subject line\n\nWhy:\n\nEntire-Checkpoint: 0123456789ab\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkpoint.TemplateUntouched(tt.msg, tmpl, "#"); got != tt.want {
				t.Errorf("TemplateUntouched = %v, want %v", got, tt.want)
			}
		})
	}
	if checkpoint.TemplateUntouched("Entire-Checkpoint: 0123456789ab\n", "", "#") {
		t.Error("an empty template: the message is git's empty-message check's to judge")
	}
}
