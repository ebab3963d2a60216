package opencode

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

// pluginDriver loads the plugin as OpenCode would (the module's export called with the plugin
// context), then feeds it the steps read from stdin: {"event": ...} goes to the event hook,
// {"hook": name, "input": ..., "output": ...} to that hook. Malformed calls follow; every hook
// must resolve.
const pluginDriver = `import { EntireRecorder } from "./entire.mjs"
let raw = ""
for await (const chunk of process.stdin) raw += chunk
const hooks = await EntireRecorder({ directory: process.argv[2], worktree: process.argv[2] })
for (const step of JSON.parse(raw)) {
  if (step.event) await hooks.event({ event: step.event })
  else await hooks[step.hook](step.input, step.output)
}
await hooks.event(undefined)
await hooks.event({ event: { type: "session.created", properties: null } })
await hooks.event({ event: { type: "session.status", properties: { status: null } } })
for (const name of ["chat.message", "tool.execute.before", "tool.execute.after"]) {
  await hooks[name](undefined, undefined)
  await hooks[name]({ tool: "task", sessionID: 5 }, null)
}
console.log("ok")
`

// pluginSteps is a session as OpenCode drives the plugin: a turn with a subagent (a child
// session whose own events must not be reported), a turn seen only on the bus, one whose text
// never arrives, a deleted session, and shutdown.
const pluginSteps = `[
 {"event": {"type": "session.created", "properties": {"info": {"id": "ses_A", "title": "New session"}}}},
 {"hook": "chat.message", "input": {"sessionID": "ses_A", "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}},
  "output": {"message": {"id": "msg_1", "sessionID": "ses_A", "role": "user"}, "parts": [
   {"type": "text", "text": "Fix the bug"}, {"type": "text", "text": "file body", "synthetic": true},
   {"type": "file", "url": "file:///r/a.go"}, {"type": "text", "text": "AKIAIOSFODNN7EXAMPLE"}]}},
 {"event": {"type": "message.updated", "properties": {"info": {"id": "msg_1", "role": "user", "sessionID": "ses_A"}}}},
 {"event": {"type": "session.status", "properties": {"sessionID": "ses_A", "status": {"type": "busy"}}}},
 {"hook": "tool.execute.before", "input": {"tool": "task", "sessionID": "ses_A", "callID": "call_1"},
  "output": {"args": {"description": "Review", "prompt": "Review it", "subagent_type": "general"}}},
 {"event": {"type": "session.created", "properties": {"info": {"id": "ses_C", "parentID": "ses_A"}}}},
 {"hook": "chat.message", "input": {"sessionID": "ses_C"}, "output": {"message": {"id": "msg_c1"}, "parts": [{"type": "text", "text": "Review it"}]}},
 {"hook": "tool.execute.after", "input": {"tool": "edit", "sessionID": "ses_C", "callID": "call_c"}, "output": {"title": "", "output": "", "metadata": {}}},
 {"event": {"type": "session.status", "properties": {"sessionID": "ses_C", "status": {"type": "idle"}}}},
 {"event": {"type": "session.idle", "properties": {"sessionID": "ses_C"}}},
 {"hook": "tool.execute.after", "input": {"tool": "task", "sessionID": "ses_A", "callID": "call_1"},
  "output": {"title": "Review", "output": "fine", "metadata": {"sessionId": "ses_C"}}},
 {"hook": "tool.execute.after", "input": {"tool": "edit", "sessionID": "ses_A", "callID": "call_2"}, "output": {"title": "a.go", "output": "", "metadata": {}}},
 {"hook": "tool.execute.after", "input": {"tool": "read", "sessionID": "ses_A", "callID": "call_3"}, "output": {"title": "a.go", "output": "", "metadata": {}}},
 {"event": {"type": "session.status", "properties": {"sessionID": "ses_A", "status": {"type": "idle"}}}},
 {"event": {"type": "session.idle", "properties": {"sessionID": "ses_A"}}},
 {"event": {"type": "message.updated", "properties": {"info": {"id": "msg_0", "role": "user", "sessionID": "ses_A", "time": {"created": 1}}}}},
 {"event": {"type": "message.part.updated", "properties": {"part": {"type": "text", "text": "old", "messageID": "msg_0"}}}},
 {"event": {"type": "message.updated", "properties": {"info": {"id": "msg_2", "role": "user", "sessionID": "ses_A"}}}},
 {"event": {"type": "message.part.updated", "properties": {"part": {"type": "text", "text": "attached", "synthetic": true, "messageID": "msg_2"}}}},
 {"event": {"type": "message.part.updated", "properties": {"part": {"type": "text", "text": "Second prompt", "messageID": "msg_2"}}}},
 {"event": {"type": "message.part.updated", "properties": {"part": {"type": "text", "text": "Second prompt", "messageID": "msg_2"}}}},
 {"event": {"type": "message.updated", "properties": {"info": {"id": "msg_2", "role": "user", "sessionID": "ses_A"}}}},
 {"event": {"type": "session.idle", "properties": {"sessionID": "ses_A"}}},
 {"event": {"type": "message.updated", "properties": {"info": {"id": "msg_3", "role": "user", "sessionID": "ses_A"}}}},
 {"event": {"type": "session.status", "properties": {"sessionID": "ses_A", "status": {"type": "busy"}}}},
 {"event": {"type": "session.status", "properties": {"sessionID": "ses_A", "status": {"type": "idle"}}}},
 {"event": {"type": "session.created", "properties": {"info": {"id": "ses_B"}}}},
 {"event": {"type": "session.deleted", "properties": {"info": {"id": "ses_B"}}}},
 {"event": {"type": "session.deleted", "properties": {"info": {"id": "ses_C", "parentID": "ses_A"}}}},
 {"event": {"type": "server.instance.disposed", "properties": {"directory": "/r"}}}
]`

