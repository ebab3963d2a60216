package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
	"github.com/entirerec/entire/gitexec"
)

// This file and its read_*.go siblings read recorded data back for commands such as explain:
// committed checkpoints on the metadata branch (the slot layout of spec §3.1 and the legacy flat
// root of §3.2, chunked transcripts of §3.4), temporary checkpoints on shadow branches (§2.3),
// and the user commits whose Entire-Checkpoint trailer links them to a checkpoint (§4.2). They
// only read.

// ErrCheckpointNotFound reports that no checkpoint matches an ID or prefix.
var ErrCheckpointNotFound = errors.New("checkpoint not found")

// AmbiguousError reports a prefix that matches more than one checkpoint.
type AmbiguousError struct {
	Prefix     string
	Candidates []string // the matching IDs (or commit SHAs), sorted
}

// Error lists the checkpoints the prefix matches.
func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("ambiguous checkpoint prefix %q matches %d checkpoints: %s",
		e.Prefix, len(e.Candidates), strings.Join(e.Candidates, ", "))
}

// Checkpoint is a committed checkpoint (or, with Temporary, one shadow-branch commit) as read.
type Checkpoint struct {
	ID        string            // 12-hex ID; the full shadow commit SHA when Temporary
	Temporary bool              // read from a shadow branch, not from entire/checkpoints/v1
	Legacy    bool              // the root metadata.json had the pre-slot flat format (spec §3.2)
	Summary   CheckpointSummary // root metadata; synthesized from the slots when Legacy or Temporary
	Slots     []Slot            // one per session, in slot order
}

// Slot is one session's part of a checkpoint.
type Slot struct {
	Tree       string            // tree-ish of the slot's directory, "<commit>:<dir>"
	Meta       CommittedMetadata // N/metadata.json (legacy: the root record; temporary: synthesized)
	Prompts    []string          // prompt.txt split on its separator; nil when absent
	Context    string            // context.md
	Transcript []byte            // reassembled transcript; nil when absent or not loaded
	HasChunks  bool              // the transcript was stored in more than one file
}

// TranscriptStart is the record where this checkpoint's part of the transcript begins (§3.3):
// a line, or a message of a Gemini CLI chat document (§12.4).
func (s Slot) TranscriptStart() int {
	if s.Meta.CheckpointTranscriptStart > 0 {
		return s.Meta.CheckpointTranscriptStart
	}
	return s.Meta.TranscriptLinesAtStart
}

// ScopedTranscript is the transcript from TranscriptStart on: from that line, or, for an agent
// whose positions need not be lines (agent.Positioner), from that record in its own unit (a
// Gemini CLI document from that message, as a document of the rest).
func (s Slot) ScopedTranscript() []byte {
	if p, ok := s.reader().(agent.Positioner); ok {
		return p.SkipRecords(s.Transcript, s.TranscriptStart())
	}
	return SkipLines(s.Transcript, s.TranscriptStart())
}

// ScopedPrompts are the prompts of this checkpoint's part of the transcript; without a loaded
// transcript, prompt.txt serves when the checkpoint starts at the beginning.
func (s Slot) ScopedPrompts() []string {
	if s.Transcript == nil {
		if s.TranscriptStart() == 0 {
			return s.Prompts
		}
		return nil
	}
	return s.reader().ScanBytes(withNewline(s.ScopedTranscript())).Prompts
}

// reader is the transcript reader of the slot's agent.
func (s Slot) reader() agent.Transcript {
	a, _ := agents.ByType(s.Meta.Agent)
	return a
}

// AllPrompts are the prompts of the whole transcript, else prompt.txt's.
func (s Slot) AllPrompts() []string {
	if s.Transcript == nil {
		return s.Prompts
	}
	return s.reader().ScanBytes(withNewline(s.Transcript)).Prompts
}

// Reader reads committed checkpoints at one tip of the metadata branch.
type Reader struct {
	Repo *gitexec.Repo
	Tip  gitexec.OID // "" when there is no metadata branch
	ids  []string    // cached ListCommitted
}

