package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/gitexec"
)

// turnFacts is what the turn-end handler learned from the transcript, reused by the effects.
type turnFacts struct {
	scan       agent.Scan // the turn's lines
	prompt     string     // the prompt the turn started with
	transcript tsource    // complete lines of the whole transcript, up to pos
	pos        events.Transcript
}

// FileMode is the git mode of a worktree file, or ok=false when it is not a file.
func FileMode(top, rel string) (string, bool) {
	fi, err := os.Lstat(filepath.Join(top, filepath.FromSlash(rel)))
	switch {
	case err != nil:
		return "", false
	case fi.Mode()&os.ModeSymlink != 0:
		return "120000", true
	case fi.IsDir():
		return "", false
	case fi.Mode()&0o111 != 0:
		return "100755", true
	}
	return "100644", true
}

// WorktreeChanges turns paths into tree changes from the worktree: present files are hashed
// (one git process for all), missing ones are deleted.
func (en *Engine) WorktreeChanges(ctx context.Context, paths []string) ([]gitexec.TreeChange, error) {
	if a := en.ahead; a != nil && slices.Equal(a.paths, paths) {
		en.ahead = nil
		<-a.done
		return a.changes, a.err
	}
	if a := en.ahead; a != nil && len(paths) > 0 && subset(paths, a.paths) {
		// Some of the dirty paths hashed ahead (an auto-commit's files): the rest may still
		// be asked for.
		<-a.done
		if a.err != nil {
			return nil, a.err
		}
		want := map[string]bool{}
		for _, p := range paths {
			want[p] = true
		}
		var out []gitexec.TreeChange
		for _, c := range a.changes {
			if want[c.Path] {
				out = append(out, c)
			}
		}
		return out, nil
	}
	return en.worktreeChanges(ctx, paths)
}

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	in := make(map[string]bool, len(b))
	for _, x := range b {
		in[x] = true
	}
	for _, x := range a {
		if !in[x] {
			return false
		}
	}
	return true
}

// worktreeAhead is a WorktreeChanges under way in the background.
type worktreeAhead struct {
	paths   []string
	done    chan struct{}
	changes []gitexec.TreeChange
	err     error
}

// startWorktreeChanges starts WorktreeChanges of paths in the background, and reads the trees
// of head along them into the repository's cache, for a Stop whose checkpoint is likely
// (the agent edited files): the files are hashed and the trees read while the turn is
// journaled and its effects decided. The blobs written are named by nothing until a
// checkpoint names them; a checkpoint of the same paths takes the result, and settleAhead
// waits for one nothing took.
func (en *Engine) startWorktreeChanges(ctx context.Context, head string, paths []string) {
	en.settleAhead()
	a := &worktreeAhead{paths: paths, done: make(chan struct{})}
	en.ahead = a
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = en.Repo.PathEntries(ctx, head, paths) // only warms the cache: errors show again where it is read
	}()
	go func() {
		a.changes, a.err = en.worktreeChanges(ctx, paths)
		wg.Wait()
		close(a.done)
	}()
}

// settleAhead waits for a WorktreeChanges started ahead that nothing took.
func (en *Engine) settleAhead() {
	if a := en.ahead; a != nil {
		en.ahead = nil
		<-a.done
	}
}

func (en *Engine) worktreeChanges(ctx context.Context, paths []string) ([]gitexec.TreeChange, error) {
	var changes []gitexec.TreeChange
	var present []string
	var modes []string
	for _, p := range paths {
		if checkpoint.IsInfrastructure(p) {
			continue
		}
		mode, ok := FileMode(en.Repo.TopLevel, p)
		if !ok {
			if _, err := os.Lstat(filepath.Join(en.Repo.TopLevel, filepath.FromSlash(p))); errors.Is(err, os.ErrNotExist) {
				changes = append(changes, gitexec.TreeChange{Path: p, Delete: true})
			}
			continue
		}
		present = append(present, p)
		modes = append(modes, mode)
	}
	if len(present) == 0 {
		return changes, nil
	}
	oids, err := en.Repo.HashFiles(ctx, present)
	if err != nil {
		return nil, fmt.Errorf("hash worktree files: %w", err)
	}
	for i, p := range present {
		changes = append(changes, gitexec.TreeChange{Path: p, Mode: modes[i], OID: oids[i]})
	}
	return changes, nil
}

// BlobChanges turns in-memory files into blob changes under dir. The blobs are deferred
// (gitexec.DeferBlobs): every blob of a checkpoint is written by one hash-object, started
// before the commit-tree that needs them.
func (en *Engine) BlobChanges(ctx context.Context, dir string, files []NamedBlob) ([]gitexec.TreeChange, error) {
	contents := make([][]byte, len(files))
	for i, f := range files {
		contents[i] = f.Data
	}
	oids := en.Repo.DeferBlobs(contents)
	out := make([]gitexec.TreeChange, len(files))
	for i, f := range files {
		out[i] = gitexec.TreeChange{Path: path.Join(dir, f.Name), Mode: "100644", OID: oids[i]}
	}
	return out, nil
}

