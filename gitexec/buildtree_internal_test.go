package gitexec

import (
	"context"
	"fmt"
	"testing"
)

// A base tree holding modes git would not write itself (100600, 100700, 120777, written
// --literally) builds into the tree git's own mktree gives: entries that did not change keep
// their modes as they were written.
func TestBuildTreeOverOddModes(t *testing.T) {
	dir := t.TempDir()
	run := gitRunner(t, dir)
	run("", "init", "-q")
	blob := run("x\n", "hash-object", "-w", "--stdin")
	raw := func(mode, name string) string {
		b := make([]byte, 20)
		fmt.Sscanf(blob, "%x", &b)
		return mode + " " + name + "\x00" + string(b)
	}
	base := run(raw("100600", "a")+raw("100700", "e")+raw("120777", "l"), "hash-object", "-t", "tree", "-w", "--literally", "--stdin")
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.BuildTree(context.Background(), OID(base), []TreeChange{{Path: "d/new", Mode: "100644", OID: OID(blob)}})
	if err != nil {
		t.Fatal(err)
	}
	sub := run(fmt.Sprintf("100644 blob %s\tnew\n", blob), "mktree")
	want := run(fmt.Sprintf("100600 blob %s\ta\n100700 blob %s\te\n120777 blob %s\tl\n040000 tree %s\td\n", blob, blob, blob, sub), "mktree")
	if string(got) != want {
		t.Errorf("BuildTree = %s, git mktree of the same entries = %s (%s)", got, want, run("", "ls-tree", string(got)))
	}
}
