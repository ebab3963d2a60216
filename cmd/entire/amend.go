package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// amending reports whether the git process running this hook is a `git commit --amend`.
// Git does not tell prepare-commit-msg about --amend when -m is given (the source is then
// "message"), so we look at the ancestor processes' command lines. Where /proc is not
// available the answer is false.
func amending() bool {
	pid := os.Getppid()
	for depth := 0; depth < 4 && pid > 1; depth++ {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return false
		}
		args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
		isGit := false
		for i, a := range args {
			s := string(a)
			if i == 0 && (s == "git" || strings.HasSuffix(s, "/git")) {
				isGit = true
			}
			if isGit && (s == "--amend" || s == "--amen" || s == "--ame") {
				return true
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
