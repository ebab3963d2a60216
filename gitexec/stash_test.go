package gitexec_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStashedPaths: a path counts as stashed when an entry of the stash list changes it in its
// worktree or index commit, or holds it among its untracked files; a dropped entry no longer
// counts, and a repository without stash entries answers without error.
func TestStashedPaths(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"tracked.txt": "base\n", "staged.txt": "base\n", "kept.txt": "base\n"}, "init")
	ctx := context.Background()
	paths := []string{"tracked.txt", "staged.txt", "new.txt", "kept.txt", "dropped.txt", "missing.txt"}
	if got, err := open(t, dir).StashedPaths(ctx, paths); err != nil || len(got) != 0 {
		t.Fatalf("without stash entries: %v, %v; want nothing", got, err)
	}

	writeFile(t, dir, "dropped.txt", "gone\n")
	git(t, dir, "stash", "push", "-q", "-u")
	git(t, dir, "stash", "drop", "-q")
	writeFile(t, dir, "tracked.txt", "changed\n")
	git(t, dir, "stash", "push", "-q")
	writeFile(t, dir, "staged.txt", "staged\n")
	git(t, dir, "add", "staged.txt")
	writeFile(t, dir, "staged.txt", "base\n") // the worktree is back at HEAD's, the index is not
	writeFile(t, dir, "new.txt", "N\n")
	git(t, dir, "stash", "push", "-q", "-u")

	got, err := open(t, dir).StashedPaths(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"tracked.txt": true, "staged.txt": true, "new.txt": true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("StashedPaths (-want +got):\n%s", d)
	}
}
