package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/entirerec/entire/gitexec"
)

// Forgetting a session (entire forget, retention): its slots' transcripts, prompts, context
// and summary are removed from every commit of the metadata branch, so no blob of them is
// reachable from it any more, and each slot keeps only a tombstone metadata.json (the
// session ID, counts and dates, plus forgotten_at) so that slot numbers, the root summary and
// every trailer stay valid, for Entire's readers as for ours.
//
// What was forgotten is listed in LedgerFile at the branch root. The list travels with the
// branch, so every clone that integrates a pushed branch learns it and filters the histories
// it still holds before merging them; an old copy can never bring a forgotten blob back. The
// rewrite is deterministic: the same history and list give the same commits in every clone,
// and commits that hold nothing forgotten keep their IDs.

// LedgerFile is the metadata-branch root file listing the forgotten slots. Entire's lister
// only reads two-character bucket directories at the root (spec §3.1), so it ignores it.
const LedgerFile = "forgotten.json"

// Forgotten is one forgotten slot: a session's part of a checkpoint.
type Forgotten struct {
	CheckpointID string    `json:"checkpoint_id"`
	SessionID    string    `json:"session_id"`
	ForgottenAt  time.Time `json:"forgotten_at"`
}

// Ledger is the list of forgotten slots, sorted by checkpoint and session.
type Ledger struct {
	Forgotten []Forgotten `json:"forgotten"`
}

// ReadLedger reads LedgerFile at a tip of the metadata branch; none is an empty ledger.
func ReadLedger(ctx context.Context, repo *gitexec.Repo, tip gitexec.OID) (Ledger, error) {
	if tip == "" {
		return Ledger{}, nil
	}
	return readLedger(ctx, repo, string(tip)+":"+LedgerFile)
}

// ReadLedgerBlob reads a ledger file's blob.
func ReadLedgerBlob(ctx context.Context, repo *gitexec.Repo, blob gitexec.OID) (Ledger, error) {
	return readLedger(ctx, repo, string(blob))
}

func readLedger(ctx context.Context, repo *gitexec.Repo, rev string) (Ledger, error) {
	var l Ledger
	data, ok, err := repo.ReadBlob(ctx, rev)
	if err != nil || !ok {
		return l, err
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return l, fmt.Errorf("read %s: %w", LedgerFile, err)
	}
	return l, nil
}

// Has reports whether the slot of session sid in checkpoint id is forgotten, and when.
func (l Ledger) Has(id, sid string) (time.Time, bool) {
	for _, f := range l.Forgotten {
		if f.CheckpointID == id && f.SessionID == sid {
			return f.ForgottenAt, true
		}
	}
	return time.Time{}, false
}

// Union is l with o's entries added; a slot forgotten on both sides keeps the earlier date,
// so two clones agree whatever the order they learn in. added counts o's new slots.
func (l Ledger) Union(o Ledger) (u Ledger, added int) {
	u.Forgotten = slices.Clone(l.Forgotten)
	for _, f := range o.Forgotten {
		i := slices.IndexFunc(u.Forgotten, func(g Forgotten) bool {
			return g.CheckpointID == f.CheckpointID && g.SessionID == f.SessionID
		})
		switch {
		case i < 0:
			u.Forgotten = append(u.Forgotten, f)
			added++
		case f.ForgottenAt.Before(u.Forgotten[i].ForgottenAt):
			u.Forgotten[i].ForgottenAt = f.ForgottenAt
		}
	}
	slices.SortFunc(u.Forgotten, func(a, b Forgotten) int {
		if c := strings.Compare(a.CheckpointID, b.CheckpointID); c != 0 {
			return c
		}
		return strings.Compare(a.SessionID, b.SessionID)
	})
	return u, added
}

// checkpoints are the IDs the ledger names.
func (l Ledger) checkpoints() map[string]bool {
	out := map[string]bool{}
	for _, f := range l.Forgotten {
		out[f.CheckpointID] = true
	}
	return out
}

// Tombstone is what remains of a forgotten slot's metadata: who, when and how much, with no
// content (no summary, no transcript path or identifier).
func Tombstone(m CommittedMetadata, at time.Time) CommittedMetadata {
	m.Summary = nil
	m.TranscriptPath = ""
	m.TranscriptIdentifierAtStart = ""
	at = at.UTC()
	m.ForgottenAt = &at
	return m
}

