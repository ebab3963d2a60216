package claudecode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// Type is Claude Code's name in checkpoint metadata.
const Type = "Claude Code"

// Agent is Claude Code's entry in the agent table.
type Agent struct{}

var (
	_ agent.Agent             = Agent{}
	_ agent.SubagentCounter   = Agent{}
	_ agent.RangeScanner      = Agent{}
	_ agent.TurnEndUnreliable = Agent{}
)

func (Agent) Name() string      { return "claude-code" }
func (Agent) Aliases() []string { return []string{"claude", "claudecode"} }
func (Agent) Type() string      { return Type }
func (Agent) ConfigDir() string { return ".claude" }

// Parse maps Claude Code's hook verbs (entire-format.md §9.1) to the lifecycle.
func (Agent) Parse(verb string, stdin []byte) (agent.Hook, error) {
	kind, ok := verbs[verb]
	if !ok {
		return agent.Hook{}, fmt.Errorf("unknown claude-code hook %q", verb)
	}
	in, err := ParseHookInput(stdin)
	if err != nil {
		return agent.Hook{}, err
	}
	if in.Foreign != "" {
		return agent.Hook{Kind: agent.Ignore, SessionID: in.SessionID, Foreign: in.Foreign}, nil
	}
	h := agent.Hook{Kind: kind, SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, Prompt: in.Prompt,
		Source: in.Source, Reason: in.Reason, LastMessage: in.LastAssistantMessage, ToolName: in.ToolName,
		ToolUseID: in.ToolUseID, SubagentID: in.AgentID, SubagentType: in.AgentType,
		SubagentTranscript: in.AgentTranscriptPath, ToolInput: in.ToolInput}
	switch verb {
	case "pre-task", "post-task":
		if !isSubagentTool(in.ToolName) {
			h.Kind = agent.Ignore
			return h, nil
		}
		task := ParseTaskInput(in.ToolInput)
		h.SubagentType, h.Description = task.SubagentType, task.Description
		if verb == "post-task" {
			resp := ParseTaskResponse(in.ToolResponse)
			h.SubagentID, h.Async = resp.AgentID, resp.Async
		}
	}
	return h, nil
}

var verbs = map[string]agent.Kind{
	"session-start":      agent.SessionStart,
	"user-prompt-submit": agent.TurnStart,
	"stop":               agent.TurnEnd,
	"session-end":        agent.SessionEnd,
	"pre-task":           agent.SubagentStart,
	"post-task":          agent.SubagentEnd,
	"subagent-stop":      agent.SubagentEnd,
	"post-todo":          agent.TaskStep,
}

// isSubagentTool reports whether a tool launches a subagent: Task, renamed Agent in Claude
// Code 2.1.63.
func isSubagentTool(name string) bool { return name == "Task" || name == "Agent" }

// Reply follows Claude Code's output contract (agent-hooks.md §1.4, entire-format.md §9.1):
// session-start prints one JSON systemMessage line; the task hooks print plain text, which
// Claude Code only shows in its verbose log.
func (Agent) Reply(h agent.Hook, message string) []byte {
	switch h.Kind {
	case agent.SessionStart:
		out, _ := json.Marshal(map[string]string{"systemMessage": message})
		return append(out, '\n')
	case agent.SubagentStart:
		return fmt.Appendf(nil, "[entire] PreToolUse[Task] hook invoked\n  Session ID: %s\n  Tool Use ID: %s\n  Transcript: %s\n", h.SessionID, h.ToolUseID, h.TranscriptPath)
	case agent.SubagentEnd:
		if h.ToolUseID != "" {
			return fmt.Appendf(nil, "[entire] PostToolUse[Task] hook invoked\n  Session ID: %s\n  Tool Use ID: %s\n", h.SessionID, h.ToolUseID)
		}
	}
	return nil
}

// ScanFile reads the JSONL transcript from a byte offset.
func (Agent) ScanFile(path string, from events.Transcript) (agent.Scan, error) {
	return ScanFile(path, from.Offset)
}

// ScanFileTo reads the JSONL transcript from a byte offset up to another (agent.RangeScanner).
func (Agent) ScanFileTo(path string, from events.Transcript, end int64) (agent.Scan, error) {
	sc := newScanner(from.Offset)
	if _, err := agent.ScanLinesTo(path, from.Offset, end, sc.consume); err != nil {
		return agent.Scan{}, err
	}
	return sc.s, nil
}

// ScanBytes reads a whole JSONL transcript.
func (Agent) ScanBytes(data []byte) agent.Scan { return ScanBytes(data) }

// TurnEndUnreliable is true: Stop does not fire when the user interrupts a turn (Esc, Ctrl-C)
// and StopFailure replaces it on API errors (agent-hooks.md §1.7), so the next prompt or the
// session's end closes the turn.
func (Agent) TurnEndUnreliable() bool { return true }

// SubagentUsage sums the token usage of a session's subagents from their own transcripts.
func (Agent) SubagentUsage(transcriptPath, sessionID string, ids []string) *events.TokenUsage {
	return SubagentUsage(transcriptPath, sessionID, ids)
}

// WaitForFlush waits for Claude Code's record of the Stop hook in the transcript.
func (Agent) WaitForFlush(ctx context.Context, path string, since time.Time, maxWait time.Duration) bool {
	return WaitForFlush(ctx, path, since, maxWait)
}

var nonAlnum = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[^A-Za-z0-9]`)
})

// DefaultTranscript is where Claude Code keeps a session's transcript (entire-format.md §13):
// ~/.claude/projects/<repo root with every non-alphanumeric replaced by '-'>/<id>.jsonl.
func (Agent) DefaultTranscript(repoRoot, sessionID string) string {
	dir := os.Getenv("ENTIRE_TEST_CLAUDE_PROJECT_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".claude", "projects", nonAlnum().ReplaceAllString(repoRoot, "-"))
	}
	return filepath.Join(dir, sessionID+".jsonl")
}

func (Agent) Install(repoRoot string, force bool) (int, error) { return installHooks(repoRoot, force) }
func (Agent) Uninstall(repoRoot string) (int, error)           { return uninstallHooks(repoRoot) }
func (Agent) Installed(repoRoot string) bool                   { return hooksInstalled(repoRoot) }

// Description is the reference's name for the agent in `entire enable` output.
func (Agent) Description() string { return "Claude Code - Anthropic's CLI coding assistant" }

// ResumeCommand resumes a session in Claude Code.
func (Agent) ResumeCommand(sessionID string) string { return "claude -r " + sessionID }

// ConfigFile is the file Install writes.
func (Agent) ConfigFile() string { return ClaudeSettingsFile }
