package sharing

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// Merge semantics. Two clones that both recorded produce two histories of
// entire/checkpoints/v1; readers only look at the tip tree, so integrating is a
// union of the two tip trees, committed with both tips as parents:
//   - A path on one side only is kept. Checkpoint IDs are random, so this is
//     nearly every path; subtrees equal on both sides are never read.
//   - A checkpoint directory (<id[:2]>/<id[2:]>) present on both sides with
//     different content is merged slot by slot. The fetched slots keep their
//     numbers (other clones may already have read them). A local slot is
//     dropped when a fetched slot has the same content or the same session_id
//     (the same session's slot, rewritten on one side: the fetched version
//     wins, as the spec says for any path); every other local slot is appended
//     as the next free number, so no session is lost. When slots were
//     appended, the root metadata.json is recomputed from all slots the way a
//     condensation does (sessions, counts, files, token usage; writer fields
//     from the slot written last). If a slot's or the root's metadata cannot be
//     read, the fetched root is kept unchanged (the slots still survive).
//   - Any other path present on both sides with different content (a file, or
//     a file against a directory) takes the fetched version; directories
//     such as tasks/ are merged recursively by these same rules.

// mergeMessage is the message of a commit joining two metadata histories.
const mergeMessage = "Merge remote session logs"

// mergeCommit commits the union of two metadata tips' trees with parents [local, fetched].
func (r *Record) mergeCommit(ctx context.Context, local, fetched gitexec.OID) (gitexec.OID, error) {
	lt, err := r.treeOf(ctx, string(local))
	if err != nil {
		return "", err
	}
	ft, err := r.treeOf(ctx, string(fetched))
	if err != nil {
		return "", err
	}
	tree, err := r.unionTree(ctx, "", lt, ft)
	if err != nil {
		return "", fmt.Errorf("merge session logs: %w", err)
	}
	return r.Repo.CommitTree(ctx, tree, []gitexec.OID{local, fetched}, mergeMessage)
}

var checkpointDirRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{2}/[0-9a-f]{10}$`)
})

// unionTree merges the directory dir ("" for the root) of two trees: entries on one side are
// kept, equal entries are not read, differing directories are merged recursively (a checkpoint
// directory slot by slot), and any other difference takes the fetched entry.
func (r *Record) unionTree(ctx context.Context, dir string, local, fetched gitexec.OID) (gitexec.OID, error) {
	if local == fetched {
		return fetched, nil
	}
	le, fe, err := r.readTreePair(ctx, local, fetched)
	if err != nil {
		return "", err
	}
	var changes []gitexec.TreeChange
	for name, l := range le {
		f, both := fe[name]
		switch {
		case !both:
			changes = append(changes, gitexec.TreeChange{Path: name, Mode: l.Mode, OID: l.OID})
		case f.OID != l.OID && dir == "" && name == checkpoint.LedgerFile:
			// Both sides forgot something: the union, so neither list is lost.
			oid, err := r.unionLedgers(ctx, l.OID, f.OID)
			if err != nil {
				return "", err
			}
			changes = append(changes, gitexec.TreeChange{Path: name, Mode: f.Mode, OID: oid})
		case f.OID == l.OID || f.Type != "tree" || l.Type != "tree":
			// Equal, or a conflict the fetched side wins.
		default:
			path := joinPath(dir, name)
			merge := r.unionTree
			if checkpointDirRe().MatchString(path) {
				merge = r.unionCheckpoint
			}
			sub, err := merge(ctx, path, l.OID, f.OID)
			if err != nil {
				return "", err
			}
			if sub != f.OID {
				changes = append(changes, gitexec.TreeChange{Path: name, Mode: f.Mode, OID: sub})
			}
		}
	}
	return r.applyChanges(ctx, fetched, changes)
}

// unionCheckpoint merges one checkpoint directory present on both sides (see the package
// comment above for the slot rules).
func (r *Record) unionCheckpoint(ctx context.Context, cp string, local, fetched gitexec.OID) (gitexec.OID, error) {
	le, fe, err := r.readTreePair(ctx, local, fetched)
	if err != nil {
		return "", err
	}
	haveTree, haveSession := map[gitexec.OID]bool{}, map[string]bool{} // on the fetched side
	next := 0
	for _, n := range slotNumbers(fe) {
		e := fe[strconv.Itoa(n)]
		haveTree[e.OID] = true
		if m, ok := r.slotMeta(ctx, e.OID); ok && m.SessionID != "" {
			haveSession[m.SessionID] = true
		}
		next = n + 1
	}
	var changes []gitexec.TreeChange
	for _, n := range slotNumbers(le) {
		e := le[strconv.Itoa(n)]
		if haveTree[e.OID] {
			continue
		}
		if m, ok := r.slotMeta(ctx, e.OID); ok && m.SessionID != "" && haveSession[m.SessionID] {
			r.Log.Info("checkpoint slot on both sides; keeping the remote's", "checkpoint", cp, "session_id", m.SessionID)
			continue
		}
		changes = append(changes, gitexec.TreeChange{Path: strconv.Itoa(next), Mode: e.Mode, OID: e.OID})
		next++
	}
	appended := len(changes) > 0
	for name, l := range le {
		if isSlotName(name) {
			continue
		}
		f, both := fe[name]
		switch {
		case !both:
			changes = append(changes, gitexec.TreeChange{Path: name, Mode: l.Mode, OID: l.OID})
		case f.OID != l.OID && f.Type == "tree" && l.Type == "tree":
			sub, err := r.unionTree(ctx, joinPath(cp, name), l.OID, f.OID)
			if err != nil {
				return "", err
			}
			changes = append(changes, gitexec.TreeChange{Path: name, Mode: f.Mode, OID: sub})
		}
	}
	tree, err := r.applyChanges(ctx, fetched, changes)
	if err != nil || !appended {
		return tree, err
	}
	return r.resummarize(ctx, cp, tree)
}

// resummarize rewrites a merged checkpoint's root metadata.json from all its slots, as a
// condensation does (spec §3.8). When some metadata cannot be read it keeps the tree as is.
func (r *Record) resummarize(ctx context.Context, cp string, tree gitexec.OID) (gitexec.OID, error) {
	entries, _, err := r.Repo.ReadTree(ctx, string(tree))
	if err != nil {
		return "", err
	}
	byName := map[string]gitexec.TreeEntry{}
	for _, e := range entries {
		byName[e.Name] = e
	}
	var sessions []checkpoint.SessionFiles
	var slots []checkpoint.CommittedMetadata
	latest := -1
	for _, n := range slotNumbers(byName) {
		m, ok := r.slotMeta(ctx, byName[strconv.Itoa(n)].OID)
		files, ferr := r.slotFiles(ctx, cp, n, byName[strconv.Itoa(n)].OID)
		if !ok || ferr != nil || n != len(slots) {
			r.Log.Warn("merged checkpoint keeps the remote's root metadata", "checkpoint", cp, "slot", n)
			return tree, nil
		}
		if latest < 0 || m.CreatedAt.After(slots[latest].CreatedAt) {
			latest = len(slots)
		}
		slots, sessions = append(slots, m), append(sessions, files)
	}
	if latest < 0 {
		return tree, nil
	}
	root, err := checkpoint.MarshalJSON(checkpoint.Summarize(sessions, slots, slots[latest]))
	if err != nil {
		return "", err
	}
	oids, err := r.Repo.HashBlobs(ctx, [][]byte{root})
	if err != nil {
		return "", fmt.Errorf("write merged summary: %w", err)
	}
	return r.Repo.BuildTree(ctx, tree, []gitexec.TreeChange{{Path: "metadata.json", Mode: "100644", OID: oids[0]}})
}

// slotMeta reads a slot directory's metadata.json; ok=false when it is missing or unreadable.
func (r *Record) slotMeta(ctx context.Context, slotTree gitexec.OID) (checkpoint.CommittedMetadata, bool) {
	var m checkpoint.CommittedMetadata
	data, ok, err := r.Repo.ReadBlob(ctx, string(slotTree)+":metadata.json")
	if err != nil || !ok {
		return m, false
	}
	return m, json.Unmarshal(data, &m) == nil
}

// slotFiles lists a slot's files for the root summary, as writeSlot does.
func (r *Record) slotFiles(ctx context.Context, cp string, n int, slotTree gitexec.OID) (checkpoint.SessionFiles, error) {
	entries, _, err := r.Repo.ReadTree(ctx, string(slotTree))
	if err != nil {
		return checkpoint.SessionFiles{}, err
	}
	dir := "/" + cp + "/" + strconv.Itoa(n)
	f := checkpoint.SessionFiles{Metadata: dir + "/metadata.json", Transcript: dir + "/full.jsonl", ContentHash: dir + "/content_hash.txt"}
	for _, e := range entries {
		switch e.Name {
		case "prompt.txt":
			f.Prompt = dir + "/prompt.txt"
		case "context.md":
			f.Context = dir + "/context.md"
		}
	}
	return f, nil
}

// readTreePair reads one level of two trees, each keyed by entry name.
func (r *Record) readTreePair(ctx context.Context, a, b gitexec.OID) (map[string]gitexec.TreeEntry, map[string]gitexec.TreeEntry, error) {
	var out [2]map[string]gitexec.TreeEntry
	for i, t := range []gitexec.OID{a, b} {
		entries, ok, err := r.Repo.ReadTree(ctx, string(t))
		if err == nil && !ok {
			err = fmt.Errorf("tree %s is missing", t)
		}
		if err != nil {
			return nil, nil, err
		}
		out[i] = make(map[string]gitexec.TreeEntry, len(entries))
		for _, e := range entries {
			out[i][e.Name] = e
		}
	}
	return out[0], out[1], nil
}

// applyChanges builds base with one-level changes, or returns base when there are none.
func (r *Record) applyChanges(ctx context.Context, base gitexec.OID, changes []gitexec.TreeChange) (gitexec.OID, error) {
	if len(changes) == 0 {
		return base, nil
	}
	return r.Repo.BuildTree(ctx, base, changes)
}

// slotNumbers are the numeric directory names of a checkpoint, ascending.
func slotNumbers(entries map[string]gitexec.TreeEntry) []int {
	var out []int
	for name, e := range entries {
		if isSlotName(name) && e.Type == "tree" {
			n, _ := strconv.Atoi(name)
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// isSlotName reports whether a checkpoint entry name is a session slot number ("0", "1", ...).
func isSlotName(name string) bool {
	n, err := strconv.Atoi(name)
	return err == nil && n >= 0 && strconv.Itoa(n) == name
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
