package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/redact"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/gitexec"
)

// sessionTranscript is the transcript used for condensation: the live file's complete lines,
// else the copy on the session's shadow tip.
func (en *Engine) sessionTranscript(ctx context.Context, s session.State) (tsource, events.Transcript, error) {
	if t := en.turn; t != nil && s.TranscriptPath != "" && t.pos.Path == s.TranscriptPath {
		return t.transcript, t.pos, nil // the turn this hook ends: up to where it ends
	}
	// Only the part after what the hooks already read is scanned to find the position.
	rd := reader(s.AgentType)
	_, pos, err := scanPosition(rd, s.TranscriptPath, s.Recorder.Scanned)
	if err == nil && s.TranscriptPath != "" {
		if s.Phase.Normalize() == session.PhaseEnded {
			if src, end, ok := finalSource(rd, pos); ok {
				return src, end, nil
			}
		}
		return fileSource(s.TranscriptPath, pos.Offset).of(rd), pos, nil
	}
	if err == nil {
		err = errors.New("no transcript path")
	}
	tip := s.Recorder.LastShadowCommit
	if tip == "" {
		return tsource{}, pos, err
	}
	entries, ok, rerr := en.Repo.ReadTree(ctx, tip+":.entire/metadata/"+s.SessionID)
	if rerr != nil || !ok {
		return tsource{}, pos, err
	}
	blob, _, rerr := checkpoint.ReadTranscript(ctx, en.Repo, entries, s.AgentType)
	if rerr != nil || blob == nil {
		return tsource{}, pos, err
	}
	if _, ok := rd.(agent.Positioner); ok {
		// Its positions need not be lines (a Gemini CLI document, whole up to its closing
		// brace): its reader tells where the copy ends and how many records that makes.
		sc := rd.ScanBytes(blob)
		blob = blob[:sc.EndOffset]
		pos = events.Transcript{Lines: sc.Lines, Offset: sc.EndOffset}
		return memSource(blob).of(rd), pos, nil
	}
	end := bytes.LastIndexByte(blob, '\n') + 1
	blob = blob[:end]
	pos = events.Transcript{Lines: bytes.Count(blob, []byte{'\n'}), Offset: int64(end)}
	return memSource(blob).of(rd), pos, nil
}

// relFiles makes transcript paths repo-relative, dropping those outside the repository. Relative
// paths are taken from cwd, the agent's working directory as its transcript names it, when that
// lies inside the repository, and from the top level otherwise (none named, or a transcript
// written at another path: a container, a moved checkout).
func (en *Engine) relFiles(cwd string, paths []string) []string {
	base := en.Repo.TopLevel
	if cwd != "" {
		if rel, ok := agent.RepoRelative(base, base, cwd); ok {
			base = filepath.Join(base, filepath.FromSlash(rel))
		}
	}
	var out []string
	for _, p := range paths {
		if rel, ok := agent.RepoRelative(en.Repo.TopLevel, base, p); ok {
			out = append(out, rel)
		}
	}
	return out
}

// slotContent renders the transcript, prompt.txt and context.md of a committed slot (spec
// §3.6), redacted (spec §12.1), reusing the session's stored transcript chunks.
func (en *Engine) slotContent(ctx context.Context, s session.State, transcript tsource, prompts []string) (slotWrite, error) {
	var w slotWrite
	if transcript.valid() {
		cache := s.Recorder.Chunks
		if s.Recorder.ChunksPath != s.TranscriptPath {
			cache = nil
		}
		st, err := en.storeTranscript(ctx, transcript, cache)
		if err != nil {
			return w, err
		}
		w.transcript = &st
	}
	if len(prompts) > 0 {
		// Each prompt is redacted before context.md cuts it at 500 bytes: what a cut leaves of
		// a secret is no longer one that redaction finds.
		redacted := make([]string, len(prompts))
		for i, p := range prompts {
			redacted[i] = redact.String(p)
		}
		w.prompts = []byte(redact.String(agent.PromptsText(prompts)))
		w.context = []byte(redact.String(agent.CommittedContext(redacted)))
	}
	return w, nil
}

func chunkRefs(w slotWrite) []events.ChunkRef {
	if w.transcript == nil {
		return nil
	}
	return w.transcript.cache
}

