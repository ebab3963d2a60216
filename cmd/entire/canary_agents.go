package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/engine/setup/hookcmd"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/gitexec"
)

// The second half of doctor's self-test: each installed agent's hook command line, exactly as
// its configuration file has it, run the way the agent runs it (through sh, JSON on stdin) in
// the scratch repository, for a session start; the link holds when the scratch repository's
// session store then has that session.

// canaryHookTimeout bounds one configured hook command.
const canaryHookTimeout = 20 * time.Second

// canaryAgents checks every agent installed in the user's repository and returns how many
// links are broken.
func canaryAgents(e *env, user *gitexec.Repo, scratch *gitexec.Repo, link func(string, error) bool) int {
	p, err := setupPaths(e, user)
	if err != nil {
		return 0
	}
	broken := 0
	for _, a := range setup.Inspect(p).Agents {
		what := a.Type() + "'s configured session-start hook recorded a session"
		skip, err := canaryAgent(e.ctx, a, user.TopLevel, scratch)
		if skip != "" {
			fmt.Fprintf(e.stdout, "  skipped: %s: %s\n", a.Type(), skip)
			continue
		}
		if !link(what, err) {
			broken++
		}
	}
	return broken
}

// canaryAgent runs agent a's configured session-start command line in the scratch repository.
// skip explains a check that cannot be made (OpenCode's hooks run inside OpenCode).
func canaryAgent(ctx context.Context, a agent.Agent, userTop string, scratch *gitexec.Repo) (skip string, err error) {
	cfg := filepath.Join(userTop, a.ConfigFile())
	data, err := os.ReadFile(cfg)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", a.ConfigFile(), err)
	}
	if !json.Valid(data) {
		if bytes.Contains(data, []byte("hooks "+a.Name())) {
			return fmt.Sprintf("%s runs `entire hooks %s` from inside the agent; it is not run here", a.ConfigFile(), a.Name()), nil
		}
		return "", fmt.Errorf("%s does not call `entire hooks %s`", a.ConfigFile(), a.Name())
	}
	sid := "entire-canary-" + a.Name()
	transcript := filepath.Join(scratch.GitDir, "canary-"+a.Name()+".jsonl")
	if err := os.WriteFile(transcript, nil, 0o600); err != nil {
		return "", err
	}
	payload := canaryPayload(sid, transcript, scratch.TopLevel)
	commands := configuredHooks(data, a)
	var command string
	for _, c := range commands {
		if h, err := a.Parse(c.verb, payload); err == nil && h.Kind == agent.SessionStart {
			command = c.line
			break
		}
	}
	if command == "" {
		return "", fmt.Errorf("%s has no session-start hook calling `entire hooks %s`: sessions would be recorded late or not at all (run `entire enable --agent %s --force`)", a.ConfigFile(), a.Name(), a.Name())
	}
	extra := []string{"CLAUDE_PROJECT_DIR=" + scratch.TopLevel, "GEMINI_PROJECT_DIR=" + scratch.TopLevel, "FACTORY_PROJECT_DIR=" + scratch.TopLevel}
	if err := hookcmd.Run(ctx, scratch.TopLevel, command, payload, extra, canaryHookTimeout); err != nil {
		return "", err
	}
	if _, err := os.Stat(session.NewStore(scratch.CommonDir).JournalPath(sid)); err != nil {
		return "", fmt.Errorf("`%s` ran but recorded no session (see the scratch log): %w", command, errors.Unwrap(err))
	}
	return "", nil
}

// canaryPayload is a session-start payload every agent's parser accepts: each agent reads the
// session and transcript under its own keys.
func canaryPayload(sid, transcript, dir string) []byte {
	data, _ := json.Marshal(map[string]string{
		"session_id": sid, "sessionId": sid, "transcript_path": transcript, "transcriptPath": transcript,
		"cwd": dir, "source": "startup", "hook_event_name": "SessionStart",
	})
	return data
}

// hookCommand is one command line of an agent's configuration and the verb it passes.
type hookCommand struct{ verb, line string }

// configuredHooks finds every string in a JSON configuration that calls `hooks <agent> <verb>`
// (under the agent's name or an alias), in document order.
func configuredHooks(data []byte, a agent.Agent) []hookCommand {
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	names := append([]string{a.Name()}, a.Aliases()...)
	var out []hookCommand
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(v[k])
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			f := strings.Fields(v)
			for i := 0; i+2 < len(f); i++ {
				if f[i] == "hooks" && slices.Contains(names, f[i+1]) {
					out = append(out, hookCommand{verb: f[i+2], line: v})
				}
			}
		}
	}
	walk(doc)
	return out
}