// NamedBlob is an in-memory file to store as a blob under a tree directory.
type NamedBlob struct {
	Name string
	Data []byte
}

// shadowOverlay is the .entire/metadata/<session-id>/ overlay of spec §2.2.
func (en *Engine) shadowOverlay(s session.State, tf *turnFacts, subject string) []NamedBlob {
	prompts := tf.scan.Prompts
	if len(prompts) == 0 && tf.prompt != "" {
		prompts = []string{tf.prompt}
	}
	promptText := agent.PromptsText(prompts)
	summary := tf.scan.LastAssistant
	return []NamedBlob{
		{"prompt.txt", []byte(promptText)},
		{"summary.txt", []byte(summary)},
		{"context.md", []byte(agent.ShadowContext(s.SessionID, subject, promptText, summary, tf.scan.Actions))},
	}
}

// writeShadowCheckpoint snapshots the current worktree (HEAD's tree plus every changed path, so
// no stale or ghost file survives), the session's files put away since its last checkpoint
// (stashedFiles), and the session's metadata overlay onto the shadow branch.
func (en *Engine) writeShadowCheckpoint(ctx context.Context, s session.State, input events.Event, f session.WriteShadowCheckpoint) ([]events.Event, error) {
	te, _ := input.Data.(events.TurnEnded)
	head := te.Worktree.Head
	if head == "" {
		return []events.Event{en.Event(events.ShadowCheckpointSkipped{Reason: "repository has no commits yet", Transcript: te.Transcript})}, nil
	}
	tf := en.turn
	if tf == nil {
		return nil, errors.New("turn facts missing")
	}
	st, err := en.dirtyStatus(ctx)
	if err != nil {
		return nil, err
	}
	changes, err := en.WorktreeChanges(ctx, statusPaths(st))
	if err != nil {
		return nil, err
	}
	away, err := en.stashedFiles(ctx, s, head, statusPaths(st), en.relFiles(cmp.Or(tf.scan.Cwd, s.Recorder.AgentCwd), tf.scan.ModifiedFiles))
	if err != nil {
		return nil, err
	}
	changes = append(changes, away...)
	lastPrompt := tf.prompt
	if n := len(tf.scan.Prompts); n > 0 {
		lastPrompt = tf.scan.Prompts[n-1]
	}
	subject := agent.CommitSubject(lastPrompt)
	metaDir := ".entire/metadata/" + s.SessionID
	overlay, err := en.BlobChanges(ctx, metaDir, en.shadowOverlay(s, tf, subject))
	if err != nil {
		return nil, err
	}
	changes = append(changes, overlay...)
	stored, err := en.storeRawTranscript(ctx, tf.transcript, shadowChunkCache(s, te.Transcript.Path))
	if err != nil {
		return nil, err
	}
	for _, f := range stored.files {
		f.Path = metaDir + "/" + f.Path
		changes = append(changes, f)
	}
	headTree, err := en.treeOf(ctx, head)
	if err != nil {
		return nil, err
	}
	msg := subject + "\n\nEntire-Metadata: " + metaDir + "\nEntire-Session: " + s.SessionID +
		"\nEntire-Strategy: " + checkpoint.StrategyManualCommit + "\n"
	branch := session.ShadowBranch(head, s.WorktreeID)
	res, err := en.commitShadow(ctx, branch, headTree, changes, msg, s.SessionID, f.Reset)
	if err != nil {
		return nil, err
	}
	crashPoint("shadow:written")
	if res == "" {
		fmt.Fprintln(en.Stderr, "Skipped checkpoint (no changes since last checkpoint)")
		return []events.Event{en.Event(events.ShadowCheckpointSkipped{Reason: "no changes since last checkpoint", Transcript: te.Transcript})}, nil
	}
	return []events.Event{en.Event(events.ShadowCheckpointWritten{
		Branch: branch, Commit: string(res), BaseCommit: head, Files: f.Files, Reset: f.Reset,
		Transcript: te.Transcript, Chunks: stored.cache,
	})}, nil
}

// commitShadow commits a checkpoint onto a shadow branch, retrying the compare-and-swap when
// another process moved the branch meanwhile. It returns "" when nothing changed.
func (en *Engine) commitShadow(ctx context.Context, branch string, headTree gitexec.OID, changes []gitexec.TreeChange, msg, sessionID string, reset bool) (gitexec.OID, error) {
	var rt gitexec.RefRetry
	for rt.Next() {
		commit, err := en.commitShadowOnce(ctx, branch, headTree, changes, msg, sessionID, reset)
		if !rt.Moved(err) {
			return commit, err
		}
	}
	return "", rt.Err("update " + branch)
}