// NewReader reads entire/checkpoints/v1, falling back to origin's copy when the local branch
// is missing (spec §1), else to another remote's (FirstFetchedCopy).
func NewReader(ctx context.Context, repo *gitexec.Repo) (*Reader, error) {
	tip, ok, err := repo.ResolveRef(ctx, MetaRef)
	if err != nil {
		return nil, err
	}
	if ok {
		return &Reader{Repo: repo, Tip: tip}, nil
	}
	c, ok, err := FirstFetchedCopy(ctx, repo)
	if err != nil {
		return nil, err
	}
	if !ok {
		return &Reader{Repo: repo}, nil
	}
	return &Reader{Repo: repo, Tip: c.Tip}, nil
}

// ListCommitted returns the IDs of all committed checkpoints, sorted: every
// <2 hex>/<10 hex>/metadata.json at the tip (spec §3.1), listed by one ls-tree.
func (r *Reader) ListCommitted(ctx context.Context) ([]string, error) {
	if r.ids != nil || r.Tip == "" {
		return r.ids, nil
	}
	out, err := r.Repo.Run(ctx, nil, "ls-tree", "-r", "-z", "--name-only", string(r.Tip))
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	ids := []string{}
	for _, p := range strings.Split(string(out), "\x00") {
		parts := strings.Split(p, "/")
		if len(parts) == 3 && parts[2] == "metadata.json" && len(parts[0]) == 2 && events.ValidCheckpointID(parts[0]+parts[1]) {
			ids = append(ids, parts[0]+parts[1])
		}
	}
	sort.Strings(ids)
	r.ids = ids
	return ids, nil
}

// Resolve turns an ID prefix into the one committed ID it names.
func (r *Reader) Resolve(ctx context.Context, prefix string) (string, error) {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	if prefix == "" {
		return "", ErrCheckpointNotFound
	}
	ids, err := r.ListCommitted(ctx)
	if err != nil {
		return "", err
	}
	var match []string
	for _, id := range ids {
		if strings.HasPrefix(id, prefix) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 0:
		return "", ErrCheckpointNotFound
	case 1:
		return match[0], nil
	}
	return "", &AmbiguousError{Prefix: prefix, Candidates: match}
}

// ReadCheckpoint reads the checkpoint an ID prefix names, with every slot's transcript
// reassembled from its chunks.
func (r *Reader) ReadCheckpoint(ctx context.Context, prefix string) (*Checkpoint, error) {
	id, err := r.Resolve(ctx, prefix)
	if err != nil {
		return nil, err
	}
	return r.read(ctx, id, true)
}

// ReadCheckpointInfo reads a checkpoint by exact ID without its transcripts (see LoadTranscript).
func (r *Reader) ReadCheckpointInfo(ctx context.Context, id string) (*Checkpoint, error) {
	return r.read(ctx, id, false)
}

func (r *Reader) read(ctx context.Context, id string, transcripts bool) (*Checkpoint, error) {
	if !events.ValidCheckpointID(id) || r.Tip == "" {
		return nil, ErrCheckpointNotFound
	}
	cp := CheckpointPath(id)
	root := string(r.Tip) + ":" + cp
	data, ok, err := r.Repo.ReadBlob(ctx, root+"/metadata.json")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrCheckpointNotFound
	}
	c := &Checkpoint{ID: id}
	var probe struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("read %s/metadata.json: %w", cp, err)
	}
	if len(probe.Sessions) == 0 {
		return c, r.readLegacy(ctx, c, root, data, transcripts)
	}
	if err := json.Unmarshal(data, &c.Summary); err != nil {
		return nil, fmt.Errorf("read %s/metadata.json: %w", cp, err)
	}
	for i := range c.Summary.Sessions {
		s, ok, err := readSlot(ctx, r.Repo, root+"/"+strconv.Itoa(i), transcripts)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("checkpoint %s: missing %s/%d/metadata.json", id, cp, i)
		}
		c.Slots = append(c.Slots, s)
	}
	return c, nil
}

