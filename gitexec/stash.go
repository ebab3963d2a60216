package gitexec

import (
	"context"
	"fmt"
	"strings"
)

// StashRef is the ref git stash keeps its entries in, one per reflog entry.
const StashRef RefName = "refs/stash"

// StashedPaths reports which of paths an entry of `git stash list` holds a change to: its
// worktree or index commit differs from the commit it was made on there, or its untracked
// files (`git stash -u`) include the path. Without stash entries it starts no process; with
// them it runs one rev-list and reads the entries' trees through the cat-file process.
func (r *Repo) StashedPaths(ctx context.Context, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(paths) == 0 {
		return out, nil
	}
	if _, ok, err := r.ResolveRef(ctx, StashRef); err != nil || !ok {
		return out, err
	}
	list, err := r.git(ctx, call{}, "rev-list", "--walk-reflogs", string(StashRef), "--")
	if err != nil {
		return nil, fmt.Errorf("list stash entries: %w", err)
	}
	for _, line := range strings.Fields(string(list)) {
		entry, err := r.parseOIDLen(line)
		if err != nil {
			return nil, fmt.Errorf("list stash entries: %w", err)
		}
		if err := r.stashEntryPaths(ctx, entry, paths, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stashEntryPaths marks in held the paths one stash entry holds a change to. The entry's
// parents are the commit it was made on, its index commit and, with -u, its untracked files.
func (r *Repo) stashEntryPaths(ctx context.Context, entry OID, paths []string, held map[string]bool) error {
	parents, err := r.CommitParents(ctx, string(entry))
	if err != nil {
		return fmt.Errorf("read stash entry %s: %w", entry.Short(7), err)
	}
	if len(parents) == 0 {
		return nil // not a stash entry's shape
	}
	read := func(rev OID) (map[string]TreeEntry, error) {
		es, err := r.PathEntries(ctx, string(rev), paths)
		if err != nil {
			return nil, fmt.Errorf("read stash entry %s: %w", entry.Short(7), err)
		}
		return es, nil
	}
	base, err := read(parents[0])
	if err != nil {
		return err
	}
	changed := []OID{entry}
	if len(parents) > 1 {
		changed = append(changed, parents[1])
	}
	for _, rev := range changed {
		es, err := read(rev)
		if err != nil {
			return err
		}
		for _, p := range paths {
			if es[p] != base[p] {
				held[p] = true
			}
		}
	}
	if len(parents) > 2 {
		untracked, err := read(parents[2])
		if err != nil {
			return err
		}
		for p := range untracked {
			held[p] = true
		}
	}
	return nil
}
