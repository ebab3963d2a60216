package gitexec_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

func TestStatus(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{
		"top.txt":          "top",
		"a/b/modified.txt": "old",
		"a/b/deleted.txt":  "gone soon",
		"a/staged.txt":     "old",
		"a/both.txt":       "old",
	}, "base")
	writeFile(t, dir, ".gitignore", "*.log\n")
	writeFile(t, dir, "a/b/modified.txt", "new")
	if err := os.Remove(filepath.Join(dir, "a/b/deleted.txt")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "a/staged.txt", "staged")
	writeFile(t, dir, "a/both.txt", "staged")
	git(t, dir, "add", "a/staged.txt", "a/both.txt")
	writeFile(t, dir, "a/both.txt", "then modified")
	writeFile(t, dir, "new dir/deep/untracked file.txt", "u")
	writeFile(t, dir, "a/b/ignored.log", "ignored")
	git(t, dir, "rm", "-q", "--cached", "top.txt")

	// Open from a subdirectory and run from an unrelated cwd: paths stay
	// relative to the top level.
	r := open(t, filepath.Join(dir, "a", "b"))
	t.Chdir(t.TempDir())
	got, err := r.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []gitexec.StatusEntry{
		{Path: ".gitignore", X: '?', Y: '?'},
		{Path: "a/b/deleted.txt", X: ' ', Y: 'D'},
		{Path: "a/b/modified.txt", X: ' ', Y: 'M'},
		{Path: "a/both.txt", X: 'M', Y: 'M'},
		{Path: "a/staged.txt", X: 'M', Y: ' '},
		{Path: "new dir/deep/untracked file.txt", X: '?', Y: '?'},
		{Path: "top.txt", X: '?', Y: '?'},
		{Path: "top.txt", X: 'D', Y: ' '},
	}
	slices.SortFunc(got, func(a, b gitexec.StatusEntry) int {
		if a.Path != b.Path {
			if a.Path < b.Path {
				return -1
			}
			return 1
		}
		return int(a.X) - int(b.X)
	})
	if !slices.Equal(got, want) {
		t.Errorf("Status =\n%q\nwant\n%q", got, want)
	}
	for _, e := range got {
		wantUntracked := e.X == '?'
		wantDeleted := e.Path == "a/b/deleted.txt" || (e.Path == "top.txt" && e.X == 'D')
		if e.Untracked() != wantUntracked || e.Deleted() != wantDeleted {
			t.Errorf("%+v: Untracked=%v Deleted=%v", e, e.Untracked(), e.Deleted())
		}
	}
}
