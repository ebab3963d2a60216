package sharing

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/checkpoint/checkpointtest"
	"github.com/entirerec/entire/gitexec"
)

// Forget rewrites the whole metadata branch while another process keeps committing
// checkpoints to it: compare-and-swap makes it start again from the new tip, so every
// concurrent checkpoint survives, and the forgotten slot is gone from the final history.
func TestForgetRacesAConcurrentWriter(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rec := shareEngine(t, dir, nil)
	const secret = "the secret transcript line\n"
	const forgotten = "aaaaaaaaaaaa"
	files := checkpointtest.SlotFiles(forgotten, "0", "s1")
	files[checkpoint.CheckpointPath(forgotten)+"/metadata.json"] = checkpointtest.Root(forgotten, 1)
	files[checkpoint.CheckpointPath(forgotten)+"/0/full.jsonl"] = secret
	writeCheckpointCommit(t, rec.Repo, files)

	writer, err := gitexec.Open(ctx, dir) // a second process's view of the repository
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	const n = 40
	var wg sync.WaitGroup
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range n {
			id := fmt.Sprintf("b%011d", i)
			f := checkpointtest.SlotFiles(id, "0", "other")
			f[checkpoint.CheckpointPath(id)+"/metadata.json"] = checkpointtest.Root(id, 1)
			if werr = appendCheckpoint(ctx, writer, f); werr != nil {
				return
			}
		}
	}()
	time.Sleep(5 * time.Millisecond) // let the writer start
	err = rec.Forget(ctx, []checkpoint.Forgotten{{CheckpointID: forgotten, SessionID: "s1", ForgottenAt: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)}})
	wg.Wait()
	if err != nil || werr != nil {
		t.Fatalf("forget: %v; writer: %v", err, werr)
	}
	// The writer may have finished after the forget: its commits build on the rewritten tip.
	tip, _, err := rec.Repo.ResolveRef(ctx, checkpoint.MetaRef)
	if err != nil {
		t.Fatal(err)
	}
	rd := &checkpoint.Reader{Repo: rec.Repo, Tip: tip}
	ids, err := rd.ListCommitted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != n+1 {
		t.Errorf("%d checkpoints at the tip, want %d: a concurrent checkpoint was lost", len(ids), n+1)
	}
	cp, err := rd.ReadCheckpoint(ctx, forgotten)
	if err != nil || cp.Slots[0].Meta.ForgottenAt == nil {
		t.Fatalf("the forgotten slot: %+v, %v", cp, err)
	}
	objects := shareGit(t, dir, "rev-list", "--objects", string(tip))
	oids, err := rec.Repo.HashBlobs(ctx, [][]byte{[]byte(secret)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(objects, string(oids[0])) {
		t.Error("the forgotten transcript is still reachable from the branch")
	}
}

// writeCheckpointCommit commits files on top of the metadata branch (creating it).
func writeCheckpointCommit(t *testing.T, repo *gitexec.Repo, files map[string]string) {
	t.Helper()
	if err := appendCheckpoint(context.Background(), repo, files); err != nil {
		t.Fatal(err)
	}
}

// appendCheckpoint commits files on the metadata branch's tip with compare-and-swap, retrying
// a lost race, as a condensation does.
func appendCheckpoint(ctx context.Context, repo *gitexec.Repo, files map[string]string) error {
	for {
		tip, ok, err := repo.ResolveRef(ctx, checkpoint.MetaRef)
		if err != nil {
			return err
		}
		var base gitexec.OID
		var parents []gitexec.OID
		if ok {
			base, parents = tip, []gitexec.OID{tip}
		} else {
			tip = ""
		}
		var paths []string
		var contents [][]byte
		for p, c := range files {
			paths = append(paths, p)
			contents = append(contents, []byte(c))
		}
		oids, err := repo.HashBlobs(ctx, contents)
		if err != nil {
			return err
		}
		var changes []gitexec.TreeChange
		for i, p := range paths {
			changes = append(changes, gitexec.TreeChange{Path: p, Mode: "100644", OID: oids[i]})
		}
		tree, err := repo.BuildTree(ctx, base, changes)
		if err != nil {
			return err
		}
		commit, err := repo.CommitTree(ctx, tree, parents, "Checkpoint")
		if err != nil {
			return err
		}
		err = repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: checkpoint.MetaRef, New: commit, Old: tip}})
		if errors.Is(err, gitexec.ErrRefMoved) {
			continue
		}
		return err
	}
}