// Condense writes the session into the checkpoint named by the commit's trailer, then carries
// its uncommitted files forward onto a shadow branch for the new HEAD. An auto-commit turn's
// checkpoint carries nothing forward: manual-commit work it leaves has its branch follow HEAD.
func (en *Engine) Condense(ctx context.Context, s session.State, f session.Condense) ([]events.Event, error) {
	c := f.Commit
	en.Repo.PrestartWrites() // git starts up while the checkpoint is computed
	// The attribution's reads and diffs run while the transcript is condensed and the record's
	// tip is read (writeSlot waits for it).
	changed := make([]gitexec.DiffEntry, 0, len(c.Files))
	for _, p := range c.Files {
		changed = append(changed, gitexec.DiffEntry{Path: p})
	}
	computed := make(chan json.RawMessage, 1)
	go func(s session.State) { computed <- en.initialAttribution(ctx, s, c.Commit, changed) }(s) // s as it is now: the scan's start changes below
	attribution := sync.OnceValue(func() json.RawMessage { return <-computed })
	defer attribution() // never leave it running past the condensation
	data, pos, err := en.sessionTranscript(ctx, s)
	if err != nil {
		en.Log.Warn("condense without transcript", "session_id", s.SessionID, "error", err.Error())
		data = tsource{}
	}
	if a := f.Auto; a != nil {
		end := a.To
		if a.Task != nil {
			end = a.Task.Transcript // where the subagent's end (or step) read it
		}
		data, pos = upToTurnEnd(data, pos, end)
	}
	data = data.memoized() // the files' scan and the token usage's are most often one
	foreignCondensed(&s, data)
	if st := f.Start; st != nil && st.Path == pos.Path && st.Offset <= pos.Offset && st.Lines <= pos.Lines {
		// A turn's auto-commit: its transcript begins before the turn's prompt (spec §5), a
		// position in offset and records both (a Gemini CLI document counts messages).
		s.CheckpointTranscriptStart, s.Recorder.CondensedOffset = st.Lines, st.Offset
	}
	if data.valid() && s.Recorder.CondensedOffset > data.end {
		// Rewritten shorter since the last condensation (compacted, cut): the scan reads it
		// from its start, and the checkpoint's scope is the same, not a start past its end.
		s.CheckpointTranscriptStart, s.Recorder.CondensedOffset = 0, 0
	}
	fresh := data.scan(s.Condensed())
	files := checkpointFiles(s.FilesTouched, en.relFiles(cmp.Or(fresh.Cwd, s.Recorder.AgentCwd), fresh.ModifiedFiles), c.Files, c.Claimed)
	var prompts []string
	if f.Auto == nil {
		prompts = sessionPrompts(s, data, pos.Path)
	}
	w, err := en.slotContent(ctx, s, data, prompts)
	if err != nil {
		return nil, err
	}
	w.commit, w.copied = c.Files, c.Copied
	strategy := checkpoint.StrategyManualCommit
	if c.Strategy != "" {
		strategy = c.Strategy
	}
	w.meta = checkpoint.CommittedMetadata{
		CLIVersion:                  Version,
		CheckpointID:                c.CheckpointID,
		SessionID:                   s.SessionID,
		Strategy:                    strategy,
		CreatedAt:                   en.Now().UTC(),
		Branch:                      c.Branch,
		CheckpointsCount:            s.CheckpointCount,
		FilesTouched:                session.MergeSorted(nil, files),
		Agent:                       agentOrDefault(s.AgentType),
		TurnID:                      s.TurnID,
		TranscriptIdentifierAtStart: s.TranscriptIdentifierAtStart,
		CheckpointTranscriptStart:   s.CheckpointTranscriptStart,
		TranscriptLinesAtStart:      s.CheckpointTranscriptStart,
		TranscriptPath:              en.homeRelative(s.TranscriptPath),
		IsTask:                      c.ToolUseID != "",
		ToolUseID:                   c.ToolUseID,
	}
	if u := data.rangeUsage(s.Recorder.CondensedOffset, fresh); !u.IsZero() {
		w.meta.TokenUsage = &u
	}
	w.attribution = attribution
	var open *events.OpenCall
	w.meta.TokenUsageDelta, open = usageSince(data, s.Recorder.UsageFrom(), s.Recorder.UsageOpen)
	var task taskRecord
	switch {
	case f.Auto != nil && f.Auto.Task != nil:
		if task, err = en.autoTaskSlot(ctx, s.SessionID, data, s.Condensed(), f, &w); err != nil {
			return nil, err
		}
	case f.Auto != nil:
		autoTurnSlot(s.SessionID, data, pos.Path, s.Condensed(), f, &w)
	}
	msg := "Checkpoint: " + c.CheckpointID + "\n\n"
	if task.subject != "" {
		msg += task.subject + "\n\n"
	}
	msg += "Entire-Session: " + s.SessionID + "\nEntire-Strategy: " + strategy + "\nEntire-Agent: " + w.meta.Agent + "\n"
	if c.Strategy == "" {
		msg += "Ephemeral-branch: " + session.ShadowBranch(s.BaseCommit, s.WorktreeID) + "\n"
	}
	if task.subject != "" {
		msg += "Entire-Metadata-Task: " + path.Join(checkpoint.CheckpointPath(c.CheckpointID), "tasks", f.Auto.Task.ToolUseID, task.named) + "\n"
	}
	var slot int
	var del *gitexec.RefUpdate
	left := session.ManualWorkLeft(s, f)
	if left == nil {
		del = en.rideAlong(ctx, s, c)
	}
	metaCommit, rode, err := en.updateMetadataBranchWith(ctx, msg, del, func(tip gitexec.OID) ([]gitexec.TreeChange, error) {
		changes, n, err := en.writeSlot(ctx, tip, w)
		slot = n
		return changes, err
	})
	if err != nil {
		return nil, fmt.Errorf("condense %s: %w", c.CheckpointID, err)
	}
	if rode {
		if en.deleted == nil {
			en.deleted = map[string]gitexec.OID{}
		}
		en.deleted[string(del.Name)] = del.Old
	}
	crashPoint("condense:metadata-written")
	fmt.Fprintf(en.Stderr, "[entire] Condensed session %s: %s (%d checkpoints)\n", Short(s.SessionID, 8), c.CheckpointID, w.meta.CheckpointsCount)
	out := []events.Event{en.Event(events.CheckpointCondensed{
		CheckpointID: c.CheckpointID, MetadataCommit: string(metaCommit), UserCommit: c.Commit,
		Slot: slot, Files: w.meta.FilesTouched, Provisional: f.Provisional, Transcript: pos,
		Chunks: chunkRefs(w), UsageOpen: open,
	})}
	if left != nil && s.BaseCommit != c.Commit {
		// Manual-commit work the auto-commit turn left: its shadow branch follows HEAD.
		moved, err := en.migrateShadow(ctx, s, session.MigrateShadow{OldBase: s.BaseCommit, NewBase: c.Commit})
		if err != nil {
			en.Log.Warn("move the shadow branch of manual-commit work", "session_id", s.SessionID, "error", err.Error())
			return append(out, en.Event(events.EffectFailed{Effect: "migrate-shadow", Error: err.Error()})), nil
		}
		return append(out, moved...), nil
	}
	cf, err := en.carryForward(ctx, s, c, f.CarryForward)
	if err != nil {
		en.Log.Warn("carry forward failed", "session_id", s.SessionID, "error", err.Error())
		out = append(out, en.Event(events.EffectFailed{Effect: "carry-forward", Error: err.Error()}))
	} else if cf != nil {
		out = append(out, en.Event(*cf))
	}
	return out, nil
}

