package agent

import (
	"fmt"
	"strings"
	"testing"
)

func TestCommitSubject(t *testing.T) {
	long := strings.Repeat("é", 80) // 2 bytes each
	tests := []struct{ in, want string }{
		{"", DefaultCommitSubject},
		{"   ", DefaultCommitSubject},
		{"?", DefaultCommitSubject},
		{"Please ", DefaultCommitSubject},
		{"add a test", "Add a test"},
		{"Can you add a test?", "Add a test"},
		{"Can you add a test??", "Add a test?"}, // only one '?' goes
		{"can you please add a test", "Add a test"},
		{"Please can you add a test", "Add a test"}, // earlier prefix after a later one
		{"please please Let's I'd like you to fix it", "Fix it"},
		{"I want you to Could you would you fix it", "Fix it"},
		{"I need you to fix it ?", "Fix it"},
		{"Pleased to meet you", "Pleased to meet you"},
		{" please fix", "Please fix"}, // literal: no trim before stripping, so the prefix stays
		{"fix it?\n", "Fix it?"},      // '?' must be last to go
		{"fix\nthe bug", "Fix\nthe bug"},
		{"ärger beheben", "Ärger beheben"},
		{"日本語のテスト", "日本語のテスト"},
		{strings.Repeat("a", 72), "A" + strings.Repeat("a", 71)},
		{strings.Repeat("a", 73), "A" + strings.Repeat("a", 71)},
		{long, "É" + strings.Repeat("é", 71)},
		{strings.Repeat("a", 71) + " b", "A" + strings.Repeat("a", 70)}, // cut leaves a trailing space, trimmed
		{"\xffbad", "\xffbad"},
	}
	for _, tt := range tests {
		if got := CommitSubject(tt.in); got != tt.want {
			t.Errorf("CommitSubject(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPromptsTextAndLastPrompt(t *testing.T) {
	tests := []struct {
		prompts []string
		want    string
		last    string
	}{
		{nil, "", ""},
		{[]string{"one"}, "one", "one"},
		{[]string{"one", "two\nlines"}, "one\n\n---\n\ntwo\nlines", "two\nlines"},
		{[]string{"a", "b", "c"}, "a\n\n---\n\nb\n\n---\n\nc", "c"},
	}
	for _, tt := range tests {
		got := PromptsText(tt.prompts)
		if got != tt.want {
			t.Errorf("PromptsText(%q) = %q, want %q", tt.prompts, got, tt.want)
		}
		if last := LastPrompt(got); last != tt.last {
			t.Errorf("LastPrompt(%q) = %q, want %q", got, last, tt.last)
		}
	}
}

func TestShadowContext(t *testing.T) {
	var actions []Action
	for i := range 12 {
		actions = append(actions, Action{Tool: "Bash", Detail: fmt.Sprint("step ", i)})
	}
	got := ShadowContext("sid", "Subj", "p1\n\n---\n\np2", "done", actions)
	want := "# Session Context\n\n**Session ID:** sid\n\n**Commit Message:** Subj\n\n" +
		"## Prompt\n\np1\n\n---\n\np2\n\n## Summary\n\ndone\n\n## Key Actions\n\n"
	for i := range 10 {
		want += fmt.Sprintf("- - **Bash**: step %d\n", i)
	}
	if got != want {
		t.Errorf("ShadowContext with 12 actions:\n got %q\nwant %q", got, want)
	}

	got = ShadowContext("sid", "S", "", "", []Action{{Tool: "NotebookEdit"}})
	want = "# Session Context\n\n**Session ID:** sid\n\n**Commit Message:** S\n\n## Prompt\n\n\n\n## Summary\n\n\n\n## Key Actions\n\n- - **NotebookEdit**: \n"
	if got != want {
		t.Errorf("ShadowContext empty fields:\n got %q\nwant %q", got, want)
	}
	if got := ShadowContext("s", "S", "p", "x", nil); !strings.HasSuffix(got, "## Key Actions\n\n") {
		t.Errorf("ShadowContext without actions ends %q", got[len(got)-20:])
	}
}

func TestCommittedContext(t *testing.T) {
	if got := CommittedContext(nil); got != "" {
		t.Errorf("CommittedContext(nil) = %q, want empty", got)
	}
	at500 := strings.Repeat("a", 500)
	got := CommittedContext([]string{"first", at500, at500 + "b"})
	want := "# Session Context\n\n## User Prompts\n\n" +
		"### Prompt 1\n\nfirst\n\n" +
		"### Prompt 2\n\n" + at500 + "\n\n" +
		"### Prompt 3\n\n" + at500 + "...\n\n"
	if got != want {
		t.Errorf("CommittedContext:\n got %q\nwant %q", got, want)
	}
	// The cut is at byte 500 even inside a rune (literal reading of §3.6).
	multi := strings.Repeat("a", 499) + "é"
	got = CommittedContext([]string{multi})
	if want := "# Session Context\n\n## User Prompts\n\n### Prompt 1\n\n" + strings.Repeat("a", 499) + "\xc3...\n\n"; got != want {
		t.Errorf("CommittedContext(499a+é):\n got %q\nwant %q", got, want)
	}
}

func TestFirstPromptAndPreview(t *testing.T) {
	tests := []struct {
		in          string
		first, last string
	}{
		{in: "", first: "", last: ""},
		{in: " \t\n ", first: "", last: ""},
		{in: "  fix\n\tthe   bug \u00a0 now ", first: "fix the bug now", last: "fix the bug now"},
		{in: strings.Repeat("x", 80), first: strings.Repeat("x", 80), last: strings.Repeat("x", 80)},
		{in: strings.Repeat("x", 81), first: strings.Repeat("x", 81), last: strings.Repeat("x", 77) + "..."},
		{in: strings.Repeat("ü", 100), first: strings.Repeat("ü", 100), last: strings.Repeat("ü", 77) + "..."},
		{in: strings.Repeat("ü", 101), first: strings.Repeat("ü", 97) + "...", last: strings.Repeat("ü", 77) + "..."},
		{in: strings.Repeat("界 ", 60), first: strings.Repeat("界 ", 48) + "界...", last: strings.Repeat("界 ", 38) + "界..."},
	}
	for _, tt := range tests {
		if got := FirstPrompt(tt.in); got != tt.first {
			t.Errorf("FirstPrompt(%q) = %q, want %q", tt.in, got, tt.first)
		}
		if got := LastPromptPreview(tt.in); got != tt.last {
			t.Errorf("LastPromptPreview(%q) = %q, want %q", tt.in, got, tt.last)
		}
	}
}
