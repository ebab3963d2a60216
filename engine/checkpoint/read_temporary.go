package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/gitexec"
)

// TemporaryCheckpoint is a shadow-branch commit carrying an Entire-Session trailer (spec §2.3).
type TemporaryCheckpoint struct {
	Branch      string
	Commit      gitexec.OID
	Parent      gitexec.OID // "" for the branch's first commit
	SessionID   string
	MetadataDir string // Entire-Metadata-Task, else Entire-Metadata, else .entire/metadata/<session>
	IsTask      bool
	Subject     string
	Date        time.Time
	Author      string
	Agent       string // the session's agent type when the caller knows it; "" reads as Claude Code's
}

// ListTemporary lists the temporary checkpoints of every shadow branch, each branch newest first.
func ListTemporary(ctx context.Context, repo *gitexec.Repo) ([]TemporaryCheckpoint, error) {
	refs, err := repo.ForEachRef(ctx, "refs/heads/entire/")
	if err != nil {
		return nil, err
	}
	var out []TemporaryCheckpoint
	for _, ref := range refs {
		name := strings.TrimPrefix(string(ref.Name), "refs/heads/")
		if !session.IsShadowBranch(name) {
			continue
		}
		tcs, err := ListTemporaryOn(ctx, repo, name)
		if err != nil {
			return nil, err
		}
		out = append(out, tcs...)
	}
	return out, nil
}

// ListTemporaryOn lists one shadow branch's temporary checkpoints, newest first (none when
// the branch does not exist), with one git log.
func ListTemporaryOn(ctx context.Context, repo *gitexec.Repo, branch string) ([]TemporaryCheckpoint, error) {
	tip, ok, err := repo.ResolveRef(ctx, gitexec.BranchRef(branch))
	if err != nil || !ok {
		return nil, err
	}
	// The tip, not the branch's name: a hook may delete the branch (its session condensed) in
	// between, and git log of the name then failed ("bad revision") the whole listing.
	recs, err := logRecords(ctx, repo, []string{"log", "-z", "--format=%H%x00%P%x00%aI%x00%an <%ae>%x00%B", string(tip), "--"}, 5)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints on %s: %w", branch, err)
	}
	var out []TemporaryCheckpoint
	for _, f := range recs {
		msg := f[4]
		sid := TrailerValue(msg, "Entire-Session")
		meta := TrailerValue(msg, "Entire-Metadata")
		if sid == "" && meta == "" {
			continue
		}
		if sid == "" {
			sid = path.Base(meta)
		}
		tc := TemporaryCheckpoint{Branch: branch, Commit: gitexec.OID(f[0]), SessionID: sid, MetadataDir: meta, Subject: subject(msg), Author: f[3]}
		if task := TrailerValue(msg, "Entire-Metadata-Task"); task != "" {
			tc.MetadataDir, tc.IsTask = task, true
		}
		if tc.MetadataDir == "" {
			tc.MetadataDir = ".entire/metadata/" + sid
		}
		if parents := strings.Fields(f[1]); len(parents) > 0 {
			tc.Parent = gitexec.OID(parents[0])
		}
		tc.Date, _ = time.Parse(time.RFC3339, f[2])
		out = append(out, tc)
	}
	return out, nil
}

// FindTemporary finds the temporary checkpoint whose commit SHA starts with prefix.
func FindTemporary(ctx context.Context, repo *gitexec.Repo, prefix string) (TemporaryCheckpoint, error) {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	if prefix == "" {
		return TemporaryCheckpoint{}, ErrCheckpointNotFound
	}
	all, err := ListTemporary(ctx, repo)
	if err != nil {
		return TemporaryCheckpoint{}, err
	}
	var match []TemporaryCheckpoint
	for _, tc := range all {
		if strings.HasPrefix(string(tc.Commit), prefix) {
			match = append(match, tc)
		}
	}
	switch len(match) {
	case 0:
		return TemporaryCheckpoint{}, ErrCheckpointNotFound
	case 1:
		return match[0], nil
	}
	amb := &AmbiguousError{Prefix: prefix}
	for _, tc := range match {
		amb.Candidates = append(amb.Candidates, string(tc.Commit))
	}
	sort.Strings(amb.Candidates)
	return TemporaryCheckpoint{}, amb
}