// rideAlong is the deletion of the shadow branch this condensation empties, to go in the same
// ref transaction as the metadata commit (one update-ref less per linking commit), or nil. It
// is offered only when the outcome is certain: the session's only pending condensation, the
// commit moves its base, the branch is at the session's last checkpoint, and no other session
// of this worktree is on that branch (then the DeleteShadow effect decides, as always). The
// reducer's DeleteShadow effect still follows and records the deletion (Engine.deleted).
func (en *Engine) rideAlong(ctx context.Context, s session.State, c events.GitCommitted) *gitexec.RefUpdate {
	tip := gitexec.OID(s.Recorder.LastShadowCommit)
	if s.BaseCommit == c.Commit || tip == "" || len(s.Recorder.Pending) != 1 {
		return nil
	}
	// A live peer of this worktree on the same branch may still need it.
	branch := session.ShadowBranch(s.BaseCommit, s.WorktreeID)
	shared := false
	if err := en.eachPeer(s.SessionID, func(b session.Brief) {
		shared = shared || session.ShadowBranch(b.BaseCommit, s.WorktreeID) == branch
	}); err != nil || shared {
		return nil
	}
	ref := gitexec.BranchRef(branch)
	if now, ok, err := en.Repo.ResolveRef(ctx, ref); err != nil || !ok || now != tip {
		return nil
	}
	return &gitexec.RefUpdate{Name: ref, Old: tip}
}

