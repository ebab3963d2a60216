package gitexec_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// DiffTree walks trees itself; on random pairs of trees (files becoming directories and back,
// symlinks, executables, submodules, names that sort around "/") it must say exactly what
// git diff-tree says, in the same order.
func TestDiffTreeMatchesGit(t *testing.T) {
	dir := newRepo(t)
	r := open(t, dir)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "a.txt", "a-b", "a0", "b"}
	modes := []string{"100644", "100644", "100755", "120000", "160000"}
	blobs, err := r.HashBlobs(ctx, [][]byte{[]byte("one\n"), []byte("two\n"), []byte("three\n")})
	if err != nil {
		t.Fatal(err)
	}
	randomPath := func() string {
		var parts []string
		for range 1 + rng.IntN(3) {
			parts = append(parts, names[rng.IntN(len(names))])
		}
		return strings.Join(parts, "/")
	}
	// build turns path → "mode oid" into a tree, dropping paths under a file of the same name.
	build := func(files map[string]string) gitexec.OID {
		paths := slices.Sorted(maps.Keys(files))
		var changes []gitexec.TreeChange
		taken := map[string]bool{}
	next:
		for _, p := range paths {
			for i := range len(p) {
				if p[i] == '/' && taken[p[:i]] {
					continue next
				}
			}
			for q := range taken {
				if strings.HasPrefix(q, p+"/") {
					continue next
				}
			}
			taken[p] = true
			mode, oid, _ := strings.Cut(files[p], " ")
			changes = append(changes, gitexec.TreeChange{Path: p, Mode: mode, OID: gitexec.OID(oid)})
		}
		tree, err := r.BuildTree(ctx, "", changes)
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	randomFile := func() string {
		mode := modes[rng.IntN(len(modes))]
		if mode == "160000" {
			return mode + " " + strings.Repeat(string("0123456789abcdef"[rng.IntN(16)]), 40)
		}
		return mode + " " + string(blobs[rng.IntN(len(blobs))])
	}
	compare := func(round int, a, b gitexec.OID) {
		t.Helper()
		got, err := r.DiffTree(ctx, string(a), string(b))
		if err != nil {
			t.Fatal(err)
		}
		var gotRaw []string
		for _, e := range got {
			gotRaw = append(gotRaw, fmt.Sprintf(":%s %s %s %s %c\x00%s", e.OldMode, e.NewMode, e.OldOID, e.NewOID, e.Status, e.Path))
		}
		var wantRaw []string
		if out := git(t, dir, "diff-tree", "-r", "-z", "--raw", "--no-renames", string(a), string(b)); out != "" {
			recs := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
			for i := 0; i+1 < len(recs); i += 2 {
				wantRaw = append(wantRaw, recs[i]+"\x00"+recs[i+1])
			}
		}
		if !slices.Equal(gotRaw, wantRaw) {
			t.Fatalf("round %d: DiffTree(%s, %s) =\n%q\ngit diff-tree says\n%q", round, a, b, gotRaw, wantRaw)
		}
	}
	// A hundred changed directories, read a level at a time; then more than the walk reads
	// itself (600 pairs of trees): git's answer, the same way.
	for _, n := range []int{100, 600} {
		wide, wider := map[string]string{}, map[string]string{}
		for i := range n {
			wide[fmt.Sprintf("d%03d/f", i)] = "100644 " + string(blobs[0])
			wider[fmt.Sprintf("d%03d/f", i)] = "100644 " + string(blobs[1])
		}
		compare(-n, build(wide), build(wider))
	}
	for round := range 150 {
		files := map[string]string{}
		for range 1 + rng.IntN(12) {
			files[randomPath()] = randomFile()
		}
		a := build(files)
		for range 1 + rng.IntN(4) {
			switch rng.IntN(3) {
			case 0:
				files[randomPath()] = randomFile()
			case 1:
				for p := range files {
					delete(files, p)
					break
				}
			default:
				for p := range files {
					files[p] = randomFile()
					break
				}
			}
		}
		compare(round, a, build(files))
	}
}
