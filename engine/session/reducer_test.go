package session

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events"
)

const (
	rBase    = "1111111111111111111111111111111111111111"
	rHead    = "2222222222222222222222222222222222222222"
	rShadow  = "3333333333333333333333333333333333333333"
	rShadow2 = "4444444444444444444444444444444444444444"
	cpOld    = "aaaaaaaaaaaa" // provisional, awaiting finalization
	cpLast   = "bbbbbbbbbbbb" // last_checkpoint_id
	cpNew    = "cccccccccccc" // the trailer of the commit under test
	evSeq    = 8
)

// allPhases are the three phases plus the two spellings that normalize onto them.
var allPhases = []Phase{PhaseIdle, PhaseActive, PhaseEnded, "", "active_committed"}

var evTime = time.Date(2026, 2, 16, 10, 0, 0, 0, time.FixedZone("", 3600))

// fixture is a mid-session state in phase p with every field the reducer reads set.
func fixture(p Phase) State {
	started := time.Date(2026, 2, 16, 9, 0, 0, 0, time.UTC)
	seen := started.Add(time.Minute)
	s := State{
		SessionID: "sess-1", CLIVersion: "dev", BaseCommit: rBase, AttributionBaseCommit: rBase,
		WorktreePath: "/w", StartedAt: started, Phase: p, TurnID: "0123456789ab",
		TurnCheckpointIDs: []string{cpOld}, LastInteractionTime: &seen,
		CheckpointCount: 2, CheckpointTranscriptStart: 3,
		UntrackedFilesAtStart: []string{"README.md"}, FilesTouched: []string{"b.go", "d.go"},
		LastCheckpointID: cpLast, AgentType: agentClaudeCode,
		TokenUsage:                  &events.TokenUsage{InputTokens: 10, OutputTokens: 5, APICallCount: 1},
		TranscriptIdentifierAtStart: "u0", TranscriptPath: "/t/old.jsonl", FirstPrompt: "first prompt",
		PromptAttributions:       []PromptAttribution{{CheckpointNumber: 1, AgentLinesAdded: 4}},
		PendingPromptAttribution: &PromptAttribution{CheckpointNumber: 2, UserLinesAdded: 1},
		Recorder: Recorder{JournalSeq: evSeq - 1, JournalOffset: 700,
			TurnStart:  events.Transcript{Path: "/t/old.jsonl", Lines: 3, Offset: 300, LastUUID: "u3"},
			TurnPrompt: "first prompt", CondensedOffset: 300, DirtyAtTurnStart: []string{"x.go"},
			Chunks: []events.ChunkRef{{End: 300, Blob: "c1"}}, ChunksPath: "/t/old.jsonl", UsageOffset: 300, UsageLines: 3,
			LastShadowCommit: rShadow},
	}
	if p.Normalize() == PhaseEnded {
		ended := seen.Add(time.Minute)
		s.EndedAt = &ended
	}
	return s
}

func prepared(p Phase, prep func(*State)) State {
	s := fixture(p)
	if prep != nil {
		prep(&s)
	}
	return s
}

func ev(d events.Payload) events.Event {
	return events.Event{V: events.FormatVersion, Seq: evSeq, Type: d.EventType(), Time: evTime, Data: d}
}

// commit is a post-commit fact with a checkpoint trailer, adjusted by mod.
func commit(mod func(*events.GitCommitted)) events.GitCommitted {
	g := events.GitCommitted{Commit: rHead, CheckpointID: cpNew, Branch: "main", Files: []string{"b.go"}}
	if mod != nil {
		mod(&g)
	}
	return g
}

// byPhase picks the expected value for the normalized phase of p.
func byPhase[T any](active, idle, ended T) func(Phase) T {
	return func(p Phase) T {
		switch p.Normalize() {
		case PhaseActive:
			return active
		case PhaseEnded:
			return ended
		}
		return idle
	}
}

func every[T any](v T) func(Phase) T { return byPhase(v, v, v) }

// scribble overwrites everything reachable through the state's slices and pointers, so that a
// later comparison reveals any memory the state shares with another.
func scribble(s *State) {
	for _, l := range [][]string{s.TurnCheckpointIDs, s.UntrackedFilesAtStart, s.FilesTouched, s.Recorder.DirtyAtTurnStart} {
		clear(l)
	}
	for _, c := range s.Recorder.Commits {
		clear(c.Files)
	}
	if s.Recorder.PrePrompt != nil {
		*s.Recorder.PrePrompt = events.Transcript{}
	}
	for _, t := range []*time.Time{s.EndedAt, s.LastInteractionTime} {
		if t != nil {
			*t = time.Time{}
		}
	}
	if s.TokenUsage != nil {
		*s.TokenUsage = events.TokenUsage{}
	}
	if s.PendingPromptAttribution != nil {
		*s.PendingPromptAttribution = PromptAttribution{}
	}
	clear(s.PromptAttributions)
	clear(s.Recorder.Chunks)
}