// eachPeer gives fn the brief of every live session of this worktree but self, decoding no
// session's state. The sessions of one worktree share its WorktreeID, so a brief's base
// commit names its shadow branch.
func (en *Engine) eachPeer(self string, fn func(session.Brief)) error {
	head := en.head()
	_, err := en.Store.ListOthersWhere(self, func(b session.Brief) bool {
		if b.Live(en.Repo.TopLevel, string(head)) {
			fn(b)
		}
		return false
	})
	return err
}

// carryForward snapshots the files the reducer decided are still uncommitted agent work
// (session.Condense.CarryForward) onto the shadow branch of the new HEAD.
func (en *Engine) carryForward(ctx context.Context, s session.State, c events.GitCommitted, remaining []string) (*events.CarriedForward, error) {
	if len(remaining) == 0 {
		return nil, nil
	}
	return en.carryOnto(ctx, s, c.Commit, remaining, nil)
}

// followCommit performs session.FollowCommit: the files of a session the commit did not condense
// are snapshotted onto the new HEAD's shadow branch with the session's metadata from its last
// checkpoint (its transcript is not condensed anywhere yet), rather than the old branch renamed.
func (en *Engine) followCommit(ctx context.Context, s session.State, f session.FollowCommit) ([]events.Event, error) {
	if len(f.Files) == 0 {
		return []events.Event{en.Event(events.CarriedForward{NewBase: f.NewBase})}, nil
	}
	overlay, err := en.lastOverlay(ctx, s)
	if err != nil {
		return nil, err
	}
	cf, err := en.carryOnto(ctx, s, f.NewBase, f.Files, overlay)
	if err != nil {
		return nil, err
	}
	cf.NewBase = f.NewBase
	return []events.Event{en.Event(*cf)}, nil
}

// carryOnto commits the worktree's content of files onto HEAD's tree as the next checkpoint of
// base's shadow branch (spec §2.3, carry-forward), with the session's metadata overlay when
// given. A tree equal to the branch's tip records the tip.
func (en *Engine) carryOnto(ctx context.Context, s session.State, base string, files []string, overlay *gitexec.TreeChange) (*events.CarriedForward, error) {
	changes, err := en.WorktreeChanges(ctx, files)
	if err != nil {
		return nil, err
	}
	headTree, err := en.treeOf(ctx, base)
	if err != nil {
		return nil, err
	}
	meta := ""
	if overlay != nil {
		changes = append(changes, *overlay)
		meta = overlay.Path
	}
	branch := session.ShadowBranch(base, s.WorktreeID)
	msg := "carry forward: uncommitted session files\n\nEntire-Metadata: " + meta + "\nEntire-Session: " + s.SessionID +
		"\nEntire-Strategy: " + checkpoint.StrategyManualCommit + "\n"
	commit, err := en.commitShadow(ctx, branch, headTree, changes, msg, s.SessionID, false)
	if err == nil && commit == "" {
		commit, _, err = en.Repo.ResolveRef(ctx, gitexec.BranchRef(branch))
	}
	if err != nil {
		return nil, fmt.Errorf("carry forward onto %s: %w", branch, err)
	}
	return &events.CarriedForward{Branch: branch, Commit: string(commit), Files: files}, nil
}

