package gitexec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// indexRepo is a repository whose prepare-commit-msg hook keeps a copy of the index it was
// given, as <name>.idx in the returned directory, and HEAD at that moment as <name>.head; the
// commit's message names the copy.
func indexRepo(t *testing.T) (dir, saved string, run func(stdin string, args ...string) string) {
	t.Helper()
	dir, saved = t.TempDir(), t.TempDir()
	run = gitRunner(t, dir)
	run("", "init", "-q", "-b", "main")
	run("", "config", "user.name", "t")
	run("", "config", "user.email", "t@example.com")
	hook := `#!/bin/sh
name=$(head -n1 "$1")
cp "${GIT_INDEX_FILE:-.git/index}" "` + saved + `/$name.idx"
git rev-parse --verify -q HEAD > "` + saved + `/$name.head" || true
`
	if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", "prepare-commit-msg"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, saved, run
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The staged changes read from the index's tree are the ones diff-index gives, for the
// indexes git hands prepare-commit-msg in each way of committing; the plain commit, -a and
// indexes of versions 3 and 4 must give the tree (the fast path must be exercised).
func TestIndexTreeMatchesDiffIndex(t *testing.T) {
	dir, saved, run := indexRepo(t)
	writeFiles(t, dir, map[string]string{"a/one": "1\n", "a/b/two": "2\n", "c": "3\n", "gone": "x\n", "swap": "file\n"})
	run("", "add", "-A")
	run("", "commit", "-q", "-m", "first")

	cases := []struct {
		name     string
		mustTree bool
		prepare  func()
		commit   []string
	}{
		{"plain", true, func() {
			writeFiles(t, dir, map[string]string{"a/b/two": "2b\n", "new/deep/f": "n\n"})
			run("", "add", "a/b/two", "new")
			run("", "rm", "-q", "gone")
		}, nil},
		{"all", true, func() {
			writeFiles(t, dir, map[string]string{"a/one": "1b\n", "c": "3b\n"})
		}, []string{"-a"}},
		{"typechange", true, func() {
			run("", "rm", "-q", "swap")
			writeFiles(t, dir, map[string]string{"swap/inner": "dir now\n"})
			if err := os.Symlink("a/one", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			run("", "add", "swap", "link")
		}, nil},
		{"only", false, func() {
			writeFiles(t, dir, map[string]string{"a/one": "1c\n", "c": "3c\n"})
			run("", "add", "c")
		}, []string{"--", "a/one"}},
		{"intent", false, func() { // an intent-to-add entry leaves the root invalid
			writeFiles(t, dir, map[string]string{"later": "l\n", "c": "3d\n"})
			run("", "add", "-N", "later")
			run("", "add", "c")
		}, nil},
		{"v4", true, func() {
			run("", "rm", "-q", "--cached", "later")
			run("", "update-index", "--index-version", "4")
			writeFiles(t, dir, map[string]string{"a/b/two": "2e\n", "a/b/three": "3\n"})
			run("", "add", "a")
		}, nil},
		{"long", true, func() {
			blob := run("x\n", "hash-object", "-w", "--stdin")
			long := strings.Repeat("d/", 2100) + "f" // over the 0xfff the length field holds
			run("", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
		}, nil},
	}
	for _, c := range cases {
		c.prepare()
		run("", append([]string{"commit", "-q", "-m", c.name}, c.commit...)...)
		idx := filepath.Join(saved, c.name+".idx")
		headData, err := os.ReadFile(filepath.Join(saved, c.name+".head"))
		if err != nil {
			t.Fatal(err)
		}
		head := strings.TrimSpace(string(headData))
		tree, _, ok := indexTree(idx, 40)
		if c.mustTree && !ok {
			t.Errorf("%s: no valid cache-tree root in the hook's index", c.name)
		}
		if !ok {
			continue
		}
		r, err := Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.DiffTree(context.Background(), head, string(tree))
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cmd := exec.Command("git", "-C", dir, "diff-index", "--cached", "-r", "-z", "--raw", "--no-renames", head)
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+idx)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		want, err := r.parseRawDiff(out)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: from the index's tree %v, diff-index %v", c.name, got, want)
		}
		if committed := run("", "rev-parse", "HEAD^{tree}"); c.commit == nil && string(tree) != committed {
			t.Errorf("%s: index tree %s, committed tree %s", c.name, tree, committed)
		}
	}
}

// With a valid cache-tree and loose objects, StagedChanges starts no process: here git cannot
// start at all once the repository is open. In a linked work tree too: its HEAD is read from
// its own git directory, its branch from the common one.
func TestStagedChangesWithoutProcess(t *testing.T) {
	dir, _, run := indexRepo(t)
	writeFiles(t, dir, map[string]string{"a/one": "1\n", "b": "2\n"})
	run("", "add", "-A")
	run("", "commit", "-q", "-m", "first")
	linked := filepath.Join(t.TempDir(), "linked")
	run("", "worktree", "add", "-q", "-b", "side", linked)
	gitRunner(t, linked)("", "commit", "-q", "--allow-empty", "-m", "side moves on")
	summary := func(es []DiffEntry) (out []string) {
		for _, e := range es {
			out = append(out, string(e.Status)+" "+e.Path)
		}
		return out
	}
	for _, wt := range []string{dir, linked} {
		writeFiles(t, wt, map[string]string{"a/one": "changed\n", "a/new": "n\n"})
		stage := gitRunner(t, wt)
		stage("", "add", "-A")
		stage("", "write-tree") // records the tree in the index, as git commit does
		r, err := Open(context.Background(), wt)
		if err != nil {
			t.Fatal(err)
		}
		path := os.Getenv("PATH")
		t.Setenv("PATH", t.TempDir())
		got, err := r.StagedChanges(context.Background())
		t.Setenv("PATH", path)
		r.Close()
		if want := []string{"A a/new", "M a/one"}; err != nil || !slices.Equal(summary(got), want) {
			t.Errorf("%s: StagedChanges without git = %v, %v; want %v", wt, summary(got), err, want)
		}
	}
}

// A change spread over more directories than the walk's budget goes to diff-index, which reads
// only HEAD's side: with git unable to start StagedChanges then fails, and with git it gives
// diff-index's answer. Within the budget no process starts.
func TestStagedChangesBudget(t *testing.T) {
	dir, _, run := indexRepo(t)
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%02d/f", i)] = "1\n"
	}
	writeFiles(t, dir, files)
	run("", "add", "-A")
	run("", "commit", "-q", "-m", "first")
	if budget := stagedWalkBudget(len(files)); budget >= 2*len(files) {
		t.Fatalf("budget %d would walk all %d directories", budget, len(files))
	}
	stagedWithout := func(k int) ([]DiffEntry, error) {
		t.Helper()
		for i := range k {
			writeFiles(t, dir, map[string]string{fmt.Sprintf("d%02d/f", i): fmt.Sprintf("changed %d\n", k)})
		}
		run("", "add", "-A")
		run("", "write-tree")
		r, err := Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		path := os.Getenv("PATH")
		t.Setenv("PATH", t.TempDir())
		defer t.Setenv("PATH", path)
		return r.StagedChanges(context.Background())
	}
	if got, err := stagedWithout(3); err != nil || len(got) != 3 {
		t.Fatalf("3 directories without git: %d entries, %v", len(got), err)
	}
	if got, err := stagedWithout(len(files)); err == nil {
		t.Fatalf("%d directories were walked without git (%d entries): the budget did not stop the walk", len(files), len(got))
	}
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := r.StagedChanges(context.Background()); err != nil || len(got) != len(files) {
		t.Fatalf("StagedChanges over the budget = %d entries, %v; want %d", len(got), err, len(files))
	}
}