func TestDecideInputEvents(t *testing.T) {
	// The fixture has uncommitted work: finalization leaves it the transcript after the commit.
	fin := Finalize{CheckpointIDs: []string{cpOld}, KeepScope: true}
	finAll := Finalize{CheckpointIDs: []string{cpOld}}
	migrate := MigrateShadow{OldBase: rBase, NewBase: rHead}
	subagentLeft := events.SubagentEnded{ToolUseID: "toolu_1", SubagentType: "dev", Description: "d",
		Worktree: events.Worktree{Path: "/w", Head: rBase}, Files: []string{"e.go"}, CheckpointID: cpNew}
	// After a linked commit that does not condense it, a session takes its uncommitted files to
	// the new HEAD (rather than its shadow branch renamed: the commit condensed from it).
	follow := func(files ...string) FollowCommit { return FollowCommit{NewBase: rHead, Files: files} }
	noPending := func(s *State) { s.TurnCheckpointIDs = nil }
	nothingNew := func(s *State) { s.CheckpointCount, s.FilesTouched = 0, nil }
	condense := func(prov bool, g events.GitCommitted, carry ...string) Condense {
		return Condense{Commit: g, Provisional: prov, CarryForward: carry}
	}
	overlap := commit(func(g *events.GitCommitted) { g.Overlap = true })
	noOverlap := commit(nil)
	grew := commit(func(g *events.GitCommitted) { g.Overlap, g.TranscriptGrew = true, true })
	grewNoOverlap := commit(func(g *events.GitCommitted) { g.TranscriptGrew = true })
	head := events.Worktree{Path: "/w", Head: rHead}
	same := events.Worktree{Path: "/w", Head: rBase}
	tests := []struct {
		name string
		prep func(*State)
		data events.Payload
		want func(Phase) []Effect
	}{
		{"session start finalizes leftovers", nil, events.SessionStarted{SessionID: "sess-1"}, every[[]Effect]([]Effect{fin})},
		{"session start, nothing pending", noPending, events.SessionStarted{SessionID: "sess-1"}, every[[]Effect](nil)},
		{"session start finalizes leftovers, nothing waiting", nothingNew, events.SessionStarted{SessionID: "sess-1"},
			every[[]Effect]([]Effect{finAll})},
		{"turn start, HEAD unchanged", nil, events.TurnStarted{Worktree: same}, every[[]Effect]([]Effect{fin})},
		{"turn start, HEAD moved", nil, events.TurnStarted{Worktree: head}, every[[]Effect]([]Effect{migrate, fin})},
		{"turn start, unborn HEAD", noPending, events.TurnStarted{}, every[[]Effect](nil)},
		// A message typed while the agent works (Codex: the open turn's own turn_id) is more
		// input to the turn: its provisional checkpoints are finalized at its end, not here.
		{"turn start with the open turn's ID", func(s *State) { s.Recorder.AgentTurnID = "t1" },
			events.TurnStarted{Worktree: same, AgentTurnID: "t1"}, byPhase[[]Effect](nil, []Effect{fin}, []Effect{fin})},
		{"turn start with another turn's ID", func(s *State) { s.Recorder.AgentTurnID = "t1" },
			events.TurnStarted{Worktree: same, AgentTurnID: "t2"}, every[[]Effect]([]Effect{fin})},
		{"turn start of an agent whose prompts join the open turn", nil,
			events.TurnStarted{Worktree: same, JoinsOpenTurn: true}, byPhase[[]Effect](nil, []Effect{fin}, []Effect{fin})},
		{"turn end with files", nil, events.TurnEnded{Worktree: same, Files: []string{"e.go"}},
			every[[]Effect]([]Effect{WriteShadowCheckpoint{Files: []string{"e.go"}}, fin})},
		{"turn end with files after a reset decision", func(s *State) { noPending(s); s.ShouldResetShadowBranch = true },
			events.TurnEnded{Worktree: same, Files: []string{"e.go"}},
			every[[]Effect]([]Effect{WriteShadowCheckpoint{Files: []string{"e.go"}, Reset: true}})},
		{"turn end, HEAD moved during the turn", nil, events.TurnEnded{Worktree: head, Files: []string{"e.go"}},
			every[[]Effect]([]Effect{migrate, WriteShadowCheckpoint{Files: []string{"e.go"}}, fin})},
		{"turn end without files", noPending, events.TurnEnded{Worktree: same}, every[[]Effect](nil)},
		// Deferred finalization after a mid-turn commit that left nothing (no carry-forward): the
		// finalized checkpoints take the rest of the transcript, unless the turn left new work.
		{"turn end finalizes, nothing waiting", nothingNew, events.TurnEnded{Worktree: same}, every[[]Effect]([]Effect{finAll})},
		{"turn end finalizes, the turn left files", nothingNew, events.TurnEnded{Worktree: same, Files: []string{"e.go"}},
			every[[]Effect]([]Effect{WriteShadowCheckpoint{Files: []string{"e.go"}}, fin})},
		// The agent's files: edited and still dirty, or dirty now and not at turn start.
		{"turn end decides the agent's files from the facts", noPending, events.TurnEnded{Worktree: same,
			Edited: []string{"e.go", "reverted.go"}, Dirty: []string{"e.go", "made-by-shell.go", "x.go"}},
			every[[]Effect]([]Effect{WriteShadowCheckpoint{Files: []string{"e.go", "made-by-shell.go"}}})},
		{"turn end, nothing the agent's left dirty", noPending, events.TurnEnded{Worktree: same,
			Edited: []string{"reverted.go"}, Dirty: []string{"x.go"}}, every[[]Effect](nil)},
		// A session file the agent wrote back to HEAD's content: the checkpoint records it so.
		{"turn end, the agent reverted a session file", noPending, events.TurnEnded{Worktree: same,
			Edited: []string{"d.go"}, Dirty: []string{"x.go"}}, every[[]Effect]([]Effect{WriteShadowCheckpoint{}})},
		{"turn end, auto-commit, the agent reverted a session file", func(s *State) { noPending(s); s.Recorder.Strategy = events.StrategyAutoCommit },
			events.TurnEnded{Worktree: same, Edited: []string{"d.go"}, Strategy: events.StrategyAutoCommit, CheckpointID: cpNew},
			every[[]Effect](nil)},
		// Under auto-commit a tracked file changed in place is the session's only by its
		// transcript, a new or deleted one only when no other session's transcript claims it.
		{"auto-commit turn end takes the transcript's files and the unclaimed new ones", noPending, events.TurnEnded{Worktree: same,
			Strategy: events.StrategyAutoCommit, CheckpointID: cpNew, Edited: []string{"e.go"},
			Dirty:    []string{"e.go", "hand-edited.go", "made-by-shell.go", "theirs.go", "x.go"},
			Modified: []string{"e.go", "hand-edited.go"}, Claimed: []string{"theirs.go"}},
			every[[]Effect]([]Effect{AutoCommit{Files: []string{"e.go", "made-by-shell.go"}, CheckpointID: cpNew, Prompt: "first prompt",
				Slot: &AutoSlot{Prompt: "first prompt"}, Head: same.Head}})},
		{"auto-commit turn end, the commit's subject from the turn's last prompt", func(s *State) {
			noPending(s)
			s.Recorder.PrePrompt = &events.Transcript{Path: "/t/old.jsonl", Lines: 2, Offset: 200}
		}, events.TurnEnded{Worktree: same,
			Strategy: events.StrategyAutoCommit, CheckpointID: cpNew, Edited: []string{"e.go"}, Dirty: []string{"e.go"},
			Prompts: []string{"later prompt"}},
			every[[]Effect]([]Effect{AutoCommit{Files: []string{"e.go"}, CheckpointID: cpNew, Prompt: "later prompt",
				Start: &events.Transcript{Path: "/t/old.jsonl", Lines: 2, Offset: 200}, Slot: &AutoSlot{Prompt: "first prompt"}, Head: same.Head}})},
		{"auto-commit subagent left files", func(s *State) { noPending(s); s.Recorder.Strategy = events.StrategyAutoCommit },
			subagentLeft, every[[]Effect]([]Effect{AutoCommit{Files: []string{"e.go"}, CheckpointID: cpNew, ToolUseID: "toolu_1",
				SubagentType: "dev", Description: "d", Slot: &AutoSlot{Prompt: "first prompt", Task: &subagentLeft, At: evTime}, Head: same.Head}})},
		{"auto-commit turn end, only the user's edits", noPending, events.TurnEnded{Worktree: same,
			Strategy: events.StrategyAutoCommit, CheckpointID: cpNew, Dirty: []string{"hand-edited.go"}, Modified: []string{"hand-edited.go"}},
			every[[]Effect](nil)},
		{"subagent left files", nil, events.SubagentEnded{ToolUseID: "toolu_1", Worktree: same, Files: []string{"e.go"}, Incremental: true},
			every[[]Effect]([]Effect{WriteTaskCheckpoint{ToolUseID: "toolu_1", Incremental: true}})},
		{"subagent left no files", nil, events.SubagentEnded{ToolUseID: "toolu_1", Worktree: same}, every[[]Effect](nil)},
		{"session stop finalizes leftovers", nil, events.SessionStopped{SessionID: "sess-1"}, every[[]Effect]([]Effect{fin})},
		{"rewind: the command already moved files and branch", nil, events.Rewound{Commit: rShadow2, BaseCommit: rHead,
			Files: []string{"b.go"}}, every[[]Effect](nil)},
		{"commit during a sequencer run", nil, commit(func(g *events.GitCommitted) { g.Sequencer, g.Overlap, g.TranscriptGrew = true, true, true }),
			every[[]Effect](nil)},
		{"commit without trailer moves the base", nil, commit(func(g *events.GitCommitted) { g.CheckpointID, g.Overlap = "", true }),
			every[[]Effect]([]Effect{migrate})},
		{"commit without trailer, HEAD is the base", nil, commit(func(g *events.GitCommitted) { g.CheckpointID, g.Commit = "", rBase }),
			every[[]Effect](nil)},
		{"trailer, overlap, files touched", nil, overlap, byPhase[[]Effect](
			[]Effect{condense(true, overlap, "d.go")},
			[]Effect{condense(false, overlap, "d.go")},
			[]Effect{condense(false, overlap, "d.go")})},
		{"trailer, no overlap, files touched", nil, noOverlap, byPhase[[]Effect](
			[]Effect{condense(true, noOverlap, "d.go")}, []Effect{follow("d.go")}, []Effect{follow("d.go")})},
		{"trailer, no overlap, a touched file in the commit not the agent's", nil,
			commit(func(g *events.GitCommitted) { g.Diverged = []string{"b.go"} }), byPhase[[]Effect](
				[]Effect{condense(true, commit(func(g *events.GitCommitted) { g.Diverged = []string{"b.go"} }), "b.go", "d.go")},
				[]Effect{follow("b.go", "d.go")}, []Effect{follow("b.go", "d.go")})},
		{"trailer, no overlap, the session's files settled", nil,
			commit(func(g *events.GitCommitted) { g.Settled = []string{"d.go"} }), byPhase[[]Effect](
				[]Effect{condense(true, commit(func(g *events.GitCommitted) { g.Settled = []string{"d.go"} }))},
				[]Effect{follow()}, []Effect{follow()})},
		{"trailer, overlap, steps but no files", func(s *State) { s.FilesTouched = nil }, overlap, byPhase[[]Effect](
			[]Effect{condense(true, overlap)}, []Effect{condense(false, overlap)}, []Effect{follow()})},
		{"trailer, overlap, nothing new, transcript grew", nothingNew, grew, byPhase[[]Effect](
			[]Effect{condense(true, grew)}, []Effect{condense(false, grew)}, []Effect{follow()})},
		{"trailer, nothing new, transcript grew, no overlap", nothingNew, grewNoOverlap, byPhase[[]Effect](
			[]Effect{condense(true, grewNoOverlap)}, []Effect{follow()}, []Effect{follow()})},
		{"trailer, overlap, nothing new, no growth", nothingNew, overlap, every[[]Effect]([]Effect{follow()})},
		{"trailer, nothing to condense, HEAD is the base", nothingNew, commit(func(g *events.GitCommitted) { g.Commit = rBase }),
			every[[]Effect](nil)},
		// prepare-commit-msg's journaled decision is the commit's: the trailer it wrote gets its
		// checkpoint whatever the commit's facts say now.
		{"trailer prepared for this session, nothing new, no overlap", func(s *State) { nothingNew(s); s.Recorder.PreparedID = cpNew },
			noOverlap, byPhase[[]Effect]([]Effect{condense(true, noOverlap)}, []Effect{condense(false, noOverlap)}, []Effect{condense(false, noOverlap)})},
		// Carry-forward (seed scenario 7): a committed file whose content is not the agent's last
		// stays the agent's; a file whose worktree holds the commit's content is settled.
		{"trailer, partial staging of a touched file", nil, commit(func(g *events.GitCommitted) { g.Overlap, g.Diverged = true, []string{"b.go"} }),
			byPhase[[]Effect](
				[]Effect{condense(true, commit(func(g *events.GitCommitted) { g.Overlap, g.Diverged = true, []string{"b.go"} }), "b.go", "d.go")},
				[]Effect{condense(false, commit(func(g *events.GitCommitted) { g.Overlap, g.Diverged = true, []string{"b.go"} }), "b.go", "d.go")},
				[]Effect{condense(false, commit(func(g *events.GitCommitted) { g.Overlap, g.Diverged = true, []string{"b.go"} }), "b.go", "d.go")})},
		{"trailer, the other touched file settled", nil, commit(func(g *events.GitCommitted) { g.Overlap, g.Settled = true, []string{"d.go"} }),
			byPhase[[]Effect](
				[]Effect{condense(true, commit(func(g *events.GitCommitted) { g.Overlap, g.Settled = true, []string{"d.go"} }))},
				[]Effect{condense(false, commit(func(g *events.GitCommitted) { g.Overlap, g.Settled = true, []string{"d.go"} }))},
				[]Effect{condense(false, commit(func(g *events.GitCommitted) { g.Overlap, g.Settled = true, []string{"d.go"} }))})},
		{"mid-turn commit before any checkpoint carries the transcript's edits", nothingNew,
			commit(func(g *events.GitCommitted) { g.TranscriptGrew, g.TurnEdited = true, []string{"b.go", "e.go"} }),
			byPhase[[]Effect](
				[]Effect{condense(true, commit(func(g *events.GitCommitted) { g.TranscriptGrew, g.TurnEdited = true, []string{"b.go", "e.go"} }), "e.go")},
				[]Effect{follow()}, []Effect{follow()})},
		{"trailer prepared for another commit", func(s *State) { nothingNew(s); s.Recorder.PreparedID = cpOld },
			noOverlap, every[[]Effect]([]Effect{follow()})},
		// Under auto-commit a user's commit is not condensed, and the branch follows HEAD; work
		// recorded under manual-commit before the switch (steps) is, as manual-commit does.
		{"trailer, auto-commit session", func(s *State) {
			s.Recorder.Strategy, s.CheckpointCount, s.FilesTouched = events.StrategyAutoCommit, 0, nil
		}, overlap, every[[]Effect]([]Effect{migrate})},
		{"trailer, auto-commit session with manual-commit work", func(s *State) { s.Recorder.Strategy = events.StrategyAutoCommit }, overlap,
			byPhase[[]Effect]([]Effect{condense(true, overlap, "d.go")}, []Effect{condense(false, overlap, "d.go")}, []Effect{condense(false, overlap, "d.go")})},
	}
	for _, tc := range tests {
		for _, p := range allPhases {
			t.Run(tc.name+"/"+string(p), func(t *testing.T) {
				in := prepared(p, tc.prep)
				got := Decide(in, ev(tc.data))
				// A linked commit's condensation, and a turn's auto-commit, are pending work in
				// the evolved state.
				switch tc.data.(type) {
				case events.GitCommitted, events.TurnEnded, events.SubagentEnded:
					got = append(got, Pending(Evolve(in, ev(tc.data)))...)
				}
				if diff := cmp.Diff(tc.want(p), got); diff != "" {
					t.Errorf("Decide effects (-want +got):\n%s", diff)
				}
				for _, e := range got { // effects must not share the state's slices
					switch e := e.(type) {
					case Condense:
						clear(e.CarryForward)
					case Finalize:
						clear(e.CheckpointIDs)
					case FollowCommit:
						clear(e.Files)
					}
				}
				if diff := cmp.Diff(prepared(p, tc.prep), in); diff != "" {
					t.Errorf("Decide changed or shares its input (-before +after):\n%s", diff)
				}
			})
		}
	}
}

