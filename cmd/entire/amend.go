package main

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// amending reports whether the git process running this hook is a `git commit --amend`.
// Git does not tell prepare-commit-msg about --amend when -m is given (the source is then
// "message"), so we look at the ancestor processes' command lines. Where /proc is not
// available the answer is false.
func amending() bool {
	return gitAncestor(commitAmends)
}

// commitAmends decides amending for one git command line: a `git commit` decides, by whether
// it is given --amend or a prefix of it down to --am, as git takes it (commitOptions); any other
// git command leaves it to the next ancestor.
func commitAmends(args []string) (answer, decided bool) {
	commit, ok := gitSubcommandArgs(args[1:], "commit")
	if !ok {
		return false, false
	}
	return slices.ContainsFunc(commitOptions(commit), func(o commitOption) bool { return o.name == "amend" }), true
}

// gitAncestor asks decide about the command line of each of this process's nearest four
// ancestors that is git, nearest first, until decide says it has decided; false when none
// did or /proc is not available.
func gitAncestor(decide func(args []string) (answer, decided bool)) bool {
	return gitAncestorProc(func(_ int, args []string) (bool, bool) { return decide(args) })
}

// gitAncestorProc is gitAncestor with each git process's ID given to decide too.
func gitAncestorProc(decide func(pid int, args []string) (answer, decided bool)) bool {
	pid := os.Getppid()
	for depth := 0; depth < 4 && pid > 1; depth++ {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return false
		}
		args := strings.Split(string(bytes.TrimRight(cmdline, "\x00")), "\x00")
		if args[0] == "git" || strings.HasSuffix(args[0], "/git") {
			if answer, decided := decide(pid, args); decided {
				return answer
			}
		}
		pid = parentOf(pid)
	}
	return false
}

// parentOf reads a process's parent ID from /proc/<pid>/stat.
func parentOf(pid int) int {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name is in parentheses and may contain spaces; fields follow the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}