// lastOverlay is the session's metadata directory on its last checkpoint, as a subtree to
// keep, or nil when it has none there.
func (en *Engine) lastOverlay(ctx context.Context, s session.State) (*gitexec.TreeChange, error) {
	if s.Recorder.LastShadowCommit == "" {
		return nil, nil
	}
	entries, ok, err := en.Repo.ReadTree(ctx, s.Recorder.LastShadowCommit+":.entire/metadata")
	if err != nil || !ok {
		return nil, err
	}
	for _, e := range entries {
		if e.Name == s.SessionID && e.Type == "tree" {
			return &gitexec.TreeChange{Path: ".entire/metadata/" + e.Name, Mode: "040000", OID: e.OID}, nil
		}
	}
	return nil, nil
}

// carryFacts gathers what the reducer's carry-forward decision needs about a linked commit
// (events.GitCommitted Diverged and Settled; TurnEdited comes from commitFacts), in a few
// batched git reads.
func (en *Engine) carryFacts(ctx context.Context, s session.State, d events.GitCommitted) (events.GitCommitted, error) {
	candidates := s.FilesTouched
	if len(candidates) == 0 {
		candidates = d.TurnEdited // commitFacts read them from the transcript
	}
	if len(candidates) == 0 {
		return d, nil
	}
	inCommit := map[string]bool{}
	for _, p := range d.Files {
		inCommit[p] = true
	}
	var committed []string
	for _, p := range candidates {
		if inCommit[p] {
			committed = append(committed, p)
		}
	}
	headBlobs, err := en.blobOIDs(ctx, d.Commit, candidates)
	if err != nil {
		return d, err
	}
	diverged := map[string]bool{}
	if len(committed) > 0 && s.Recorder.LastShadowCommit != "" {
		shadowBlobs, err := en.blobOIDs(ctx, s.Recorder.LastShadowCommit, committed)
		if err != nil {
			return d, err
		}
		for _, p := range committed {
			if sb, ok := shadowBlobs[p]; ok && sb != headBlobs[p] {
				diverged[p] = true
				d.Diverged = append(d.Diverged, p)
			}
		}
	}
	var rest []string
	for _, p := range candidates {
		if !inCommit[p] || diverged[p] {
			rest = append(rest, p)
		}
	}
	if len(rest) == 0 {
		return d, nil
	}
	// A file whose worktree content is the commit's has nothing left to carry (it was committed
	// by an earlier, unlinked commit, or the user settled it), nor has one that neither holds
	// and no stash entry holds (the agent created and then removed it; a stashed file stays
	// tracked by name, seed scenario 5): carrying it would be fake work.
	changes, err := en.WorktreeChanges(ctx, rest)
	if err != nil {
		return d, err
	}
	var gone []string
	for _, ch := range changes {
		head, inHead := headBlobs[ch.Path]
		switch {
		case !ch.Delete && inHead && head == ch.OID:
			d.Settled = append(d.Settled, ch.Path)
		case ch.Delete && !inHead:
			gone = append(gone, ch.Path)
		}
	}
	if len(gone) > 0 {
		stashed := en.stashedPaths(ctx, gone)
		for _, p := range gone {
			if !stashed[p] {
				d.Settled = append(d.Settled, p)
			}
		}
	}
	// A submodule is no file to hash: it is settled when its checkout is the commit it has.
	for _, p := range rest {
		if oid, ok := headBlobs[p]; ok && en.submoduleHead(ctx, p) == oid {
			d.Settled = append(d.Settled, p)
		}
	}
	return d, nil
}

// submoduleHead is the commit checked out in the submodule at path p, or "" when p is not a
// submodule's working tree.
func (en *Engine) submoduleHead(ctx context.Context, p string) gitexec.OID {
	dir := filepath.Join(en.Repo.TopLevel, filepath.FromSlash(p))
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
		return ""
	}
	out, err := en.Repo.Run(ctx, nil, "-C", dir, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return gitexec.OID(strings.TrimSpace(string(out)))
}

// blobOIDs looks up the blobs of paths in a commit, through the cat-file process.
func (en *Engine) blobOIDs(ctx context.Context, rev string, paths []string) (map[string]gitexec.OID, error) {
	oids, err := en.Repo.PathOIDs(ctx, rev, paths)
	if err != nil {
		return nil, fmt.Errorf("list blobs of %s: %w", Short(rev, 12), err)
	}
	return oids, nil
}