// pluginWant is what the fake entire logs: argv, working directory, stdin.
var pluginWant = []string{
	`hooks opencode session-start|DIR|{"session_id":"ses_A","source":"startup"}`,
	`hooks opencode turn-start|DIR|{"session_id":"ses_A","prompt":"Fix the bug\n\nAKIAIOSFODNN7EXAMPLE","model":"claude-sonnet-4-5"}`,
	`hooks opencode subagent-start|DIR|{"session_id":"ses_A","tool_use_id":"call_1","subagent_type":"general","description":"Review"}`,
	`hooks opencode subagent-end|DIR|{"session_id":"ses_A","tool_use_id":"call_1","subagent_id":"ses_C"}`,
	`hooks opencode tool-after|DIR|{"session_id":"ses_A","tool_name":"edit","tool_use_id":"call_2"}`,
	`hooks opencode turn-end|DIR|{"session_id":"ses_A"}`,
	`hooks opencode turn-start|DIR|{"session_id":"ses_A","prompt":"Second prompt"}`,
	`hooks opencode turn-end|DIR|{"session_id":"ses_A"}`,
	`hooks opencode turn-start|DIR|{"session_id":"ses_A","prompt":""}`,
	`hooks opencode turn-end|DIR|{"session_id":"ses_A"}`,
	`hooks opencode session-start|DIR|{"session_id":"ses_B","source":"startup"}`,
	`hooks opencode session-end|DIR|{"session_id":"ses_B","reason":"deleted"}`,
	`hooks opencode session-end|DIR|{"session_id":"ses_A","reason":"exit"}`,
}

// runPlugin runs the plugin under node with PATH set to path and returns node's stdout.
func runPlugin(t *testing.T, node, dir, path string) string {
	t.Helper()
	cmd := exec.Command(node, filepath.Join(dir, "driver.mjs"), dir)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path, "ENTIRE_LOG="+filepath.Join(dir, "calls.log"))
	cmd.Stdin = strings.NewReader(pluginSteps)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	return string(out)
}

// TestPluginUnderNode runs entire.ts (plain JavaScript, valid TypeScript) under Node with a
// fake entire on PATH, and checks the calls it makes and that Parse reads each one.
func TestPluginUnderNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	dir := t.TempDir()
	agenttest.WriteFile(t, filepath.Join(dir, "entire.mjs"), string(pluginSource), 0o644)
	agenttest.WriteFile(t, filepath.Join(dir, "driver.mjs"), pluginDriver, 0o644)
	bin := filepath.Join(dir, "bin")
	agenttest.WriteFile(t, filepath.Join(bin, "entire"), `#!/bin/sh
{ printf '%s %s %s|%s|' "$1" "$2" "$3" "$PWD"; cat; printf '\n'; } >> "$ENTIRE_LOG"
echo "stdout is ignored"; echo "so is stderr" >&2
`, 0o755)
	sysPath := os.Getenv("PATH")

	if out := runPlugin(t, node, dir, bin+string(os.PathListSeparator)+sysPath); out != "ok\n" {
		t.Errorf("node printed %q, want only ok (the recorder's output must be discarded)", out)
	}
	log := strings.TrimSuffix(agenttest.ReadFile(t, filepath.Join(dir, "calls.log")), "\n")
	got := strings.Split(strings.ReplaceAll(log, "|"+dir+"|", "|DIR|"), "\n")
	if diff := cmp.Diff(pluginWant, got); diff != "" {
		t.Errorf("plugin calls (-want +got):\n%s", diff)
	}
	kinds := map[string]agent.Kind{}
	for _, line := range got {
		argv, rest, _ := strings.Cut(line, "|")
		_, payload, _ := strings.Cut(rest, "|")
		verb := argv[strings.LastIndexByte(argv, ' ')+1:]
		h, err := Agent{}.Parse(verb, []byte(payload))
		if err != nil || h.SessionID == "" {
			t.Errorf("Parse(%s, %s) = %+v, %v", verb, payload, h, err)
		}
		kinds[verb] = h.Kind
	}
	if kinds["subagent-end"] != agent.SubagentEnd || kinds["turn-end"] != agent.TurnEnd || kinds["tool-after"] != agent.Ignore {
		t.Errorf("kinds = %v", kinds)
	}

	// Without entire on PATH the plugin neither throws nor blocks.
	if err := os.Remove(filepath.Join(dir, "calls.log")); err != nil {
		t.Fatal(err)
	}
	if out := runPlugin(t, node, dir, filepath.Join(dir, "empty")); out != "ok\n" {
		t.Errorf("without entire node printed %q", out)
	}
	if agenttest.Exists(filepath.Join(dir, "calls.log")) {
		t.Error("calls logged without entire on PATH")
	}
}
