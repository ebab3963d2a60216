package gitexec_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

// diffSummary reduces entries to "status path" strings.
func diffSummary(entries []gitexec.DiffEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, string(e.Status)+" "+e.Path)
	}
	return out
}

func TestDiffTree(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, map[string]string{"keep": "k", "mod": "1", "del/x": "x", "typ": "t"}, "one")
	if err := os.Remove(filepath.Join(dir, "del/x")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "typ")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("keep", filepath.Join(dir, "typ")); err != nil {
		t.Fatal(err)
	}
	c2 := commitFiles(t, dir, map[string]string{"mod": "2", "add/deep/y": "y"}, "two")
	r := open(t, dir)
	ctx := context.Background()

	got, err := r.DiffTree(ctx, string(c1), string(c2))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A add/deep/y", "D del/x", "M mod", "T typ"}
	if !slices.Equal(diffSummary(got), want) {
		t.Errorf("DiffTree = %v, want %v", diffSummary(got), want)
	}
	for _, e := range got {
		switch e.Status {
		case 'A':
			if !e.OldOID.IsZero() || e.OldMode != "000000" || e.NewMode != "100644" ||
				string(e.NewOID) != git(t, dir, "rev-parse", string(c2)+":add/deep/y") {
				t.Errorf("added entry %+v", e)
			}
		case 'T':
			if e.OldMode != "100644" || e.NewMode != "120000" {
				t.Errorf("type change entry %+v", e)
			}
		}
	}
	root, err := r.DiffTree(ctx, "", string(c1))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"A del/x", "A keep", "A mod", "A typ"}; !slices.Equal(diffSummary(root), want) {
		t.Errorf("DiffTree(\"\", root) = %v, want %v", diffSummary(root), want)
	}
}

func TestStagedChanges(t *testing.T) {
	dir := newRepo(t)
	r := open(t, dir)
	ctx := context.Background()
	writeFile(t, dir, "first", "1")
	git(t, dir, "add", "first")
	got, err := r.StagedChanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"A first"}; !slices.Equal(diffSummary(got), want) {
		t.Errorf("StagedChanges on unborn = %v, want %v", diffSummary(got), want)
	}
	commitFiles(t, dir, map[string]string{"second": "2"}, "one")
	if got, err := r.StagedChanges(ctx); err != nil || len(got) != 0 {
		t.Errorf("StagedChanges after commit = %v, %v; want none", diffSummary(got), err)
	}
}

// A hook run by "git commit -a" sees GIT_INDEX_FILE, possibly relative to
// the work-tree root; StagedChanges must read that index, not .git/index.
func TestStagedChangesHookIndex(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"a/f": "1", "g": "1"}, "one")
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "hook-index"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "a/f", "changed")
	gitIn(t, dir, []string{"GIT_INDEX_FILE=.git/hook-index"}, "", "add", "a/f")

	t.Chdir(dir)
	t.Setenv("GIT_INDEX_FILE", ".git/hook-index")
	r := open(t, filepath.Join(dir, "a"))
	if want := filepath.Join(dir, ".git", "hook-index"); r.HookIndex != want {
		t.Errorf("HookIndex = %q, want %q", r.HookIndex, want)
	}
	t.Chdir(filepath.Join(dir, "a")) // the path was resolved at Open
	got, err := r.StagedChanges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"M a/f"}; !slices.Equal(diffSummary(got), want) {
		t.Errorf("StagedChanges with hook index = %v, want %v", diffSummary(got), want)
	}

	unsetenv(t, "GIT_INDEX_FILE")
	plain := open(t, dir)
	if plain.HookIndex != "" {
		t.Errorf("HookIndex without GIT_INDEX_FILE = %q", plain.HookIndex)
	}
	if got, err := plain.StagedChanges(context.Background()); err != nil || len(got) != 0 {
		t.Errorf("StagedChanges of the default index = %v, %v; want none", diffSummary(got), err)
	}
}
