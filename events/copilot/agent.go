package copilot

import (
	"os"
	"path/filepath"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// Type is Copilot CLI's name in checkpoint metadata.
const Type = "Copilot CLI"

// ConfigFile is the hook file Install writes, relative to the repository root. Copilot loads
// every *.json in .github/hooks/, so Entire keeps a file of its own there.
const ConfigFile = ".github/hooks/entire.json"

// sessionStateEnv names the test override of ~/.copilot/session-state.
const sessionStateEnv = "ENTIRE_TEST_COPILOT_PROJECT_DIR"

// copilotHomeEnv names Copilot CLI's override of its configuration directory, ~/.copilot.
const copilotHomeEnv = "COPILOT_HOME"

// Agent is Copilot CLI's entry in the agent table.
type Agent struct{}

var (
	_ agent.Agent        = Agent{}
	_ agent.RangeScanner = Agent{}
)

// Name is the CLI name used in `entire hooks copilot <verb>`.
func (Agent) Name() string { return "copilot" }

// Aliases are the other accepted spellings of Name.
func (Agent) Aliases() []string { return []string{"copilot-cli", "github-copilot"} }

// Type is Copilot CLI's name in checkpoint metadata.
func (Agent) Type() string { return Type }

// ConfigDir is the project directory Copilot reads hooks from.
func (Agent) ConfigDir() string { return ".github/hooks" }

// ConfigFile is the file Install writes.
func (Agent) ConfigFile() string { return ConfigFile }

var _ agent.OpenTurnJoiner = Agent{}

// PromptJoinsOpenTurn is true: Copilot CLI delivers a message the user types while it works
// into the running turn (steering, or queued for its next model call), and userPromptSubmitted
// names no turn, so a prompt hook during an open turn may be such a message and is taken as
// more input to that turn. The cost: a turn interrupted without agentStop merges into the next
// (one rewind point for both, the agent's work of both attributed to it); the session's end
// closes a turn left open.
func (Agent) PromptJoinsOpenTurn() bool { return true }

// Reply prints nothing: Copilot ignores the output of the hooks the recorder uses, and the
// recorder makes no decision for the others.
func (Agent) Reply(agent.Hook, string) []byte { return nil }

// ScanFile reads the events.jsonl transcript from a byte offset.
func (Agent) ScanFile(path string, from events.Transcript) (agent.Scan, error) {
	return ScanFile(path, from.Offset)
}

// ScanFileTo reads the events.jsonl transcript from a byte offset up to another: the lines
// before a range whose scan met a run's totals (agent.RangeScanner).
func (Agent) ScanFileTo(path string, from events.Transcript, end int64) (agent.Scan, error) {
	return ScanFileTo(path, from.Offset, end)
}

// ScanBytes reads a whole events.jsonl transcript.
func (Agent) ScanBytes(data []byte) agent.Scan { return ScanBytes(data) }

// ScanSteps reads a whole events.jsonl transcript and lists its steps in order.
func (Agent) ScanSteps(data []byte) (agent.Scan, []agent.Step) { return ScanSteps(data) }

// DefaultTranscript is where Copilot CLI keeps a session's transcript (agent-hooks.md §5.3):
// <config>/session-state/<id>/events.jsonl, <config> being $COPILOT_HOME when set (Copilot's
// own override of its directory, which its hooks inherit; the Copilot SDK sets it), else
// ~/.copilot; with $ENTIRE_TEST_COPILOT_PROJECT_DIR, when set, in place of
// <config>/session-state. The repository does not matter. "" when the home directory or the
// id is unusable.
func (Agent) DefaultTranscript(_, sessionID string) string {
	if agent.ValidateSessionID(sessionID) != nil {
		return ""
	}
	dir := os.Getenv(sessionStateEnv)
	if dir == "" {
		config := os.Getenv(copilotHomeEnv)
		if !filepath.IsAbs(config) {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			config = filepath.Join(home, ".copilot")
		}
		dir = filepath.Join(config, "session-state")
	}
	return filepath.Join(dir, sessionID, "events.jsonl")
}

// Install writes Entire's hooks into .github/hooks/entire.json.
func (Agent) Install(repoRoot string, force bool) (int, error) { return installHooks(repoRoot, force) }

// Uninstall removes Entire's hooks from .github/hooks/entire.json.
func (Agent) Uninstall(repoRoot string) (int, error) { return uninstallHooks(repoRoot) }

// Installed reports whether any of Entire's hooks is in .github/hooks/entire.json.
func (Agent) Installed(repoRoot string) bool { return hooksInstalled(repoRoot) }

// ResumeCommand resumes a session in Copilot CLI.
func (Agent) ResumeCommand(sessionID string) string { return "copilot --resume " + sessionID }
