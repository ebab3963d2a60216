package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdAgent plays a Claude Code session inside a scenario: it appends transcript lines shaped
// like Claude Code's to $HOME/.claude/projects/repo/<session>.jsonl, edits files as the agent's
// tools would, and calls the real hooks with Claude Code's payloads.
//
//	agent <session> start               session-start hook
//	agent <session> prompt <text...>    user line + user-prompt-submit hook
//	agent <session> write <path> <text...>   write the file (text + newline) via a Write tool call
//	agent <session> append <path> <text...>  append a line to the file via an Edit tool call
//	agent <session> edited <path>       an Edit tool call on a file the script already changed
//	agent <session> bash <command...>   a Bash tool call (the script performs the command itself)
//	agent <session> say <text...>       an assistant text line
//	agent <session> stop                Stop hook (last_assistant_message = the last say)
//	agent <session> end                 session-end hook
//
// Hook output goes to the script's stdout/stderr as with exec.
func cmdAgent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: agent <session> <action> [args...]")
	}
	sid, action, rest := args[0], args[1], args[2:]
	transcript := filepath.Join(ts.Getenv("HOME"), ".claude", "projects", "repo", sid+".jsonl")
	ts.Check(os.MkdirAll(filepath.Dir(transcript), 0o755))
	text := strings.Join(rest, " ")
	payload := map[string]string{"session_id": sid, "transcript_path": transcript, "cwd": ts.MkAbs(".")}
	hook := ""
	switch action {
	case "start":
		hook = "session-start"
		payload["source"] = "startup"
	case "prompt":
		appendLine(ts, transcript, map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
		hook, payload["prompt"] = "user-prompt-submit", text
	case "write", "append":
		if len(rest) < 1 {
			ts.Fatalf("usage: agent <session> %s <path> <text...>", action)
		}
		path := ts.MkAbs(rest[0])
		content := strings.Join(rest[1:], " ") + "\n"
		tool := "Write"
		if action == "append" {
			tool = "Edit"
			old, _ := os.ReadFile(path)
			content = string(old) + content
		}
		ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
		ts.Check(os.WriteFile(path, []byte(content), 0o644))
		toolUse(ts, transcript, tool, map[string]any{"file_path": path, "content": content})
	case "edited":
		if len(rest) != 1 {
			ts.Fatalf("usage: agent <session> edited <path>")
		}
		toolUse(ts, transcript, "Edit", map[string]any{"file_path": ts.MkAbs(rest[0])})
	case "bash":
		toolUse(ts, transcript, "Bash", map[string]any{"command": text, "description": "run " + text})
	case "say":
		appendLine(ts, transcript, assistant(ts, transcript, map[string]any{"type": "text", "text": text}))
		ts.Setenv("AGENT_LAST_SAY_"+sid, text)
	case "stop":
		hook = "stop"
		payload["last_assistant_message"] = ts.Getenv("AGENT_LAST_SAY_" + sid)
	case "end":
		hook, payload["reason"] = "session-end", "prompt_input_exit"
	default:
		ts.Fatalf("agent: unknown action %q", action)
	}
	if hook == "" {
		return
	}
	data, err := json.Marshal(payload)
	ts.Check(err)
	in := filepath.Join(ts.Getenv("WORK"), ".agent-payload.json")
	ts.Check(os.WriteFile(in, data, 0o644))
	err = ts.Exec("sh", "-c", "entire hooks claude-code "+hook+" < "+in)
	if (err != nil) != neg {
		ts.Fatalf("agent %s %s: %v", sid, action, err)
	}
}

// lineCount is the number of lines already in the transcript, used for stable IDs.
func lineCount(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "\n")
}

func appendLine(ts *testscript.TestScript, path string, line map[string]any) {
	n := lineCount(path) + 1
	if _, ok := line["uuid"]; !ok {
		line["uuid"] = fmt.Sprintf("line-%d", n)
	}
	line["timestamp"] = fmt.Sprintf("2026-01-02T03:%02d:%02d.000Z", n/60%60, n%60)
	data, err := json.Marshal(line)
	ts.Check(err)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	ts.Check(err)
	_, err = f.Write(append(data, '\n'))
	ts.Check(err)
	ts.Check(f.Close())
}

func assistant(ts *testscript.TestScript, path string, block map[string]any) map[string]any {
	n := lineCount(path) + 1
	return map[string]any{"type": "assistant", "message": map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "role": "assistant", "content": []any{block},
		"usage": map[string]int{"input_tokens": 10, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 20},
	}}
}

func toolUse(ts *testscript.TestScript, path, tool string, input map[string]any) {
	id := fmt.Sprintf("toolu_%d", lineCount(path)+1)
	appendLine(ts, path, assistant(ts, path, map[string]any{"type": "tool_use", "id": id, "name": tool, "input": input}))
	appendLine(ts, path, map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}})
}
