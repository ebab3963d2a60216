package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
	"github.com/entirerec/entire/gitexec/gittest"
)

// metaChange is a mutate for updateMetadataBranch that adds one file and counts its calls
// (one per compare-and-swap attempt); before is run at the start of each call.
func metaChange(t *testing.T, en *Engine, calls *int, before func(n int)) func(gitexec.OID) ([]gitexec.TreeChange, error) {
	t.Helper()
	oids, err := en.Repo.HashBlobs(context.Background(), [][]byte{[]byte("slot\n")})
	if err != nil {
		t.Fatal(err)
	}
	return func(gitexec.OID) ([]gitexec.TreeChange, error) {
		*calls++
		if before != nil {
			before(*calls)
		}
		return []gitexec.TreeChange{{Path: "ab/cdef/metadata.json", Mode: "100644", OID: oids[0]}}, nil
	}
}

// TestUpdateMetadataBranchLockedIsNotRetried holds the metadata branch's lock file, as a
// fetch or gc would: the update fails with ErrRefLocked after one attempt (re-reading the ref
// cannot release a lock), carrying git's message that names the lock file.
func TestUpdateMetadataBranchLockedIsNotRetried(t *testing.T) {
	en := rtEngine(t)
	ctx := context.Background()
	if err := en.EnsureMetadataBranch(ctx); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(en.Repo.CommonDir, "refs", "heads", filepath.FromSlash(checkpoint.MetadataBranch)+".lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	calls := 0
	_, err := en.updateMetadataBranch(ctx, "Checkpoint: abcdef\n", metaChange(t, en, &calls, nil))
	if !errors.Is(err, gitexec.ErrRefLocked) || errors.Is(err, gitexec.ErrRefMoved) {
		t.Fatalf("err = %v, want ErrRefLocked and not ErrRefMoved", err)
	}
	if calls != 1 {
		t.Errorf("%d attempts, want 1: a held lock is not retried", calls)
	}
	if want := "v1.lock': File exists"; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want git's message with %q", err, want)
	}

	// Once the other process is done, the same update goes through.
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if _, err := en.updateMetadataBranch(ctx, "Checkpoint: abcdef\n", metaChange(t, en, &calls, nil)); err != nil {
		t.Fatalf("after the lock is gone: %v", err)
	}
}

// TestUpdateMetadataBranchRaceIsRetried moves the branch between the read and the
// compare-and-swap of the first attempt: the second attempt builds on the other writer's
// commit, which is kept.
func TestUpdateMetadataBranchRaceIsRetried(t *testing.T) {
	en := rtEngine(t)
	ctx := context.Background()
	if err := en.EnsureMetadataBranch(ctx); err != nil {
		t.Fatal(err)
	}
	tip, _, err := en.Repo.ResolveRef(ctx, checkpoint.MetaRef)
	if err != nil {
		t.Fatal(err)
	}
	var other gitexec.OID
	race := func(n int) {
		if n == 1 {
			other = gittest.Commit(t, en.Repo, string(checkpoint.MetaRef), tip, "other writer\n", map[string]string{"zz/other": "x"})
		}
	}
	calls := 0
	commit, err := en.updateMetadataBranch(ctx, "Checkpoint: abcdef\n", metaChange(t, en, &calls, race))
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Errorf("%d attempts, want 2: a lost race is retried", calls)
	}
	if ok, err := en.Repo.IsAncestor(ctx, other, commit); err != nil || !ok {
		t.Errorf("other writer's commit %s is not an ancestor of %s (%v)", other, commit, err)
	}
}

// rtEngine is an engine on a hermetic repository with one commit on main.
func rtEngine(t *testing.T) *Engine {
	t.Helper()
	repo := gittest.Repo(t)
	gittest.Commit(t, repo, "refs/heads/main", "", "init", map[string]string{"README": "hi\n"})
	return New(repo, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
}
