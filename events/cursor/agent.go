package cursor

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// Type is Cursor's name in checkpoint metadata.
const Type = "Cursor"

// ConfigFile is Cursor's project hook file, relative to the repository root.
const ConfigFile = ".cursor/hooks.json"

// projectDirEnv names the test override of the agent-transcripts directory.
const projectDirEnv = "ENTIRE_TEST_CURSOR_PROJECT_DIR"

// Agent is Cursor's entry in the agent table.
type Agent struct{}

var (
	_ agent.Agent             = Agent{}
	_ agent.TurnEndUnreliable = Agent{}
)

// Name is the CLI name used in `entire hooks cursor <verb>`.
func (Agent) Name() string { return "cursor" }

// Aliases are the other accepted spellings of Name.
func (Agent) Aliases() []string { return []string{"cursor-agent"} }

// Type is Cursor's name in checkpoint metadata.
func (Agent) Type() string { return Type }

// ConfigDir is Cursor's project configuration directory.
func (Agent) ConfigDir() string { return ".cursor" }

// ConfigFile is the file Install writes.
func (Agent) ConfigFile() string { return ConfigFile }

// TurnEndUnreliable is true: headless `agent -p` never sends stop (nor beforeSubmitPrompt).
func (Agent) TurnEndUnreliable() bool { return true }

// Reply prints nothing: Cursor reads stdout only for decisions, and the recorder makes none.
func (Agent) Reply(agent.Hook, string) []byte { return nil }

// ScanFile reads the JSONL transcript from a byte offset.
func (Agent) ScanFile(path string, from events.Transcript) (agent.Scan, error) {
	return ScanFile(path, from.Offset)
}

// ScanBytes reads a whole JSONL transcript.
func (Agent) ScanBytes(data []byte) agent.Scan { return ScanBytes(data) }

// ScanSteps reads a whole JSONL transcript and lists its steps in order.
func (Agent) ScanSteps(data []byte) (agent.Scan, []agent.Step) { return ScanSteps(data) }

// DefaultTranscript is where Cursor keeps a conversation's transcript (agent-hooks.md §3.4): the
// IDE's nested <dir>/<id>/<id>.jsonl when it exists, else the CLI's flat <dir>/<id>.jsonl, with
// <dir> = ~/.cursor/projects/<sanitized repo root>/agent-transcripts or, when set,
// $ENTIRE_TEST_CURSOR_PROJECT_DIR. "" when the home directory or the id is unusable.
func (Agent) DefaultTranscript(repoRoot, sessionID string) string {
	if agent.ValidateSessionID(sessionID) != nil {
		return ""
	}
	dir := os.Getenv(projectDirEnv)
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || repoRoot == "" {
			return ""
		}
		dir = filepath.Join(home, ".cursor", "projects", SanitizeWorkspace(repoRoot), "agent-transcripts")
	}
	nested := filepath.Join(dir, sessionID, sessionID+".jsonl")
	if _, err := os.Stat(nested); err == nil {
		return nested
	}
	return filepath.Join(dir, sessionID+".jsonl")
}

// SanitizeWorkspace is the directory name Cursor gives a workspace under ~/.cursor/projects: the
// path without its leading '/', every character other than an ASCII letter or digit replaced by
// '-'.
func SanitizeWorkspace(root string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.TrimPrefix(root, "/"))
}

// Install writes Entire's hooks into .cursor/hooks.json.
func (Agent) Install(repoRoot string, force bool) (int, error) { return installHooks(repoRoot, force) }

// Uninstall removes Entire's hooks from .cursor/hooks.json.
func (Agent) Uninstall(repoRoot string) (int, error) { return uninstallHooks(repoRoot) }

// Installed reports whether any of Entire's hooks is in .cursor/hooks.json.
func (Agent) Installed(repoRoot string) bool { return hooksInstalled(repoRoot) }

// ResumeCommand resumes a conversation in the Cursor CLI; the IDE reopens it from its history.
func (Agent) ResumeCommand(sessionID string) string { return "cursor-agent --resume " + sessionID }
