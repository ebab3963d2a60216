package main

import (
	"strings"
	"testing"
)

func TestGivenUneditedFromCommandLine(t *testing.T) {
	for _, tc := range []struct {
		cmdline string
		want    bool
	}{
		{"git commit -m #12", true},
		{"git commit -q -am #12", true},
		{"git commit --message=#12", true},
		{"git commit -F msg.txt", true},
		{"git commit -C HEAD", true},
		{"git commit --amend -m x", true},
		{"git commit", false},
		{"git commit --amend", false},
		{"git commit -e -m x", false},
		{"git commit -m x --edit", false},
		{"git commit -c HEAD", false},
		{"git commit -t tmpl", false},
		{"git commit -m x --cleanup=strip", false},
		{"git commit -m x --no-edit", true},
		{"git -c core.commentChar=; commit -m x", true},
		{"git commit -- -m", false},
		{"git commit --author a -m x", true},
		{"git commit --author -m", false},
		{"git commit --mes #12", true},
		{"git commit --mess=#12", true},
		{"git commit --auth -m x", false},
		{"git commit -m x --edi", false},
		{"git commit -m x --cl=strip", false},
		{"git commit -e -m x --no-ed", true},
		{"git commit --reuse HEAD", true},
	} {
		commit, ok := gitSubcommandArgs(strings.Fields(tc.cmdline)[1:], "commit")
		if got := ok && givenUnedited(commit); got != tc.want {
			t.Errorf("%q: givenUnedited = %v, want %v", tc.cmdline, got, tc.want)
		}
	}
}

func TestTemplateArg(t *testing.T) {
	for _, tc := range []struct{ cmdline, want string }{
		{"git commit -t tmpl", "tmpl"},
		{"git commit -ttmpl", "tmpl"},
		{"git commit --template=a/b", "a/b"},
		{"git commit --template a/b -q", "a/b"},
		{"git commit -qt tmpl", "tmpl"},
		{"git commit -m -t", ""},
		{"git commit --author -t x", ""},
		{"git commit", ""},
		{"git commit -- -t x", ""},
		{"git commit --templ a/b", "a/b"},
		{"git commit --tem=a/b", "a/b"},
	} {
		commit, ok := gitSubcommandArgs(strings.Fields(tc.cmdline)[1:], "commit")
		if got := templateArg(commit); !ok || got != tc.want {
			t.Errorf("%q: templateArg = %q, want %q", tc.cmdline, got, tc.want)
		}
	}
}

func TestCleanupArg(t *testing.T) {
	for _, tc := range []struct{ cmdline, want string }{
		{"git commit", ""},
		{"git commit --cleanup=verbatim", "verbatim"},
		{"git commit --cleanup whitespace -q", "whitespace"},
		{"git commit --cleanup=strip --cleanup=scissors", "scissors"},
		{"git commit -m --cleanup=verbatim", ""},
		{"git commit -- --cleanup=verbatim", ""},
	} {
		commit, ok := gitSubcommandArgs(strings.Fields(tc.cmdline)[1:], "commit")
		if got := cleanupArg(commit); !ok || got != tc.want {
			t.Errorf("%q: cleanupArg = %q, want %q", tc.cmdline, got, tc.want)
		}
	}
}

func TestCommitAmends(t *testing.T) {
	for _, tc := range []struct {
		cmdline        string
		amend, decided bool
	}{
		{"git commit --amend -m x", true, true},
		{"git commit --am -m x", true, true},
		{"git commit --amen", true, true},
		{"git -c a.b=c commit -qm x --amend", true, true},
		{"git commit -m --amend", false, true},
		{"git commit -m x -- --amend", false, true},
		{"git commit -m x", false, true},
		{"git rebase --continue", false, false},
	} {
		amend, decided := commitAmends(strings.Fields(tc.cmdline))
		if amend != tc.amend || decided != tc.decided {
			t.Errorf("%q: commitAmends = %v, %v; want %v, %v", tc.cmdline, amend, decided, tc.amend, tc.decided)
		}
	}
}
