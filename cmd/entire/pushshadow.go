package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/entirerec/entire/engine/session"
)

// pushedShadowBranches reads the refs git is about to push from the pre-push hook's stdin
// ("<local ref> <local oid> <remote ref> <remote oid>" lines) and returns the shadow branches
// among them: `git push --all` or `--mirror` sends every local branch, and a shadow branch
// holds a live session's transcripts unredacted. A terminal on stdin (the hook run by hand)
// is not read.
func pushedShadowBranches(in io.Reader) []string {
	if f, ok := in.(*os.File); ok {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return nil
		}
	}
	var out []string
	sc := bufio.NewScanner(io.LimitReader(in, 1<<20))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || strings.Trim(fields[1], "0") == "" {
			continue // a deletion sends nothing
		}
		name, ok := strings.CutPrefix(fields[0], "refs/heads/")
		if ok && session.IsShadowBranch(name) {
			out = append(out, name)
		}
	}
	return out
}

// warnShadowPush tells the person pushing that temporary checkpoint branches are in the push,
// and how to take them off the remote. The push goes on: the pre-push hook never stops it.
func warnShadowPush(w io.Writer, remote string, branches []string) {
	if len(branches) == 0 {
		return
	}
	fmt.Fprintf(w, "[entire] Warning: this push includes temporary checkpoint branches for %s: %s. They hold live sessions' transcripts, not redacted; entire itself pushes only %s.\n",
		remote, strings.Join(branches, ", "), "entire/checkpoints/v1")
	fmt.Fprintf(w, "[entire] To remove them there: git push %s --delete %s\n", remote, strings.Join(branches, " "))
}
