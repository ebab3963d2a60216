package sharing

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/gitexec"
)

// shareEngine is the record of a fresh hermetic repository; stderr collects its messages.
func shareEngine(t *testing.T, dir string, stderr *bytes.Buffer) *Record {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME":   "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_AUTHOR_DATE": "1700000000 +0000",
		"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_COMMITTER_DATE": "1700000000 +0000"} {
		t.Setenv(k, v)
	}
	shareGit(t, "", "init", "-q", "-b", "main", dir)
	repo, err := gitexec.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	if stderr == nil {
		stderr = &bytes.Buffer{}
	}
	return &Record{Repo: repo, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Stderr: stderr}
}

// shareGit runs git for test setup and returns its trimmed stdout.
func shareGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// shareTree writes a tree holding files (path -> content).
func shareTree(t *testing.T, en *Record, files map[string]string) gitexec.OID {
	t.Helper()
	ctx := context.Background()
	var paths []string
	var contents [][]byte
	for p, c := range files {
		paths, contents = append(paths, p), append(contents, []byte(c))
	}
	oids, err := en.Repo.HashBlobs(ctx, contents)
	if err != nil {
		t.Fatal(err)
	}
	changes := make([]gitexec.TreeChange, len(paths))
	for i, p := range paths {
		changes[i] = gitexec.TreeChange{Path: p, Mode: "100644", OID: oids[i]}
	}
	tree, err := en.Repo.BuildTree(ctx, "", changes)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// shareFiles reads every file of a tree-ish back (path -> content).
func shareFiles(t *testing.T, en *Record, treeish string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range strings.Split(shareGit(t, en.Repo.TopLevel, "ls-tree", "-r", "--name-only", treeish), "\n") {
		if p != "" {
			out[p] = shareGit(t, en.Repo.TopLevel, "show", treeish+":"+p)
		}
	}
	return out
}

// slotJSON is a slot's metadata.json for session sid with one touched file and usage n.
func slotJSON(t *testing.T, sid, file string, n int, at time.Time) string {
	t.Helper()
	data, err := checkpoint.MarshalJSON(checkpoint.CommittedMetadata{CheckpointID: "abcdef012345", SessionID: sid, Strategy: checkpoint.StrategyManualCommit,
		CreatedAt: at, Branch: "br-" + sid, CheckpointsCount: n, FilesTouched: []string{file}, Agent: "Claude Code",
		TokenUsage: &events.TokenUsage{InputTokens: n, APICallCount: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestUnionTreeKeepsBothSidesAndPrefersFetched(t *testing.T) {
	en := shareEngine(t, t.TempDir(), nil)
	local := map[string]string{
		"ab/0000000001/metadata.json": "local cp 1",   // shared shard, local-only checkpoint
		"cd/0000000003/metadata.json": "local cp 3",   // local-only shard
		"11/1111111111/metadata.json": "same",         // identical on both sides
		"99/9999999999/x/file":        "local x",      // same path, different content
		"README":                      "local readme", // root file conflict
	}
	fetched := map[string]string{
		"ab/0000000002/metadata.json": "fetched cp 2",
		"ef/0000000004/metadata.json": "fetched cp 4",
		"11/1111111111/metadata.json": "same",
		"99/9999999999/x/file":        "fetched x",
		"README":                      "fetched readme",
	}
	got, err := en.unionTree(context.Background(), "", "", shareTree(t, en, local), shareTree(t, en, fetched))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ab/0000000001/metadata.json": "local cp 1",
		"ab/0000000002/metadata.json": "fetched cp 2",
		"cd/0000000003/metadata.json": "local cp 3",
		"ef/0000000004/metadata.json": "fetched cp 4",
		"11/1111111111/metadata.json": "same",
		"99/9999999999/x/file":        "fetched x",
		"README":                      "fetched readme",
	}
	if d := cmp.Diff(want, shareFiles(t, en, string(got))); d != "" {
		t.Errorf("union (-want +got):\n%s", d)
	}
}

func TestUnionCheckpointMergesSlots(t *testing.T) {
	en := shareEngine(t, t.TempDir(), nil)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cp := "ab/cdef012345"
	fetched := map[string]string{
		cp + "/metadata.json":       "fetched root, to be recomputed",
		cp + "/0/metadata.json":     slotJSON(t, "x", "x.go", 1, t0),
		cp + "/0/full.jsonl":        "x transcript (remote)",
		cp + "/1/metadata.json":     slotJSON(t, "y", "y.go", 2, t0.Add(time.Minute)),
		cp + "/1/full.jsonl":        "y transcript",
		cp + "/tasks/t2/checkpoint": "remote task",
	}
	local := map[string]string{
		cp + "/metadata.json":       "local root",
		cp + "/0/metadata.json":     slotJSON(t, "x", "x.go", 1, t0),
		cp + "/0/full.jsonl":        "x transcript (local, longer)",
		cp + "/1/metadata.json":     slotJSON(t, "z", "a.go", 4, t0.Add(2*time.Minute)),
		cp + "/1/full.jsonl":        "z transcript",
		cp + "/1/prompt.txt":        "z prompt",
		cp + "/1/context.md":        "z context",
		cp + "/tasks/t1/checkpoint": "local task",
	}
	got, err := en.unionTree(context.Background(), "", "", shareTree(t, en, local), shareTree(t, en, fetched))
	if err != nil {
		t.Fatal(err)
	}
	files := shareFiles(t, en, string(got))
	var root checkpoint.CheckpointSummary
	if err := json.Unmarshal([]byte(files[cp+"/metadata.json"]), &root); err != nil {
		t.Fatalf("root metadata: %v\n%s", err, files[cp+"/metadata.json"])
	}
	delete(files, cp+"/metadata.json")
	want := map[string]string{
		cp + "/0/metadata.json":     fetched[cp+"/0/metadata.json"],
		cp + "/0/full.jsonl":        "x transcript (remote)", // same session: the fetched slot wins
		cp + "/1/metadata.json":     fetched[cp+"/1/metadata.json"],
		cp + "/1/full.jsonl":        "y transcript",
		cp + "/2/metadata.json":     local[cp+"/1/metadata.json"], // local-only session appended
		cp + "/2/full.jsonl":        "z transcript",
		cp + "/2/prompt.txt":        "z prompt",
		cp + "/2/context.md":        "z context",
		cp + "/tasks/t1/checkpoint": "local task",
		cp + "/tasks/t2/checkpoint": "remote task",
	}
	for p, c := range want {
		want[p] = strings.TrimSpace(c)
	}
	if d := cmp.Diff(want, files); d != "" {
		t.Errorf("merged checkpoint (-want +got):\n%s", d)
	}
	d := "/" + cp + "/"
	wantRoot := checkpoint.CheckpointSummary{
		CheckpointID: "abcdef012345", Strategy: checkpoint.StrategyManualCommit, Branch: "br-z", // slot written last
		CheckpointsCount: 7, FilesTouched: []string{"a.go", "x.go", "y.go"},
		Sessions: []checkpoint.SessionFiles{
			{Metadata: d + "0/metadata.json", Transcript: d + "0/full.jsonl", ContentHash: d + "0/content_hash.txt"},
			{Metadata: d + "1/metadata.json", Transcript: d + "1/full.jsonl", ContentHash: d + "1/content_hash.txt"},
			{Metadata: d + "2/metadata.json", Transcript: d + "2/full.jsonl", ContentHash: d + "2/content_hash.txt",
				Prompt: d + "2/prompt.txt", Context: d + "2/context.md"},
		},
		TokenUsage: &events.TokenUsage{InputTokens: 7, APICallCount: 3},
	}
	if d := cmp.Diff(wantRoot, root); d != "" {
		t.Errorf("root metadata (-want +got):\n%s", d)
	}
}

func TestUnionCheckpointSameSlotsKeepsFetchedRoot(t *testing.T) {
	en := shareEngine(t, t.TempDir(), nil)
	cp := "ab/cdef012345"
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fetched := map[string]string{cp + "/metadata.json": "fetched root", cp + "/0/metadata.json": slotJSON(t, "x", "x.go", 1, t0), cp + "/0/full.jsonl": "remote"}
	local := map[string]string{cp + "/metadata.json": "local root", cp + "/0/metadata.json": slotJSON(t, "x", "x.go", 1, t0), cp + "/0/full.jsonl": "local"}
	ft := shareTree(t, en, fetched)
	got, err := en.unionTree(context.Background(), "", "", shareTree(t, en, local), ft)
	if err != nil {
		t.Fatal(err)
	}
	if got != ft {
		t.Errorf("union = %s, want the fetched tree %s unchanged:\n%v", got, ft, shareFiles(t, en, string(got)))
	}
}

// shareCommit commits a tree onto the metadata branch of en's repository (parent: its tip).
func shareCommit(t *testing.T, en *Record, files map[string]string) gitexec.OID {
	t.Helper()
	ctx := context.Background()
	tip, ok, err := en.Repo.ResolveRef(ctx, checkpoint.MetaRef)
	if err != nil {
		t.Fatal(err)
	}
	var parents []gitexec.OID
	if ok {
		parents = []gitexec.OID{tip}
	}
	commit, err := en.Repo.CommitTree(ctx, shareTree(t, en, files), parents, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: checkpoint.MetaRef, New: commit, Old: tip}}); err != nil {
		t.Fatal(err)
	}
	return commit
}

func TestFetchRecordCreatesFastForwardsAndMerges(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	bare := filepath.Join(root, "remote.git")
	a := shareEngine(t, filepath.Join(root, "a"), nil)
	b := shareEngine(t, filepath.Join(root, "b"), nil)
	shareGit(t, "", "init", "-q", "--bare", bare)
	shareGit(t, b.Repo.TopLevel, "remote", "add", "origin", bare)

	// No remote branch yet: nothing to do, no error.
	if err := b.FetchRecord(ctx, "origin"); err != nil {
		t.Fatalf("fetch from a remote without the branch: %v", err)
	}
	// B has no local branch: FetchRecord creates it at the remote tip.
	one := shareCommit(t, a, map[string]string{"aa/0000000001/metadata.json": "one"})
	shareGit(t, a.Repo.TopLevel, "push", "-q", bare, checkpoint.MetadataBranch)
	if err := b.FetchRecord(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	if got := shareGit(t, b.Repo.TopLevel, "rev-parse", checkpoint.MetadataBranch); got != string(one) {
		t.Fatalf("B's branch = %s, want %s", got, one)
	}
	// B is behind: fast-forward.
	two := shareCommit(t, a, map[string]string{"aa/0000000001/metadata.json": "one", "bb/0000000002/metadata.json": "two"})
	shareGit(t, a.Repo.TopLevel, "push", "-q", bare, checkpoint.MetadataBranch)
	if err := b.FetchRecord(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	if got := shareGit(t, b.Repo.TopLevel, "rev-parse", checkpoint.MetadataBranch); got != string(two) {
		t.Fatalf("B's branch = %s, want the fast-forward to %s", got, two)
	}
	// Both moved: a two-parent merge holding the union.
	three := shareCommit(t, a, map[string]string{"aa/0000000001/metadata.json": "one", "bb/0000000002/metadata.json": "two", "cc/0000000003/metadata.json": "three"})
	shareGit(t, a.Repo.TopLevel, "push", "-q", bare, checkpoint.MetadataBranch)
	mine := shareCommit(t, b, map[string]string{"aa/0000000001/metadata.json": "one", "bb/0000000002/metadata.json": "two", "dd/0000000004/metadata.json": "four"})
	if err := b.FetchRecord(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	if got, want := shareGit(t, b.Repo.TopLevel, "log", "-1", "--format=%P%n%s", checkpoint.MetadataBranch), string(mine)+" "+string(three)+"\n"+mergeMessage; got != want {
		t.Errorf("merge commit = %q, want %q", got, want)
	}
	if got := shareFiles(t, b, checkpoint.MetadataBranch); len(got) != 4 || got["cc/0000000003/metadata.json"] != "three" || got["dd/0000000004/metadata.json"] != "four" {
		t.Errorf("merged tree = %v, want all four checkpoints", got)
	}
}

func TestPrePushFailureIsAWarning(t *testing.T) {
	var stderr bytes.Buffer
	en := shareEngine(t, t.TempDir(), &stderr)
	shareCommit(t, en, map[string]string{"aa/0000000001/metadata.json": "one"})
	if err := en.PrePush(context.Background(), filepath.Join(t.TempDir(), "missing.git"), true, false); err != nil {
		t.Fatalf("PrePush returned %v; it must never fail the push", err)
	}
	if !strings.Contains(stderr.String(), "Pushing session logs to") || !strings.Contains(stderr.String(), "[entire] Warning: could not push session logs") {
		t.Errorf("stderr = %q, want the push line and a warning", stderr.String())
	}
}
