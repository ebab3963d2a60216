package checkpoint

import (
	"context"
	"slices"
	"sort"

	"github.com/entirerec/entire/gitexec"
)

// RemoteMetaRef is remote's copy of the metadata branch as a fetch of its branches keeps it.
func RemoteMetaRef(remote string) gitexec.RefName {
	return gitexec.RefName("refs/remotes/" + remote + "/" + MetadataBranch)
}

// FetchedCopy is a remote's copy of the record, as the last fetch of that remote brought it.
type FetchedCopy struct {
	Remote string
	Ref    gitexec.RefName
	Tip    gitexec.OID
}

// FetchedCopies are the remote-tracking copies of the record this clone holds, the one readers
// fall back to first: origin's (spec §1), then the copy of the remote the current branch tracks,
// then the others by remote name. A repository whose remote is not named origin (added by hand,
// or a fork's `upstream`, where teammates push) reads that remote's record as a clone reads
// origin's. Read without a process when the refs are files and origin's copy or no other is
// there.
func FetchedCopies(ctx context.Context, repo *gitexec.Repo) ([]FetchedCopy, error) {
	tips, err := repo.RemoteTracking(ctx, MetadataBranch)
	if err != nil || len(tips) == 0 {
		return nil, err
	}
	names := make([]string, 0, len(tips))
	for r := range tips {
		names = append(names, r)
	}
	var out []FetchedCopy
	for _, r := range orderRemotes(ctx, repo, names) {
		out = append(out, FetchedCopy{Remote: r, Ref: RemoteMetaRef(r), Tip: tips[r]})
	}
	return out, nil
}

// RecordRemotes are the configured remotes to fetch the record from when this clone lacks a
// checkpoint, in the order of FetchedCopies: origin, the current branch's remote, the others.
func RecordRemotes(ctx context.Context, repo *gitexec.Repo) ([]string, error) {
	names, err := repo.Remotes(ctx)
	if err != nil {
		return nil, err
	}
	return orderRemotes(ctx, repo, names), nil
}

// orderRemotes sorts remote names: origin, then the remote the current branch tracks, then the
// others by name. The branch's remote is asked for only when it can change the order.
func orderRemotes(ctx context.Context, repo *gitexec.Repo, names []string) []string {
	sort.Strings(names)
	first := []string{}
	if i := slices.Index(names, "origin"); i >= 0 {
		first = append(first, "origin")
		names = slices.Delete(names, i, i+1)
	}
	if len(names) > 1 {
		if b, ok, err := repo.HeadBranch(ctx); err == nil && ok {
			if up, ok, err := repo.ConfigGet(ctx, "branch."+b+".remote"); err == nil && ok {
				if i := slices.Index(names, up); i >= 0 {
					first = append(first, up)
					names = slices.Delete(names, i, i+1)
				}
			}
		}
	}
	return append(first, names...)
}

// FirstFetchedCopy is the first of FetchedCopies, the copy a clone without its own record reads
// and starts its own from; ok=false when there is none. Origin's is looked up as it always was,
// and the others only without it; a lone copy is taken without asking for the current
// branch's remote.
func FirstFetchedCopy(ctx context.Context, repo *gitexec.Repo) (FetchedCopy, bool, error) {
	if tip, ok, err := repo.ResolveRef(ctx, OriginMetaRef); err != nil || ok {
		return FetchedCopy{Remote: "origin", Ref: OriginMetaRef, Tip: tip}, ok, err
	}
	tips, err := repo.RemoteTracking(ctx, MetadataBranch)
	if err != nil || len(tips) == 0 {
		return FetchedCopy{}, false, err
	}
	if len(tips) == 1 {
		for r, tip := range tips {
			return FetchedCopy{Remote: r, Ref: RemoteMetaRef(r), Tip: tip}, true, nil
		}
	}
	copies, err := FetchedCopies(ctx, repo)
	if err != nil || len(copies) == 0 {
		return FetchedCopy{}, false, err
	}
	return copies[0], true, nil
}
