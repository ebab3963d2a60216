package droid

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
)

const (
	sessionID  = "7c1f3a52-9d0e-4b6a-8f21-3e4d5c6b7a80"
	transcript = "/home/u/.factory/sessions/-home-u-src-svc/7c1f3a52-9d0e-4b6a-8f21-3e4d5c6b7a80.jsonl"
	model      = "claude-sonnet-4-5-20250929"
	taskInput  = `{"subagent_type":"code-reviewer","description":"Review healthz","prompt":"Review server.go's healthz handler."}`
	// fallbackTaskID is "task-" and the first 16 hex digits of the SHA-256 of
	// sessionID NUL "code-reviewer" NUL "Review healthz" NUL "Review server.go's healthz handler." NUL.
	fallbackTaskID = "task-00ba3cb5b838e33f"
)

func TestParseFiles(t *testing.T) {
	tests := []struct {
		verb, file string
		want       agent.Hook
	}{
		{"session-start", "testdata/session-start.json", agent.Hook{Kind: agent.SessionStart, SessionID: sessionID,
			TranscriptPath: transcript, Source: "startup", OpensTurn: true}},
		{"user-prompt-submit", "testdata/user-prompt-submit.json", agent.Hook{Kind: agent.TurnStart, SessionID: sessionID,
			TranscriptPath: transcript, Prompt: "Have a worker review the handler.", Model: model}},
		{"stop", "testdata/stop.json", agent.Hook{Kind: agent.TurnEnd, SessionID: sessionID, TranscriptPath: transcript, Model: model}},
		{"pre-task", "testdata/pre-task.json", agent.Hook{Kind: agent.SubagentStart, SessionID: sessionID, TranscriptPath: transcript,
			ToolName: "Task", ToolUseID: "toolu_03Task", SubagentType: "code-reviewer", Description: "Review healthz", ToolInput: []byte(taskInput)}},
		// No tool_use_id: the id is derived from the call; the agent id comes from the text response.
		{"post-task", "testdata/post-task.json", agent.Hook{Kind: agent.SubagentEnd, Async: true, SessionID: sessionID, TranscriptPath: transcript,
			ToolName: "Task", ToolUseID: fallbackTaskID, SubagentID: "9e8d7c6b", SubagentType: "code-reviewer", Description: "Review healthz",
			ToolInput: []byte(taskInput)}},
		{"subagent-stop", "testdata/subagent-stop.json", agent.Hook{Kind: agent.SubagentEnd, SessionID: sessionID, TranscriptPath: transcript}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Agent{}.Parse(tt.verb, data)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%s, %s) (-want +got):\n%s", tt.verb, tt.file, diff)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, verb, in string
		want           agent.Hook
		wantErr        string
	}{
		{name: "unknown verb", verb: "pre-compact", in: `{}`, wantErr: `unknown droid hook "pre-compact"`},
		{name: "claude's todo verb", verb: "post-todo", in: `{}`, wantErr: "unknown droid hook"},
		{name: "empty", verb: "stop", in: "", wantErr: "empty"},
		{name: "invalid", verb: "stop", in: `{"a":`, wantErr: "not valid JSON"},
		{name: "string", verb: "stop", in: `"x"`, wantErr: "not a JSON object"},
		{name: "empty object", verb: "session-end", in: `{}`, want: agent.Hook{Kind: agent.SessionEnd}},
		{name: "wrong types read as empty", verb: "session-start", in: `{"session_id":1,"transcript_path":[],"source":null}`,
			want: agent.Hook{Kind: agent.SessionStart, OpensTurn: true}},
		{name: "session-end reason", verb: "session-end", in: `{"session_id":"s","reason":"prompt_input_exit"}`,
			want: agent.Hook{Kind: agent.SessionEnd, SessionID: "s", Reason: "prompt_input_exit"}},
		{name: "pre-task for another tool", verb: "pre-task", in: `{"session_id":"s","tool_name":"Edit","tool_use_id":"t1","tool_input":{"file_path":"a"}}`,
			want: agent.Hook{Kind: agent.Ignore, SessionID: "s", ToolName: "Edit", ToolUseID: "t1", ToolInput: []byte(`{"file_path":"a"}`)}},
		{name: "post-task object response", verb: "post-task", in: `{"tool_name":"Task","tool_use_id":"t1","tool_response":{"agentId":"w-1","status":"dispatched"}}`,
			want: agent.Hook{Kind: agent.SubagentEnd, Async: true, ToolName: "Task", ToolUseID: "t1", SubagentID: "w-1"}},
		{name: "post-task without agent id", verb: "post-task", in: `{"tool_name":"Task","tool_use_id":"t1","tool_response":{"agentId":7}}`,
			want: agent.Hook{Kind: agent.SubagentEnd, Async: true, ToolName: "Task", ToolUseID: "t1"}},
		{name: "unsafe tool use id", verb: "pre-task", in: `{"tool_name":"Task","tool_use_id":"call_x\nctc_y"}`,
			want: agent.Hook{Kind: agent.SubagentStart, ToolName: "Task", ToolUseID: "call_x_ctc_y-de48abd5"}},
		{name: "subagent-stop ids", verb: "subagent-stop", in: `{"session_id":"s","agent_id":"w/1","agent_type":"worker","agent_transcript_path":"/t/w.jsonl","tool_use_id":"t9","last_assistant_message":"done"}`,
			want: agent.Hook{Kind: agent.SubagentEnd, SessionID: "s", SubagentID: "w_1-e0dcb624", SubagentType: "worker", SubagentTranscript: "/t/w.jsonl", ToolUseID: "t9", LastMessage: "done"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Agent{}.Parse(tt.verb, []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTaskIDPairs: without tool_use_id, the PreToolUse and PostToolUse of one Task call get the
// same id, and another call (or another session) a different one.
func TestTaskIDPairs(t *testing.T) {
	payload := func(session, description string) []byte {
		return []byte(`{"session_id":"` + session + `","tool_name":"Task","tool_input":{"subagent_type":"worker","description":"` + description + `","prompt":"p"}}`)
	}
	pre, err := Agent{}.Parse("pre-task", payload("s1", "a"))
	if err != nil {
		t.Fatal(err)
	}
	post, err := Agent{}.Parse("post-task", payload("s1", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if pre.ToolUseID == "" || pre.ToolUseID != post.ToolUseID || !strings.HasPrefix(pre.ToolUseID, "task-") || len(pre.ToolUseID) != len("task-")+16 {
		t.Errorf("pre %q, post %q: want one task-<16 hex> id", pre.ToolUseID, post.ToolUseID)
	}
	for _, other := range [][]byte{payload("s1", "b"), payload("s2", "a")} {
		if h, _ := (Agent{}).Parse("pre-task", other); h.ToolUseID == pre.ToolUseID {
			t.Errorf("%s got the same id %q", other, h.ToolUseID)
		}
	}
}

func TestReply(t *testing.T) {
	got := string(Agent{}.Reply(agent.Hook{Kind: agent.SessionStart}, "Powered by <Entire>\n  linked"))
	if want := `{"systemMessage":"Powered by \u003cEntire\u003e\n  linked"}` + "\n"; got != want {
		t.Errorf("session-start reply = %q, want %q", got, want)
	}
	if out := (Agent{}).Reply(agent.Hook{Kind: agent.SessionStart}, ""); out != nil {
		t.Errorf("session-start without a message printed %q", out)
	}
	for _, k := range []agent.Kind{agent.TurnStart, agent.TurnEnd, agent.SessionEnd, agent.SubagentStart, agent.SubagentEnd, agent.Ignore} {
		if out := (Agent{}).Reply(agent.Hook{Kind: k}, "m"); out != nil {
			t.Errorf("Reply(%v) = %q, want nothing", k, out)
		}
	}
}
