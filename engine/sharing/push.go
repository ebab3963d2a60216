package sharing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// Sharing the metadata branch through a remote (spec §1.2, §9.5).

// Timeout bounds each git push and git fetch of the record (and of a branch resume fetches).
const Timeout = 2 * time.Minute

// maxPushAttempts bounds the push, rejected, fetch and merge rounds when other
// clones keep pushing in between.
const maxPushAttempts = 4

// PrePush pushes entire/checkpoints/v1 to remote alongside the user's push
// when it has something the remote-tracking ref lacks, merging the remote's
// checkpoints in when another clone pushed first. It never fails: problems
// are warnings on stderr and in the log, and the user's push goes on. On a dry run (git push
// --dry-run) it only says whether the record would have gone.
func (r *Record) PrePush(ctx context.Context, remote string, pushSessions, dryRun bool) error {
	if !pushSessions {
		r.Log.Info("push_sessions is false; not pushing session logs", "remote", remote)
		return nil
	}
	if err := r.pushRecord(ctx, remote, dryRun); err != nil {
		fmt.Fprintf(r.Stderr, "[entire] Warning: could not push session logs to %s: %v\n", remote, err)
		r.Log.Warn("push session logs", "remote", remote, "error", err.Error())
	}
	return nil
}

// pushRecord is PrePush's work.
func (r *Record) pushRecord(ctx context.Context, remote string, dryRun bool) error {
	if remote == "" {
		return errors.New("no remote given")
	}
	local, ok, err := r.Repo.ResolveRef(ctx, checkpoint.MetaRef)
	if err != nil || !ok {
		return err
	}
	tracking, configured, err := r.trackingRef(ctx, remote)
	if err != nil {
		return err
	}
	if configured {
		if seen, ok, err := r.Repo.ResolveRef(ctx, tracking); err != nil {
			return err
		} else if ok && seen == local {
			return nil
		}
	}
	if dryRun {
		fmt.Fprintf(r.Stderr, "[entire] Dry run: session logs not pushed to %s (a push would send them).\n", remote)
		r.Log.Info("dry run: not pushing session logs", "remote", remote)
		return nil
	}
	fmt.Fprintf(r.Stderr, "[entire] Pushing session logs to %s...\n", remote)
	var lease gitexec.OID // set when the push must replace a history that held forgotten slots
	for range maxPushAttempts {
		err := r.Repo.Push(ctx, remote, []string{checkpoint.MetadataBranch}, Timeout, gitexec.Lease(checkpoint.MetaRef, lease))
		if !errors.Is(err, gitexec.ErrPushRejected) {
			if err == nil && lease != "" {
				r.Log.Info("replaced the remote's session logs history: forgotten slots removed", "remote", remote, "was", string(lease))
			}
			return err
		}
		r.Log.Info("session logs push rejected; merging the remote's", "remote", remote)
		fetched, ok, err := r.fetchRemoteTip(ctx, remote)
		if err != nil {
			return err
		}
		if !ok {
			lease = ""
			continue // the remote branch vanished meanwhile: push afresh
		}
		ahead, rewrote, err := r.integrate(ctx, fetched)
		if err != nil || !ahead {
			return err
		}
		lease = ""
		if rewrote {
			lease = fetched
		}
	}
	return fmt.Errorf("remote %s kept moving: gave up after %d attempts", remote, maxPushAttempts)
}

// FetchRecord fetches remote's entire/checkpoints/v1 and integrates it into the local
// branch: it creates the branch when it is missing, fast-forwards it when it is behind, and
// merges the two (see push_merge.go) when they diverged. A remote without the branch is not an error.
func (r *Record) FetchRecord(ctx context.Context, remote string) error {
	fetched, ok, err := r.fetchRemoteTip(ctx, remote)
	if err != nil || !ok {
		return err
	}
	_, _, err = r.integrate(ctx, fetched)
	return err
}

// FetchTracking fetches remote's entire/checkpoints/v1 into its remote-tracking ref only, as
// `git fetch` of the remote's branches would: the local branch is left as it is (readers read
// the remote-tracking ref for the checkpoints only it holds). A remote without the branch is
// not an error.
func (r *Record) FetchTracking(ctx context.Context, remote string) error {
	_, _, err := r.fetchRemoteTip(ctx, remote)
	return err
}

