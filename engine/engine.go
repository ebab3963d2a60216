// Package engine turns hook events into git work: it loads a session (snapshot + journal tail),
// asks the pure reducer what an event means, performs the resulting effects through gitexec,
// and appends the input event and each effect's result to the session's journal.
package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/gitexec"
)

// AgentClaudeCode is the display type stored for Claude Code sessions.
const AgentClaudeCode = "Claude Code"

// StrategyManualCommit is the only strategy this tool records with.
const StrategyManualCommit = "manual-commit"

// MetadataBranch is the branch holding committed checkpoints.
const MetadataBranch = "entire/checkpoints/v1"

// Engine runs one hook invocation against one repository.
type Engine struct {
	Repo   *gitexec.Repo
	Store  Store
	Log    *slog.Logger
	Stderr io.Writer
	Now    func() time.Time
	Home   string

	status []gitexec.StatusEntry // memoized for the hook's lifetime
	turn   *turnFacts
}

// New returns an engine for repo.
func New(repo *gitexec.Repo, log *slog.Logger, stderr io.Writer) *Engine {
	home, _ := os.UserHomeDir()
	return &Engine{
		Repo:   repo,
		Store:  NewStore(repo.CommonDir),
		Log:    log,
		Stderr: stderr,
		Now:    time.Now,
		Home:   home,
	}
}

func (en *Engine) event(p events.Payload) events.Event {
	return events.New(en.Now(), p)
}

// ShadowBranch is the temporary-checkpoint branch for a base commit in a worktree (spec §1.1).
func ShadowBranch(base, worktreeID string) string {
	sum := sha256.Sum256([]byte(worktreeID))
	c := base
	if len(c) > 7 {
		c = c[:7]
	}
	return "entire/" + c + "-" + hex.EncodeToString(sum[:])[:6]
}

// run appends the input event, then performs and records each effect the reducer decides on.
func (en *Engine) run(ctx context.Context, sess *Session, input events.Event) error {
	_, err := en.runResults(ctx, sess, input)
	return err
}

// runResults is run, returning the result events recorded.
func (en *Engine) runResults(ctx context.Context, sess *Session, input events.Event) ([]events.Event, error) {
	before := sess.State
	if err := sess.Append(input); err != nil {
		return nil, err
	}
	var results []events.Event
	for _, eff := range Decide(before, input) {
		res := en.perform(ctx, sess, input, eff)
		if err := sess.Append(res...); err != nil {
			return results, err
		}
		results = append(results, res...)
	}
	return results, nil
}

// perform carries out one effect. A failure is recorded as an EffectFailed event and logged;
// the hook goes on (fail open), and the state stays as it was for that effect.
func (en *Engine) perform(ctx context.Context, sess *Session, input events.Event, eff Effect) []events.Event {
	var res []events.Event
	var err error
	switch f := eff.(type) {
	case MigrateShadow:
		res, err = en.migrateShadow(ctx, sess.State, f)
	case WriteShadowCheckpoint:
		res, err = en.writeShadowCheckpoint(ctx, sess.State, input, f)
	case Condense:
		res, err = en.condense(ctx, sess.State, f)
	case Finalize:
		res, err = en.finalize(ctx, sess.State, f)
	case WriteTaskCheckpoint:
		res, err = en.writeTaskCheckpoint(ctx, sess.State, input, f)
	default:
		err = fmt.Errorf("unknown effect %T", eff)
	}
	if err != nil {
		en.Log.Error("effect failed", "effect", eff.effectName(), "session_id", sess.ID, "error", err.Error())
		return []events.Event{en.event(events.EffectFailed{Effect: eff.effectName(), Error: err.Error()})}
	}
	return res
}

// worktreeFacts observes HEAD and the worktree identity.
func (en *Engine) worktreeFacts(ctx context.Context) (events.Worktree, error) {
	// Hooks run while git holds HEAD still: the value read when the repository was opened
	// saves a process.
	head, _ := en.Repo.HeadAtOpen()
	return events.Worktree{Path: en.Repo.TopLevel, ID: en.Repo.WorktreeID(), Head: string(head)}, nil
}

// dirtyStatus is `git status` without the recorder's own infrastructure, memoized per hook.
func (en *Engine) dirtyStatus(ctx context.Context) ([]gitexec.StatusEntry, error) {
	if en.status != nil {
		return en.status, nil
	}
	st, err := en.Repo.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("git status: %w", err)
	}
	out := make([]gitexec.StatusEntry, 0, len(st))
	for _, e := range st {
		if isInfrastructure(e.Path) {
			continue
		}
		out = append(out, e)
	}
	en.status = out
	return out, nil
}

func isInfrastructure(p string) bool {
	return p == ".entire" || strings.HasPrefix(p, ".entire/")
}

func statusPaths(st []gitexec.StatusEntry) []string {
	out := make([]string, 0, len(st))
	for _, e := range st {
		out = append(out, e.Path)
	}
	return out
}

// treeOf resolves the tree of a commit (no new process: the repository's cat-file batch).
func (en *Engine) treeOf(ctx context.Context, commit string) (gitexec.OID, error) {
	tree, err := en.Repo.CommitTreeOID(ctx, commit)
	if err != nil {
		return "", fmt.Errorf("resolve tree of %s: %w", commit, err)
	}
	return tree, nil
}

// homeRelative is a path relative to $HOME, or "" when it is not under $HOME (spec §3.3).
func (en *Engine) homeRelative(p string) string {
	if en.Home == "" || p == "" {
		return ""
	}
	rel, ok := strings.CutPrefix(p, strings.TrimRight(en.Home, "/")+"/")
	if !ok {
		return ""
	}
	return rel
}

var shadowBranchRe = regexp.MustCompile(`^entire/[0-9a-fA-F]{7,}(-[0-9a-fA-F]{6})?$`)

// IsShadowBranch reports whether a short branch name is a shadow branch as the reference
// recognizes them (spec §1.1); entire/checkpoints/v1 is not one.
func IsShadowBranch(name string) bool { return shadowBranchRe.MatchString(name) }