// RewriteHistory rewrites the history of tip so that every slot the ledger lists is a
// tombstone in every commit, and returns the new tip (tip itself when nothing changed). It
// costs one fast-export and one fast-import of the branch's commits (no file contents), plus
// a few object reads per commit that touched a listed checkpoint.
func RewriteHistory(ctx context.Context, repo *gitexec.Repo, tip gitexec.OID, l Ledger) (gitexec.OID, error) {
	if tip == "" || len(l.Forgotten) == 0 {
		return tip, nil
	}
	rw := &historyRewriter{repo: repo, ledger: l, ids: l.checkpoints(), trees: map[gitexec.OID]gitexec.OID{}}
	newTip, _, err := rw.run(ctx, []string{string(tip)}, false)
	if newTip == "" && err == nil {
		return tip, nil
	}
	return newTip, err
}

// CarryOnto rewrites the commits that tip has and old lacks (checkpoints condensed while
// old's history was being rewritten) onto onto, old's rewritten history, with the same
// ledger: a retry after a lost race costs only what landed meanwhile, so forget cannot be
// starved by a busy writer. ok is false when they cannot be carried: tip does not descend
// from old (the branch was rewritten), a merge brings in other history, or the new commits
// change the ledger; then the whole history must be rewritten again.
func CarryOnto(ctx context.Context, repo *gitexec.Repo, old, tip, onto gitexec.OID, l Ledger) (gitexec.OID, bool, error) {
	if tip == old {
		return onto, true, nil
	}
	rw := &historyRewriter{repo: repo, ledger: l, ids: l.checkpoints(), trees: map[gitexec.OID]gitexec.OID{},
		carry: map[string]string{string(old): string(onto)}}
	newTip, ok, err := rw.run(ctx, []string{"--reference-excluded-parents", "^" + string(old), string(tip)}, true)
	if err != nil || !ok {
		return "", false, err
	}
	return newTip, true, nil
}

// run exports the history revs select, filters it and imports it under a temporary ref,
// returning the new tip ("" when nothing changed and always is false). ok is false when the
// stream cannot be carried (see CarryOnto).
func (rw *historyRewriter) run(ctx context.Context, revs []string, always bool) (gitexec.OID, bool, error) {
	args := append([]string{"fast-export", "--no-data", "--show-original-ids", "--reencode=no",
		"--signed-tags=strip", "--use-done-feature"}, revs...)
	stream, err := rw.repo.Run(ctx, nil, args...)
	if err != nil {
		return "", false, fmt.Errorf("export %s history: %w", MetadataBranch, err)
	}
	tmp := gitexec.RefName(fmt.Sprintf("refs/entire/forget-%d", time.Now().UnixNano()))
	out, changed, err := rw.filter(ctx, stream, string(tmp))
	if errors.Is(err, errNotCarried) {
		return "", false, nil
	}
	if err != nil || !(changed || always) {
		return "", true, err
	}
	if _, err := rw.repo.Run(ctx, out, "fast-import", "--quiet"); err != nil {
		return "", false, fmt.Errorf("import the rewritten %s history: %w", MetadataBranch, err)
	}
	newTip, ok, err := rw.repo.ResolveRef(ctx, tmp)
	if err == nil && !ok {
		err = fmt.Errorf("rewritten history: %s is missing", tmp)
	}
	if err != nil {
		return "", false, err
	}
	if derr := rw.repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: tmp, Old: newTip}}); derr != nil {
		return "", false, derr
	}
	return newTip, true, nil
}

// errNotCarried stops a carry whose commits cannot be moved onto the rewritten history.
var errNotCarried = errors.New("the new commits cannot be carried onto the rewritten history")

// historyRewriter filters a fast-export stream.
type historyRewriter struct {
	repo   *gitexec.Repo
	ledger Ledger
	ids    map[string]bool             // checkpoint IDs with forgotten slots
	trees  map[gitexec.OID]gitexec.OID // checkpoint tree → rewritten tree
	tombs  map[gitexec.OID]gitexec.OID // slot tree → tombstone tree
	empty  gitexec.OID
	// carry, when set, maps the one excluded parent the exported commits may name to the
	// commit they move onto (CarryOnto); anything else excluded stops the carry.
	carry map[string]string
}

