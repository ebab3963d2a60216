package main

import (
	"strings"
	"testing"
)

func TestPushDryRunFromCommandLine(t *testing.T) {
	for _, tc := range []struct {
		cmdline string
		want    bool
	}{
		{"push origin main", false},
		{"push --dry-run origin main", true},
		{"push -n", true},
		{"push -qnu origin main", true},
		{"push --dry", true},
		{"push --dr", true},
		{"push --dry-run --no-dry-run", false},
		{"push -n --no-dry", false},
		{"push -o -n origin main", false},
		{"push -on origin main", false},
		{"push --push-option -n origin", false},
		{"push --push-option=x -n origin", true},
		{"push origin -- -n", false},
		{"-c push.default=simple -C -n push origin", false},
		{"-c push.default=simple -C dir push -n origin", true},
		{"--git-dir=.git push --dry-run", true},
		{"fetch -n origin", false},
		{"--no-pager commit -n", false},
	} {
		push, ok := gitSubcommandArgs(strings.Fields(tc.cmdline), "push")
		if got := ok && dryRunFlag(push); got != tc.want {
			t.Errorf("git %s: dry run = %v, want %v", tc.cmdline, got, tc.want)
		}
	}
}
