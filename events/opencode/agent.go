package opencode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// Type is OpenCode's name in checkpoint metadata.
const Type = "OpenCode"

// TestProjectDirEnv names a directory that holds <session id>.jsonl transcripts, for tests:
// OpenCode itself keeps no transcript file (see Materialize).
const TestProjectDirEnv = "ENTIRE_TEST_OPENCODE_PROJECT_DIR"

// Agent is OpenCode's entry in the agent table.
type Agent struct{}

var (
	_ agent.Agent             = Agent{}
	_ agent.TurnEndUnreliable = Agent{}
)

// Name is the CLI name: `entire hooks opencode <verb>`.
func (Agent) Name() string { return "opencode" }

// Aliases are the other accepted spellings of Name.
func (Agent) Aliases() []string { return []string{"open-code", "sst-opencode"} }

// Type is OpenCode's name in checkpoint metadata.
func (Agent) Type() string { return Type }

// ConfigDir is OpenCode's project configuration directory.
func (Agent) ConfigDir() string { return ".opencode" }

// ConfigFile is the plugin module Install writes.
func (Agent) ConfigFile() string { return PluginFile }

// Parse maps the verbs the plugin sends to the lifecycle (see the package documentation).
func (Agent) Parse(verb string, stdin []byte) (agent.Hook, error) {
	kind, ok := verbs[verb]
	if !ok {
		return agent.Hook{}, fmt.Errorf("unknown opencode hook %q", verb)
	}
	in, err := ParsePayload(stdin)
	if err != nil {
		return agent.Hook{}, err
	}
	return agent.Hook{
		Kind:           kind,
		SessionID:      in.SessionID,
		TranscriptPath: in.TranscriptPath,
		Prompt:         in.Prompt,
		Source:         in.Source,
		Reason:         in.Reason,
		Model:          in.Model,
		ToolName:       in.ToolName,
		ToolUseID:      agent.SafeID(in.ToolUseID),
		SubagentID:     agent.SafeID(in.SubagentID),
		SubagentType:   in.SubagentType,
		Description:    in.Description,
	}, nil
}

// verbs are the hook verbs the plugin (entire.ts) sends.
var verbs = map[string]agent.Kind{
	"session-start":  agent.SessionStart,
	"turn-start":     agent.TurnStart,
	"turn-end":       agent.TurnEnd,
	"session-end":    agent.SessionEnd,
	"subagent-start": agent.SubagentStart,
	"subagent-end":   agent.SubagentEnd,
	"tool-after":     agent.Ignore,
}

// Reply prints nothing: the plugin discards the hook's stdout.
func (Agent) Reply(agent.Hook, string) []byte { return nil }

// ScanFile reads a materialized JSONL transcript from a byte offset.
func (Agent) ScanFile(path string, from events.Transcript) (agent.Scan, error) {
	return ScanFile(path, from.Offset)
}

// ScanBytes reads a whole materialized JSONL transcript.
func (Agent) ScanBytes(data []byte) agent.Scan { return ScanBytes(data) }

// ScanSteps reads a whole materialized JSONL transcript and lists its steps in order.
func (Agent) ScanSteps(data []byte) (agent.Scan, []agent.Step) { return ScanSteps(data) }

// DefaultTranscript is "": OpenCode keeps sessions in its database, and the transcript file
// exists only once Materialize writes it. Under ENTIRE_TEST_OPENCODE_PROJECT_DIR it is
// <dir>/<session id>.jsonl.
func (Agent) DefaultTranscript(_, sessionID string) string {
	dir := os.Getenv(TestProjectDirEnv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, sessionID+".jsonl")
}

// Materialize writes the session's transcript as JSONL under dir and returns its path (see the
// package function Materialize).
func (Agent) Materialize(ctx context.Context, sessionID, dir string) (string, error) {
	return Materialize(ctx, sessionID, dir)
}

// TurnEndUnreliable is true: no idle event comes when OpenCode is killed or quits mid-turn, or
// when the plugin is not loaded.
func (Agent) TurnEndUnreliable() bool { return true }

// Install writes the plugin module; see installPlugin.
func (Agent) Install(repoRoot string, force bool) (int, error) {
	return installPlugin(repoRoot, force)
}

// Uninstall removes the plugin module if Entire wrote it.
func (Agent) Uninstall(repoRoot string) (int, error) { return uninstallPlugin(repoRoot) }

// Installed reports whether Entire's plugin module is in place.
func (Agent) Installed(repoRoot string) bool { return pluginInstalled(repoRoot) }

// ResumeCommand resumes a session in OpenCode's terminal UI.
func (Agent) ResumeCommand(sessionID string) string { return "opencode --session " + sessionID }