// filter copies a fast-export stream with every ref renamed to ref, file changes under a
// listed checkpoint dropped and replaced by that checkpoint's rewritten tree as of the
// original commit. changed reports that some checkpoint tree differs.
func (rw *historyRewriter) filter(ctx context.Context, in []byte, ref string) ([]byte, bool, error) {
	out := make([]byte, 0, len(in)+len(in)/8)
	var orig string
	touched := []string{}
	changed := false
	parentless := false // in a commit that has named no parent yet
	flush := func() error {
		for _, cp := range touched {
			line, diff, err := rw.replacement(ctx, orig, cp)
			if err != nil {
				return err
			}
			changed = changed || diff
			out = append(out, line...)
		}
		touched = touched[:0]
		return nil
	}
	for len(in) > 0 {
		var raw []byte
		raw, in, _ = bytes.Cut(in, []byte{'\n'})
		line := string(raw)
		switch {
		case strings.HasPrefix(line, "data "):
			var n int
			if _, err := fmt.Sscanf(line, "data %d", &n); err != nil || n < 0 || n > len(in) {
				return nil, false, fmt.Errorf("fast-export stream: bad %q", line)
			}
			out = append(out, line+"\n"...)
			out = append(out, in[:n]...)
			out = append(out, '\n')
			in = in[n:]
			if len(in) > 0 && in[0] == '\n' {
				in = in[1:] // the optional LF after the data
			}
			continue
		case strings.HasPrefix(line, "original-oid "):
			orig = strings.TrimPrefix(line, "original-oid ")
		case strings.HasPrefix(line, "commit "), strings.HasPrefix(line, "reset "):
			verb, _, _ := strings.Cut(line, " ")
			line = verb + " " + ref
			parentless = verb == "commit"
		case strings.HasPrefix(line, "from "), strings.HasPrefix(line, "merge "):
			parentless = false
			if rw.carry != nil {
				verb, parent, _ := strings.Cut(line, " ")
				if !strings.HasPrefix(parent, ":") {
					onto, ok := rw.carry[parent]
					if !ok {
						return nil, false, errNotCarried
					}
					line = verb + " " + onto
				}
			}
		case strings.HasPrefix(line, "M "), strings.HasPrefix(line, "D "):
			if rw.carry != nil && (parentless || changedPath(line) == LedgerFile) {
				return nil, false, errNotCarried
			}
			if cp := rw.listedCheckpoint(changedPath(line)); cp != "" {
				if !slices.Contains(touched, cp) {
					touched = append(touched, cp)
				}
				continue
			}
		case line == "":
			if rw.carry != nil && parentless {
				return nil, false, errNotCarried // a root commit: not the history carried
			}
			parentless = false
			if err := flush(); err != nil {
				return nil, false, err
			}
		}
		out = append(out, line+"\n"...)
	}
	if len(touched) > 0 {
		return nil, false, fmt.Errorf("fast-export stream ended inside a commit")
	}
	return out, changed, nil
}

// changedPath is the path of a fast-export "M <mode> <ref> <path>" or "D <path>" line.
func changedPath(line string) string {
	p := line[2:]
	if line[0] == 'M' {
		f := strings.SplitN(line, " ", 4)
		if len(f) < 4 {
			return ""
		}
		p = f[3]
	}
	if strings.HasPrefix(p, `"`) {
		if u, err := unquoteC(p); err == nil {
			return u
		}
	}
	return p
}

// unquoteC undoes git's C-style path quoting.
func unquoteC(s string) (string, error) {
	var u string
	_, err := fmt.Sscanf(s, "%q", &u)
	return u, err
}

