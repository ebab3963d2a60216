package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/entirerec/entire/events/claudecode"
	"github.com/entirerec/entire/gitexec"
)

// This file reads recorded data back for commands such as explain: committed checkpoints on
// the metadata branch (the slot layout of spec §3.1 and the legacy flat root of §3.2, chunked
// transcripts of §3.4), temporary checkpoints on shadow branches (§2.3), and the user commits
// whose Entire-Checkpoint trailer links them to a checkpoint (§4.2). It only reads.

// ErrCheckpointNotFound reports that no checkpoint matches an ID or prefix.
var ErrCheckpointNotFound = errors.New("checkpoint not found")

// AmbiguousError reports a prefix that matches more than one checkpoint.
type AmbiguousError struct {
	Prefix     string
	Candidates []string // the matching IDs (or commit SHAs), sorted
}

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

// TranscriptStart is the line where this checkpoint's part of the transcript begins (§3.3).
func (s Slot) TranscriptStart() int {
	if s.Meta.CheckpointTranscriptStart > 0 {
		return s.Meta.CheckpointTranscriptStart
	}
	return s.Meta.TranscriptLinesAtStart
}

// ScopedTranscript is the transcript from TranscriptStart on.
func (s Slot) ScopedTranscript() []byte { return SkipLines(s.Transcript, s.TranscriptStart()) }

// ScopedPrompts are the prompts of this checkpoint's part of the transcript; without a loaded
// transcript, prompt.txt serves when the checkpoint starts at the beginning.
func (s Slot) ScopedPrompts() []string {
	if s.Transcript == nil {
		if s.TranscriptStart() == 0 {
			return s.Prompts
		}
		return nil
	}
	return claudecode.ScanBytes(withNewline(s.ScopedTranscript())).Prompts
}

// AllPrompts are the prompts of the whole transcript, else prompt.txt's.
func (s Slot) AllPrompts() []string {
	if s.Transcript == nil {
		return s.Prompts
	}
	return claudecode.ScanBytes(withNewline(s.Transcript)).Prompts
}

// SkipLines drops the first n newline-terminated lines of data.
func SkipLines(data []byte, n int) []byte {
	for ; n > 0 && len(data) > 0; n-- {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
	return data
}

func withNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return append(append([]byte(nil), b...), '\n')
	}
	return b
}

// Reader reads committed checkpoints at one tip of the metadata branch.
type Reader struct {
	Repo *gitexec.Repo
	Tip  gitexec.OID // "" when there is no metadata branch
	ids  []string    // cached ListCommitted
}