// commitShadowOnce builds the checkpoint tree on top of HEAD's tree, keeps the other sessions'
// overlays from the current tip (unless resetting), and moves the branch with compare-and-swap.
// It returns "" when the tree equals the tip's (nothing to record).
func (en *Engine) commitShadowOnce(ctx context.Context, branch string, headTree gitexec.OID, changes []gitexec.TreeChange, msg, sessionID string, reset bool) (gitexec.OID, error) {
	ref := gitexec.BranchRef(branch)
	tip, exists, err := en.Repo.ResolveRef(ctx, ref)
	if err != nil {
		return "", err
	}
	all := changes
	if exists {
		// Other sessions' overlays survive even a reset: their work is not ours to drop. A
		// branch that no recorded session owns is an orphan: start it afresh (spec §1.1).
		others, owned, err := en.otherOverlays(ctx, string(tip), sessionID)
		if err != nil {
			return "", err
		}
		if !owned {
			reset = true
		}
		all = append(append([]gitexec.TreeChange(nil), others...), changes...)
	}
	var parents []gitexec.OID
	var tipTree gitexec.OID // a tree equal to the tip's records nothing
	if exists {
		if tipTree, err = en.treeOf(ctx, string(tip)); err != nil {
			return "", err
		}
		if !reset {
			parents = []gitexec.OID{tip}
		}
	}
	_, commit, err := en.Repo.BuildCommit(ctx, headTree, all, parents, msg, tipTree)
	if err != nil {
		return "", fmt.Errorf("commit shadow checkpoint: %w", err)
	}
	if commit == "" {
		return "", nil
	}
	var old gitexec.OID
	if exists {
		old = tip
	}
	if err := en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: ref, New: commit, Old: old}}); err != nil {
		return "", err
	}
	return commit, nil
}

// otherOverlays are the metadata directories of other recorded sessions on the shadow tip,
// kept as subtrees so that concurrent sessions' checkpoints interleave on one branch. owned
// reports whether any recorded session (this one included) has work on the branch; overlays of
// sessions without state are dropped.
func (en *Engine) otherOverlays(ctx context.Context, tip, sessionID string) (others []gitexec.TreeChange, owned bool, err error) {
	live, err := en.Store.IDs()
	if err != nil {
		return nil, false, err
	}
	isLive := map[string]bool{}
	for _, id := range live {
		isLive[id] = true
	}
	if msg, err := en.Repo.CommitMessage(ctx, tip); err == nil && isLive[checkpoint.TrailerValue(msg, "Entire-Session")] {
		owned = true
	}
	entries, ok, err := en.Repo.ReadTree(ctx, tip+":.entire/metadata")
	if err != nil || !ok {
		return nil, owned, err
	}
	for _, e := range entries {
		if !isLive[e.Name] || e.Type != "tree" {
			continue
		}
		owned = true
		if e.Name != sessionID {
			others = append(others, gitexec.TreeChange{Path: ".entire/metadata/" + e.Name, Mode: "040000", OID: e.OID})
		}
	}
	return others, owned, nil
}

// migrateShadow renames the shadow branch of the old base to the new base (spec §1.1), so the
// session continues with its checkpoints after HEAD moved without condensing it.
func (en *Engine) migrateShadow(ctx context.Context, s session.State, f session.MigrateShadow) ([]events.Event, error) {
	res := events.ShadowBranchMigrated{NewBase: f.NewBase}
	if f.OldBase == "" || f.NewBase == "" {
		return []events.Event{en.Event(res)}, nil
	}
	from, to := session.ShadowBranch(f.OldBase, s.WorktreeID), session.ShadowBranch(f.NewBase, s.WorktreeID)
	if from == to || s.Recorder.LastShadowCommit == "" {
		// A session with no checkpoint of its own only takes the new base: the branch, if
		// any, is other sessions', whose states still name it.
		return []events.Event{en.Event(res)}, nil
	}
	var rt gitexec.RefRetry
	for rt.Next() {
		tip, ok, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(from))
		if err != nil {
			return nil, err
		}
		if !ok {
			return []events.Event{en.Event(res)}, nil
		}
		target, exists, err := en.Repo.ResolveRef(ctx, gitexec.BranchRef(to))
		if err != nil {
			return nil, err
		}
		next := tip
		if exists {
			// Another session already has a branch for the new base: this branch's history
			// joins it (a commit of both tips, with the target's tree and no trailer, which
			// readers skip), so that its checkpoints stay rewind points and the sessions that
			// condense there delete it, rather than leaving this one behind for no one.
			tree, err := en.Repo.CommitTreeOID(ctx, string(target))
			if err != nil {
				return nil, err
			}
			if next, err = en.Repo.CommitTree(ctx, tree, []gitexec.OID{target, tip}, "Join shadow branch "+from); err != nil {
				return nil, err
			}
		}
		err = en.Repo.UpdateRefs(ctx, []gitexec.RefUpdate{
			{Name: gitexec.BranchRef(to), New: next, Old: target},
			{Name: gitexec.BranchRef(from), Old: tip},
		})
		if rt.Moved(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		res.From, res.To = from, to
		return []events.Event{en.Event(res)}, nil
	}
	return nil, rt.Err("migrate " + from)
}

// shadowChunkCache is the cache of raw transcript chunks already on the shadow branch, valid
// only for the same transcript file.
func shadowChunkCache(s session.State, path string) []events.ChunkRef {
	if s.Recorder.ShadowChunksPath != path {
		return nil
	}
	return s.Recorder.ShadowChunks
}
