package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events"
)

// goldenState sets every key of spec §5.2 except the deprecated ones, with characters that
// encoding/json HTML-escapes and local-time timestamps.
func goldenState() State {
	zone := time.FixedZone("", -5*3600)
	seen := time.Date(2026, 11, 22, 6, 11, 37, 500000000, zone)
	ended := seen.Add(time.Second)
	return State{
		SessionID: "11111111-2222-3333-4444-555555555555", CLIVersion: "dev",
		BaseCommit:            "6376e2f291a3b92bc53e36fc3c391443621d29c4",
		AttributionBaseCommit: "0376e2f291a3b92bc53e36fc3c391443621d29c4",
		WorktreePath:          "/home/u/src/repo", WorktreeID: "feature",
		StartedAt: time.Date(2026, 11, 22, 6, 11, 29, 116139000, zone), EndedAt: &ended,
		Phase: PhaseEnded, TurnID: "ed632e7504d2", TurnCheckpointIDs: []string{"3e9a1aa5a986"},
		LastInteractionTime: &seen, CheckpointCount: 1, CheckpointTranscriptStart: 4,
		UntrackedFilesAtStart: []string{"README.md"}, FilesTouched: []string{"a&b.go", "hello.go"},
		LastCheckpointID: "b230073a9601", AgentType: agentClaudeCode,
		TokenUsage: &events.TokenUsage{InputTokens: 13, CacheCreationTokens: 100, CacheReadTokens: 2100,
			OutputTokens: 25, APICallCount: 2},
		TranscriptIdentifierAtStart: "u1", TranscriptPath: "/home/u/.claude/projects/x/s.jsonl",
		FirstPrompt:        "Add a <div> to index.html",
		PromptAttributions: []PromptAttribution{{CheckpointNumber: 1, AgentLinesAdded: 3}},
		PendingPromptAttribution: &PromptAttribution{CheckpointNumber: 2, UserLinesAdded: 3,
			UserAddedPerFile: map[string]int{"hello.go": 3}},
		ShouldResetShadowBranch: true,
		Recorder: Recorder{JournalSeq: 9, JournalOffset: 4242,
			TurnStart:  events.Transcript{Path: "/t.jsonl", Lines: 4, Offset: 400, LastUUID: "u4"},
			TurnPrompt: "Add a <div>", CondensedOffset: 400, DirtyAtTurnStart: []string{"x.go"},
			LastShadowCommit: "7376e2f291a3b92bc53e36fc3c391443621d29c4"},
	}
}

const goldenStateJSON = `{
  "session_id": "11111111-2222-3333-4444-555555555555",
  "cli_version": "dev",
  "base_commit": "6376e2f291a3b92bc53e36fc3c391443621d29c4",
  "attribution_base_commit": "0376e2f291a3b92bc53e36fc3c391443621d29c4",
  "worktree_path": "/home/u/src/repo",
  "worktree_id": "feature",
  "started_at": "2026-11-22T06:11:29.116139-05:00",
  "ended_at": "2026-11-22T06:11:38.5-05:00",
  "phase": "ended",
  "turn_id": "ed632e7504d2",
  "turn_checkpoint_ids": [
    "3e9a1aa5a986"
  ],
  "last_interaction_time": "2026-11-22T06:11:37.5-05:00",
  "checkpoint_count": 1,
  "checkpoint_transcript_start": 4,
  "untracked_files_at_start": [
    "README.md"
  ],
  "files_touched": [
    "a\u0026b.go",
    "hello.go"
  ],
  "last_checkpoint_id": "b230073a9601",
  "agent_type": "Claude Code",
  "token_usage": {
    "input_tokens": 13,
    "cache_creation_tokens": 100,
    "cache_read_tokens": 2100,
    "output_tokens": 25,
    "api_call_count": 2
  },
  "transcript_identifier_at_start": "u1",
  "transcript_path": "/home/u/.claude/projects/x/s.jsonl",
  "first_prompt": "Add a \u003cdiv\u003e to index.html",
  "prompt_attributions": [
    {
      "checkpoint_number": 1,
      "user_lines_added": 0,
      "user_lines_removed": 0,
      "agent_lines_added": 3,
      "agent_lines_removed": 0
    }
  ],
  "pending_prompt_attribution": {
    "checkpoint_number": 2,
    "user_lines_added": 3,
    "user_lines_removed": 0,
    "agent_lines_added": 0,
    "agent_lines_removed": 0,
    "user_added_per_file": {
      "hello.go": 3
    }
  },
  "should_reset_shadow_branch": true,
  "recorder": {
    "journal_seq": 9,
    "journal_offset": 4242,
    "turn_start": {
      "path": "/t.jsonl",
      "lines": 4,
      "offset": 400,
      "last_uuid": "u4"
    },
    "scanned": {
      "lines": 0,
      "offset": 0
    },
    "turn_prompt": "Add a \u003cdiv\u003e",
    "condensed_offset": 400,
    "dirty_at_turn_start": [
      "x.go"
    ],
    "last_shadow_commit": "7376e2f291a3b92bc53e36fc3c391443621d29c4"
  }
}
`

