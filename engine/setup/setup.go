package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
)

// Paths locates the repository for this package; the caller resolves them with git.
type Paths struct {
	TopLevel string // absolute worktree root
	HooksDir string // absolute git hooks directory (already honours core.hooksPath)
	// SharedHooks: HooksDir is outside this repository (a core.hooksPath such as a global
	// ~/.githooks), so every repository using that directory runs the hooks written there.
	SharedHooks bool
}

func (p Paths) check() error {
	if !filepath.IsAbs(p.TopLevel) || !filepath.IsAbs(p.HooksDir) {
		return fmt.Errorf("setup paths must be absolute (top level %q, hooks %q)", p.TopLevel, p.HooksDir)
	}
	return nil
}

// EnableOptions are the `entire enable` flags that affect files. The caller turns
// ENTIRE_TELEMETRY_OPTOUT into Telemetry = false.
type EnableOptions struct {
	Agents           []agent.Agent // whose hooks to install; empty means the default agent
	Strategy         string        // manual-commit or auto-commit; empty keeps the configured one
	Local, Project   bool          // write .entire/settings.local.json or .entire/settings.json (default)
	SkipPushSessions bool          // set strategy_options.push_sessions to false
	Telemetry        *bool         // recorded when set
	Force            bool          // remove Entire's agent hooks before adding them again
	// AgentHint: the agent was not named (--strategy alone); its line says how to change it.
	AgentHint bool
}

// Report holds human-readable lines for the caller to print, in order.
type Report struct {
	Lines []string
}

func (r *Report) add(lines ...string) { r.Lines = append(r.Lines, lines...) }

// entireDir is Entire's per-worktree directory, relative to the worktree root.
const entireDir = ".entire"

// gitignoreEntries are the lines §7.2 requires in .entire/.gitignore.
var gitignoreEntries = []string{"tmp/", "settings.local.json", "metadata/", "logs/"}

// EnsureGitignore creates .entire/ (0755) and appends each §7.2 entry to .entire/.gitignore,
// on its own line, unless the file already contains it as a substring.
func EnsureGitignore(topLevel string) error {
	dir := filepath.Join(topLevel, entireDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create .entire directory: %w", err)
	}
	path := filepath.Join(dir, ".gitignore")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read .entire/.gitignore: %w", err)
	}
	content := string(data)
	for _, e := range gitignoreEntries {
		if strings.Contains(content, e) {
			continue
		}
		if content != "" && !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		content += e + "\n"
	}
	if content == string(data) {
		return nil
	}
	if err := agent.WriteFileAtomic(path, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write .entire/.gitignore: %w", err)
	}
	return nil
}

// Enable installs what `entire enable` installs (§8): each agent's hooks, .entire/ and
// its .gitignore, the settings file (enabled, strategy defaulted) and the git hooks.
// It refuses to start when the existing settings do not load. Running it twice changes
// nothing the second time. The caller prints "Ready." after its own git work.
func Enable(p Paths, opt EnableOptions) (Report, error) {
	var r Report
	if err := p.check(); err != nil {
		return r, err
	}
	if opt.Strategy != "" {
		if err := CheckStrategy(opt.Strategy); err != nil {
			return r, err
		}
	}
	if opt.Local && opt.Project {
		return r, errors.New("cannot specify both --project and --local")
	}
	effective, err := LoadSettings(p.TopLevel)
	if err != nil {
		return r, err
	}
	list := opt.Agents
	if len(list) == 0 {
		list = []agent.Agent{agents.Default}
	}
	// Every agent's JSON configuration is read before any is written: one that cannot be read
	// (Gemini CLI accepts comments) refuses the whole enable. Failing at that agent left the
	// agents before it wired but no git hooks and no settings, which status shows as enabled
	// while no commit is linked.
	for _, a := range list {
		if f := a.ConfigFile(); strings.HasSuffix(f, ".json") {
			if _, err := agent.ReadConfig(filepath.Join(p.TopLevel, filepath.FromSlash(f))); err != nil {
				return r, fmt.Errorf("install %s hooks: %w", a.Type(), err)
			}
		}
	}
	for _, a := range list {
		if opt.AgentHint {
			r.add("Agent: " + a.Type() + " (use --agent to change)")
		} else {
			r.add("Agent: " + a.Type())
		}
		added, err := a.Install(p.TopLevel, opt.Force)
		if err != nil {
			return r, fmt.Errorf("install %s hooks: %w", a.Type(), err)
		}
		// The reference's words.
		desc := a.Type()
		if d, ok := a.(agent.Describer); ok {
			desc = d.Description()
		}
		if added > 0 {
			r.add(fmt.Sprintf("Installed %d %s for %s", added, hookWord(added), desc))
		} else {
			r.add("Hooks for " + desc + " already installed")
		}
	}
	if err := EnsureGitignore(p.TopLevel); err != nil {
		return r, err
	}
	lines, err := configure(p.TopLevel, opt, effective)
	if err != nil {
		return r, err
	}
	hookLines, err := InstallGitHooks(p.HooksDir)
	r.add(hookLines...)
	if err != nil {
		return r, err
	}
	r.add("✓ Hooks installed")
	if p.SharedHooks {
		r.add(fmt.Sprintf("Note: the git hooks are in %s (core.hooksPath), outside this repository: every repository that uses that directory runs them.", p.HooksDir))
	}
	r.add(lines...)
	return r, nil
}

