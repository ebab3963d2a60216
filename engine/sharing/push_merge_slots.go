package sharing

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// unionCheckpoint merges one checkpoint directory present on both sides, with base the
// directory at the merge base ("" when there is none; see the package comment above for the
// slot rules).
func (r *Record) unionCheckpoint(ctx context.Context, cp string, base, local, fetched gitexec.OID) (gitexec.OID, error) {
	le, fe, be, err := r.readTrees(ctx, local, fetched, base)
	if err != nil {
		return "", err
	}
	changes, err := r.mergeSlots(ctx, cp, le, fe, be)
	if err != nil {
		return "", err
	}
	merged := slotOIDs(fe)
	for _, c := range changes {
		merged[c.Path] = c.OID
	}
	keptLocal, keptFetched := maps.Equal(merged, slotOIDs(le)), len(changes) == 0
	for name := range le {
		if isSlotName(name) || (name == rootMetadata && keptLocal != keptFetched) {
			continue
		}
		c, ok, err := r.mergeEntry(ctx, cp, name, le, fe, be)
		if err != nil {
			return "", err
		}
		if ok {
			changes = append(changes, c)
		}
	}
	if l, ok := le[rootMetadata]; ok && keptLocal && !keptFetched {
		// The merge kept exactly this side's slots: its summary describes them.
		changes = append(changes, gitexec.TreeChange{Path: rootMetadata, Mode: l.Mode, OID: l.OID})
	}
	tree, err := r.applyChanges(ctx, fetched, changes)
	if err != nil || keptLocal || keptFetched {
		return tree, err
	}
	return r.resummarize(ctx, cp, tree)
}

// rootMetadata is a checkpoint directory's summary file.
const rootMetadata = "metadata.json"

// mergeSlots decides a checkpoint's slots: the changes to the fetched directory that replace
// a slot only this side changed since the merge base, or append a local slot of a session
// the fetched side lacks.
func (r *Record) mergeSlots(ctx context.Context, cp string, le, fe, be map[string]gitexec.TreeEntry) ([]gitexec.TreeChange, error) {
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
		name := strconv.Itoa(n)
		e := le[name]
		if haveTree[e.OID] {
			continue
		}
		if f, b := fe[name], be[name]; f.OID != "" && f.OID == b.OID && r.sameSession(ctx, b.OID, e.OID) {
			// Rewritten here only (a finalized transcript), not on the remote: this side's.
			r.Log.Info("checkpoint slot changed only locally since the merge base; keeping the local one", "checkpoint", cp, "slot", n)
			changes = append(changes, gitexec.TreeChange{Path: name, Mode: e.Mode, OID: e.OID})
			continue
		}
		if m, ok := r.slotMeta(ctx, e.OID); ok && m.SessionID != "" && haveSession[m.SessionID] {
			r.Log.Info("checkpoint slot on both sides; keeping the remote's", "checkpoint", cp, "session_id", m.SessionID)
			continue
		}
		changes = append(changes, gitexec.TreeChange{Path: strconv.Itoa(next), Mode: e.Mode, OID: e.OID})
		next++
	}
	return changes, nil
}

// sameSession reports whether two slot directories both name the same session.
func (r *Record) sameSession(ctx context.Context, a, b gitexec.OID) bool {
	ma, okA := r.slotMeta(ctx, a)
	mb, okB := r.slotMeta(ctx, b)
	return okA && okB && ma.SessionID != "" && ma.SessionID == mb.SessionID
}

// slotOIDs maps a checkpoint's slot names to their trees.
func slotOIDs(entries map[string]gitexec.TreeEntry) map[string]gitexec.OID {
	out := map[string]gitexec.OID{}
	for _, n := range slotNumbers(entries) {
		name := strconv.Itoa(n)
		out[name] = entries[name].OID
	}
	return out
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
