package gitexec_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

// BenchmarkBuildTree10of10000 changes 10 files in a repository of 10,000
// (100 directories of 100 files) two ways: BuildTree, which reads and
// rewrites only the directories on the changed paths, and the classic
// temporary index (read-tree of the whole base, update-index, write-tree),
// first with every object loose, then packed.
func BenchmarkBuildTree10of10000(b *testing.B) {
	dir := repoOf10000(b)
	base := gitexec.OID(git(b, dir, "write-tree"))
	r := open(b, dir)
	ctx := context.Background()

	var contents [][]byte
	for i := range 10 {
		contents = append(contents, []byte(fmt.Sprintf("changed %d\n", i)))
	}
	oids, err := r.HashBlobs(ctx, contents)
	if err != nil {
		b.Fatal(err)
	}
	var changes []gitexec.TreeChange
	var indexInfo strings.Builder
	for i, oid := range oids {
		p := fmt.Sprintf("dir%02d/file%02d.txt", i*10, i)
		changes = append(changes, gitexec.TreeChange{Path: p, Mode: "100644", OID: oid})
		fmt.Fprintf(&indexInfo, "100644 blob %s\t%s\x00", oid, p)
	}
	tmpIndex := filepath.Join(b.TempDir(), "index")
	tempIndexTree := func() gitexec.OID {
		env := append(os.Environ(), "GIT_INDEX_FILE="+tmpIndex)
		run := func(stdin string, args ...string) string {
			cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
			cmd.Env = env
			cmd.Stdin = strings.NewReader(stdin)
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("git %v: %v", args, err)
			}
			return strings.TrimSpace(string(out))
		}
		run("", "read-tree", string(base))
		run(indexInfo.String(), "update-index", "-z", "--index-info")
		return gitexec.OID(run("", "write-tree"))
	}

	want := tempIndexTree()
	if got, err := r.BuildTree(ctx, base, changes); err != nil || got != want {
		b.Fatalf("BuildTree = %s, %v; temporary index gives %s", got, err, want)
	}
	// Fresh from "git add" every object is loose, which made mktree's
	// per-entry type check slow (BuildTree no longer uses mktree); a real
	// repository of this size is mostly packed.
	for _, layout := range []string{"loose", "packed"} {
		if layout == "packed" {
			git(b, dir, "repack", "-adq")
			git(b, dir, "prune-packed")
		}
		r := open(b, dir) // fresh batch processes that see the new pack
		b.Run(layout+"/buildtree", func(b *testing.B) {
			for b.Loop() {
				if _, err := r.BuildTree(ctx, base, changes); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(layout+"/temp-index", func(b *testing.B) {
			for b.Loop() {
				tempIndexTree()
			}
		})
	}
}

// BenchmarkStagedChangesOf10000 reads what a commit of k changed files (k = 10 and 100, in
// as many directories) stages in a repository of 10,000, as prepare-commit-msg does (opening
// the repository each time, as a hook does): from the index's cache-tree against HEAD's tree,
// and, for the raw cost of git, with "git diff-index --cached", which reads and hashes the
// whole index; and StagedPaths, from the index's entries and HEAD's tree, for 8 of the staged
// files and for all of them. First with every object loose, then with HEAD's packed (the
// staged trees stay loose, as git commit leaves them).
func BenchmarkStagedChangesOf10000(b *testing.B) {
	dir := repoOf10000(b)
	git(b, dir, "commit", "-q", "-m", "base")
	var paths []string
	stage := func(k int) {
		git(b, dir, "reset", "-q", "--hard", "HEAD")
		paths = paths[:0]
		for i := range k {
			paths = append(paths, fmt.Sprintf("dir%02d/file%02d.txt", i*100/k, i%100))
			writeFile(b, dir, paths[i], fmt.Sprintf("changed %d of %d\n", i, k))
		}
		git(b, dir, "add", "-A")
		git(b, dir, "write-tree") // what git commit does before prepare-commit-msg
	}
	ctx := context.Background()
	for _, layout := range []string{"loose", "packed"} {
		if layout == "packed" {
			git(b, dir, "repack", "-adq")
			git(b, dir, "prune-packed")
		}
		for _, k := range []int{10, 100} {
			stage(k)
			b.Run(fmt.Sprintf("%s/k=%d/index-tree", layout, k), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					r, err := gitexec.Open(ctx, dir) // a fresh cache of trees, as in a hook
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if got, err := r.StagedChanges(ctx); err != nil || len(got) != k {
						b.Fatalf("StagedChanges = %d entries, %v", len(got), err)
					}
					b.StopTimer()
					r.Close()
					b.StartTimer()
				}
			})
			// What prepare-commit-msg asks now: the first 8 of the session's files, and all k.
			for _, n := range []int{8, k} {
				b.Run(fmt.Sprintf("%s/k=%d/paths=%d", layout, k, n), func(b *testing.B) {
					for b.Loop() {
						b.StopTimer()
						r, err := gitexec.Open(ctx, dir)
						if err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
						if got, ok, err := r.StagedPaths(ctx, paths[:n]); err != nil || !ok || len(got) != n {
							b.Fatalf("StagedPaths = %d entries, %v, %v", len(got), ok, err)
						}
						b.StopTimer()
						r.Close()
						b.StartTimer()
					}
				})
			}
			b.Run(fmt.Sprintf("%s/k=%d/diff-index", layout, k), func(b *testing.B) {
				for b.Loop() {
					if out := git(b, dir, "diff-index", "--cached", "-r", "-z", "--raw", "--no-renames", "HEAD"); strings.Count(out, "\x00") != 2*k {
						b.Fatalf("diff-index gave %q", out)
					}
				}
			})
		}
	}
}

// repoOf10000 is a repository with 10,000 files staged (100 directories of 100 files).
func repoOf10000(b *testing.B) string {
	dir := newRepo(b)
	for d := range 100 {
		for f := range 100 {
			writeFile(b, dir, fmt.Sprintf("dir%02d/file%02d.txt", d, f), fmt.Sprintf("%d/%d\n", d, f))
		}
	}
	git(b, dir, "add", "-A")
	return dir
}
