package checkpoint_test

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/checkpoint/checkpointtest"
	"github.com/entirerec/entire/gitexec"
	"github.com/entirerec/entire/gitexec/gittest"
)

// forgetHistory is a metadata branch of three commits: checkpoint B (session s1), then
// checkpoint A (sessions s1 and s2, with tasks/), then A's transcripts finalized, then a
// merge with a side history that also wrote A's slot 0.
func forgetHistory(t *testing.T, repo *gitexec.Repo) (first, tip gitexec.OID, secret string) {
	const a, b = "aaaaaaaaaaaa", "bbbbbbbbbbbb"
	ref := "refs/heads/" + checkpoint.MetadataBranch
	secret = `{"type":"user","message":{"content":"the secret prompt"}}` + "\n"
	bFiles := checkpointtest.SlotFiles(b, "0", "s1")
	bFiles[checkpoint.CheckpointPath(b)+"/metadata.json"] = checkpointtest.Root(b, 1)
	bFiles[checkpoint.CheckpointPath(b)+"/0/full.jsonl"] = "kept b\n"
	first = gittest.Commit(t, repo, ref, "", "Checkpoint: "+b, bFiles)

	aDir := checkpoint.CheckpointPath(a)
	aFiles := checkpointtest.SlotFiles(a, "0", "s1")
	maps.Copy(aFiles, checkpointtest.SlotFiles(a, "1", "s2"))
	aFiles[aDir+"/metadata.json"] = strings.Replace(checkpointtest.Root(a, 2), `"prompt":""`, `"prompt":"/`+aDir+`/0/prompt.txt"`, 1)
	aFiles[aDir+"/0/full.jsonl"] = "early draft of the secret\n"
	aFiles[aDir+"/0/prompt.txt"] = "the secret prompt"
	aFiles[aDir+"/1/full.jsonl"] = "kept a1\n"
	aFiles[aDir+"/tasks/t1/full.jsonl"] = "task of a\n"
	second := gittest.Commit(t, repo, ref, first, "Checkpoint: "+a, aFiles)
	third := gittest.Commit(t, repo, ref, second, "Finalize transcript for Checkpoint: "+a, map[string]string{aDir + "/0/full.jsonl": secret})
	gittest.Git(t, repo.TopLevel, "update-ref", "refs/heads/side", string(first))
	side := gittest.Commit(t, repo, "refs/heads/side", first, "Checkpoint: "+a, map[string]string{aDir + "/0/full.jsonl": "side copy of the secret\n", aDir + "/0/metadata.json": checkpointtest.SlotFiles(a, "0", "s1")[aDir+"/0/metadata.json"]})
	tree, err := repo.CommitTreeOID(context.Background(), string(third))
	if err != nil {
		t.Fatal(err)
	}
	merge, err := repo.CommitTree(context.Background(), tree, []gitexec.OID{third, side}, "Merge remote session logs")
	if err != nil {
		t.Fatal(err)
	}
	return first, merge, secret
}

func TestRewriteHistoryLeavesNoForgottenBlob(t *testing.T) {
	ctx := context.Background()
	repo := gittest.Repo(t)
	first, tip, secret := forgetHistory(t, repo)
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	ledger := checkpoint.Ledger{Forgotten: []checkpoint.Forgotten{{CheckpointID: "aaaaaaaaaaaa", SessionID: "s1", ForgottenAt: at}}}

	newTip, err := checkpoint.RewriteHistory(ctx, repo, tip, ledger)
	if err != nil {
		t.Fatal(err)
	}
	if newTip == tip {
		t.Fatal("nothing was rewritten")
	}
	objects := gittest.Git(t, repo.TopLevel, "rev-list", "--objects", string(newTip))
	for _, gone := range []string{secret, "early draft of the secret\n", "side copy of the secret\n", "the secret prompt"} {
		oids, err := repo.HashBlobs(ctx, [][]byte{[]byte(gone)})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(objects, string(oids[0])) {
			t.Errorf("blob of %q is still reachable", gone)
		}
	}
	// The first commit held nothing forgotten: it keeps its ID, so other clones' copies match.
	if !strings.Contains(gittest.Git(t, repo.TopLevel, "rev-list", string(newTip)), string(first)) {
		t.Error("the untouched first commit was rewritten")
	}
	// The other session's slot and the other checkpoint are intact; the forgotten slot is a
	// tombstone; tasks/ stays because slot 1 is not forgotten.
	for path, want := range map[string]string{
		"aa/aaaaaaaaaa/1/full.jsonl":        "kept a1\n",
		"bb/bbbbbbbbbb/0/full.jsonl":        "kept b\n",
		"aa/aaaaaaaaaa/tasks/t1/full.jsonl": "task of a\n",
	} {
		data, ok, err := repo.ReadBlob(ctx, string(newTip)+":"+path)
		if err != nil || !ok || string(data) != want {
			t.Errorf("%s = %q, %v, %v; want %q", path, data, ok, err, want)
		}
	}
	entries, _, err := repo.ReadTree(ctx, string(newTip)+":aa/aaaaaaaaaa/0")
	if err != nil || len(entries) != 1 || entries[0].Name != "metadata.json" {
		t.Fatalf("forgotten slot holds %v (%v), want only metadata.json", entries, err)
	}
	c, err := (&checkpoint.Reader{Repo: repo, Tip: newTip}).ReadCheckpoint(ctx, "aaaaaaaaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	if m := c.Slots[0].Meta; m.ForgottenAt == nil || !m.ForgottenAt.Equal(at) || m.SessionID != "s1" {
		t.Errorf("tombstone metadata = %+v", m)
	}
	if c.Summary.Sessions[0].Prompt != "" {
		t.Errorf("root summary still points at the forgotten prompt: %+v", c.Summary.Sessions[0])
	}

	// Deterministic and idempotent: rewriting again changes nothing.
	again, err := checkpoint.RewriteHistory(ctx, repo, newTip, ledger)
	if err != nil || again != newTip {
		t.Errorf("second rewrite = %s, %v; want %s", again, err, newTip)
	}
	// The same ledger applied to the original history gives the same commits.
	twice, err := checkpoint.RewriteHistory(ctx, repo, tip, ledger)
	if err != nil || twice != newTip {
		t.Errorf("rewrite of the same history = %s, %v; want %s", twice, err, newTip)
	}
}