// listedCheckpoint is the checkpoint directory ("ab/cdef012345") of path when the ledger lists
// that checkpoint, else "".
func (rw *historyRewriter) listedCheckpoint(path string) string {
	shard, rest, ok := strings.Cut(path, "/")
	if !ok || len(shard) != 2 {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	if !rw.ids[shard+id] {
		return ""
	}
	return shard + "/" + id
}

// replacement is the fast-import line that sets checkpoint directory cp to its rewritten tree
// as of commit orig; diff reports that the rewrite changed it.
func (rw *historyRewriter) replacement(ctx context.Context, orig, cp string) (string, bool, error) {
	if orig == "" {
		return "", false, fmt.Errorf("fast-export stream: a commit without original-oid")
	}
	entries, err := rw.repo.PathEntries(ctx, orig, []string{cp})
	if err != nil {
		return "", false, err
	}
	e, ok := entries[cp]
	if !ok || e.Type != "tree" {
		return "D " + cp + "\n", false, nil
	}
	tree, err := rw.rewriteCheckpoint(ctx, strings.ReplaceAll(cp, "/", ""), e.OID)
	if err != nil {
		return "", false, err
	}
	return "M 040000 " + string(tree) + " " + cp + "\n", tree != e.OID, nil
}

// rewriteCheckpoint turns the listed slots of one checkpoint tree into tombstones, clears
// their prompt and context paths in the root summary, and drops tasks/ when every slot is
// forgotten (task checkpoints belong to the checkpoint's sessions).
func (rw *historyRewriter) rewriteCheckpoint(ctx context.Context, id string, tree gitexec.OID) (gitexec.OID, error) {
	if t, ok := rw.trees[tree]; ok {
		return t, nil
	}
	entries, _, err := rw.repo.ReadTree(ctx, string(tree))
	if err != nil {
		return "", err
	}
	var changes []gitexec.TreeChange
	forgotten := map[int]bool{}
	slots := 0
	var rootMeta gitexec.OID
	for _, e := range entries {
		n, isSlot := slotNumber(e.Name)
		if e.Name == "metadata.json" {
			rootMeta = e.OID
		}
		if !isSlot || e.Type != "tree" {
			continue
		}
		slots++
		tomb, ok, err := rw.tombstone(ctx, id, e.OID)
		if err != nil {
			return "", err
		}
		if ok {
			forgotten[n] = true
			if tomb != e.OID {
				changes = append(changes, gitexec.TreeChange{Path: e.Name, Mode: "040000", OID: tomb})
			}
		}
	}
	if len(forgotten) > 0 && len(forgotten) == slots {
		changes = append(changes, gitexec.TreeChange{Path: "tasks", Delete: true})
	}
	if rootMeta != "" && len(forgotten) > 0 {
		c, err := rw.clearRootPaths(ctx, rootMeta, forgotten)
		if err != nil {
			return "", err
		}
		changes = append(changes, c...)
	}
	out := tree
	if len(changes) > 0 {
		if out, err = rw.repo.BuildTree(ctx, tree, changes); err != nil {
			return "", err
		}
	}
	rw.trees[tree] = out
	return out, nil
}

// tombstone is the tombstone tree of a slot whose session the ledger lists for checkpoint id;
// ok=false when the slot is not listed (or its metadata is unreadable, so no session is known).
func (rw *historyRewriter) tombstone(ctx context.Context, id string, slot gitexec.OID) (gitexec.OID, bool, error) {
	if t, ok := rw.tombs[slot]; ok {
		return t, true, nil
	}
	data, ok, err := rw.repo.ReadBlob(ctx, string(slot)+":metadata.json")
	if err != nil || !ok {
		return "", false, err
	}
	var m CommittedMetadata
	if json.Unmarshal(data, &m) != nil {
		return "", false, nil
	}
	at, listed := rw.ledger.Has(id, m.SessionID)
	if !listed {
		return "", false, nil
	}
	if m.ForgottenAt == nil {
		m = Tombstone(m, at)
	}
	if data, err = MarshalJSON(m); err != nil {
		return "", false, err
	}
	blobs, err := rw.repo.HashBlobs(ctx, [][]byte{data})
	if err != nil {
		return "", false, err
	}
	if rw.empty == "" {
		if rw.empty, err = rw.repo.EmptyTree(ctx); err != nil {
			return "", false, err
		}
	}
	t, err := rw.repo.BuildTree(ctx, rw.empty, []gitexec.TreeChange{{Path: "metadata.json", Mode: "100644", OID: blobs[0]}})
	if err != nil {
		return "", false, err
	}
	if rw.tombs == nil {
		rw.tombs = map[gitexec.OID]gitexec.OID{}
	}
	rw.tombs[slot] = t
	return t, true, nil
}

// clearRootPaths blanks the prompt and context paths of the forgotten slots in a checkpoint's
// root summary (the files are gone); a summary it cannot read is left as it is.
func (rw *historyRewriter) clearRootPaths(ctx context.Context, oid gitexec.OID, forgotten map[int]bool) ([]gitexec.TreeChange, error) {
	data, _, err := rw.repo.ReadBlob(ctx, string(oid))
	if err != nil {
		return nil, err
	}
	var s CheckpointSummary
	if json.Unmarshal(data, &s) != nil || len(s.Sessions) == 0 {
		return nil, nil
	}
	dirty := false
	for n := range forgotten {
		if n < len(s.Sessions) && (s.Sessions[n].Prompt != "" || s.Sessions[n].Context != "") {
			s.Sessions[n].Prompt, s.Sessions[n].Context = "", ""
			dirty = true
		}
	}
	if !dirty {
		return nil, nil
	}
	if data, err = MarshalJSON(s); err != nil {
		return nil, err
	}
	blobs, err := rw.repo.HashBlobs(ctx, [][]byte{data})
	if err != nil {
		return nil, err
	}
	return []gitexec.TreeChange{{Path: "metadata.json", Mode: "100644", OID: blobs[0]}}, nil
}

// slotNumber parses a slot directory name ("0", "1", ...).
func slotNumber(name string) (int, bool) {
	n := 0
	if name == "" || len(name) > 1 && name[0] == '0' {
		return 0, false
	}
	for _, c := range name {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