// finalize rewrites each provisional checkpoint of the turn with the complete transcript,
// prompts and context (seed PR 325). IDs that fail stay pending; an empty value replaces a
// provisional one rather than leaving it behind.
func (en *Engine) finalize(ctx context.Context, s session.State, f session.Finalize) ([]events.Event, error) {
	data, pos, err := en.sessionTranscript(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("finalize: %w", err)
	}
	w, err := en.slotContent(ctx, s, data, sessionPrompts(s, data, pos.Path))
	if err != nil {
		return nil, fmt.Errorf("finalize: %w", err)
	}
	res := events.CheckpointsFinalized{Transcript: pos, Chunks: chunkRefs(w), ScopeKept: f.KeepScope}
	// Lines written after the turn's last commit belong to its last checkpoint's usage delta,
	// unless work still waiting to be condensed (a carried-forward file) will count them.
	var extra *events.TokenUsage
	if !f.KeepScope {
		extra, res.UsageOpen = usageSince(data, s.Recorder.UsageFrom(), s.Recorder.UsageOpen)
	}
	for i, id := range f.CheckpointIDs {
		var add *events.TokenUsage
		if i == len(f.CheckpointIDs)-1 {
			add = extra
		}
		if err := en.finalizeOne(ctx, s.SessionID, id, w, add); err != nil {
			if res.Failed == nil {
				res.Failed = map[string]string{}
			}
			res.Failed[id] = err.Error()
			en.Log.Warn("finalize checkpoint failed", "session_id", s.SessionID, "checkpoint_id", id, "error", err.Error())
			continue
		}
		res.Finalized = append(res.Finalized, id)
	}
	return []events.Event{en.Event(res)}, nil
}

func (en *Engine) finalizeOne(ctx context.Context, sessionID, id string, w slotWrite, addUsage *events.TokenUsage) error {
	_, err := en.updateMetadataBranch(ctx, "Finalize transcript for Checkpoint: "+id, func(tip gitexec.OID) ([]gitexec.TreeChange, error) {
		sum, slots, ok, err := en.checkpointSlots(ctx, tip, id)
		if err != nil {
			return nil, err
		}
		if !ok || len(slots) == 0 {
			return nil, fmt.Errorf("checkpoint %s not found", id)
		}
		slot := len(slots) - 1
		for i, m := range slots {
			if m.SessionID == sessionID {
				slot = i
				break
			}
		}
		cp := checkpoint.CheckpointPath(id)
		dir := fmt.Sprintf("%s/%d", cp, slot)
		existing, err := en.slotEntries(ctx, tip, dir)
		if err != nil {
			return nil, err
		}
		var blobs []NamedBlob
		var stored []gitexec.TreeChange
		if w.transcript != nil {
			blobs = append(blobs, NamedBlob{"content_hash.txt", w.transcript.hash})
			stored = w.transcript.files
		}
		replaced := map[string]bool{"prompt.txt": true, "context.md": true, "content_hash.txt": true}
		if w.prompts != nil {
			blobs = append(blobs, NamedBlob{"prompt.txt", w.prompts}, NamedBlob{"context.md", w.context})
		}
		if addUsage != nil {
			m := slots[slot]
			d := *addUsage
			if m.TokenUsageDelta != nil {
				d = m.TokenUsageDelta.Add(d)
			}
			m.TokenUsageDelta = &d
			data, err := checkpoint.MarshalJSON(m)
			if err != nil {
				return nil, err
			}
			blobs = append(blobs, NamedBlob{"metadata.json", data})
		}
		var changes []gitexec.TreeChange
		written := map[string]bool{}
		for _, b := range blobs {
			written[b.Name] = true
		}
		for _, f := range stored {
			written[f.Path] = true
			changes = append(changes, gitexec.TreeChange{Path: dir + "/" + f.Path, Mode: f.Mode, OID: f.OID})
		}
		for _, e := range existing {
			if (replaced[e.Name] || checkpoint.IsTranscriptChunk(e.Name)) && !written[e.Name] {
				changes = append(changes, gitexec.TreeChange{Path: dir + "/" + e.Name, Delete: true})
			}
		}
		adds, err := en.BlobChanges(ctx, dir, blobs)
		if err != nil {
			return nil, err
		}
		changes = append(changes, adds...)
		// Keep the root's paths true to the files now present.
		files := sum.Sessions[slot]
		want := checkpoint.SessionFiles{Metadata: files.Metadata, Transcript: files.Transcript, ContentHash: files.ContentHash}
		if w.prompts != nil {
			want.Prompt, want.Context = "/"+dir+"/prompt.txt", "/"+dir+"/context.md"
		}
		if want != files {
			sum.Sessions[slot] = want
			root, err := checkpoint.MarshalJSON(sum)
			if err != nil {
				return nil, err
			}
			rc, err := en.BlobChanges(ctx, cp, []NamedBlob{{"metadata.json", root}})
			if err != nil {
				return nil, err
			}
			changes = append(changes, rc...)
		}
		return changes, nil
	})
	return err
}

