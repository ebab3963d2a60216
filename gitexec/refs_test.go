package gitexec_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

func TestHeadUnbornAndDetached(t *testing.T) {
	dir := newRepo(t)
	r := open(t, dir)
	ctx := context.Background()
	if oid, ok, err := r.Head(ctx); err != nil || ok || oid != "" {
		t.Errorf("Head on unborn = %q, %v, %v; want not ok", oid, ok, err)
	}
	if b, ok, err := r.HeadBranch(ctx); err != nil || !ok || b != "main" {
		t.Errorf("HeadBranch on unborn = %q, %v, %v; want main", b, ok, err)
	}
	c := commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	if oid, ok, err := r.Head(ctx); err != nil || !ok || oid != c {
		t.Errorf("Head = %q, %v, %v; want %s", oid, ok, err, c)
	}
	git(t, dir, "checkout", "-q", "--detach")
	if b, ok, err := r.HeadBranch(ctx); err != nil || ok {
		t.Errorf("HeadBranch detached = %q, %v, %v; want not ok", b, ok, err)
	}
	if oid, ok, err := r.Head(ctx); err != nil || !ok || oid != c {
		t.Errorf("Head detached = %q, %v, %v; want %s", oid, ok, err, c)
	}
}

func TestSymbolicRef(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	r := open(t, dir)
	ctx := context.Background()
	if ref, ok, err := r.SymbolicRef(ctx, "refs/remotes/origin/HEAD"); err != nil || ok || ref != "" {
		t.Errorf("missing: %q, %v, %v; want not ok", ref, ok, err)
	}
	if ref, ok, err := r.SymbolicRef(ctx, "refs/heads/main"); err != nil || ok || ref != "" {
		t.Errorf("not symbolic: %q, %v, %v; want not ok", ref, ok, err)
	}
	git(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
	if ref, ok, err := r.SymbolicRef(ctx, "refs/remotes/origin/HEAD"); err != nil || !ok || ref != "refs/remotes/origin/trunk" {
		t.Errorf("symbolic: %q, %v, %v; want refs/remotes/origin/trunk", ref, ok, err)
	}
}

func TestResolveRefAndForEachRef(t *testing.T) {
	dir := newRepo(t)
	c := commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	for _, b := range []string{"entire/a", "entire/b/c", "entirex", "other"} {
		git(t, dir, "branch", b)
	}
	// A tag whose name would match "refs/heads/entire/zz" under git's
	// abbreviation rules must not be found for the full name.
	git(t, dir, "tag", "refs/heads/entire/zz")
	r := open(t, dir)
	ctx := context.Background()
	if oid, ok, err := r.ResolveRef(ctx, gitexec.BranchRef("entire/a")); err != nil || !ok || oid != c {
		t.Errorf("ResolveRef(entire/a) = %q, %v, %v", oid, ok, err)
	}
	for _, missing := range []gitexec.RefName{"refs/heads/entire", "refs/heads/entire/zz", "refs/heads/nope"} {
		if oid, ok, err := r.ResolveRef(ctx, missing); err != nil || ok {
			t.Errorf("ResolveRef(%s) = %q, %v, %v; want not ok", missing, oid, ok, err)
		}
	}
	if oid, ok, err := r.ResolveRef(ctx, "HEAD"); err != nil || !ok || oid != c {
		t.Errorf("ResolveRef(HEAD) = %q, %v, %v", oid, ok, err)
	}
	if _, _, err := r.ResolveRef(ctx, "main"); err == nil {
		t.Error("ResolveRef(main): want an error for a short name")
	}

	refs, err := r.ForEachRef(ctx, "refs/heads/entire/")
	if err != nil {
		t.Fatal(err)
	}
	want := []gitexec.Ref{{Name: "refs/heads/entire/a", OID: c}, {Name: "refs/heads/entire/b/c", OID: c}}
	if len(refs) != len(want) || refs[0] != want[0] || refs[1] != want[1] {
		t.Errorf("ForEachRef(refs/heads/entire/) = %v, want %v", refs, want)
	}
	refs, err = r.ForEachRef(ctx, "refs/heads/ent")
	if err != nil || len(refs) != 3 {
		t.Errorf("ForEachRef(refs/heads/ent) = %v, %v; want 3 refs", refs, err)
	}
}

// refsFixture returns an open repo with two commits c1 and c2.
func refsFixture(t *testing.T) (*gitexec.Repo, gitexec.OID, gitexec.OID) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, map[string]string{"f": "1"}, "one")
	c2 := commitFiles(t, dir, map[string]string{"f": "2"}, "two")
	return open(t, dir), c1, c2
}

