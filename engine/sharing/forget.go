package sharing

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// Forget adds slots to the branch's list of forgotten slots and rewrites the local
// metadata branch so that none of their content is reachable from it (see
// checkpoint.RewriteHistory), with compare-and-swap against concurrent local writers. The
// remote loses them at the next push, which replaces its history with a lease.
func (r *Record) Forget(ctx context.Context, slots []checkpoint.Forgotten) error {
	rt := gitexec.RefRetry{Budget: forgetBudget}
	var tip, next gitexec.OID // the tip rewritten and its rewrite, once made
	var ledger checkpoint.Ledger
	for rt.Next() {
		cur, ok, err := r.Repo.ResolveRef(ctx, checkpoint.MetaRef)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("there is no %s branch", checkpoint.MetadataBranch)
		}
		carried := false
		if next != "" {
			// A condensation landed while the history was rewritten: carry only its
			// commits onto the rewrite, so a busy writer cannot starve the forget.
			if next, carried, err = checkpoint.CarryOnto(ctx, r.Repo, tip, cur, next, ledger); err != nil {
				return err
			}
		}
		if !carried {
			var added int
			if ledger, err = checkpoint.ReadLedger(ctx, r.Repo, cur); err != nil {
				return err
			}
			if ledger, added = ledger.Union(checkpoint.Ledger{Forgotten: slots}); added == 0 {
				return nil
			}
			clean, err := checkpoint.RewriteHistory(ctx, r.Repo, cur, ledger)
			if err != nil {
				return err
			}
			if next, err = r.commitLedger(ctx, clean, ledger, forgetMessage(slots)); err != nil {
				return err
			}
		}
		tip = cur
		err = r.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: checkpoint.MetaRef, New: next, Old: tip}})
		if rt.Moved(err) {
			continue
		}
		if err != nil {
			return err
		}
		r.Log.Info("forgot session slots", "slots", len(slots), "old_tip", string(tip), "new_tip", string(next))
		return nil
	}
	return rt.Err("forget")
}

// forgetBudget is how long forget keeps retrying while condensations keep landing: each
// retry carries only the new commits, so it wins as soon as writers pause.
const forgetBudget = 30 * time.Second

// forgetMessage is the subject of the commit that records what was forgotten.
func forgetMessage(slots []checkpoint.Forgotten) string {
	seen := map[string]bool{}
	var sessions []string
	for _, s := range slots {
		if !seen[s.SessionID] {
			seen[s.SessionID] = true
			sessions = append(sessions, s.SessionID)
		}
	}
	subject, count := "session", "slots"
	if len(sessions) > 1 {
		subject = "sessions"
	}
	if len(slots) == 1 {
		count = "slot"
	}
	return fmt.Sprintf("Forget %s %s (%d %s)", subject, strings.Join(sessions, ", "), len(slots), count)
}

// commitLedger commits the ledger file on top of parent.
func (r *Record) commitLedger(ctx context.Context, parent gitexec.OID, l checkpoint.Ledger, msg string) (gitexec.OID, error) {
	blob, err := r.ledgerBlob(ctx, l)
	if err != nil {
		return "", err
	}
	tree, err := r.Repo.BuildTree(ctx, parent, []gitexec.TreeChange{{Path: checkpoint.LedgerFile, Mode: "100644", OID: blob}})
	if err != nil {
		return "", err
	}
	return r.Repo.CommitTree(ctx, tree, []gitexec.OID{parent}, msg)
}

// cleanPair applies the union of two tips' ledgers to both histories before they are
// integrated, so that neither brings back what the other forgot. It costs two small reads
// when nothing was ever forgotten; else a history rewrite of each side (a no-op, with no
// import, for a side already clean).
func (r *Record) cleanPair(ctx context.Context, local, fetched gitexec.OID) (cleanLocal, cleanFetched gitexec.OID, err error) {
	ll, err := checkpoint.ReadLedger(ctx, r.Repo, local)
	if err != nil {
		return "", "", err
	}
	fl, err := checkpoint.ReadLedger(ctx, r.Repo, fetched)
	if err != nil {
		return "", "", err
	}
	u, learned := ll.Union(fl)
	if len(u.Forgotten) == 0 {
		return local, fetched, nil
	}
	cleanLocal = local
	if learned > 0 {
		r.Log.Info("the remote forgot session slots; rewriting the local record", "slots", learned)
		if cleanLocal, err = checkpoint.RewriteHistory(ctx, r.Repo, local, u); err != nil {
			return "", "", err
		}
	}
	if cleanFetched, err = checkpoint.RewriteHistory(ctx, r.Repo, fetched, u); err != nil {
		return "", "", err
	}
	return cleanLocal, cleanFetched, nil
}

// unionLedgers merges the ledger files of both sides of a merge.
func (r *Record) unionLedgers(ctx context.Context, local, fetched gitexec.OID) (gitexec.OID, error) {
	var ls [2]checkpoint.Ledger
	for i, oid := range []gitexec.OID{local, fetched} {
		l, err := checkpoint.ReadLedgerBlob(ctx, r.Repo, oid)
		if err != nil {
			return "", err
		}
		ls[i] = l
	}
	u, _ := ls[1].Union(ls[0])
	return r.ledgerBlob(ctx, u)
}

// ledgerBlob writes a ledger file's blob.
func (r *Record) ledgerBlob(ctx context.Context, l checkpoint.Ledger) (gitexec.OID, error) {
	data, err := checkpoint.MarshalJSON(l)
	if err != nil {
		return "", err
	}
	return r.Repo.DeferBlobs([][]byte{data})[0], nil
}