// IntegrateFetched integrates into the local metadata branch what the last fetch of remote
// brought into its remote-tracking ref, without going to the network, so that a reader shows
// another clone's newer copy of a checkpoint this clone already holds (one finalized there after
// its provisional copy was pushed) and not only the checkpoints it lacked. Nothing happens when
// the local branch is missing (readers then read the remote-tracking ref) or already contains it.
func (r *Record) IntegrateFetched(ctx context.Context, remote string) error {
	tracking, configured, err := r.trackingRef(ctx, remote)
	if err != nil || !configured {
		return err
	}
	fetched, ok, err := r.Repo.ResolveRef(ctx, tracking)
	if err != nil || !ok {
		return err
	}
	local, ok, err := r.Repo.ResolveRef(ctx, checkpoint.MetaRef)
	if err != nil || !ok || local == fetched {
		return err
	}
	if in, err := r.Repo.IsAncestor(ctx, fetched, local); err != nil || in {
		return err
	}
	_, _, err = r.integrate(ctx, fetched)
	return err
}

// trackingRef is remote's remote-tracking ref of the metadata branch; configured=false when
// remote is a URL or path rather than a configured remote, which has no such ref.
func (r *Record) trackingRef(ctx context.Context, remote string) (gitexec.RefName, bool, error) {
	configured, err := r.Repo.RemoteConfigured(ctx, remote)
	if err != nil {
		return "", false, err
	}
	return gitexec.RefName("refs/remotes/" + remote + "/" + checkpoint.MetadataBranch), configured, nil
}

// fetchRemoteTip fetches the remote metadata branch (into its remote-tracking ref for a
// configured remote, else only into FETCH_HEAD) and returns its tip; ok=false when the remote
// has no such branch.
func (r *Record) fetchRemoteTip(ctx context.Context, remote string) (gitexec.OID, bool, error) {
	tracking, configured, err := r.trackingRef(ctx, remote)
	if err != nil {
		return "", false, err
	}
	spec, read := "+"+string(checkpoint.MetaRef), gitexec.RefName("FETCH_HEAD")
	if configured {
		spec, read = spec+":"+string(tracking), tracking
	}
	err = r.Repo.Fetch(ctx, remote, []string{spec}, Timeout)
	if errors.Is(err, gitexec.ErrRemoteRefMissing) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	tip, ok, err := r.Repo.ResolveRef(ctx, read)
	if err == nil && !ok {
		err = fmt.Errorf("fetched %s but %s is missing", checkpoint.MetadataBranch, read)
	}
	return tip, ok, err
}

// integrate makes the local metadata branch contain fetched, with compare-and-swap: create
// it, fast-forward it, or commit a union merge. Both histories are first cleaned of any slot
// either side forgot (forget.go). ahead reports that the local branch now differs from the
// fetched tip (it has commits the fetched tip lacks), so a push is due; rewrote, that the
// fetched history itself had to be cleaned, so that push must replace the remote's history
// (with a lease on fetched).
func (r *Record) integrate(ctx context.Context, fetched gitexec.OID) (ahead, rewrote bool, err error) {
	var rt gitexec.RefRetry
	for rt.Next() {
		local, ok, err := r.Repo.ResolveRef(ctx, checkpoint.MetaRef)
		if err != nil {
			return false, false, err
		}
		if !ok {
			local = ""
		}
		base, theirs, err := r.cleanPair(ctx, local, fetched)
		if err != nil {
			return false, false, err
		}
		rewrote = theirs != fetched
		next, err := r.joined(ctx, base, theirs)
		if err != nil {
			return false, false, err
		}
		if next == local {
			return next != fetched, rewrote, nil
		}
		err = r.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: checkpoint.MetaRef, New: next, Old: local}})
		if rt.Moved(err) {
			continue // a local writer committed meanwhile: integrate its tip instead
		}
		if err != nil {
			return false, false, err
		}
		r.Log.Info("integrated remote session logs", "fetched", string(fetched), "local", string(local), "new", string(next))
		return next != fetched, rewrote, nil
	}
	return false, false, rt.Err("integrate " + checkpoint.MetadataBranch)
}

// joined is the tip that contains both local ("" for none) and fetched: one of them when it
// contains the other, else their union merge.
func (r *Record) joined(ctx context.Context, local, fetched gitexec.OID) (gitexec.OID, error) {
	if local == "" || local == fetched {
		return fetched, nil
	}
	if ahead, err := r.Repo.IsAncestor(ctx, fetched, local); err != nil || ahead {
		return local, err
	}
	ff, err := r.Repo.IsAncestor(ctx, local, fetched)
	if err != nil || ff {
		return fetched, err
	}
	return r.mergeCommit(ctx, local, fetched)
}