// configure writes the settings file chosen by opt with Enabled set, the strategy
// defaulted and the opt-in options recorded. The target file's own keys are kept; the
// other file's keys are not copied into it. When the project file is written and the local
// file would still disable Entire, the local file is switched to enabled as well.
func configure(topLevel string, opt EnableOptions, effective Settings) ([]string, error) {
	rel := ProjectSettingsFile
	if opt.Local {
		rel = LocalSettingsFile
	}
	f, _, err := readSettingsFile(filepath.Join(topLevel, rel))
	if err != nil {
		return nil, err
	}
	var s Settings
	s.overlay(f)
	s.Enabled = true
	if opt.Strategy != "" {
		s.Strategy = opt.Strategy
	}
	if s.Strategy == "" {
		s.Strategy = DefaultStrategy
		if opt.Local {
			s.Strategy = effective.Strategy
		}
	}
	if opt.SkipPushSessions {
		s.overlay(settingsFile{StrategyOptions: map[string]any{optPushSessions: false}})
	}
	if opt.Telemetry != nil {
		s.overlay(settingsFile{Telemetry: opt.Telemetry})
	}
	if err := WriteSettings(filepath.Join(topLevel, rel), s); err != nil {
		return nil, err
	}
	lines := []string{fmt.Sprintf("✓ Project configured (%s)", rel)}
	if opt.Local {
		return lines, nil
	}
	localPath := filepath.Join(topLevel, LocalSettingsFile)
	local, _, err := readSettingsFile(localPath)
	if err != nil || local.Enabled == nil || *local.Enabled {
		return lines, err
	}
	var ls Settings
	ls.overlay(local)
	ls.Enabled = true
	if err := WriteSettings(localPath, ls); err != nil {
		return nil, err
	}
	return append(lines, fmt.Sprintf("Set enabled to true in %s", LocalSettingsFile)), nil
}

// Disable without uninstall writes the whole effective settings with enabled false to
// .entire/settings.local.json (§10). With uninstall it removes every agent's Entire hooks
// (and Claude's deny rule), the marked git hooks (restoring backups) and .entire/; it carries on past
// failures and returns them joined. Shadow branches and session files are the caller's.
func Disable(p Paths, uninstall bool) (Report, error) {
	return DisableIn(p, uninstall, false)
}

// DisableIn is Disable writing the project settings (.entire/settings.json) instead of the
// local ones when project is set (`entire disable --project`).
func DisableIn(p Paths, uninstall, project bool) (Report, error) {
	var r Report
	if err := p.check(); err != nil {
		return r, err
	}
	if !uninstall {
		s, err := LoadSettings(p.TopLevel)
		if err != nil {
			return r, err
		}
		s.Enabled = false
		if err := EnsureGitignore(p.TopLevel); err != nil {
			return r, err
		}
		target := LocalSettingsFile
		if project {
			target = ProjectSettingsFile
		}
		if err := WriteSettings(filepath.Join(p.TopLevel, target), s); err != nil {
			return r, err
		}
		if project {
			// The personal file overrides the project's: one saying enabled would leave
			// recording on after "disabled" (as enable, the other way round, sets it true).
			localPath := filepath.Join(p.TopLevel, LocalSettingsFile)
			local, _, err := readSettingsFile(localPath)
			if err != nil {
				return r, err
			}
			if local.Enabled != nil && *local.Enabled {
				var ls Settings
				ls.overlay(local)
				ls.Enabled = false
				if err := WriteSettings(localPath, ls); err != nil {
					return r, err
				}
				r.add(fmt.Sprintf("Set enabled to false in %s", LocalSettingsFile))
			}
		}
		r.add("Entire is now disabled.")
		return r, nil
	}
	var errs []error
	for _, a := range agents.All {
		if n, err := a.Uninstall(p.TopLevel); err != nil {
			errs = append(errs, fmt.Errorf("remove %s hooks: %w", a.Type(), err))
		} else if n > 0 {
			r.add(fmt.Sprintf("✓ Removed %d %s %s from %s", n, a.Type(), hookWord(n), a.ConfigFile()))
		}
	}
	if p.SharedHooks {
		// Removing them would silently stop recording in every other repository that
		// uses the directory and has Entire enabled; here they do nothing once the
		// settings below are gone.
		if anyGitHookOurs(p.HooksDir) {
			r.add(fmt.Sprintf("Left Entire's git hooks in %s (core.hooksPath): other repositories may use that directory. Remove them there if none does.", p.HooksDir))
		}
	} else {
		lines, err := RemoveGitHooks(p.HooksDir)
		r.add(lines...)
		errs = append(errs, err)
	}
	dir := filepath.Join(p.TopLevel, entireDir)
	if exists(dir) {
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("remove .entire directory: %w", err))
		} else {
			r.add("✓ Removed " + entireDir + "/")
		}
	}
	return r, errors.Join(errs...)
}

// Status is what `entire status` needs from the files.
type Status struct {
	Agents        []agent.Agent // the agents whose hooks are installed, in table order
	GitHooks      bool          // every git hook carries the marker
	Settings      Settings      // effective settings (defaults when SettingsErr is set)
	SettingsErr   error         // why the settings did not load
	ProjectExists bool          // .entire/settings.json exists
	LocalExists   bool          // .entire/settings.local.json exists
}

// Inspect reads the installation state. "Not set up" is !ProjectExists && !LocalExists.
func Inspect(p Paths) Status {
	s, err := LoadSettings(p.TopLevel)
	var wired []agent.Agent
	for _, a := range agents.All {
		if a.Installed(p.TopLevel) {
			wired = append(wired, a)
		}
	}
	return Status{
		Agents:        wired,
		GitHooks:      GitHooksInstalled(p.HooksDir),
		Settings:      s,
		SettingsErr:   err,
		ProjectExists: exists(filepath.Join(p.TopLevel, ProjectSettingsFile)),
		LocalExists:   exists(filepath.Join(p.TopLevel, LocalSettingsFile)),
	}
}

// hookWord agrees with a count of hooks; the reference only ever counts several.
func hookWord(n int) string {
	if n == 1 {
		return "hook"
	}
	return "hooks"
}
