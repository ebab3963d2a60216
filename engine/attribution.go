package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/gitexec"
)

// lineDiff counts the lines added and removed between two texts, as a line-mode diff would
// (spec §12.2): the lines outside a longest common subsequence. Binary content counts as empty.
func lineDiff(old, new []byte) (added, removed int) {
	a, b := splitLines(old), splitLines(new)
	common := lcsLength(a, b)
	return len(b) - common, len(a) - common
}

// splitLines splits text into lines; a text's line count is its newlines plus one when it does
// not end in a newline. Binary text (with a NUL) has no lines.
func splitLines(text []byte) []string {
	if len(text) == 0 || bytes.IndexByte(text, 0) >= 0 {
		return nil
	}
	lines := bytes.SplitAfter(text, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = string(bytes.TrimSuffix(l, []byte{'\n'}))
	}
	return out
}

// lcsLength is the length of a longest common subsequence, by Myers' O((N+M)D) algorithm
// after trimming the common prefix and suffix.
func lcsLength(a, b []string) int {
	common := 0
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b, common = a[1:], b[1:], common+1
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b, common = a[:len(a)-1], b[:len(b)-1], common+1
	}
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return common
	}
	max := n + m
	v := make([]int, 2*max+2)
	for d := 0; d <= max; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[max+k-1] < v[max+k+1]) {
				x = v[max+k+1]
			} else {
				x = v[max+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[max+k] = x
			if x >= n && y >= m {
				return common + (n+m-d)/2
			}
		}
	}
	return common
}

// revFiles reads files of a few revisions for attribution: their blob IDs come from one tree
// read per directory and revision, each distinct blob is read once, and two revisions holding
// the same blob diff to nothing without reading it. (Reading "<rev>:<path>" per file would
// walk commit and trees again for every file.)
type revFiles struct {
	ctx    context.Context
	repo   *gitexec.Repo
	oids   map[string]map[string]gitexec.OID // rev → path → blob ("" when missing)
	data   map[gitexec.OID][]byte
	want   []gitexec.OID // blobs the diffs announced by need will read, not read yet
	wanted map[gitexec.OID]bool
}

// need announces diffs from rev a to rev b of paths: their blobs are then read together, in
// one round trip, by the first read that misses.
func (f *revFiles) need(a, b string, paths []string) {
	for _, p := range paths {
		oa, ob := f.oids[a][p], f.oids[b][p]
		if oa == ob {
			continue
		}
		for _, o := range []gitexec.OID{oa, ob} {
			if _, done := f.data[o]; o != "" && !done && !f.wanted[o] {
				f.want = append(f.want, o)
				f.wanted[o] = true
			}
		}
	}
}

// newRevFiles looks up paths in each of revs ("" revisions have no files).
func (en *Engine) newRevFiles(ctx context.Context, revs []string, paths []string) *revFiles {
	f := &revFiles{ctx: ctx, repo: en.Repo, oids: map[string]map[string]gitexec.OID{}, data: map[gitexec.OID][]byte{}, wanted: map[gitexec.OID]bool{}}
	for _, rev := range revs {
		if _, done := f.oids[rev]; done || rev == "" {
			continue
		}
		m := map[string]gitexec.OID{}
		entries, err := en.Repo.PathEntries(ctx, rev, paths)
		if err == nil {
			for p, e := range entries {
				if e.Type == "blob" {
					m[p] = e.OID
				}
			}
		}
		f.oids[rev] = m
	}
	return f
}

// read is a file's content at rev, empty when missing.
func (f *revFiles) read(rev, path string) []byte {
	oid := f.oids[rev][path]
	if oid == "" {
		return nil
	}
	if data, ok := f.data[oid]; ok {
		return data
	}
	want := f.want
	if !f.wanted[oid] {
		want = append(want, oid)
	}
	f.want, f.wanted = nil, map[gitexec.OID]bool{}
	got, err := f.repo.ReadBlobs(f.ctx, want)
	for _, o := range want {
		f.data[o] = got[o] // nil when missing or unreadable: no lines
	}
	if err != nil {
		return nil
	}
	return got[oid]
}

// diff counts the lines added and removed from a file at rev a to the file at rev b.
func (f *revFiles) diff(a, b, path string) (added, removed int) {
	if f.oids[a][path] == f.oids[b][path] {
		return 0, 0
	}
	return lineDiff(f.read(a, path), f.read(b, path))
}