// ReadTemporary reads a temporary checkpoint as a one-slot Checkpoint: the session's overlay
// files from the shadow tree, the transcript scoped from where the parent commit's ended (on a
// branch's first commit: from the turn's first prompt, prompt.txt holding the turn's prompts),
// and the files the commit changed (on a first commit: the files the turn edited).
func ReadTemporary(ctx context.Context, repo *gitexec.Repo, tc TemporaryCheckpoint) (*Checkpoint, error) {
	dir, toolUseID := tc.sessionDir()
	s := Slot{Tree: string(tc.Commit) + ":" + dir, Meta: CommittedMetadata{
		SessionID: tc.SessionID, Strategy: StrategyManualCommit, CreatedAt: tc.Date, Branch: tc.Branch,
		CheckpointsCount: 1, IsTask: tc.IsTask, ToolUseID: toolUseID, Agent: tc.Agent,
	}}
	entries, _, err := repo.ReadTree(ctx, s.Tree)
	if err != nil {
		return nil, err
	}
	if err := fillSlot(ctx, repo, &s, entries, true); err != nil {
		return nil, err
	}
	if tc.IsTask {
		// prompt.txt and context.md are written at turn end (spec §2.2): on a task commit, in
		// the middle of a turn, they are the last turn's. Its prompts are its transcript's.
		s.Prompts, s.Context = nil, ""
	}
	var prev []byte
	if tc.Parent != "" {
		pe, ok, err := repo.ReadTree(ctx, string(tc.Parent)+":"+dir)
		if err != nil {
			return nil, err
		}
		if ok {
			if prev, _, err = ReadTranscript(ctx, repo, pe, ""); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case prev != nil:
		s.Meta.CheckpointTranscriptStart = bytes.Count(withNewline(prev), []byte{'\n'})
	case len(s.Prompts) > 0:
		s.Meta.CheckpointTranscriptStart = promptLine(s.reader(), s.Transcript, s.Prompts[0])
	}
	scan := s.reader().ScanBytes(withNewline(s.ScopedTranscript()))
	if tc.IsTask {
		s.Prompts = scan.Prompts
	}
	if from := string(tc.Parent) + shadowBase(ctx, repo, tc); from != "" {
		diff, err := repo.DiffTree(ctx, from, string(tc.Commit))
		if err != nil {
			return nil, err
		}
		for _, d := range diff {
			if !IsInfrastructure(d.Path) {
				s.Meta.FilesTouched = append(s.Meta.FilesTouched, d.Path)
			}
		}
	} else {
		for _, p := range scan.ModifiedFiles {
			if rel, ok := agent.RepoRelative(repo.TopLevel, repo.TopLevel, p); ok && !IsInfrastructure(rel) {
				s.Meta.FilesTouched = session.MergeSorted(s.Meta.FilesTouched, []string{rel})
			}
		}
	}
	if !scan.Usage.IsZero() {
		s.Meta.TokenUsage = &scan.Usage
	}
	return &Checkpoint{ID: string(tc.Commit), Temporary: true, Slots: []Slot{s}, Summary: CheckpointSummary{
		CheckpointID: string(tc.Commit), Strategy: StrategyManualCommit, Branch: tc.Branch,
		CheckpointsCount: 1, FilesTouched: s.Meta.FilesTouched, TokenUsage: s.Meta.TokenUsage,
	}}, nil
}

// sessionDir is the session's metadata directory on the shadow tree, which holds its transcript
// (spec §2.4: a task commit's trailer names tasks/<tool-use-id> below it, or a file there), and
// a task commit's tool use ID.
func (tc TemporaryCheckpoint) sessionDir() (dir, toolUseID string) {
	if !tc.IsTask {
		return tc.MetadataDir, ""
	}
	dir, task, ok := strings.Cut(tc.MetadataDir, "/tasks/")
	if !ok {
		return ".entire/metadata/" + tc.SessionID, ""
	}
	toolUseID, _, _ = strings.Cut(task, "/")
	return dir, toolUseID
}

// shadowBase is the base commit a shadow branch's first commit was built on, found from the
// branch name's commit prefix (spec §1.1); "" when the commit has a parent or the prefix does
// not name exactly one commit.
func shadowBase(ctx context.Context, repo *gitexec.Repo, tc TemporaryCheckpoint) string {
	if tc.Parent != "" || !session.IsShadowBranch(tc.Branch) {
		return ""
	}
	c7, _, _ := strings.Cut(strings.TrimPrefix(tc.Branch, "entire/"), "-")
	out, err := repo.Run(ctx, nil, "rev-parse", "--verify", "-q", c7+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// promptLine is the index of the last transcript line whose prompt is prompt (0 if none).
func promptLine(rd agent.Transcript, transcript []byte, prompt string) int {
	at := 0
	for i, line := range bytes.Split(transcript, []byte{'\n'}) {
		if ps := rd.ScanBytes(append(line[:len(line):len(line)], '\n')).Prompts; len(ps) == 1 && ps[0] == prompt {
			at = i
		}
	}
	return at
}
