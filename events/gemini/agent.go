package gemini

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// Type is Gemini CLI's name in checkpoint metadata.
const Type = "Gemini CLI"

// SettingsFile is Gemini CLI's project settings file, relative to the repository root.
const SettingsFile = ".gemini/settings.json"

// Agent is Gemini CLI's entry in the agent table.
type Agent struct{}

var (
	_ agent.Agent             = Agent{}
	_ agent.TurnEndUnreliable = Agent{}
	_ agent.Positioner        = Agent{}
	_ agent.RecordScanner     = Agent{}
)

// Name is the CLI name in `entire hooks gemini <verb>`.
func (Agent) Name() string { return "gemini" }

// Aliases are the other accepted spellings of Name.
func (Agent) Aliases() []string { return []string{"gemini-cli", "geminicli"} }

// Type is the agent's name in checkpoint metadata.
func (Agent) Type() string { return Type }

// ConfigDir is Gemini CLI's project configuration directory.
func (Agent) ConfigDir() string { return ".gemini" }

// ConfigFile is the file Install writes.
func (Agent) ConfigFile() string { return SettingsFile }

// TurnEndUnreliable is true: AfterAgent has not fired reliably across Gemini CLI releases
// (agent-hooks.md §2.5), so the engine closes an open turn from the chat file.
func (Agent) TurnEndUnreliable() bool { return true }

// verbs maps the hook verbs (entire-format.md §9.2) to the lifecycle.
var verbs = map[string]agent.Kind{
	"session-start":         agent.SessionStart,
	"session-end":           agent.SessionEnd,
	"before-agent":          agent.TurnStart,
	"after-agent":           agent.TurnEnd,
	"before-model":          agent.Ignore,
	"after-model":           agent.Ignore,
	"before-tool-selection": agent.Ignore,
	"before-tool":           agent.Ignore,
	"after-tool":            agent.Ignore,
	"pre-compress":          agent.Ignore,
	"notification":          agent.Ignore,
}

// Parse maps a Gemini CLI hook call to the lifecycle. The payload must be a JSON object for
// every verb, the log-only ones included.
func (Agent) Parse(verb string, stdin []byte) (agent.Hook, error) {
	kind, ok := verbs[verb]
	if !ok {
		return agent.Hook{}, fmt.Errorf("unknown gemini hook %q", verb)
	}
	in, err := ParseHookInput(stdin)
	if err != nil {
		return agent.Hook{}, err
	}
	return agent.Hook{
		Kind:           kind,
		SessionID:      in.SessionID,
		TranscriptPath: in.TranscriptPath,
		Cwd:            absOrEmpty(in.Cwd),
		Prompt:         in.Prompt,
		Source:         in.Source,
		Reason:         in.Reason,
		LastMessage:    in.PromptResponse,
		Model:          in.Model,
		ToolName:       in.ToolName,
		ToolInput:      in.ToolInput,
	}, nil
}

// Reply follows Gemini CLI's output contract: stdout must be JSON only (any other text is shown
// as a system message). SessionStart prints one {"systemMessage": ...} line when there is a
// message; every other hook prints nothing, which Gemini reads as "allow".
func (Agent) Reply(h agent.Hook, message string) []byte {
	if h.Kind != agent.SessionStart || message == "" {
		return nil
	}
	out, err := json.Marshal(map[string]string{"systemMessage": message})
	if err != nil {
		return nil
	}
	return append(out, '\n')
}

// ScanFile reads the chat file at path from position from (see the package doc).
func (Agent) ScanFile(path string, from events.Transcript) (agent.Scan, error) {
	return ScanFile(path, from)
}

var _ agent.RangeScanner = Agent{}

// ScanFileTo reads a JSONL chat file from a position up to a byte offset (agent.RangeScanner).
func (Agent) ScanFileTo(path string, from events.Transcript, end int64) (agent.Scan, error) {
	return ScanFileTo(path, from, end)
}

// ScanBytes reads a whole chat file held in memory.
func (Agent) ScanBytes(data []byte) agent.Scan { return ScanBytes(data) }

// ScanBytesFrom reads a whole chat file held in memory from position from.
func (Agent) ScanBytesFrom(data []byte, from events.Transcript) (agent.Scan, error) {
	return ScanBytesFrom(data, from)
}

// ScanRecords scans a legacy chat document held in memory message by message.
func (Agent) ScanRecords(data []byte) ([]agent.Scan, bool) { return ScanRecords(data) }

// SkipRecords is a chat file held in memory without its first n messages (or JSONL lines).
func (Agent) SkipRecords(data []byte, n int) []byte { return SkipRecords(data, n) }

// DefaultTranscript finds the session's chat file (see TranscriptFor).
func (Agent) DefaultTranscript(repoRoot, sessionID string) string {
	return TranscriptFor(repoRoot, sessionID)
}

// Install writes Entire's hooks into .gemini/settings.json.
func (Agent) Install(repoRoot string, force bool) (int, error) { return installHooks(repoRoot, force) }

// Uninstall removes Entire's hooks from .gemini/settings.json.
func (Agent) Uninstall(repoRoot string) (int, error) { return uninstallHooks(repoRoot) }

// Installed reports whether Entire's turn hooks are in .gemini/settings.json.
func (Agent) Installed(repoRoot string) bool { return hooksInstalled(repoRoot) }

// ResumeCommand resumes a session in Gemini CLI.
// Description is the reference's name for the agent in `entire enable` output; its lines there
// end in " (Preview)".
func (Agent) Description() string { return "Gemini CLI - Google's AI coding assistant (Preview)" }

func (Agent) ResumeCommand(sessionID string) string { return "gemini --resume " + sessionID }

// absOrEmpty is path when it is absolute, else "" (a relative cwd names no directory).
func absOrEmpty(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return ""
}