func TestRewriteHistoryDropsTasksWhenEverySlotIsForgotten(t *testing.T) {
	ctx := context.Background()
	repo := gittest.Repo(t)
	_, tip, _ := forgetHistory(t, repo)
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	ledger := checkpoint.Ledger{Forgotten: []checkpoint.Forgotten{
		{CheckpointID: "aaaaaaaaaaaa", SessionID: "s1", ForgottenAt: at},
		{CheckpointID: "aaaaaaaaaaaa", SessionID: "s2", ForgottenAt: at},
	}}
	newTip, err := checkpoint.RewriteHistory(ctx, repo, tip, ledger)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := repo.ReadBlob(ctx, string(newTip)+":aa/aaaaaaaaaa/tasks/t1/full.jsonl"); ok {
		t.Error("tasks/ of a fully forgotten checkpoint survived")
	}
}

func TestLedgerUnionKeepsTheEarlierDate(t *testing.T) {
	early, late := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	a := checkpoint.Ledger{Forgotten: []checkpoint.Forgotten{{CheckpointID: "bbbbbbbbbbbb", SessionID: "s", ForgottenAt: late}}}
	b := checkpoint.Ledger{Forgotten: []checkpoint.Forgotten{
		{CheckpointID: "bbbbbbbbbbbb", SessionID: "s", ForgottenAt: early},
		{CheckpointID: "aaaaaaaaaaaa", SessionID: "s", ForgottenAt: late},
	}}
	u, added := a.Union(b)
	if added != 1 || len(u.Forgotten) != 2 || u.Forgotten[0].CheckpointID != "aaaaaaaaaaaa" || !u.Forgotten[1].ForgottenAt.Equal(early) {
		t.Errorf("union = %+v, added %d", u, added)
	}
	v, _ := b.Union(a)
	if len(v.Forgotten) != 2 || !v.Forgotten[1].ForgottenAt.Equal(early) || v.Forgotten[0] != u.Forgotten[0] {
		t.Errorf("union is order-dependent: %+v vs %+v", u, v)
	}
}

// Commits that landed after a rewrite began are carried onto it: the result is the very
// history a full rewrite of the new tip gives, including a late write to the forgotten slot.
// A tip that does not descend from the rewritten one cannot be carried.
func TestCarryOntoMatchesAFullRewrite(t *testing.T) {
	ctx := context.Background()
	repo := gittest.Repo(t)
	_, tip, secret := forgetHistory(t, repo)
	ref := "refs/heads/" + checkpoint.MetadataBranch
	ledger := checkpoint.Ledger{Forgotten: []checkpoint.Forgotten{{CheckpointID: "aaaaaaaaaaaa", SessionID: "s1", ForgottenAt: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)}}}
	onto, err := checkpoint.RewriteHistory(ctx, repo, tip, ledger)
	if err != nil {
		t.Fatal(err)
	}
	const c = "cccccccccccc"
	gittest.Git(t, repo.TopLevel, "update-ref", ref, string(tip))
	cFiles := checkpointtest.SlotFiles(c, "0", "s3")
	cFiles[checkpoint.CheckpointPath(c)+"/metadata.json"] = checkpointtest.Root(c, 1)
	later := gittest.Commit(t, repo, ref, tip, "Checkpoint: "+c, cFiles)
	later = gittest.Commit(t, repo, ref, later, "Finalize", map[string]string{"aa/aaaaaaaaaa/0/full.jsonl": secret + "and more\n"})

	carried, ok, err := checkpoint.CarryOnto(ctx, repo, tip, later, onto, ledger)
	if err != nil || !ok {
		t.Fatalf("carry = %v, %v", ok, err)
	}
	full, err := checkpoint.RewriteHistory(ctx, repo, later, ledger)
	if err != nil {
		t.Fatal(err)
	}
	if carried != full {
		t.Errorf("carried tip %s differs from the full rewrite %s", carried, full)
	}
	if _, ok, _ := repo.ReadBlob(ctx, string(carried)+":cc/cccccccccc/0/metadata.json"); !ok {
		t.Error("the carried checkpoint is missing")
	}
	if _, ok, _ := repo.ReadBlob(ctx, string(carried)+":aa/aaaaaaaaaa/0/full.jsonl"); ok {
		t.Error("the late write to the forgotten slot was carried")
	}

	// A branch rewritten meanwhile (here: restarted from the first commit) is not carried.
	other := gittest.Commit(t, repo, "refs/heads/other", "", "Checkpoint: "+c, cFiles)
	if _, ok, err := checkpoint.CarryOnto(ctx, repo, tip, other, onto, ledger); err != nil || ok {
		t.Errorf("carry of an unrelated history = %v, %v; want not carried", ok, err)
	}
}