func TestDecideResultEventsCallForNothing(t *testing.T) {
	results := []events.Payload{
		events.ShadowCheckpointWritten{Files: []string{"a.go"}}, events.ShadowCheckpointSkipped{},
		events.ShadowBranchMigrated{NewBase: rHead}, events.ShadowBranchDeleted{},
		events.CheckpointCondensed{CheckpointID: cpNew, UserCommit: rHead},
		events.CarriedForward{Files: []string{"a.go"}}, events.CarriedForward{Files: []string{"a.go"}, NewBase: rHead},
		events.CheckpointsFinalized{Finalized: []string{cpOld}},
		events.TaskCheckpointWritten{Files: []string{"a.go"}, Incremental: true},
		events.EffectFailed{Effect: "condense", Error: "boom"},
	}
	for _, d := range results {
		for _, p := range allPhases {
			if got := Decide(fixture(p), ev(d)); len(got) != 0 {
				t.Errorf("Decide(%s, %s) = %#v, want nothing", p, d.EventType(), got)
			}
		}
	}
}

func TestEvolve(t *testing.T) {
	at := evTime
	turnStart := events.TurnStarted{SessionID: "sess-1", Agent: agentClaudeCode, TurnID: "fedcba987654", Prompt: "second",
		Transcript: events.Transcript{Path: "/t/new.jsonl", Lines: 9, Offset: 900, LastUUID: "u9"},
		PrePrompt:  &events.Transcript{Path: "/t/new.jsonl", Lines: 8, Offset: 800},
		Worktree:   events.Worktree{Path: "/w", Head: rHead}, DirtyFiles: []string{"y.go"}, ResetShadow: true,
		Attribution: &PromptAttribution{CheckpointNumber: 99, UserLinesAdded: 5}}
	started := func(s *State, _ Phase) {
		s.Phase, s.EndedAt, s.LastInteractionTime = PhaseActive, nil, &at
		s.TurnID, s.LastCheckpointID, s.TranscriptPath, s.ShouldResetShadowBranch = "fedcba987654", "", "/t/new.jsonl", true
		s.Recorder.TurnStart, s.Recorder.TurnPrompt, s.Recorder.DirtyAtTurnStart = turnStart.Transcript, "second", []string{"y.go"}
		s.Recorder.Scanned = turnStart.Transcript // the transcript was read up to the turn's start
		s.Recorder.PrePrompt = &events.Transcript{Path: "/t/new.jsonl", Lines: 8, Offset: 800}
		s.PendingPromptAttribution = &PromptAttribution{CheckpointNumber: s.CheckpointCount + 1, UserLinesAdded: 5}
	}
	// A checkpoint save moves the pending attribution into prompt_attributions (spec §5.3).
	attributed := func(s *State) {
		s.PromptAttributions = append(s.PromptAttributions, *s.PendingPromptAttribution)
		s.PendingPromptAttribution = nil
	}
	turnEnd := events.TurnEnded{SessionID: "sess-1", Transcript: events.Transcript{Path: "/t/new.jsonl", Lines: 9},
		Files: []string{"e.go"}, Usage: events.TokenUsage{InputTokens: 1, OutputTokens: 2, APICallCount: 1}}
	ended := func(s *State, p Phase) {
		if p == PhaseActive {
			s.Phase, s.LastInteractionTime = PhaseIdle, &at
		}
		s.TranscriptPath = "/t/new.jsonl"
		s.Recorder.Scanned = turnEnd.Transcript
	}
	resetPending := func(s *State) { s.ShouldResetShadowBranch = true }
	finalizing := func(s *State) { s.TurnCheckpointIDs = []string{cpOld, cpNew} }
	unchanged := func(*State, Phase) {}
	pendingAutoCommit := func(s *State) {
		s.CheckpointCount = 0 // no manual-commit steps (see TestAutoCommitKeepsManualWork)
		s.Recorder.Commits = []AutoCommit{{Files: []string{"e.go"}, CheckpointID: cpNew, Prompt: "p", Start: &events.Transcript{Path: "/t/old.jsonl", Lines: 2, Offset: 200},
			Slot: &AutoSlot{To: events.Transcript{Path: "/t/old.jsonl", Lines: 3, Offset: 300}, Prompt: "p"}},
			{Files: []string{"f.go"}, CheckpointID: cpOld}}
	}
	tests := []struct {
		name string
		prep func(*State)
		data events.Payload
		want func(s *State, p Phase) // turns the prepared input into the expected output
	}{
		{"session start", nil, events.SessionStarted{SessionID: "sess-1", Transcript: events.Transcript{Path: "/t/new.jsonl"}},
			func(s *State, p Phase) {
				if p == PhaseEnded {
					s.Phase, s.EndedAt = PhaseIdle, nil
				}
				s.TranscriptPath = "/t/new.jsonl"
			}},
		{"session start keeps the transcript path", nil, events.SessionStarted{SessionID: "sess-1"}, func(s *State, p Phase) {
			if p == PhaseEnded {
				s.Phase, s.EndedAt = PhaseIdle, nil
			}
		}},
		{"turn start", nil, turnStart, started},
		// A prompt with the open turn's own ID (a message Codex takes while the model works)
		// continues the turn: it keeps its start, prompt, dirty files and attribution, and the
		// transcript is read on from the turn's start at its end. Any other phase starts a turn.
		{"turn start with the open turn's ID", func(s *State) { s.Recorder.AgentTurnID = "t1" },
			func() events.Payload { d := turnStart; d.AgentTurnID = "t1"; return d }(),
			func(s *State, p Phase) {
				if p != PhaseActive {
					started(s, p)
					return
				}
				s.LastInteractionTime = &at
			}},
		{"turn start with another turn's ID", func(s *State) { s.Recorder.AgentTurnID = "t1" },
			func() events.Payload { d := turnStart; d.AgentTurnID = "t2"; return d }(),
			func(s *State, p Phase) { started(s, p); s.Recorder.AgentTurnID = "t2" }},
		// Copilot CLI names no turn: any prompt during an open turn joins it.
		{"turn start of an agent whose prompts join the open turn", nil,
			func() events.Payload { d := turnStart; d.JoinsOpenTurn = true; return d }(),
			func(s *State, p Phase) {
				if p != PhaseActive {
					started(s, p)
					return
				}
				s.LastInteractionTime = &at
			}},
		// The overlap check at prompt start (seed 003): reset when HEAD's shadow branch exists and
		// the dirty worktree does not overlap its files.
		{"turn start, shadow files not dirty", nil, func() events.Payload {
			d := turnStart
			d.ResetShadow, d.ShadowExists, d.ShadowFiles = false, true, []string{"z.go"}
			return d
		}(), started},
		{"turn start, shadow files dirty", nil, func() events.Payload {
			d := turnStart
			d.ResetShadow, d.ShadowExists, d.ShadowFiles = false, true, []string{"y.go"}
			return d
		}(), func(s *State, p Phase) { started(s, p); s.ShouldResetShadowBranch = false }},
		{"turn start, no shadow branch", nil, func() events.Payload {
			d := turnStart
			d.ResetShadow = false
			return d
		}(), func(s *State, p Phase) { started(s, p); s.ShouldResetShadowBranch = false }},
		{"turn start backfills agent and first prompt", func(s *State) { s.AgentType, s.FirstPrompt = "Agent", "" },
			func() events.Payload { d := turnStart; d.Prompt = "  fix\n the   bug "; return d }(),
			func(s *State, p Phase) {
				started(s, p)
				s.AgentType, s.FirstPrompt, s.Recorder.TurnPrompt = agentClaudeCode, "fix the bug", "  fix\n the   bug "
			}},
		{"turn end with files keeps a pending reset", resetPending, turnEnd, func(s *State, p Phase) {
			ended(s, p)
			s.TokenUsage = &events.TokenUsage{InputTokens: 11, OutputTokens: 7, APICallCount: 2}
			s.FilesTouched = []string{"b.go", "d.go", "e.go"} // the turn's files count even if its checkpoint fails
		}},
		{"turn end, first usage", func(s *State) { s.TokenUsage = nil }, turnEnd, func(s *State, p Phase) {
			ended(s, p)
			s.TokenUsage = &turnEnd.Usage
			s.FilesTouched = []string{"b.go", "d.go", "e.go"}
		}},
		// The agent wrote d.go back to HEAD's content: it is no longer the session's work, and the
		// checkpoint that records the revert still takes the pending reset.
		{"turn end, the agent reverted a session file", resetPending, events.TurnEnded{SessionID: "sess-1",
			Edited: []string{"d.go", "e.go"}, Dirty: []string{"e.go", "x.go"}},
			func(s *State, p Phase) {
				if p == PhaseActive {
					s.Phase, s.LastInteractionTime = PhaseIdle, &at
				}
				s.FilesTouched = []string{"b.go", "e.go"}
			}},
		{"turn end without files or usage clears the reset", resetPending, events.TurnEnded{SessionID: "sess-1"},
			func(s *State, p Phase) {
				if p == PhaseActive {
					s.Phase, s.LastInteractionTime = PhaseIdle, &at
				}
				s.ShouldResetShadowBranch = false
			}},
		{"session stop", nil, events.SessionStopped{SessionID: "sess-1"}, func(s *State, p Phase) {
			if p != PhaseEnded {
				s.Phase, s.LastInteractionTime, s.EndedAt = PhaseEnded, &at, &at
			}
		}},
		{"commit with trailer and overlap", nil, commit(func(g *events.GitCommitted) { g.Overlap = true }),
			func(s *State, p Phase) {
				s.LastInteractionTime = &at
				g := commit(func(g *events.GitCommitted) { g.Overlap = true })
				s.Recorder.Pending = []Condense{{Commit: g, Provisional: p == PhaseActive, CarryForward: []string{"d.go"}}}
			}},
		{"commit with trailer, no overlap", nil, commit(nil), func(s *State, p Phase) {
			s.LastInteractionTime = &at
			if p == PhaseActive {
				s.Recorder.Pending = []Condense{{Commit: commit(nil), Provisional: true, CarryForward: []string{"d.go"}}}
			}
		}},
		{"commit consumes the prepared link", func(s *State) { s.Recorder.PreparedID = cpOld }, commit(func(g *events.GitCommitted) { g.CheckpointID = "" }),
			func(s *State, _ Phase) { s.Recorder.PreparedID = "" }},
		{"commit prepared", nil, events.CommitPrepared{CheckpointID: cpNew}, func(s *State, _ Phase) { s.Recorder.PreparedID = cpNew }},
		{"commit during a sequencer run", nil, commit(func(g *events.GitCommitted) { g.Sequencer, g.Overlap = true, true }), unchanged},
		{"commit without trailer", nil, commit(func(g *events.GitCommitted) { g.CheckpointID = "" }), unchanged},
		{"shadow checkpoint written", resetPending, events.ShadowCheckpointWritten{Commit: rShadow2, BaseCommit: rHead,
			Files: []string{"d.go", "a.go"}}, func(s *State, _ Phase) {
			s.CheckpointCount, s.FilesTouched, s.BaseCommit = 3, []string{"a.go", "b.go", "d.go"}, rHead
			s.ShouldResetShadowBranch, s.Recorder.LastShadowCommit = false, rShadow2
			attributed(s)
		}},
		{"first shadow checkpoint records the transcript identifier",
			func(s *State) { s.TranscriptIdentifierAtStart, s.CheckpointCount, s.FilesTouched = "", 0, nil },
			events.ShadowCheckpointWritten{Commit: rShadow2, BaseCommit: rBase, Files: []string{"a.go"}},
			func(s *State, _ Phase) {
				s.CheckpointCount, s.FilesTouched, s.TranscriptIdentifierAtStart = 1, []string{"a.go"}, "u3"
				s.Recorder.LastShadowCommit = rShadow2
				attributed(s)
			}},
		// A reset restarts the shadow commit chain only: files keep accumulating (seed scenarios 5, 6).
		{"shadow checkpoint written afresh", resetPending, events.ShadowCheckpointWritten{Commit: rShadow2, BaseCommit: rHead,
			Files: []string{"a.go"}, Reset: true}, func(s *State, _ Phase) {
			s.CheckpointCount, s.FilesTouched, s.BaseCommit = 3, []string{"a.go", "b.go", "d.go"}, rHead
			s.ShouldResetShadowBranch, s.Recorder.LastShadowCommit = false, rShadow2
			attributed(s)
		}},
		{"subagent ended", nil, events.SubagentEnded{SessionID: "sess-1", ToolUseID: "toolu_1", Files: []string{"e.go"}},
			func(s *State, _ Phase) { s.FilesTouched = []string{"b.go", "d.go", "e.go"} }},
		{"task checkpoint written", nil, events.TaskCheckpointWritten{Commit: rShadow2, BaseCommit: rHead, ToolUseID: "toolu_1",
			Files: []string{"e.go"}}, func(s *State, _ Phase) {
			s.FilesTouched, s.BaseCommit, s.Recorder.LastShadowCommit = []string{"b.go", "d.go", "e.go"}, rHead, rShadow2
		}},
		{"incremental task checkpoint written", nil, events.TaskCheckpointWritten{Commit: rShadow2, BaseCommit: rBase,
			Incremental: true}, func(s *State, _ Phase) { s.Recorder.LastShadowCommit, s.Recorder.TaskSteps = rShadow2, 1 }},
		{"shadow checkpoint skipped", resetPending, events.ShadowCheckpointSkipped{Reason: "no changes"},
			func(s *State, _ Phase) { s.ShouldResetShadowBranch = false }},
		{"shadow branch migrated", nil, events.ShadowBranchMigrated{NewBase: rHead}, func(s *State, _ Phase) { s.BaseCommit = rHead }},
		{"condensed provisionally", nil, events.CheckpointCondensed{CheckpointID: cpNew, UserCommit: rHead, Provisional: true,
			Transcript: events.Transcript{Lines: 12, Offset: 1200}}, func(s *State, _ Phase) {
			condensedState(s)
			s.TurnCheckpointIDs = []string{cpOld, cpNew}
		}},
		{"condensed for good", nil, events.CheckpointCondensed{CheckpointID: cpNew, UserCommit: rHead,
			Transcript: events.Transcript{Lines: 12, Offset: 1200}}, func(s *State, _ Phase) { condensedState(s) }},
		{"condensed with transcript chunks", nil, events.CheckpointCondensed{CheckpointID: cpNew, UserCommit: rHead,
			Transcript: events.Transcript{Path: "/t/new.jsonl", Lines: 12, Offset: 1200}, Chunks: []events.ChunkRef{{End: 1000, Blob: "c2"}}},
			func(s *State, _ Phase) {
				condensedState(s)
				s.Recorder.Chunks, s.Recorder.ChunksPath = []events.ChunkRef{{End: 1000, Blob: "c2"}}, "/t/new.jsonl"
			}},
		{"condensed again under a pending ID", finalizing, events.CheckpointCondensed{CheckpointID: cpNew, UserCommit: rHead,
			Provisional: true, Transcript: events.Transcript{Lines: 12, Offset: 1200}}, func(s *State, _ Phase) { condensedState(s) }},
		{"carried forward", nil, events.CarriedForward{Commit: rShadow2, Files: []string{"z.go", "a.go"}}, func(s *State, _ Phase) {
			s.FilesTouched, s.CheckpointCount, s.CheckpointTranscriptStart, s.LastCheckpointID = []string{"a.go", "z.go"}, 1, 0, ""
			s.Recorder.CondensedOffset, s.Recorder.LastShadowCommit = 0, rShadow2
		}},
		// A session a linked commit did not condense: nothing condensed, so its offsets stay; it
		// leaves its old branch for deletion, its files now on the new base's branch.
		{"followed a commit with files left", nil, events.CarriedForward{Branch: "entire/2222222-e3b0c4", Commit: rShadow2,
			Files: []string{"d.go"}, NewBase: rHead}, func(s *State, _ Phase) {
			s.BaseCommit, s.FilesTouched, s.Recorder.LastShadowCommit = rHead, []string{"d.go"}, rShadow2
			s.Recorder.ShadowToDelete = &DeleteShadow{Branch: "entire/1111111-e3b0c4", Tip: rShadow}
		}},
		{"followed a commit, first files without a step", func(s *State) { s.CheckpointCount = 0 },
			events.CarriedForward{Branch: "entire/2222222-e3b0c4", Commit: rShadow2, Files: []string{"d.go"}, NewBase: rHead},
			func(s *State, _ Phase) {
				s.BaseCommit, s.FilesTouched, s.CheckpointCount, s.Recorder.LastShadowCommit = rHead, []string{"d.go"}, 1, rShadow2
				s.Recorder.ShadowToDelete = &DeleteShadow{Branch: "entire/1111111-e3b0c4", Tip: rShadow}
			}},
		{"followed a commit, no work left", nil, events.CarriedForward{NewBase: rHead}, func(s *State, _ Phase) {
			s.BaseCommit, s.FilesTouched, s.CheckpointCount, s.Recorder.LastShadowCommit = rHead, nil, 0, ""
			s.Recorder.ShadowToDelete = &DeleteShadow{Branch: "entire/1111111-e3b0c4", Tip: rShadow}
		}},
		{"followed a commit without work", func(s *State) { s.CheckpointCount, s.FilesTouched, s.Recorder.LastShadowCommit = 0, nil, "" },
			events.CarriedForward{NewBase: rHead}, func(s *State, _ Phase) { s.BaseCommit = rHead }},
		{"all finalized", finalizing, events.CheckpointsFinalized{Finalized: []string{cpNew, cpOld},
			Transcript: events.Transcript{Lines: 20, Offset: 2000}}, func(s *State, _ Phase) {
			s.TurnCheckpointIDs, s.CheckpointTranscriptStart, s.Recorder.CondensedOffset = nil, 20, 2000
			s.Recorder.UsageOffset, s.Recorder.UsageLines = 2000, 20
		}},
		// Work waiting to be condensed (a carried-forward file) keeps its transcript scope and
		// usage: its checkpoint starts where it did (seed caveat 5), not at the turn's end.
		{"all finalized, work waiting keeps its scope", finalizing, events.CheckpointsFinalized{Finalized: []string{cpNew, cpOld},
			Transcript: events.Transcript{Lines: 20, Offset: 2000}, ScopeKept: true}, func(s *State, _ Phase) {
			s.TurnCheckpointIDs = nil
		}},
		{"some finalized, the failed stay pending", finalizing, events.CheckpointsFinalized{Finalized: []string{cpNew},
			Failed: map[string]string{cpOld: "boom"}, Transcript: events.Transcript{Lines: 20, Offset: 2000}}, func(s *State, _ Phase) {
			s.TurnCheckpointIDs, s.CheckpointTranscriptStart, s.Recorder.CondensedOffset = []string{cpOld}, 20, 2000
			s.Recorder.UsageOffset, s.Recorder.UsageLines = 2000, 20
		}},
		{"none finalized, chunks stored", finalizing, events.CheckpointsFinalized{Failed: map[string]string{cpOld: "boom", cpNew: "boom"},
			Transcript: events.Transcript{Path: "/t/new.jsonl", Lines: 20, Offset: 2000}, Chunks: []events.ChunkRef{{End: 1500, Blob: "c3"}}},
			func(s *State, _ Phase) {
				s.Recorder.Chunks, s.Recorder.ChunksPath = []events.ChunkRef{{End: 1500, Blob: "c3"}}, "/t/new.jsonl"
			}},
		{"none finalized", finalizing, events.CheckpointsFinalized{Failed: map[string]string{cpOld: "boom", cpNew: "boom"},
			Transcript: events.Transcript{Lines: 20, Offset: 2000}}, unchanged},
		{"finalized, transcript shorter than the condensed start", finalizing, events.CheckpointsFinalized{
			Finalized: []string{cpOld, cpNew}, Transcript: events.Transcript{Lines: 2, Offset: 200}},
			func(s *State, _ Phase) { s.TurnCheckpointIDs = nil }},
		{"effect failed", resetPending, events.EffectFailed{Effect: "condense", Error: "boom"}, unchanged},
		{"session discarded", nil, events.SessionDiscarded{Reason: "entire reset"}, func(s *State, _ Phase) { s.Recorder.Discarded = true }},
		{"failed condensation stays pending", pendingCommit, events.EffectFailed{Effect: "condense", CheckpointID: cpNew, Error: "boom"}, unchanged},
		{"condensed clears its pending commit only", func(s *State) {
			pendingCommit(s)
			s.Recorder.Pending = append(s.Recorder.Pending, Condense{Commit: commit(func(g *events.GitCommitted) { g.CheckpointID = cpOld })})
		}, events.CheckpointCondensed{CheckpointID: cpNew, UserCommit: rHead, Transcript: events.Transcript{Lines: 12, Offset: 1200}},
			func(s *State, _ Phase) {
				condensedState(s)
				s.Recorder.Pending = []Condense{{Commit: commit(func(g *events.GitCommitted) { g.CheckpointID = cpOld })}}
			}},
		// A turn's auto-commit is owed until its result: a failure leaves it for the next hook.
		{"failed auto-commit stays pending", pendingAutoCommit, events.EffectFailed{Effect: "auto-commit", CheckpointID: cpNew, Error: "locked"}, unchanged},
		{"skipped auto-commit is no longer owed", pendingAutoCommit, events.AutoCommitted{CheckpointID: cpNew, Skipped: true},
			func(s *State, _ Phase) {
				s.Recorder.Commits = []AutoCommit{{Files: []string{"f.go"}, CheckpointID: cpOld}}
			}},
		{"auto-commit made: its checkpoint is owed", pendingAutoCommit, events.AutoCommitted{CheckpointID: cpNew, Commit: rHead, Branch: "main", Files: []string{"e.go"}},
			func(s *State, _ Phase) {
				s.Recorder.Commits = []AutoCommit{{Files: []string{"f.go"}, CheckpointID: cpOld}}
				s.Recorder.Pending = []Condense{{Commit: events.GitCommitted{Commit: rHead, CheckpointID: cpNew, Branch: "main",
					Files: []string{"e.go"}, Overlap: true, Strategy: events.StrategyAutoCommit},
					Start: &events.Transcript{Path: "/t/old.jsonl", Lines: 2, Offset: 200},
					Auto:  &AutoSlot{To: events.Transcript{Path: "/t/old.jsonl", Lines: 3, Offset: 300}, Prompt: "p"}}}
				s.Recorder.LastCommit, s.BaseCommit = rHead, rHead
			}},
		{"shadow branch deleted", nil, events.ShadowBranchDeleted{Branch: "entire/1111111-e3b0c4"}, unchanged},
		{"emptied shadow branch deleted", func(s *State) {
			s.Recorder.ShadowToDelete = &DeleteShadow{Branch: "entire/1111111-e3b0c4", Tip: rShadow}
		},
			events.ShadowBranchDeleted{Branch: "entire/1111111-e3b0c4", Commit: rShadow}, func(s *State, _ Phase) { s.Recorder.ShadowToDelete = nil }},
		{"emptied shadow branch kept for another session", func(s *State) { s.Recorder.ShadowToDelete = &DeleteShadow{Branch: "entire/1111111-e3b0c4"} },
			events.ShadowBranchDeleted{Branch: "entire/1111111-e3b0c4", Kept: true}, func(s *State, _ Phase) { s.Recorder.ShadowToDelete = nil }},
		// A rewind's checkpoint becomes the latest agent content; files it lacks leave the session.
		{"rewound", nil, events.Rewound{Commit: rShadow2, BaseCommit: rHead, Files: []string{"d.go", "a.go"}},
			func(s *State, _ Phase) {
				s.BaseCommit, s.FilesTouched, s.Recorder.LastShadowCommit = rHead, []string{"a.go", "d.go"}, rShadow2
			}},
		{"rewound, another transcript file written", nil, events.Rewound{Commit: rShadow2, BaseCommit: rBase,
			Transcript: events.Transcript{Path: "/t/other.jsonl", Lines: 2, Offset: 200}, Prompts: []string{"other"}},
			func(s *State, _ Phase) { s.FilesTouched, s.Recorder.LastShadowCommit = nil, rShadow2 }},
		{"rewound, the session's transcript cut short", nil, events.Rewound{Commit: rShadow2, BaseCommit: rBase,
			Files: []string{"b.go"}, Transcript: events.Transcript{Path: "/t/old.jsonl", Lines: 2, Offset: 200, LastUUID: "u2"},
			Prompts: []string{"zeroth", "first"}}, func(s *State, _ Phase) {
			s.FilesTouched, s.Recorder.LastShadowCommit = []string{"b.go"}, rShadow2
			s.Recorder.Scanned = events.Transcript{Path: "/t/old.jsonl", Lines: 2, Offset: 200, LastUUID: "u2"}
			s.Recorder.Prompts, s.Recorder.TurnPrompt = []string{"zeroth", "first"}, "first"
			s.Recorder.CondensedOffset, s.CheckpointTranscriptStart = 200, 2
			s.Recorder.UsageOffset, s.Recorder.UsageLines = 200, 2
		}},
		// A reset to an auto-commit (or its undo, back) writes a transcript its checkpoints
		// recorded whole: the next checkpoint begins at its end, even a longer one.
		{"rewound to an auto-commit, the transcript restored longer", nil, events.Rewound{BaseCommit: rHead, Reset: true, Undo: true,
			Transcript: events.Transcript{Path: "/t/old.jsonl", Lines: 9, Offset: 900, LastUUID: "u9"}}, func(s *State, _ Phase) {
			s.BaseCommit, s.FilesTouched, s.Recorder.LastShadowCommit = rHead, nil, ""
			s.Recorder.Scanned = events.Transcript{Path: "/t/old.jsonl", Lines: 9, Offset: 900, LastUUID: "u9"}
			s.Recorder.Prompts = nil
			s.Recorder.CondensedOffset, s.CheckpointTranscriptStart = 900, 9
			s.Recorder.UsageOffset, s.Recorder.UsageLines = 900, 9
		}},
	}
	for _, tc := range tests {
		for _, p := range allPhases {
			t.Run(tc.name+"/"+string(p), func(t *testing.T) {
				in := prepared(p, tc.prep)
				want := prepared(p, tc.prep)
				want.Phase = p.Normalize()
				tc.want(&want, p.Normalize())
				want.Recorder.JournalSeq = evSeq
				if g, ok := tc.data.(events.GitCommitted); ok {
					want.Recorder.LastCommit = g.Commit // every recorded commit, so recording is idempotent
				}
				got := Evolve(in, decoded(t, ev(tc.data))) // fresh payload: Evolve may keep its slices
				norm := got
				norm.Phase = got.Phase.Normalize() // "" and active_committed: see TestEvolveWritesNormalizedPhase
				if diff := cmp.Diff(want, norm); diff != "" {
					t.Errorf("Evolve state (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(prepared(p, tc.prep), in); diff != "" {
					t.Errorf("Evolve mutated its input (-before +after):\n%s", diff)
				}
				scribble(&got)
				if diff := cmp.Diff(prepared(p, tc.prep), in); diff != "" {
					t.Errorf("Evolve output shares memory with its input (-before +after):\n%s", diff)
				}
			})
		}
	}
}

// decoded passes an event through the journal codec, as replay sees it.
func decoded(t *testing.T, e events.Event) events.Event {
	t.Helper()
	line, err := events.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	if e, err = events.Decode(line); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEvolveDoesNotAliasEventData(t *testing.T) {
	payloads := func() []events.Payload {
		return []events.Payload{
			events.TurnStarted{TurnID: "fedcba987654", DirtyFiles: []string{"y.go"}, UntrackedFiles: []string{"n.txt"},
				PrePrompt: &events.Transcript{Path: "/t/new.jsonl", Lines: 8}},
			events.TurnEnded{Strategy: events.StrategyAutoCommit, CheckpointID: cpNew, Worktree: events.Worktree{Head: rHead},
				Edited: []string{"y.go"}, Dirty: []string{"y.go"}, Prompts: []string{"p"}, Captured: []events.FileContent{{Path: "y.go", OID: "y1"}}},
			events.ShadowCheckpointWritten{Files: []string{"y.go"}}, events.CarriedForward{Files: []string{"y.go"}},
			events.CarriedForward{Files: []string{"y.go"}, NewBase: rHead},
			events.TaskCheckpointWritten{Files: []string{"y.go"}},
			events.CheckpointCondensed{CheckpointID: cpNew, UserCommit: rHead, Chunks: []events.ChunkRef{{End: 1000, Blob: "c2"}}},
			events.CheckpointsFinalized{Finalized: []string{cpOld}, Chunks: []events.ChunkRef{{End: 1000, Blob: "c2"}}},
		}
	}
	pristine := payloads()
	for i, d := range payloads() {
		e := ev(d)
		in := fixture(PhaseIdle)
		if d.EventType() == events.TypeTurnStarted {
			in = State{} // the first turn builds the session from the event
		}
		got := Evolve(in, e)
		scribble(&got)
		if diff := cmp.Diff(ev(pristine[i]), e); diff != "" {
			t.Errorf("Evolve output shares memory with the %s event (-before +after):\n%s", d.EventType(), diff)
		}
	}
}

// pendingCommit makes cpNew's condensation pending.
func pendingCommit(s *State) {
	s.Recorder.Pending = []Condense{{Commit: commit(func(g *events.GitCommitted) { g.Overlap = true }), CarryForward: []string{"b.go"}}}
}

// condensedState applies spec §3.8 "after a successful condensation" for cpNew at rHead, line 12,
// which leaves the old base's shadow branch to delete.
func condensedState(s *State) {
	s.Recorder.ShadowToDelete = &DeleteShadow{Branch: ShadowBranch(s.BaseCommit, s.WorktreeID), Tip: s.Recorder.LastShadowCommit}
	s.BaseCommit, s.AttributionBaseCommit, s.CheckpointCount = rHead, rHead, 0
	s.CheckpointTranscriptStart, s.Recorder.CondensedOffset = 12, 1200
	s.PromptAttributions, s.PendingPromptAttribution, s.FilesTouched = nil, nil, nil
	s.LastCheckpointID, s.Recorder.LastShadowCommit = cpNew, ""
	s.Recorder.UsageOffset, s.Recorder.UsageLines = 1200, 12
}

func TestEvolveFirstTurnCreatesState(t *testing.T) {
	d := events.TurnStarted{SessionID: "sess-2", Agent: agentClaudeCode, TurnID: "fedcba987654", Prompt: "hello\tworld",
		Transcript: events.Transcript{Path: "/t/s2.jsonl", Lines: 1, Offset: 10, LastUUID: "u1"},
		Worktree:   events.Worktree{Path: "/w", ID: "wt", Head: rHead}, UntrackedFiles: []string{"notes.txt"}}
	at := evTime
	d.Worktree.CLIVersion = "1.2.3" // the recorder that observed it, not the one replaying
	want := State{SessionID: "sess-2", CLIVersion: "1.2.3", BaseCommit: rHead, AttributionBaseCommit: rHead,
		WorktreePath: "/w", WorktreeID: "wt", StartedAt: evTime, Phase: PhaseActive, TurnID: "fedcba987654",
		LastInteractionTime: &at, UntrackedFilesAtStart: []string{"notes.txt"}, AgentType: agentClaudeCode,
		TranscriptPath: "/t/s2.jsonl", FirstPrompt: "hello world",
		Recorder: Recorder{JournalSeq: evSeq, TurnStart: d.Transcript, Scanned: d.Transcript, TurnPrompt: "hello\tworld"}}
	got := Evolve(State{}, ev(d))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("first TurnStarted (-want +got):\n%s", diff)
	}
	// A later turn keeps the untracked files of the first one.
	d.UntrackedFiles = []string{"other.txt"}
	if got = Evolve(got, ev(d)); !cmp.Equal(got.UntrackedFilesAtStart, []string{"notes.txt"}) {
		t.Errorf("untracked_files_at_start after a second turn = %v, want [notes.txt]", got.UntrackedFilesAtStart)
	}
	// Events that cannot start a session leave the zero state alone.
	for _, d := range []events.Payload{events.SessionStarted{SessionID: "x"}, events.SessionStopped{SessionID: "x"}} {
		if got := Evolve(State{}, ev(d)); got.Exists() || got.Phase != "" || got.EndedAt != nil {
			t.Errorf("Evolve(zero, %s) = %+v, want no session", d.EventType(), got)
		}
	}
}

// TestEvolveTurnEndWithoutState: a save without state creates the session (spec §5.3).
func TestEvolveTurnEndWithoutState(t *testing.T) {
	d := events.TurnEnded{SessionID: "sess-3", Agent: agentClaudeCode, Worktree: events.Worktree{Path: "/w", Head: rHead},
		Files: []string{"a.go"}}
	got := Evolve(State{}, ev(d))
	if got.SessionID != "sess-3" || got.Phase != PhaseIdle || got.BaseCommit != rHead || !got.StartedAt.Equal(evTime) {
		t.Fatalf("state created at turn end = %+v", got)
	}
	if want := []Effect{WriteShadowCheckpoint{Files: []string{"a.go"}}}; !cmp.Equal(Decide(State{}, ev(d)), want) {
		t.Errorf("Decide(zero, TurnEnded) = %v, want %v", Decide(State{}, ev(d)), want)
	}
	if got.LastInteractionTime == nil || !got.LastInteractionTime.Equal(evTime) {
		t.Errorf("last_interaction_time = %v, want %v", got.LastInteractionTime, evTime)
	}
}

func TestEvolveWritesNormalizedPhase(t *testing.T) {
	for _, p := range []Phase{"", "active_committed"} {
		for _, d := range []events.Payload{events.SessionStarted{SessionID: "sess-1"}, events.TurnEnded{SessionID: "sess-1"}, commit(nil)} {
			if got := Evolve(fixture(p), ev(d)).Phase; got != p.Normalize() && !(p == "active_committed" && got == PhaseIdle) {
				t.Errorf("Evolve(%q, %s).Phase = %q, want a normalized phase", p, d.EventType(), got)
			}
		}
	}
}

// A removal a maintenance command decided is all a session still owes: no condensation or
// shadow deletion is done for a session being removed.
func TestPendingOfADiscardedSession(t *testing.T) {
	s := fixture(PhaseIdle)
	pendingCommit(&s)
	s.Recorder.ShadowToDelete = &DeleteShadow{Branch: "entire/1111111-e3b0c4"}
	if got := Pending(s); len(got) != 1 {
		t.Fatalf("Pending before the discard = %#v, want the condensation (the deletion after it)", got)
	}
	s = Evolve(s, ev(events.SessionDiscarded{Reason: "entire reset"}))
	if diff := cmp.Diff([]Effect{RemoveSession{}}, Pending(s)); diff != "" {
		t.Errorf("Pending after the discard (-want +got):\n%s", diff)
	}
}

// TestNotCondensedSaysWhy: the reason a commit leaves a session out, for the log, is the link
// decision's own: "" exactly when the commit's condensation becomes pending.
func TestNotCondensedSaysWhy(t *testing.T) {
	noWork := func(s *State) { s.CheckpointCount, s.FilesTouched = 0, nil }
	overlap := func(g *events.GitCommitted) { g.Overlap = true }
	tests := []struct {
		name  string
		state State
		facts events.GitCommitted
		want  string
	}{
		{"idle with its work", fixture(PhaseIdle), commit(overlap), ""},
		{"idle, other work", fixture(PhaseIdle), commit(nil), "the commit does not carry the session's work"},
		{"idle without work", prepared(PhaseIdle, noWork), commit(overlap), "nothing new since the last checkpoint"},
		{"active without work", prepared(PhaseActive, noWork), commit(nil), "nothing new since the last checkpoint"},
		{"active, transcript grew", prepared(PhaseActive, noWork), commit(func(g *events.GitCommitted) { g.TranscriptGrew = true }), ""},
		{"ended without files", prepared(PhaseEnded, func(s *State) { s.FilesTouched = nil }), commit(overlap), "ended session without files"},
		{"no trailer", fixture(PhaseIdle), commit(func(g *events.GitCommitted) { g.CheckpointID, g.Overlap = "", true }), "no checkpoint trailer"},
		{"rebase", fixture(PhaseIdle), commit(func(g *events.GitCommitted) { g.Sequencer, g.Overlap = true, true }), "made by a rebase, cherry-pick or revert"},
		{"prepared", prepared(PhaseIdle, func(s *State) { s.Recorder.PreparedID = cpNew }), commit(nil), ""},
		{"auto-commit session", prepared(PhaseIdle, func(s *State) { s.Recorder.Strategy, s.CheckpointCount = events.StrategyAutoCommit, 0 }), commit(overlap),
			"auto-commit session: its turns make their own commits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NotCondensed(tt.state, tt.facts); got != tt.want {
				t.Errorf("NotCondensed = %q, want %q", got, tt.want)
			}
			pending := len(Evolve(tt.state, ev(tt.facts)).Recorder.Pending) > len(tt.state.Recorder.Pending)
			if pending != (tt.want == "") {
				t.Errorf("condensation pending = %v, but the reason is %q", pending, tt.want)
			}
		})
	}
}