// promptAttribution measures, at prompt submit, the user's edits since the last checkpoint
// (last shadow tip, or base) and the agent's work so far (base to shadow tip), over the dirty
// files (spec §12.2).
func (en *Engine) promptAttribution(ctx context.Context, s session.State, dirty []string) *events.PromptAttribution {
	if !s.Exists() || len(dirty) == 0 {
		return nil
	}
	base, shadow := s.AttributionBaseCommit, s.Recorder.LastShadowCommit
	ref := shadow
	if ref == "" {
		ref = base
	}
	a := &events.PromptAttribution{}
	files := en.newRevFiles(ctx, []string{ref, base, shadow}, dirty)
	files.need(ref, "", dirty) // every blob of ref: it is compared with the disk
	files.need(base, shadow, dirty)
	for _, p := range dirty {
		disk, err := os.ReadFile(filepath.Join(en.Repo.TopLevel, filepath.FromSlash(p)))
		if err != nil {
			disk = nil
		}
		added, removed := lineDiff(files.read(ref, p), disk)
		a.UserLinesAdded += added
		a.UserLinesRemoved += removed
		if added > 0 {
			if a.UserAddedPerFile == nil {
				a.UserAddedPerFile = map[string]int{}
			}
			a.UserAddedPerFile[p] += added
		}
		if shadow != "" {
			ag, ar := files.diff(base, shadow, p)
			a.AgentLinesAdded += ag
			a.AgentLinesRemoved += ar
		}
	}
	return a
}

// InitialAttribution is the committed slot's initial_attribution (spec §12.2).
type InitialAttribution struct {
	CalculatedAt    time.Time `json:"calculated_at"`
	AgentLines      int       `json:"agent_lines"`
	HumanAdded      int       `json:"human_added"`
	HumanModified   int       `json:"human_modified"`
	HumanRemoved    int       `json:"human_removed"`
	TotalCommitted  int       `json:"total_committed"`
	AgentPercentage float64   `json:"agent_percentage"`
}

// initialAttribution splits a condensed commit's lines between agent and human (spec §12.2),
// from the attribution base, the shadow tip and the new HEAD over the session's files.
func (en *Engine) initialAttribution(ctx context.Context, s session.State, head string, changed []gitexec.DiffEntry) json.RawMessage {
	shadow := s.Recorder.LastShadowCommit
	if len(s.FilesTouched) == 0 || shadow == "" {
		return nil
	}
	base := s.AttributionBaseCommit
	touched := map[string]bool{}
	work, postAdded, postRemoved := 0, 0, 0
	postRemovedPer := map[string]int{}
	paths := slices.Clone(s.FilesTouched)
	for _, c := range changed {
		paths = append(paths, c.Path)
	}
	files := en.newRevFiles(ctx, []string{base, shadow, head}, paths)
	files.need(base, shadow, s.FilesTouched)
	files.need(shadow, head, s.FilesTouched)
	for _, p := range s.FilesTouched {
		touched[p] = true
	}
	var others []string // the commit's files the session did not touch: only base to head
	for _, c := range changed {
		if !touched[c.Path] {
			others = append(others, c.Path)
		}
	}
	files.need(base, head, others)
	for _, p := range s.FilesTouched {
		added, _ := files.diff(base, shadow, p)
		work += added
		pa, pr := files.diff(shadow, head, p)
		postAdded += pa
		postRemoved += pr
		postRemovedPer[p] = pr
	}
	nonAgent := 0
	for _, c := range changed {
		if !touched[c.Path] && !checkpoint.IsInfrastructure(c.Path) {
			added, _ := files.diff(base, head, c.Path)
			nonAgent += added
		}
	}
	promptAdded, promptRemoved, toAgentFiles, toOther := 0, 0, 0, 0
	perFile := map[string]int{}
	for _, pa := range append(append([]session.PromptAttribution(nil), s.PromptAttributions...), pendingOf(s)...) {
		promptAdded += pa.UserLinesAdded
		promptRemoved += pa.UserLinesRemoved
		for f, n := range pa.UserAddedPerFile {
			perFile[f] += n
			if touched[f] {
				toAgentFiles += n
			} else {
				toOther += n
			}
		}
	}
	agentAdded := max(0, work-toAgentFiles)
	userAdded := promptAdded + postAdded + max(0, nonAgent-toOther)
	userRemoved := promptRemoved + postRemoved
	humanModified := min(userAdded, userRemoved)
	selfModified := 0
	for f, pr := range postRemovedPer {
		selfModified += min(pr, perFile[f])
	}
	modifiedAgent := max(0, humanModified-selfModified)
	a := InitialAttribution{
		CalculatedAt:  en.Now().UTC(),
		HumanModified: humanModified,
		HumanAdded:    userAdded - humanModified,
		HumanRemoved:  userRemoved - humanModified,
	}
	a.TotalCommitted = agentAdded + a.HumanAdded - a.HumanRemoved
	if a.TotalCommitted <= 0 {
		a.TotalCommitted = max(0, agentAdded)
	}
	a.AgentLines = max(0, agentAdded-a.HumanRemoved-modifiedAgent)
	if a.TotalCommitted > 0 {
		a.AgentPercentage = float64(a.AgentLines) / float64(a.TotalCommitted) * 100
	}
	data, err := json.Marshal(a)
	if err != nil {
		return nil
	}
	return data
}

func pendingOf(s session.State) []session.PromptAttribution {
	if s.PendingPromptAttribution == nil {
		return nil
	}
	return []session.PromptAttribution{*s.PendingPromptAttribution}
}