// A damaged index is never trusted: every truncation and every single-byte change of a real
// one either yields no tree or the tree it records, and never panics.
func TestParseIndexTreeDamaged(t *testing.T) {
	dir, _, run := indexRepo(t)
	writeFiles(t, dir, map[string]string{"a/one": "1\n", "b": "2\n", "c/d/e": "3\n"})
	run("", "add", "-A")
	tree := run("", "write-tree")
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := parseIndexTree(data, 20); !ok || string(got) != tree {
		t.Fatalf("parseIndexTree = %s, %v; want %s", got, ok, tree)
	}
	for n := range len(data) - 20 {
		cut := slices.Clone(data[:n])
		cut = append(cut, make([]byte, 20)...) // a checksum's room, so the cut shows
		if got, ok := parseIndexTree(cut, 20); ok && string(got) != tree {
			t.Errorf("truncated at %d: tree %s", n, got)
		}
	}
	for i := range data {
		for _, b := range []byte{0x00, 0xff, ' ', '\n', '-'} {
			mod := slices.Clone(data)
			mod[i] = b
			parseIndexTree(mod, 20) // must not panic
		}
	}
	run("", "update-index", "--add", "--cacheinfo", "100644,"+run("b2\n", "hash-object", "-w", "--stdin")+",b2")
	if data, err = os.ReadFile(filepath.Join(dir, ".git", "index")); err != nil {
		t.Fatal(err)
	}
	if _, ok := parseIndexTree(data, 20); ok {
		t.Error("an index whose root changed after write-tree gave a tree")
	}
}

