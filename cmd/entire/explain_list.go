package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events/agent"
)

// listLimit is how many linked commits the list view shows without --search-all.
const listLimit = 100

// listGroup is one checkpoint of the list view with the commits that carry it. With --json
// the list is {"branch": "<name>", "checkpoints": [listGroup...]}, newest first.
type listGroup struct {
	ID        string       `json:"id"` // checkpoint ID, or the session ID of temporary checkpoints
	Temporary bool         `json:"temporary"`
	Prompt    string       `json:"prompt"`
	Sessions  []string     `json:"session_ids"`
	Commits   []jsonCommit `json:"commits"`
	// Error says why a committed checkpoint could not be read (a damaged record): it is listed
	// with its commits all the same, and the others are shown.
	Error string `json:"error,omitempty"`
}

func (g *listGroup) latest() time.Time {
	var t time.Time
	for _, c := range g.Commits {
		if c.Date.After(t) {
			t = c.Date
		}
	}
	return t
}

// list shows the checkpoints of the current branch: committed ones linked from commits
// reachable from HEAD, then the temporary ones of HEAD's shadow branch.
func (c *explainCmd) list(x *explainer) error {
	branch, onBranch, err := x.repo.HeadBranch(x.ctx)
	if err != nil {
		return err
	}
	head, hasHead, err := x.repo.Head(x.ctx)
	if err != nil {
		return err
	}
	if !onBranch {
		branch = "HEAD (" + head.Short(7) + ")"
	}
	var groups []*listGroup
	if hasHead {
		if groups, err = x.committedGroups(c.SearchAll); err != nil {
			return err
		}
		temp, err := x.temporaryGroups(session.ShadowBranch(string(head), x.repo.WorktreeID()))
		if err != nil {
			return err
		}
		groups = append(groups, temp...)
	}
	if c.Session != "" {
		var kept []*listGroup
		for _, g := range groups {
			for _, s := range g.Sessions {
				if strings.HasPrefix(s, c.Session) {
					kept = append(kept, g)
					break
				}
			}
		}
		groups = kept
	}
	sortGroups(groups)
	if c.JSON {
		if groups == nil {
			groups = []*listGroup{}
		}
		return writeJSON(x.raw, struct {
			Branch      string       `json:"branch"`
			Checkpoints []*listGroup `json:"checkpoints"`
		}{branch, groups})
	}
	p := x.pal
	fmt.Fprintf(x.out, "%s %s\n%s %d\n", p.label("Branch:"), branch, p.label("Checkpoints:"), len(groups))
	if c.Session != "" {
		fmt.Fprintf(x.out, "Filtered by session: %s\n", c.Session)
	}
	if len(groups) == 0 {
		fmt.Fprintln(x.out, "\nNo checkpoints found on this branch.")
		return nil
	}
	for _, g := range groups {
		tag := ""
		if g.Temporary {
			tag = " [temporary]"
		}
		prompt := "(no prompt)"
		switch {
		case g.Error != "":
			prompt = "(unreadable: " + g.Error + "; see `entire doctor`)"
		case g.Prompt != "":
			prompt = fmt.Sprintf("%q", truncate(oneLine(g.Prompt), 60))
		}
		fmt.Fprintf(x.out, "\n[%s]%s %s\n", p.id(short(g.ID, 12)), tag, prompt)
		for _, cm := range g.Commits {
			fmt.Fprintf(x.out, "  %s (%s) %s\n", p.dim(cm.Date.Local().Format("01-02 15:04")), p.id(short(cm.SHA, 7)), truncate(cm.Subject, 80))
		}
	}
	return nil
}

// committedGroups groups the linked commits reachable from HEAD by checkpoint, skipping IDs
// that are not on the metadata branch.
func (x *explainer) committedGroups(all bool) ([]*listGroup, error) {
	limit := listLimit
	if all {
		limit = 0
	}
	commits, err := x.linked("", limit)
	if err != nil {
		return nil, err
	}
	ids, err := x.rd.ListCommitted(x.ctx)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
	}
	byID := map[string]*listGroup{}
	var groups []*listGroup
	for _, cm := range commits {
		if !known[cm.CheckpointID] {
			continue
		}
		g := byID[cm.CheckpointID]
		if g == nil {
			if g, err = x.committedGroup(cm.CheckpointID); err != nil {
				g = &listGroup{ID: cm.CheckpointID, Error: err.Error()}
			}
			byID[cm.CheckpointID] = g
			groups = append(groups, g)
		}
		g.Commits = append(g.Commits, jsonCommit{SHA: string(cm.SHA), Subject: cm.Subject, Date: cm.Date})
	}
	return groups, nil
}

// committedGroup reads a checkpoint's sessions and first prompt (loading a transcript only
// when the checkpoint starts past its beginning, or the slot has no prompt.txt to read it
// from, as a subagent's checkpoint under auto-commit).
func (x *explainer) committedGroup(id string) (*listGroup, error) {
	cp, err := x.rd.ReadCheckpointInfo(x.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint %s: %w", id, err)
	}
	g := &listGroup{ID: id}
	for i := range cp.Slots {
		s := &cp.Slots[i]
		g.Sessions = append(g.Sessions, s.Meta.SessionID)
		if g.Prompt != "" {
			continue
		}
		if s.TranscriptStart() > 0 || s.Prompts == nil {
			if err := checkpoint.LoadTranscript(x.ctx, x.repo, s); err != nil {
				return nil, err
			}
		}
		if ps := s.ScopedPrompts(); len(ps) > 0 {
			g.Prompt = ps[0]
		}
	}
	return g, nil
}

// temporaryGroups groups a shadow branch's checkpoints by session; the prompt is the first
// of the session's oldest checkpoint that has one.
func (x *explainer) temporaryGroups(branch string) ([]*listGroup, error) {
	tcs, err := checkpoint.ListTemporaryOn(x.ctx, x.repo, branch)
	if err != nil {
		return nil, err
	}
	bySession := map[string]*listGroup{}
	var groups []*listGroup
	for _, tc := range tcs {
		g := bySession[tc.SessionID]
		if g == nil {
			g = &listGroup{ID: tc.SessionID, Temporary: true, Sessions: []string{tc.SessionID}}
			bySession[tc.SessionID] = g
			groups = append(groups, g)
		}
		g.Commits = append(g.Commits, jsonCommit{SHA: string(tc.Commit), Subject: tc.Subject, Date: tc.Date})
	}
	for i := len(tcs) - 1; i >= 0; i-- {
		tc := tcs[i]
		g := bySession[tc.SessionID]
		if g.Prompt != "" {
			continue
		}
		data, ok, err := x.repo.ReadBlob(x.ctx, string(tc.Commit)+":"+tc.MetadataDir+"/prompt.txt")
		if err != nil {
			return nil, err
		}
		if ok {
			g.Prompt, _, _ = strings.Cut(string(data), agent.PromptSeparator)
		}
	}
	return groups, nil
}

// sortGroups orders list groups by their newest commit, newest first, keeping ties in order.
func sortGroups(groups []*listGroup) {
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].latest().After(groups[j].latest()) })
}