func agentOrDefault(a string) string {
	if a == "" {
		return "Agent"
	}
	return a
}

// Short is s cut to at most n bytes (IDs and hashes in messages).
func Short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// stashedPaths are those of paths an entry of `git stash` holds, in its work-tree commit or,
// for a stash made with -u, in its untracked files' commit (its third parent). The entries are
// read from the stash's reflog.
func (en *Engine) stashedPaths(ctx context.Context, paths []string) map[string]bool {
	data, err := os.ReadFile(filepath.Join(en.Repo.CommonDir, "logs", "refs", "stash"))
	if err != nil {
		return nil
	}
	held := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line) // <old> <new> <committer> <time> <zone>\t<message>
		if len(f) < 2 {
			continue
		}
		for _, rev := range []string{f[1], f[1] + "^3"} {
			oids, err := en.Repo.PathOIDs(ctx, rev, paths)
			if err != nil {
				continue
			}
			for p := range oids {
				held[p] = true
			}
		}
	}
	return held
}

// checkpointFiles is a checkpoint's files_touched: the session's files that this commit
// contains, so that a commit splitting the session's work lists only its own part. The
// session's files are those its checkpoints touched and those the transcript shows edited
// since its last condensation (a mid-turn commit of the turn's work, before its Stop). A
// session whose files say nothing of the commit (the agent committed what a shell command
// wrote) lists the commit's files, less those another session touched (claimed).
func checkpointFiles(touched, edited, committed, claimed []string) []string {
	if own := session.Intersect(session.MergeSorted(touched, edited), committed); len(own) > 0 {
		return own
	}
	if len(touched) > 0 {
		return touched
	}
	others := map[string]bool{}
	for _, f := range claimed {
		others[f] = true
	}
	return slices.DeleteFunc(slices.Clone(committed), func(f string) bool { return others[f] })
}

// usageSince is the token usage of the transcript from position from on, or nil, less what
// the checkpoints before from counted of open, the response open there; next is the response
// open at the transcript's end.
func usageSince(data tsource, from events.Transcript, open *events.OpenCall) (_ *events.TokenUsage, next *events.OpenCall) {
	if !data.valid() {
		return nil, nil
	}
	sc := data.scan(from)
	if data.start(from.Offset) != from.Offset || (data.path != "" && sc.StartOffset != from.Offset) {
		open = nil // read from the start: the transcript is no longer the one open was left in
	}
	u, next := agent.ContinueUsage(data.rangeUsage(from.Offset, sc), sc, open)
	if u.IsZero() {
		return nil, next
	}
	return &u, next
}

// sessionPrompts are all user prompts of a transcript (spec §3.6): those already read by the
// hooks, plus any in the lines after that, so a long transcript is not parsed again. A state
// whose early prompts were left out of its snapshot (and not got back, see WithAllPrompts)
// reads them from the transcript again.
func sessionPrompts(s session.State, data tsource, path string) []string {
	if !data.valid() {
		return nil
	}
	sc := s.Recorder.Scanned
	if sc.Path != path || path == "" || sc.Offset > data.end || s.Recorder.PromptsOmitted > 0 {
		return data.scan(events.Transcript{}).Prompts
	}
	return append(slices.Clone(s.Recorder.Prompts), data.scan(sc).Prompts...)
}

// WithAllPrompts is the session's state with every prompt in it, for a checkpoint's
// prompt.txt: those its snapshot left out come back from its journal.
func WithAllPrompts(sess *session.Session) session.State {
	s := sess.State
	if all, ok := sess.AllPrompts(); ok {
		s.Recorder.Prompts, s.Recorder.PromptsOmitted = all, 0
	}
	return s
}