func TestUpdateRefsCompareAndSwap(t *testing.T) {
	t.Run("started on demand", func(t *testing.T) { testUpdateRefsCompareAndSwap(t, false) })
	t.Run("started ahead", func(t *testing.T) { testUpdateRefsCompareAndSwap(t, true) })
}

// testUpdateRefsCompareAndSwap plays every kind of ref update, each with its update-ref process
// started ahead (PrestartWrites) when prestart is set.
func testUpdateRefsCompareAndSwap(t *testing.T, prestart bool) {
	r, c1, c2 := refsFixture(t)
	ctx := context.Background()
	ref := gitexec.RefName("refs/heads/entire/checkpoints/v1")
	step := func(name string, u gitexec.RefUpdate, wantMoved bool, wantAt gitexec.OID) {
		t.Helper()
		if prestart {
			r.PrestartWrites()
		}
		err := r.UpdateRefs(ctx, []gitexec.RefUpdate{u})
		if moved := errors.Is(err, gitexec.ErrRefMoved); moved != wantMoved || (err != nil && !wantMoved) {
			t.Errorf("%s: err = %v, want moved=%v", name, err, wantMoved)
		}
		at, ok, err := r.ResolveRef(ctx, ref)
		if err != nil || at != wantAt || ok != (wantAt != "") {
			t.Errorf("%s: ref at %q (%v, %v), want %q", name, at, ok, err, wantAt)
		}
	}
	step("create", gitexec.RefUpdate{Name: ref, New: c1}, false, c1)
	step("create when exists", gitexec.RefUpdate{Name: ref, New: c2}, true, c1)
	step("update wrong old", gitexec.RefUpdate{Name: ref, New: c2, Old: c2}, true, c1)
	step("update right old", gitexec.RefUpdate{Name: ref, New: c2, Old: c1}, false, c2)
	step("delete wrong old", gitexec.RefUpdate{Name: ref, Old: c1}, true, c2)
	step("check absent when present", gitexec.RefUpdate{Name: ref}, true, c2)
	step("delete right old", gitexec.RefUpdate{Name: ref, Old: c2}, false, "")
	step("delete when gone", gitexec.RefUpdate{Name: ref, Old: c2}, true, "")
	step("update when gone", gitexec.RefUpdate{Name: ref, New: c1, Old: c2}, true, "")
	step("check absent when absent", gitexec.RefUpdate{Name: ref}, false, "")
}

func TestUpdateRefsPackedRef(t *testing.T) {
	r, c1, c2 := refsFixture(t)
	ctx := context.Background()
	if _, err := r.Run(ctx, nil, "pack-refs", "--all"); err != nil {
		t.Fatal(err)
	}
	err := r.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: "refs/heads/main", Old: c1}})
	if !errors.Is(err, gitexec.ErrRefMoved) {
		t.Errorf("delete packed ref with wrong old: %v, want ErrRefMoved", err)
	}
	if err := r.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: "refs/heads/main", New: c1, Old: c2}}); err != nil {
		t.Errorf("update packed ref with right old: %v", err)
	}
}