// specKeys is the key order of spec §5.2.
var specKeys = []string{"session_id", "cli_version", "base_commit", "attribution_base_commit", "worktree_path",
	"worktree_id", "started_at", "ended_at", "phase", "turn_id", "turn_checkpoint_ids", "last_interaction_time",
	"checkpoint_count", "checkpoint_transcript_start", "condensed_transcript_lines", "untracked_files_at_start",
	"files_touched", "last_checkpoint_id", "agent_type", "token_usage", "transcript_lines_at_start",
	"transcript_identifier_at_start", "transcript_path", "first_prompt", "prompt_attributions",
	"pending_prompt_attribution"}

func TestMarshalStateGolden(t *testing.T) {
	got, err := MarshalState(goldenState())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(goldenStateJSON, string(got)); diff != "" {
		t.Errorf("MarshalState (-want +got):\n%s", diff)
	}
}

// topKeys returns the top-level keys of a JSON object in file order.
func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %v %v", tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestMarshalStateKeys(t *testing.T) {
	full := goldenState()
	full.CondensedTranscriptLines, full.TranscriptLinesAtStart = 4, 3 // deprecated, still in place
	minimal := State{SessionID: "s", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	tests := []struct {
		name   string
		state  State
		extras []string // our own keys, after the reference's
		want   []string // nil: every spec key
	}{
		{"full", full, []string{"should_reset_shadow_branch", "recorder"}, nil},
		// Keys without "o" in spec §5.2 are written even when empty.
		{"minimal", minimal, []string{"recorder"}, []string{"session_id", "base_commit", "started_at", "checkpoint_count"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := MarshalState(tc.state)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(data, []byte("}\n")) || bytes.HasSuffix(data, []byte("\n\n")) {
				t.Errorf("want exactly one trailing newline, got %q", data[max(0, len(data)-4):])
			}
			want := tc.want
			if want == nil {
				want = specKeys
			}
			if diff := cmp.Diff(append(append([]string(nil), want...), tc.extras...), topKeys(t, data)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStateRoundTrip(t *testing.T) {
	for name, s := range map[string]State{
		"golden":  goldenState(),
		"minimal": {SessionID: "s", BaseCommit: "abc", AttributionBaseCommit: "abc", Phase: PhaseIdle},
	} {
		t.Run(name, func(t *testing.T) {
			data, err := MarshalState(s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := UnmarshalState(data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
			again, err := MarshalState(got)
			if err != nil || !bytes.Equal(again, data) {
				t.Errorf("re-encoding differs (err %v):\n%s\nvs\n%s", err, again, data)
			}
		})
	}
}

func TestUnmarshalStateMigrations(t *testing.T) {
	type want struct {
		start    int
		attrBase string
		phase    Phase
	}
	std := want{0, "base", PhaseIdle}
	tests := []struct {
		name    string
		extra   string // keys added to {"session_id":"s","base_commit":"base", ...}
		want    want
		wantErr string
	}{
		{"plain", ``, std, ""},
		{"condensed_transcript_lines", `"condensed_transcript_lines": 7`, want{7, "base", PhaseIdle}, ""},
		{"transcript_lines_at_start", `"transcript_lines_at_start": 5`, want{5, "base", PhaseIdle}, ""},
		{"condensed lines before lines at start", `"transcript_lines_at_start": 5, "condensed_transcript_lines": 7`,
			want{7, "base", PhaseIdle}, ""},
		{"current key wins", `"checkpoint_transcript_start": 9, "condensed_transcript_lines": 7, "transcript_lines_at_start": 5`,
			want{9, "base", PhaseIdle}, ""},
		{"attribution base kept", `"attribution_base_commit": "attr"`, want{0, "attr", PhaseIdle}, ""},
		{"attribution base backfilled from empty", `"attribution_base_commit": ""`, std, ""},
		{"empty phase", `"phase": ""`, std, ""},
		{"unknown phase", `"phase": "paused"`, std, ""},
		{"active", `"phase": "active"`, want{0, "base", PhaseActive}, ""},
		{"legacy active_committed", `"phase": "active_committed"`, want{0, "base", PhaseActive}, ""},
		{"ended", `"phase": "ended"`, want{0, "base", PhaseEnded}, ""},
		{"valid last_checkpoint_id", `"last_checkpoint_id": "b230073a9601"`, std, ""},
		{"empty last_checkpoint_id", `"last_checkpoint_id": ""`, std, ""},
		{"uppercase last_checkpoint_id", `"last_checkpoint_id": "B230073A9601"`, want{}, "invalid last_checkpoint_id"},
		{"short last_checkpoint_id", `"last_checkpoint_id": "b230073a960"`, want{}, "invalid last_checkpoint_id"},
		{"long last_checkpoint_id", `"last_checkpoint_id": "b230073a96011"`, want{}, "invalid last_checkpoint_id"},
		{"wrong type", `"checkpoint_count": "1"`, want{}, "decode session state"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"session_id": "s", "base_commit": "base", "started_at": "2026-01-02T03:04:05Z"`
			if tc.extra != "" {
				doc += ", " + tc.extra
			}
			s, err := UnmarshalState([]byte(doc + "}"))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("UnmarshalState error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := want{s.CheckpointTranscriptStart, s.AttributionBaseCommit, s.Phase}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "{", "null x", `["session_id"]`} {
		if _, err := UnmarshalState([]byte(bad)); err == nil {
			t.Errorf("UnmarshalState(%q) succeeded, want an error", bad)
		}
	}
}

// A state the reference wrote with the deprecated transcript keys: they are migrated on load
// and never written back, so that a start that later goes back to 0 (carry-forward) is not
// migrated again from the stale value at the next load.
func TestUnmarshalStateDropsDeprecatedKeys(t *testing.T) {
	doc := `{"session_id": "s", "base_commit": "base", "started_at": "2026-01-02T03:04:05Z", "condensed_transcript_lines": 7, "transcript_lines_at_start": 5}`
	s, err := UnmarshalState([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if s.CheckpointTranscriptStart != 7 {
		t.Fatalf("checkpoint_transcript_start = %d, want 7", s.CheckpointTranscriptStart)
	}
	s.CheckpointTranscriptStart = 0 // a carry-forward starts the next checkpoint at the beginning
	data, err := MarshalState(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"condensed_transcript_lines", "transcript_lines_at_start"} {
		if bytes.Contains(data, []byte(`"`+key+`"`)) {
			t.Errorf("written state still has %s:\n%s", key, data)
		}
	}
	again, err := UnmarshalState(data)
	if err != nil {
		t.Fatal(err)
	}
	if again.CheckpointTranscriptStart != 0 {
		t.Errorf("checkpoint_transcript_start after a round trip = %d, want 0", again.CheckpointTranscriptStart)
	}
}

// referenceStateJSON is the example of spec §5.2, verbatim.
const referenceStateJSON = `    {
      "session_id": "11111111-2222-3333-4444-555555555555",
      "cli_version": "dev",
      "base_commit": "6376e2f291a3b92bc53e36fc3c391443621d29c4",
      "attribution_base_commit": "6376e2f291a3b92bc53e36fc3c391443621d29c4",
      "worktree_path": "/home/u/src/repo",
      "started_at": "2026-11-22T11:11:29.116139759Z",
      "phase": "idle",
      "turn_id": "ed632e7504d2",
      "turn_checkpoint_ids": ["3e9a1aa5a986"],
      "last_interaction_time": "2026-11-22T11:11:37.575185859Z",
      "checkpoint_count": 1,
      "checkpoint_transcript_start": 4,
      "untracked_files_at_start": ["README.md"],
      "files_touched": ["hello.go"],
      "last_checkpoint_id": "b230073a9601",
      "agent_type": "Claude Code",
      "token_usage": {"input_tokens": 13, "cache_creation_tokens": 100, "cache_read_tokens": 2100,
                      "output_tokens": 25, "api_call_count": 2},
      "transcript_identifier_at_start": "u1",
      "transcript_path": "/home/u/.claude/projects/-home-u-src-repo/11111111-2222-3333-4444-555555555555.jsonl",
      "first_prompt": "Please add a hello.go file with main",
      "prompt_attributions": [{"checkpoint_number": 1, "user_lines_added": 0, "user_lines_removed": 0,
                               "agent_lines_added": 0, "agent_lines_removed": 0}],
      "pending_prompt_attribution": {"checkpoint_number": 2, "user_lines_added": 3, "user_lines_removed": 0,
                                     "agent_lines_added": 3, "agent_lines_removed": 0,
                                     "user_added_per_file": {"hello.go": 3}}
    }`

func TestUnmarshalStateReferenceFile(t *testing.T) {
	s, err := UnmarshalState([]byte(referenceStateJSON))
	if err != nil {
		t.Fatal(err)
	}
	seen := time.Date(2026, 11, 22, 11, 11, 37, 575185859, time.UTC)
	base := "6376e2f291a3b92bc53e36fc3c391443621d29c4"
	want := State{SessionID: "11111111-2222-3333-4444-555555555555", CLIVersion: "dev", BaseCommit: base,
		AttributionBaseCommit: base, WorktreePath: "/home/u/src/repo",
		StartedAt: time.Date(2026, 11, 22, 11, 11, 29, 116139759, time.UTC), Phase: PhaseIdle,
		TurnID: "ed632e7504d2", TurnCheckpointIDs: []string{"3e9a1aa5a986"}, LastInteractionTime: &seen,
		CheckpointCount: 1, CheckpointTranscriptStart: 4, UntrackedFilesAtStart: []string{"README.md"},
		FilesTouched: []string{"hello.go"}, LastCheckpointID: "b230073a9601", AgentType: agentClaudeCode,
		TokenUsage: &events.TokenUsage{InputTokens: 13, CacheCreationTokens: 100, CacheReadTokens: 2100,
			OutputTokens: 25, APICallCount: 2},
		TranscriptIdentifierAtStart: "u1",
		TranscriptPath:              "/home/u/.claude/projects/-home-u-src-repo/11111111-2222-3333-4444-555555555555.jsonl",
		FirstPrompt:                 "Please add a hello.go file with main",
		PromptAttributions:          []PromptAttribution{{CheckpointNumber: 1}},
		PendingPromptAttribution: &PromptAttribution{CheckpointNumber: 2, UserLinesAdded: 3, AgentLinesAdded: 3,
			UserAddedPerFile: map[string]int{"hello.go": 3}},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("decoded reference state (-want +got):\n%s", diff)
	}
	// Written back, it is the reference's JSON plus only our own "recorder" key.
	out, err := MarshalState(s)
	if err != nil {
		t.Fatal(err)
	}
	var ref, got bytes.Buffer
	if err := json.Compact(&ref, []byte(referenceStateJSON)); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&got, out); err != nil {
		t.Fatal(err)
	}
	rec, _ := json.Marshal(Recorder{})
	wantOut := fmt.Sprintf(`%s,"recorder":%s}`, strings.TrimSuffix(ref.String(), "}"), rec)
	if diff := cmp.Diff(wantOut, got.String()); diff != "" {
		t.Errorf("re-encoded reference state (-want +got):\n%s", diff)
	}
}

// agentClaudeCode is the agent name the fixtures record.
const agentClaudeCode = "Claude Code"

// An end that names its task differently from its launch pairs with the one open task of the
// same type and description, and only when exactly one matches.
func TestTaskLike(t *testing.T) {
	s := State{Recorder: Recorder{Tasks: []OpenTask{
		{ToolUseID: "a", SubagentType: "reviewer", Description: "Review x"},
		{ToolUseID: "b", SubagentType: "dev", Description: "Write y"},
		{ToolUseID: "c", SubagentType: "dev", Description: "Write y"},
	}}}
	if got, ok := s.TaskLike("reviewer", "Review x"); !ok || got.ToolUseID != "a" {
		t.Errorf("TaskLike(reviewer) = %v, %v; want task a", got, ok)
	}
	if _, ok := s.TaskLike("dev", "Write y"); ok {
		t.Error("two tasks match: TaskLike must not pick one")
	}
	if _, ok := s.TaskLike("other", ""); ok {
		t.Error("no task matches, yet TaskLike found one")
	}
}

// fillAll sets every field reachable from v to a non-zero value: each slice gets two
// elements, each map an entry, each pointer a target, recursively.
func fillAll(v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", depth))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(depth + 1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(depth + 1))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(depth) + 0.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillAll(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fillAll(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillAll(k, depth+1)
		fillAll(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Unix(int64(depth)+1, 0)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i), depth+1)
			}
		}
	}
}

// shared names the first slice, map or pointer a and b have in common, or "".
func shared(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() == 0 {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		for i := range a.Len() {
			if p := shared(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				if p := shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

// clone shares nothing with its input, however the state is filled: the reducer's purity and
// the store's memo of decoded states (a state kept and handed out as clones) both rest on it.
// A field added to State without a copy in clone fails here.
func TestCloneSharesNothing(t *testing.T) {
	var s State
	fillAll(reflect.ValueOf(&s).Elem(), 0)
	c := s.clone()
	if p := shared(reflect.ValueOf(s), reflect.ValueOf(c), "State"); p != "" {
		t.Errorf("clone shares %s with its input", p)
	}
	if !reflect.DeepEqual(s, c) {
		t.Error("clone differs from its input")
	}
}

// The step count status shows: under auto-commit each turn's checkpoint is a step (spec §5,
// Stop step 5), a subagent's is not (format §2.4), and steps of manual-commit work left
// uncondensed still count; under manual-commit only those do.
func TestCheckpointsCountsAutoCommitTurns(t *testing.T) {
	s := fixture(PhaseIdle) // two manual-commit steps, b.go and d.go uncommitted
	s.CheckpointCount, s.FilesTouched, s.Recorder.Strategy = 0, nil, events.StrategyAutoCommit
	s.Recorder.Pending = nil
	condense := func(s State, id string, slot *AutoSlot) State {
		s.Recorder.Pending = append(s.Recorder.Pending, Condense{Commit: events.GitCommitted{Commit: rHead, CheckpointID: id,
			Strategy: events.StrategyAutoCommit}, Auto: slot})
		return Evolve(s, ev(events.CheckpointCondensed{CheckpointID: id, UserCommit: rHead}))
	}
	s = condense(s, "aaaaaaaaaaaa", &AutoSlot{Prompt: "one"})
	s = condense(s, "bbbbbbbbbbbb", &AutoSlot{Prompt: "two"})
	s = condense(s, "cccccccccccc", &AutoSlot{Task: &events.SubagentEnded{ToolUseID: "toolu_1"}})
	s = Evolve(s, ev(events.CheckpointCondensed{CheckpointID: "bbbbbbbbbbbb", UserCommit: rHead})) // a repeat: no longer pending
	if got := s.Checkpoints(); got != 2 {
		t.Errorf("auto-commit: Checkpoints() = %d, want the two turns'", got)
	}
	s.CheckpointCount = 1 // a manual-commit step left uncondensed
	if got := s.Checkpoints(); got != 3 {
		t.Errorf("auto-commit with manual work: Checkpoints() = %d, want 3", got)
	}
	s.Recorder.Strategy = ""
	if got := s.Checkpoints(); got != 1 {
		t.Errorf("manual-commit: Checkpoints() = %d, want its uncondensed step", got)
	}
}