// NewReader reads entire/checkpoints/v1, falling back to origin's copy when the local branch
// is missing (spec §1).
func NewReader(ctx context.Context, repo *gitexec.Repo) (*Reader, error) {
	for _, ref := range []gitexec.RefName{metaRef, "refs/remotes/origin/" + MetadataBranch} {
		tip, ok, err := repo.ResolveRef(ctx, ref)
		if err != nil {
			return nil, err
		}
		if ok {
			return &Reader{Repo: repo, Tip: tip}, nil
		}
	}
	return &Reader{Repo: repo}, nil
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
		if len(parts) == 3 && parts[2] == "metadata.json" && len(parts[0]) == 2 && ValidCheckpointID(parts[0]+parts[1]) {
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

// LoadTranscript fills in a slot's transcript.
func LoadTranscript(ctx context.Context, repo *gitexec.Repo, s *Slot) error {
	entries, _, err := repo.ReadTree(ctx, s.Tree)
	if err != nil {
		return err
	}
	s.Transcript, s.HasChunks, err = readTranscript(ctx, repo, entries, s.Meta.Agent)
	return err
}

func (r *Reader) read(ctx context.Context, id string, transcripts bool) (*Checkpoint, error) {
	if !ValidCheckpointID(id) || r.Tip == "" {
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
			s.Prompts = strings.Split(string(data), claudecode.PromptSeparator)
		}
	}
	if !transcripts {
		return nil
	}
	var err error
	s.Transcript, s.HasChunks, err = readTranscript(ctx, repo, entries, s.Meta.Agent)
	return err
}

// readTranscript applies the reader rule of spec §3.4: numbered chunks full.jsonl.NNN (NNN > 0)
// in numeric order after full.jsonl, reassembled per agent; else full.jsonl; else full.log.
func readTranscript(ctx context.Context, repo *gitexec.Repo, entries []gitexec.TreeEntry, agent string) ([]byte, bool, error) {
	type chunk struct {
		n   int
		oid gitexec.OID
	}
	var chunks []chunk
	files := map[string]gitexec.OID{}
	for _, e := range entries {
		files[e.Name] = e.OID
		if suffix, ok := strings.CutPrefix(e.Name, "full.jsonl."); ok {
			if n, err := strconv.Atoi(suffix); err == nil && n > 0 {
				chunks = append(chunks, chunk{n, e.OID})
			}
		}
	}
	read := func(oid gitexec.OID) ([]byte, error) {
		data, _, err := repo.ReadBlob(ctx, string(oid))
		return data, err
	}
	if len(chunks) == 0 {
		for _, name := range []string{"full.jsonl", "full.log"} {
			if oid, ok := files[name]; ok {
				data, err := read(oid)
				return data, false, err
			}
		}
		return nil, false, nil
	}
	sort.Slice(chunks, func(i, j int) bool { return chunks[i].n < chunks[j].n })
	var parts [][]byte
	if oid, ok := files["full.jsonl"]; ok {
		chunks = append([]chunk{{0, oid}}, chunks...)
	}
	for _, c := range chunks {
		data, err := read(c.oid)
		if err != nil {
			return nil, true, err
		}
		parts = append(parts, data)
	}
	data, err := joinChunks(agent, parts)
	return data, true, err
}

// joinChunks reassembles transcript chunks: JSONL chunks joined with one "\n"; Gemini's
// {"messages":[…]} chunks merged into one object (spec §3.4).
func joinChunks(agent string, parts [][]byte) ([]byte, error) {
	if agent != "Gemini CLI" {
		return bytes.Join(parts, []byte{'\n'}), nil
	}
	var all struct {
		Messages []json.RawMessage `json:"messages"`
	}
	all.Messages = []json.RawMessage{}
	for i, p := range parts {
		var c struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(p, &c); err != nil {
			return nil, fmt.Errorf("read transcript chunk %d: %w", i, err)
		}
		all.Messages = append(all.Messages, c.Messages...)
	}
	return json.Marshal(all)
}

// CheckpointAuthor is "Name <email>" of the metadata-branch commit that first wrote the
// checkpoint ("" when unknown).
func (r *Reader) CheckpointAuthor(ctx context.Context, id string) (string, error) {
	if r.Tip == "" || !ValidCheckpointID(id) {
		return "", nil
	}
	out, err := r.Repo.Run(ctx, nil, "log", "--diff-filter=A", "--format=%an <%ae>", string(r.Tip), "--", CheckpointPath(id)+"/metadata.json")
	if err != nil {
		return "", fmt.Errorf("find author of %s: %w", id, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}

// LinkedCommit is a commit whose message carries an Entire-Checkpoint trailer.
type LinkedCommit struct {
	SHA          gitexec.OID
	CheckpointID string
	Subject      string
	Date         time.Time // author date
	Author       string    // "Name <email>"
}

// LinkedCommits lists, newest first, the commits reachable from rev that carry a checkpoint
// trailer (only those naming id, when id is not ""), at most limit of them (0: all), with one
// git log.
func LinkedCommits(ctx context.Context, repo *gitexec.Repo, rev, id string, limit int) ([]LinkedCommit, error) {
	want := "[0-9a-f]{12}"
	if id != "" {
		want = id
	}
	args := []string{"log", "-z", "-E", "--grep=" + CheckpointTrailer + ":[[:space:]]*" + want,
		"--format=%H%x00%aI%x00%an <%ae>%x00%B"}
	if limit > 0 {
		args = append(args, "--max-count="+strconv.Itoa(limit))
	}
	recs, err := logRecords(ctx, repo, append(args, rev, "--"), 4)
	if err != nil {
		return nil, fmt.Errorf("list linked commits: %w", err)
	}
	var out []LinkedCommit
	for _, f := range recs {
		cp, ok := ParseCheckpointTrailer(f[3])
		if !ok || (id != "" && cp != id) {
			continue
		}
		date, _ := time.Parse(time.RFC3339, f[1])
		out = append(out, LinkedCommit{SHA: gitexec.OID(f[0]), CheckpointID: cp, Subject: subject(f[3]), Date: date, Author: f[2]})
	}
	return out, nil
}

// logRecords runs a git log whose -z format has n NUL-separated fields per commit.
func logRecords(ctx context.Context, repo *gitexec.Repo, args []string, n int) ([][]string, error) {
	out, err := repo.Run(ctx, nil, args...)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(fields)%n != 0 {
		return nil, fmt.Errorf("unexpected git log output: %d fields", len(fields))
	}
	var recs [][]string
	for i := 0; i < len(fields); i += n {
		recs = append(recs, fields[i:i+n])
	}
	return recs, nil
}

func subject(msg string) string {
	first, _, _ := strings.Cut(strings.TrimLeft(msg, "\n"), "\n")
	return strings.TrimSpace(first)
}

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
		if !IsShadowBranch(name) {
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
	ref := gitexec.BranchRef(branch)
	if _, ok, err := repo.ResolveRef(ctx, ref); err != nil || !ok {
		return nil, err
	}
	recs, err := logRecords(ctx, repo, []string{"log", "-z", "--format=%H%x00%P%x00%aI%x00%an <%ae>%x00%B", string(ref), "--"}, 5)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints on %s: %w", branch, err)
	}
	var out []TemporaryCheckpoint
	for _, f := range recs {
		msg := f[4]
		sid := trailerValue(msg, "Entire-Session")
		meta := trailerValue(msg, "Entire-Metadata")
		if sid == "" && meta == "" {
			continue
		}
		if sid == "" {
			sid = path.Base(meta)
		}
		tc := TemporaryCheckpoint{Branch: branch, Commit: gitexec.OID(f[0]), SessionID: sid, MetadataDir: meta, Subject: subject(msg), Author: f[3]}
		if task := trailerValue(msg, "Entire-Metadata-Task"); task != "" {
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
	s := Slot{Tree: string(tc.Commit) + ":" + tc.MetadataDir, Meta: CommittedMetadata{
		SessionID: tc.SessionID, Strategy: StrategyManualCommit, CreatedAt: tc.Date, Branch: tc.Branch,
		CheckpointsCount: 1, IsTask: tc.IsTask,
	}}
	entries, _, err := repo.ReadTree(ctx, s.Tree)
	if err != nil {
		return nil, err
	}
	if err := fillSlot(ctx, repo, &s, entries, true); err != nil {
		return nil, err
	}
	var prev []byte
	if tc.Parent != "" {
		pe, ok, err := repo.ReadTree(ctx, string(tc.Parent)+":"+tc.MetadataDir)
		if err != nil {
			return nil, err
		}
		if ok {
			if prev, _, err = readTranscript(ctx, repo, pe, ""); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case prev != nil:
		s.Meta.CheckpointTranscriptStart = bytes.Count(withNewline(prev), []byte{'\n'})
	case len(s.Prompts) > 0:
		s.Meta.CheckpointTranscriptStart = promptLine(s.Transcript, s.Prompts[0])
	}
	scan := claudecode.ScanBytes(withNewline(s.ScopedTranscript()))
	if from := string(tc.Parent) + shadowBase(ctx, repo, tc); from != "" {
		diff, err := repo.DiffTree(ctx, from, string(tc.Commit))
		if err != nil {
			return nil, err
		}
		for _, d := range diff {
			if !isInfrastructure(d.Path) {
				s.Meta.FilesTouched = append(s.Meta.FilesTouched, d.Path)
			}
		}
	} else {
		for _, p := range scan.ModifiedFiles {
			if rel, ok := claudecode.RepoRelative(repo.TopLevel, repo.TopLevel, p); ok && !isInfrastructure(rel) {
				s.Meta.FilesTouched = mergeSorted(s.Meta.FilesTouched, []string{rel})
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

// shadowBase is the base commit a shadow branch's first commit was built on, found from the
// branch name's commit prefix (spec §1.1); "" when the commit has a parent or the prefix does
// not name exactly one commit.
func shadowBase(ctx context.Context, repo *gitexec.Repo, tc TemporaryCheckpoint) string {
	if tc.Parent != "" || !IsShadowBranch(tc.Branch) {
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
func promptLine(transcript []byte, prompt string) int {
	at := 0
	for i, line := range bytes.Split(transcript, []byte{'\n'}) {
		if ps := claudecode.ScanBytes(append(line[:len(line):len(line)], '\n')).Prompts; len(ps) == 1 && ps[0] == prompt {
			at = i
		}
	}
	return at
}

// TranscriptEntry is one readable step of a Claude transcript.
type TranscriptEntry struct {
	Kind string // "user" (a prompt), "assistant" (text) or "tool" (a tool call)
	Text string // the prompt or text; for a tool call its detail (may be "")
	Tool string // tool name, for Kind "tool"
}

// TranscriptEntries turns Claude JSONL into prompts, assistant text and tool calls, in order
// (spec §12.4); tool results and lines that are not JSON are left out.
func TranscriptEntries(data []byte) []TranscriptEntry {
	var out []TranscriptEntry
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		var l struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &l) != nil {
			continue
		}
		var text string
		var blocks []struct {
			Type  string                     `json:"type"`
			Text  string                     `json:"text"`
			Name  string                     `json:"name"`
			Input map[string]json.RawMessage `json:"input"`
		}
		if json.Unmarshal(l.Message.Content, &text) != nil {
			_ = json.Unmarshal(l.Message.Content, &blocks) // neither: nothing to show
		}
		switch l.Type {
		case "user", "human":
			var parts []string
			for _, b := range blocks {
				if b.Type == "text" {
					parts = append(parts, b.Text)
				}
			}
			if len(parts) > 0 {
				text = strings.Join(parts, "\n\n")
			}
			if p := claudecode.StripTags(text); p != "" {
				out = append(out, TranscriptEntry{Kind: "user", Text: p})
			}
		case "assistant":
			for _, b := range blocks {
				switch {
				case b.Type == "text" && strings.TrimSpace(b.Text) != "":
					out = append(out, TranscriptEntry{Kind: "assistant", Text: b.Text})
				case b.Type == "tool_use":
					out = append(out, TranscriptEntry{Kind: "tool", Tool: b.Name, Text: toolDetail(b.Input)})
				}
			}
		}
	}
	return out
}

// toolDetail is the input description, else command, file_path, notebook_path or pattern.
func toolDetail(in map[string]json.RawMessage) string {
	for _, k := range []string{"description", "command", "file_path", "notebook_path", "pattern"} {
		var s string
		if json.Unmarshal(in[k], &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
