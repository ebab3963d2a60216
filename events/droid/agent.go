package droid

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// Type is Factory Droid's name in checkpoint metadata.
const Type = "Factory AI Droid"

// ConfigFile is Droid's project hook file, relative to the repository root.
const ConfigFile = ".factory/hooks.json"

// projectDirEnv names the test override of the session directory
// (~/.factory/sessions/<sanitized repository root>).
const projectDirEnv = "ENTIRE_TEST_DROID_PROJECT_DIR"

// homeOverrideEnv relocates the home directory Droid keeps .factory in.
const homeOverrideEnv = "FACTORY_HOME_OVERRIDE"

// Agent is Factory Droid's entry in the agent table.
type Agent struct{}

var (
	_ agent.Agent             = Agent{}
	_ agent.TurnEndUnreliable = Agent{}
)

// Name is the CLI name used in `entire hooks droid <verb>`.
func (Agent) Name() string { return "droid" }

// Aliases are the other accepted spellings of Name.
func (Agent) Aliases() []string { return []string{"factory", "factoryai-droid", "factory-droid"} }

// Type is Droid's name in checkpoint metadata.
func (Agent) Type() string { return Type }

// ConfigDir is Droid's project configuration directory.
func (Agent) ConfigDir() string { return ".factory" }

// ConfigFile is the file Install writes.
func (Agent) ConfigFile() string { return ConfigFile }

// TurnEndUnreliable is true: Stop does not fire when the user interrupts a turn, so a turn can
// be left open (see the package documentation for `droid exec`).
func (Agent) TurnEndUnreliable() bool { return true }

// Reply follows Droid's Claude-compatible output contract: session-start prints the message as
// one JSON line {"systemMessage": ...}, shown to the user; every other hook prints nothing
// (plain text would be shown to the user as is).
func (Agent) Reply(h agent.Hook, message string) []byte {
	if h.Kind != agent.SessionStart || message == "" {
		return nil
	}
	out, _ := json.Marshal(map[string]string{"systemMessage": message})
	return append(out, '\n')
}

// ScanFile reads the JSONL transcript from a byte offset.
func (Agent) ScanFile(path string, from events.Transcript) (agent.Scan, error) {
	return ScanFile(path, from.Offset)
}

// ScanBytes reads a whole JSONL transcript.
func (Agent) ScanBytes(data []byte) agent.Scan { return ScanBytes(data) }

// ScanSteps reads a whole JSONL transcript and lists its steps in order.
func (Agent) ScanSteps(data []byte) (agent.Scan, []agent.Step) { return ScanSteps(data) }

var nonAlnum = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[^A-Za-z0-9]`)
})

// SessionDirName is the directory under ~/.factory/sessions that holds the sessions of a
// working directory: the absolute path with every character that is not an ASCII letter or
// digit replaced by '-', as Claude Code names its project directories.
func SessionDirName(cwd string) string { return nonAlnum().ReplaceAllString(cwd, "-") }

// DefaultTranscript is where Droid keeps a session's transcript (agent-hooks.md §7):
// <home>/.factory/sessions/<SessionDirName(repoRoot)>/<id>.jsonl, <home> being
// $FACTORY_HOME_OVERRIDE or the user's home. $ENTIRE_TEST_DROID_PROJECT_DIR, when set,
// replaces the whole session directory. "" when the id or the home directory is unusable.
func (Agent) DefaultTranscript(repoRoot, sessionID string) string {
	if agent.ValidateSessionID(sessionID) != nil {
		return ""
	}
	dir := os.Getenv(projectDirEnv)
	if dir == "" {
		home := os.Getenv(homeOverrideEnv)
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return ""
			}
		}
		if repoRoot == "" {
			return ""
		}
		dir = filepath.Join(home, ".factory", "sessions", SessionDirName(repoRoot))
	}
	return filepath.Join(dir, sessionID+".jsonl")
}

// Install writes Entire's hooks into .factory/hooks.json.
func (Agent) Install(repoRoot string, force bool) (int, error) { return installHooks(repoRoot, force) }

// Uninstall removes Entire's hooks from .factory/hooks.json.
func (Agent) Uninstall(repoRoot string) (int, error) { return uninstallHooks(repoRoot) }

// Installed reports whether .factory/hooks.json runs Entire's stop hook.
func (Agent) Installed(repoRoot string) bool { return hooksInstalled(repoRoot) }

// ResumeCommand resumes a Droid session.
func (Agent) ResumeCommand(sessionID string) string { return "droid --resume " + sessionID }
