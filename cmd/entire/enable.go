package main

import (
	"errors"
	"fmt"
	"github.com/alecthomas/kong"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
	"github.com/entirerec/entire/gitexec"
)

type enableCmd struct {
	Agent            agentNames `help:"Agent whose hooks to install (repeatable or a comma list): claude-code, gemini, cursor, codex, copilot, opencode, droid. Without it: the agents whose configuration directory is present, asked on a terminal; else Claude Code." placeholder:"AGENT,..."`
	Strategy         string     `help:"manual-commit (checkpoints on a shadow branch, condensed when you commit) or auto-commit (each turn's changes committed at once). Without it the configured strategy is kept."`
	Local            bool       `help:"Write .entire/settings.local.json instead of the project settings."`
	Project          bool       `help:"Write the project settings .entire/settings.json."`
	Force            bool       `short:"f" help:"Reinstall the agent hooks even if present."`
	SkipPushSessions bool       `help:"Do not push session logs with git push."`
	Telemetry        *bool      `help:"Record the telemetry choice (false opts out)."`
}

// openRepo opens the repository around the working directory, with a user-facing error.
func openRepo(e *env) (*gitexec.Repo, error) {
	repo, err := gitexec.Open(e.ctx, e.cwd)
	if errors.Is(err, gitexec.ErrNotRepository) {
		return nil, errNotRepository
	}
	return repo, err
}

// errNotRepository is openRepo's error outside a repository; commands with the reference's own
// wording for it check for it.
var errNotRepository = &exitError{code: 1, err: errors.New("not a git repository")}