// readLegacy reads the flat format: the latest session's record and files at the checkpoint
// root, earlier sessions in numbered subdirectories.
func (r *Reader) readLegacy(ctx context.Context, c *Checkpoint, root string, data []byte, transcripts bool) error {
	c.Legacy = true
	var meta CommittedMetadata
	if err := json.Unmarshal(data, &meta); err != nil {
		return fmt.Errorf("read legacy %s/metadata.json: %w", root, err)
	}
	entries, _, err := r.Repo.ReadTree(ctx, root)
	if err != nil {
		return err
	}
	var nums []int
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name); err == nil && e.Type == "tree" {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	for _, n := range nums {
		s, ok, err := readSlot(ctx, r.Repo, root+"/"+strconv.Itoa(n), transcripts)
		if err != nil {
			return err
		}
		if ok {
			c.Slots = append(c.Slots, s)
		}
	}
	latest := Slot{Tree: root, Meta: meta}
	if err := fillSlot(ctx, r.Repo, &latest, entries, transcripts); err != nil {
		return err
	}
	c.Slots = append(c.Slots, latest)
	c.Summary = CheckpointSummary{
		CLIVersion: meta.CLIVersion, CheckpointID: c.ID, Strategy: meta.Strategy, Branch: meta.Branch,
		CheckpointsCount: meta.CheckpointsCount, FilesTouched: meta.FilesTouched, TokenUsage: meta.TokenUsage,
	}
	return nil
}

// readSlot reads a slot directory; ok=false when it has no metadata.json.
func readSlot(ctx context.Context, repo *gitexec.Repo, tree string, transcripts bool) (Slot, bool, error) {
	s := Slot{Tree: tree}
	entries, ok, err := repo.ReadTree(ctx, tree)
	if err != nil || !ok {
		return s, false, err
	}
	var metaOID gitexec.OID
	for _, e := range entries {
		if e.Name == "metadata.json" {
			metaOID = e.OID
		}
	}
	if metaOID == "" {
		return s, false, nil
	}
	data, _, err := repo.ReadBlob(ctx, string(metaOID))
	if err != nil {
		return s, false, err
	}
	if err := json.Unmarshal(data, &s.Meta); err != nil {
		return s, false, fmt.Errorf("read %s/metadata.json: %w", tree, err)
	}
	return s, true, fillSlot(ctx, repo, &s, entries, transcripts)
}

// fillSlot reads prompt.txt, context.md and optionally the transcript of a slot directory.
func fillSlot(ctx context.Context, repo *gitexec.Repo, s *Slot, entries []gitexec.TreeEntry, transcripts bool) error {
	for _, e := range entries {
		if e.Name != "prompt.txt" && e.Name != "context.md" {
			continue
		}
		data, _, err := repo.ReadBlob(ctx, string(e.OID))
		if err != nil {
			return err
		}
		if e.Name == "context.md" {
			s.Context = string(data)
		} else if len(data) > 0 {
			s.Prompts = strings.Split(string(data), agent.PromptSeparator)
		}
	}
	if !transcripts {
		return nil
	}
	var err error
	s.Transcript, s.HasChunks, err = ReadTranscript(ctx, repo, entries, s.Meta.Agent)
	return err
}

// CheckpointAuthor is "Name <email>" of the metadata-branch commit that first wrote the
// checkpoint ("" when unknown).
func (r *Reader) CheckpointAuthor(ctx context.Context, id string) (string, error) {
	if r.Tip == "" || !events.ValidCheckpointID(id) {
		return "", nil
	}
	out, err := r.Repo.Run(ctx, nil, "log", "--diff-filter=A", "--format=%an <%ae>", string(r.Tip), "--", CheckpointPath(id)+"/metadata.json")
	if err != nil {
		return "", fmt.Errorf("find author of %s: %w", id, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}
