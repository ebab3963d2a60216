package gitexec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
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
	mktree := batchProc{args: []string{"mktree", "-z", "--batch"}} // dies on a bad entry
	defer mktree.close()
	write := func(input string) (string, error) {
		var line string
		err := mktree.do(ctx, r, func(w *bufio.Writer, rd *bufio.Reader) error {
			if _, err := w.WriteString(input); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
			var err error
			line, err = rd.ReadString('\n')
			return err
		})
		return strings.TrimSpace(line), err
	}
	_, err = write("not a tree entry\x00\x00")
	var gerr *Error
	if !errors.As(err, &gerr) || gerr.ExitCode != 128 || !strings.Contains(gerr.Stderr, "fatal:") {
		t.Fatalf("bad input: err = %v, want an *Error with git's fatal message", err)
	}
	if oid, err := write("\x00"); err != nil || OID(oid) != r.emptyTree() {
		t.Errorf("after restart the empty tree = %s, %v; want %s", oid, err, r.emptyTree())
	}
}

// Pipelined requests go in runs a pipe's buffer holds: at most maxPipelined names and
// maxPipelinedBytes bytes, a longer name alone, every name once and in order.
func TestPipelineChunks(t *testing.T) {
	var revs []string
	for i := range 600 {
		revs = append(revs, fmt.Sprintf("%040d:dir/%d", i, i))
	}
	revs = append(revs, strings.Repeat("x", maxPipelinedBytes+10), "short")
	var joined []string
	for _, c := range pipelineChunks(revs) {
		size := 0
		for _, r := range c {
			size += len(r) + 1
		}
		if len(c) == 0 || len(c) > maxPipelined || (len(c) > 1 && size > maxPipelinedBytes) {
			t.Errorf("chunk of %d names, %d bytes", len(c), size)
		}
		joined = append(joined, c...)
	}
	if !slices.Equal(joined, revs) {
		t.Error("the chunks do not give back the names in order")
	}
	if got := pipelineChunks(nil); len(got) != 0 {
		t.Errorf("no names: %d chunks", len(got))
	}
}