func setupPaths(e *env, repo *gitexec.Repo) (setup.Paths, error) {
	hooks, err := repo.GitPath(e.ctx, "hooks")
	if err != nil {
		return setup.Paths{}, err
	}
	shared := !within(hooks, repo.TopLevel) && !within(hooks, repo.CommonDir) && !within(hooks, repo.GitDir)
	return setup.Paths{TopLevel: repo.TopLevel, HooksDir: hooks, SharedHooks: shared}, nil
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func (c *enableCmd) Run(e *env) error {
	repo, err := openRepo(e)
	if errors.Is(err, errNotRepository) {
		fmt.Fprintln(e.stderr, "Not a git repository. Please run 'entire enable' from within a git repository.")
		return &exitError{code: 1}
	}
	if err != nil {
		return err
	}
	defer repo.Close()
	// The reference's order of checks (spec §3.1): the flag conflict, the note on an empty
	// repository, the agent, the strategy; only then anything said about where settings go.
	if c.Local && c.Project {
		return errors.New("cannot specify both --project and --local")
	}
	if _, ok, _ := repo.Head(e.ctx); !ok {
		fmt.Fprintln(e.stdout, "Note: This repository has no commits yet. Entire will be configured, but recording starts after the first commit.")
	}
	p, err := setupPaths(e, repo)
	if err != nil {
		return err
	}
	bare := len(c.Agent) == 0 && c.Strategy == "" && !c.Local && !c.Project && !c.Force && !c.SkipPushSessions && c.Telemetry == nil
	if st := setup.Inspect(p); bare && st.SettingsErr == nil && st.Settings.Enabled && st.ProjectExists && st.GitHooks &&
		len(st.Agents) > 0 && !(newTerminal().Available() && newAgentsPresent(repo.TopLevel)) {
		// Nothing to change: the reference's words.
		fmt.Fprintln(e.stdout, "Already enabled. Everything looks good.")
		for _, a := range st.Agents {
			fmt.Fprintf(e.stdout, "  Agent: %s\n", a.Type())
		}
		fmt.Fprintf(e.stdout, "  Config: %s\n", setup.ProjectSettingsFile)
		return nil
	}
	chosen, err := c.agents(repo.TopLevel)
	if err != nil {
		return err
	}
	if c.Strategy != "" {
		if err := setup.CheckStrategy(c.Strategy); err != nil {
			return err
		}
	}
	local := c.Local
	if c.Strategy != "" && len(c.Agent) == 0 && !c.Local && !c.Project {
		if _, err := os.Stat(filepath.Join(repo.TopLevel, setup.ProjectSettingsFile)); err == nil {
			// As the reference does on its --strategy path: a strategy chosen on the command line
			// over shared project settings is kept local (with --agent it writes the project's).
			fmt.Fprintln(e.stdout, "Info: Project settings exist. Saving to settings.local.json instead.")
			local = true
		}
	}
	telemetry := c.Telemetry
	if os.Getenv("ENTIRE_TELEMETRY_OPTOUT") != "" {
		f := false
		telemetry = &f
	}
	report, err := setup.Enable(p, setup.EnableOptions{
		Agents: chosen, Strategy: c.Strategy, Local: local, Project: c.Project, Force: c.Force,
		SkipPushSessions: c.SkipPushSessions, Telemetry: telemetry, AgentHint: len(c.Agent) == 0 && c.Strategy != "",
	})
	for _, l := range report.Lines {
		fmt.Fprintln(e.stdout, l)
	}
	if err != nil {
		return err
	}
	log, closeLog := openLog(repo.TopLevel, "", e.stderr)
	defer closeLog()
	if err := engine.New(repo, log, e.stderr).EnsureMetadataBranch(e.ctx); err != nil {
		return fmt.Errorf("create metadata branch: %w", err)
	}
	if s, err := setup.LoadSettings(repo.TopLevel); err == nil {
		if w := unsignedCommitsWarning(e.ctx, repo, s); w != "" {
			fmt.Fprintln(e.stderr, w)
		}
	}
	fmt.Fprintln(e.stdout, "\nReady.") // after a blank line, as the reference prints it
	return nil
}

// agents resolves --agent, or without it picks the agents to wire: on a terminal, each agent
// whose configuration directory is in the repository (or whose hooks are installed) is
// offered; without a terminal the installed ones are kept; Claude Code when none is found.
func (c *enableCmd) agents(top string) ([]agent.Agent, error) {
	var out []agent.Agent
	for _, name := range c.Agent {
		a, ok := agents.Lookup(name)
		if !ok {
			return nil, &exitError{code: 1, err: unknownAgent(name)}
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if len(c.Agent) > 0 {
		return out, nil
	}
	term := newTerminal()
	for _, a := range agents.All {
		installed := a.Installed(top)
		_, err := os.Stat(filepath.Join(top, a.ConfigDir()))
		switch {
		case installed && !term.Available():
			out = append(out, a)
		case (installed || err == nil) && term.Available():
			if term.Confirm(nil, fmt.Sprintf("Install the %s hooks? [Y/n] ", a.Type()), true) {
				out = append(out, a)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, agents.Default)
	}
	return out, nil
}

// agentNames is --agent: repeatable, or a comma list. An empty value, or the flag with none,
// stays as an empty name, which enable refuses with the reference's "Missing agent name" list
// (spec §3.1) rather than going on as if --agent had not been given.
type agentNames []string

func (a *agentNames) Decode(ctx *kong.DecodeContext) error {
	if !ctx.Scan.Peek().IsValue() {
		*a = append(*a, "")
		return nil
	}
	*a = append(*a, strings.Split(ctx.Scan.Pop().String(), ",")...)
	return nil
}

// unknownAgent lists the agents after naming the one not found (the reference's wording).
func unknownAgent(name string) error {
	var b strings.Builder
	if strings.TrimSpace(name) == "" {
		b.WriteString("Missing agent name. Available agents:\n")
	} else {
		fmt.Fprintf(&b, "Unknown agent %q. Available agents:\n", name)
	}
	for i, a := range agents.All {
		line := "  " + a.Name()
		if i == 0 {
			line = fmt.Sprintf("  %-14s (default)", a.Name())
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("Usage: entire enable --agent <agent-name>")
	return errors.New(b.String())
}

// newAgentsPresent reports whether an agent's configuration directory is in the repository
// while its hooks are not installed (a bare enable on a terminal then offers it).
func newAgentsPresent(top string) bool {
	for _, a := range agents.All {
		if _, err := os.Stat(filepath.Join(top, a.ConfigDir())); err == nil && !a.Installed(top) {
			return true
		}
	}
	return false
}
