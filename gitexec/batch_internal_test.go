package gitexec

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// A batch process that dies on bad input is reported as an *Error with
// git's message, and the next request starts a fresh process.
func TestBatchProcessRecoversFromDeath(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	err = r.mktree.do(ctx, r, func(w *bufio.Writer, rd *bufio.Reader) error {
		if _, err := w.WriteString("not a tree entry\x00\x00"); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		_, err := rd.ReadString('\n')
		return err
	})
	var gerr *Error
	if !errors.As(err, &gerr) || gerr.ExitCode != 128 || !strings.Contains(gerr.Stderr, "fatal:") {
		t.Fatalf("bad input: err = %v, want an *Error with git's fatal message", err)
	}
	if oid, err := r.EmptyTree(ctx); err != nil || oid != r.emptyTree() {
		t.Errorf("after restart EmptyTree = %s, %v; want %s", oid, err, r.emptyTree())
	}
}
