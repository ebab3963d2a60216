package codex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// Type is Codex's name in checkpoint metadata.
const Type = "Codex"

// ConfigFile is Codex's project hook file, relative to the repository root.
const ConfigFile = ".codex/hooks.json"

// projectDirEnv names the test override of the rollout directory ($CODEX_HOME/sessions).
const projectDirEnv = "ENTIRE_TEST_CODEX_PROJECT_DIR"

// Agent is the Codex CLI's entry in the agent table.
type Agent struct{}

var (
	_ agent.Agent        = Agent{}
	_ agent.RangeScanner = Agent{}
)

// Name is the CLI name used in `entire hooks codex <verb>`.
func (Agent) Name() string { return "codex" }

// Aliases are the other accepted spellings of Name.
func (Agent) Aliases() []string { return []string{"codex-cli", "openai-codex"} }

// Type is Codex's name in checkpoint metadata.
func (Agent) Type() string { return Type }

// ConfigDir is Codex's project configuration directory.
func (Agent) ConfigDir() string { return ".codex" }

// ConfigFile is the file Install writes.
func (Agent) ConfigFile() string { return ConfigFile }

var _ agent.TurnEndUnreliable = Agent{}

// TurnEndUnreliable is true: a Codex without the Interrupt hook (older builds) sends nothing
// when the user interrupts a turn, so a turn can start without an end. The next prompt closes
// it when it names another turn_id; a message typed while the model works runs the prompt hook
// with the running turn's turn_id and closes nothing.
func (Agent) TurnEndUnreliable() bool { return true }

// Reply prints nothing for every verb: Codex validates hook output against strict schemas
// (unknown keys make it invalid) and accepts empty output everywhere.
func (Agent) Reply(agent.Hook, string) []byte { return nil }

// ScanFile reads a rollout from a byte offset.
func (Agent) ScanFile(path string, from events.Transcript) (agent.Scan, error) {
	return ScanFile(path, from.Offset)
}

// ScanFileTo reads a rollout from a byte offset up to another: the lines before a range whose
// first token_count may repeat one before it (agent.RangeScanner).
func (Agent) ScanFileTo(path string, from events.Transcript, end int64) (agent.Scan, error) {
	return ScanFileTo(path, from.Offset, end)
}

// ScanBytes reads a whole rollout.
func (Agent) ScanBytes(data []byte) agent.Scan { return ScanBytes(data) }

// ScanSteps reads a whole rollout and lists its steps in order.
func (Agent) ScanSteps(data []byte) (agent.Scan, []agent.Step) { return ScanSteps(data) }

// DefaultTranscript finds a thread's rollout (agent-hooks.md §4.3):
// <dir>/YYYY/MM/DD/rollout-<timestamp>-<id>.jsonl with <dir> = $CODEX_HOME/sessions
// ($CODEX_HOME defaults to ~/.codex) or, when set, $ENTIRE_TEST_CODEX_PROJECT_DIR. A rollout
// directly inside <dir> is found too. The file name holds a timestamp the payload does not
// give, so the directory is searched; of several matches (a thread resumed on another day
// keeps its file, but copies may exist) the newest name wins. "" when none exists.
func (Agent) DefaultTranscript(_, sessionID string) string {
	if agent.ValidateSessionID(sessionID) != nil || strings.ContainsAny(sessionID, `*?[]\`) {
		return ""
	}
	dir := os.Getenv(projectDirEnv)
	if dir == "" {
		home := os.Getenv("CODEX_HOME")
		if home == "" {
			userHome, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			home = filepath.Join(userHome, ".codex")
		}
		dir = filepath.Join(home, "sessions")
	}
	name := "rollout-*-" + sessionID + ".jsonl"
	var found []string
	for _, pattern := range []string{filepath.Join(dir, "*", "*", "*", name), filepath.Join(dir, name)} {
		m, _ := filepath.Glob(pattern)
		found = append(found, m...)
	}
	if len(found) == 0 {
		return ""
	}
	return slices.MaxFunc(found, func(a, b string) int {
		return strings.Compare(filepath.Base(a), filepath.Base(b))
	})
}

// Install writes Entire's hooks into .codex/hooks.json.
func (Agent) Install(repoRoot string, force bool) (int, error) { return installHooks(repoRoot, force) }

// Uninstall removes Entire's hooks from .codex/hooks.json.
func (Agent) Uninstall(repoRoot string) (int, error) { return uninstallHooks(repoRoot) }

// Installed reports whether .codex/hooks.json runs Entire's stop hook.
func (Agent) Installed(repoRoot string) bool { return hooksInstalled(repoRoot) }

// ResumeCommand resumes a Codex thread.
func (Agent) ResumeCommand(sessionID string) string { return "codex resume " + sessionID }