// FuzzParseIndexTree feeds index files, real ones (versions 2, 3 and 4, with a valid root and
// with an intent-to-add entry) and their mutations, to the parser: it must never panic, a
// tree it returns is a full id, and a path lookup gives full ids.
func FuzzParseIndexTree(f *testing.F) {
	for _, version := range []string{"2", "3", "4"} {
		for _, intent := range []bool{false, true} {
			dir := f.TempDir()
			git := func(args ...string) {
				if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
					f.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q")
			git("update-index", "--index-version", version)
			writeFiles(f, dir, map[string]string{"a/one": "1\n", "b": "2\n", "c/d/e": "3\n", "later": "l\n"})
			git("add", "a", "b", "c")
			if intent {
				git("add", "-N", "later")
			}
			git("write-tree")
			data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if id, ok := parseIndexTree(data, 20); ok && (len(id) != 40 || !isLowerHexID(string(id), 40)) {
			t.Errorf("parseIndexTree gave %q", id)
		}
		ix, ok := parseIndex(data, 20)
		if !ok {
			return
		}
		found, ok := ix.lookup([]string{"a/one", "b", "c", "c/d/e", "later"})
		for p, e := range found {
			if !ok || len(e.id) != 40 || !isLowerHexID(string(e.id), 40) {
				t.Errorf("lookup gave %s: %+v (ok=%v)", p, e, ok)
			}
		}
	})
}

// In a SHA-256 repository the index's ids are 32 bytes long: the entries and the extension are
// read with that length.
func TestIndexTreeSHA256(t *testing.T) {
	dir := t.TempDir()
	run := gitRunner(t, dir)
	run("", "init", "-q", "--object-format=sha256")
	writeFiles(t, dir, map[string]string{"a/one": "1\n", "b": "2\n"})
	run("", "add", "-A")
	tree := run("", "write-tree")
	got, _, ok := indexTree(filepath.Join(dir, ".git", "index"), 64)
	if !ok || string(got) != tree {
		t.Errorf("indexTree = %s, %v; want %s", got, ok, tree)
	}
}

// StagedPaths tells of each path what diff-index tells: additions, deletions, changes of
// content, of mode and of type, a file where a directory was, nothing for unchanged or absent
// paths; from indexes of versions 2, 3 and 4, in a SHA-256 repository, and on an unborn
// branch. An index that cannot tell (intent to add, a conflict) says so.
func TestStagedPathsMatchDiffIndex(t *testing.T) {
	ctx := context.Background()
	paths := []string{"a/one", "a/b/two", "a/b", "a", "c", "gone", "swap", "swap/inner", "new/deep/f",
		"link", "run.sh", "same", "absent", "dir/x y", "dir/é"}
	setup := func(t *testing.T, init ...string) (string, func(stdin string, args ...string) string) {
		dir := t.TempDir()
		run := gitRunner(t, dir)
		run("", append([]string{"init", "-q", "-b", "main"}, init...)...)
		run("", "config", "user.name", "t")
		run("", "config", "user.email", "t@example.com")
		return dir, run
	}
	stage := func(t *testing.T, dir string, run func(string, ...string) string) {
		run("", "rm", "-q", "--cached", "swap", "gone")
		for _, p := range []string{"swap", "gone"} {
			if err := os.Remove(filepath.Join(dir, p)); err != nil {
				t.Fatal(err)
			}
		}
		writeFiles(t, dir, map[string]string{"a/one": "1b\n", "a/b/two": "2b\n", "new/deep/f": "n\n", "swap/inner": "d\n", "dir/x y": "s\n", "dir/é": "e\n"})
		if err := os.Remove(filepath.Join(dir, "link")); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.Symlink("a/one", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
			t.Fatal(err)
		}
		run("", "add", "-A")
	}
	compare := func(t *testing.T, dir, base string) {
		t.Helper()
		r := openTest(t, dir)
		got, ok, err := r.StagedPaths(ctx, paths)
		if err != nil || !ok {
			t.Fatalf("StagedPaths = %v, %v", ok, err)
		}
		out, err := exec.Command("git", "-C", dir, "diff-index", "--cached", "-r", "-z", "--raw", "--no-renames", base).Output()
		if err != nil {
			t.Fatal(err)
		}
		all, err := r.parseRawDiff(out)
		if err != nil {
			t.Fatal(err)
		}
		var want []DiffEntry
		for _, e := range all {
			if slices.Contains(paths, e.Path) {
				want = append(want, e)
			}
		}
		slices.SortFunc(want, func(a, b DiffEntry) int { return strings.Compare(a.Path, b.Path) })
		if !slices.Equal(got, want) {
			t.Errorf("StagedPaths:\n%v\ndiff-index:\n%v", got, want)
		}
		if len(want) < 5 {
			t.Errorf("only %d changes to compare", len(want))
		}
	}
	for _, c := range []struct {
		name, version string
		init          []string
	}{{"v2", "2", nil}, {"v3", "3", nil}, {"v4", "4", nil}, {"sha256", "2", []string{"--object-format=sha256"}}} {
		t.Run(c.name, func(t *testing.T) {
			dir, run := setup(t, c.init...)
			writeFiles(t, dir, map[string]string{"a/one": "1\n", "a/b/two": "2\n", "c": "3\n", "gone": "x\n", "swap": "file\n", "link": "was a file\n", "run.sh": "#!/bin/sh\n", "same": "s\n"})
			run("", "add", "-A")
			run("", "commit", "-q", "-m", "first")
			run("", "update-index", "--index-version", c.version)
			stage(t, dir, run)
			run("", "update-index", "--add", "--cacheinfo", "100644,"+run("x\n", "hash-object", "-w", "--stdin")+",dir/x y") // v3: an extended flag
			if c.version == "3" {
				run("", "update-index", "--skip-worktree", "c")
			}
			compare(t, dir, "HEAD")
		})
	}
	t.Run("unborn", func(t *testing.T) {
		dir, run := setup(t)
		writeFiles(t, dir, map[string]string{"a/one": "1\n", "c": "3\n", "swap": "f\n", "gone": "g\n", "link": "l\n", "run.sh": "r\n"})
		run("", "add", "-A")
		stage(t, dir, run)
		compare(t, dir, run("", "hash-object", "-t", "tree", "/dev/null"))
	})
	t.Run("cannot tell", func(t *testing.T) {
		dir, run := setup(t)
		writeFiles(t, dir, map[string]string{"a/one": "1\n", "c": "3\n"})
		run("", "add", "-A")
		run("", "commit", "-q", "-m", "first")
		writeFiles(t, dir, map[string]string{"later": "l\n"})
		run("", "add", "-N", "later")
		blob := run("", "rev-parse", "HEAD:c")
		zero := strings.Repeat("0", 40)
		run("0 "+zero+"\tc\n100644 "+blob+" 1\tc\n100644 "+blob+" 2\tc\n", "update-index", "--index-info")
		r := openTest(t, dir)
		for _, p := range []string{"later", "c"} {
			if got, ok, err := r.StagedPaths(ctx, []string{"a/one", p}); ok || err != nil {
				t.Errorf("StagedPaths(%s) = %v, %v, %v; want the index to decline", p, got, ok, err)
			}
		}
		if got, ok, err := r.StagedPaths(ctx, []string{"a/one"}); !ok || err != nil || len(got) != 0 {
			t.Errorf("StagedPaths(a/one) = %v, %v, %v; want no change", got, ok, err)
		}
	})
	t.Run("split", func(t *testing.T) { // the entries are partly in a shared index
		dir, run := setup(t)
		writeFiles(t, dir, map[string]string{"a/one": "1\n", "c": "3\n"})
		run("", "add", "-A")
		run("", "commit", "-q", "-m", "first")
		run("", "update-index", "--split-index")
		writeFiles(t, dir, map[string]string{"c": "changed\n"})
		run("", "add", "c")
		r := openTest(t, dir)
		if got, ok, err := r.StagedPaths(ctx, []string{"a/one", "c"}); ok || err != nil {
			t.Errorf("StagedPaths = %v, %v, %v; want the split index to decline", got, ok, err)
		}
		// Split no more: git keeps the shared index for a while, and the index no longer links
		// to it.
		run("", "update-index", "--no-split-index")
		if shared, _ := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*")); len(shared) == 0 {
			t.Fatal("no shared index left behind")
		}
		r2 := openTest(t, dir)
		if got, ok, err := r2.StagedPaths(ctx, []string{"a/one", "c"}); !ok || err != nil || len(got) != 1 || got[0].Path != "c" || got[0].Status != 'M' {
			t.Errorf("StagedPaths after --no-split-index = %v, %v, %v; want c changed", got, ok, err)
		}
	})
	for _, version := range []string{"3", "4"} { // v4: paths prefix-compressed
		t.Run("sparse v"+version, func(t *testing.T) { // b/ folded into one entry
			dir, run := setup(t)
			writeFiles(t, dir, map[string]string{"a/one": "1\n", "b/two": "2\n", "c": "3\n"})
			run("", "add", "-A")
			run("", "commit", "-q", "-m", "first")
			run("", "sparse-checkout", "set", "--cone", "--sparse-index", "a")
			run("", "update-index", "--index-version", version)
			writeFiles(t, dir, map[string]string{"a/one": "changed\n"})
			run("", "add", "a/one")
			r := openTest(t, dir)
			for _, paths := range [][]string{{"b/two"}, {"a/one", "b/two", "c"}, {"b/"}, {"b/x/y"}} {
				if got, ok, err := r.StagedPaths(ctx, paths); ok || err != nil {
					t.Errorf("StagedPaths(%q) = %v, %v, %v; want the index to decline", paths, got, ok, err)
				}
			}
			// Paths before and after the folded b/, not in it: the index tells.
			for _, paths := range [][]string{{"a/one"}, {"a/one", "c"}, {"a/one", "b.txt", "b0", "c"}} {
				if got, ok, err := r.StagedPaths(ctx, paths); !ok || err != nil || len(got) != 1 || got[0].Path != "a/one" || got[0].Status != 'M' {
					t.Errorf("StagedPaths(%q) = %v, %v, %v; want a/one changed", paths, got, ok, err)
				}
			}
		})
	}
}