func TestUpdateRefsAtomic(t *testing.T) {
	r, c1, c2 := refsFixture(t)
	ctx := context.Background()
	a, b := gitexec.BranchRef("entire/a"), gitexec.BranchRef("entire/b")
	err := r.UpdateRefs(ctx, []gitexec.RefUpdate{
		{Name: a, New: c1},
		{Name: "refs/heads/main", New: c1, Old: c1}, // wrong: main is at c2
		{Name: b, New: c2},
	})
	if !errors.Is(err, gitexec.ErrRefMoved) {
		t.Fatalf("err = %v, want ErrRefMoved", err)
	}
	var gerr *gitexec.Error
	if !errors.As(err, &gerr) || gerr.ExitCode == 0 {
		t.Errorf("err %v does not carry the *Error", err)
	}
	refs, err := r.ForEachRef(ctx, "refs/heads/entire/")
	if err != nil || len(refs) != 0 {
		t.Errorf("after failed transaction refs = %v, %v; want none", refs, err)
	}
	if err := r.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: a, New: c1}, {Name: b, New: c2}, {Name: "refs/heads/main", New: c1, Old: c2}}); err != nil {
		t.Fatal(err)
	}
	refs, err = r.ForEachRef(ctx, "refs/heads/")
	if err != nil || len(refs) != 3 || refs[0].OID != c1 || refs[1].OID != c2 || refs[2].OID != c1 {
		t.Errorf("after transaction refs = %v, %v", refs, err)
	}
	// A failure that is not a lost race is not ErrRefMoved.
	err = r.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: "refs/heads/entire/a/sub", New: c1}})
	if err == nil || errors.Is(err, gitexec.ErrRefMoved) {
		t.Errorf("directory/file conflict: err = %v, want a non-ErrRefMoved error", err)
	}
}

// TestUpdateRefsLocked holds a ref's lock file as another git process would: the update fails
// with ErrRefLocked, not ErrRefMoved (re-reading the ref cannot help), and the error keeps
// git's message naming the lock file.
func TestUpdateRefsLocked(t *testing.T) {
	r, c1, c2 := refsFixture(t)
	lock := r.CommonDir + "/refs/heads/main.lock"
	writeFile(t, "/", lock, "")
	err := r.UpdateRefs(context.Background(), []gitexec.RefUpdate{{Name: "refs/heads/main", New: c1, Old: c2}})
	if !errors.Is(err, gitexec.ErrRefLocked) || errors.Is(err, gitexec.ErrRefMoved) {
		t.Errorf("locked ref: err = %v, want ErrRefLocked and not ErrRefMoved", err)
	}
	if want := "main.lock': File exists"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("locked ref: err = %v, want git's message with %q", err, want)
	}
	var gerr *gitexec.Error
	if !errors.As(err, &gerr) {
		t.Errorf("locked ref: err %v does not carry the *Error", err)
	}
}

// TestUpdateRefsPackedRefsLocked deletes a packed ref while packed-refs.lock is held.
func TestUpdateRefsPackedRefsLocked(t *testing.T) {
	r, _, c2 := refsFixture(t)
	ctx := context.Background()
	if _, err := r.Run(ctx, nil, "pack-refs", "--all"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, "/", r.CommonDir+"/packed-refs.lock", "")
	err := r.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: "refs/heads/main", Old: c2}})
	if !errors.Is(err, gitexec.ErrRefLocked) || errors.Is(err, gitexec.ErrRefMoved) {
		t.Errorf("locked packed-refs: err = %v, want ErrRefLocked and not ErrRefMoved", err)
	}
}

// TestUpdateRefsStaleIsMoved: a lost race is ErrRefMoved and nothing else, with git's message.
func TestUpdateRefsStaleIsMoved(t *testing.T) {
	r, c1, c2 := refsFixture(t)
	err := r.UpdateRefs(context.Background(), []gitexec.RefUpdate{{Name: "refs/heads/main", New: c2, Old: c1}})
	if !errors.Is(err, gitexec.ErrRefMoved) || errors.Is(err, gitexec.ErrRefLocked) || errors.Is(err, gitexec.ErrObjectMissing) {
		t.Errorf("stale old value: err = %v, want only ErrRefMoved", err)
	}
	if want := "is at " + string(c2) + " but expected " + string(c1); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("stale old value: err = %v, want git's message %q", err, want)
	}
}
