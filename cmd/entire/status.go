package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/setup"
)

type statusCmd struct {
	Detailed bool `help:"Also show which settings files apply."`
}

func (c *statusCmd) Run(e *env) error {
	repo, err := openRepo(e)
	if err != nil {
		fmt.Fprintln(e.stdout, "✕ not a git repository")
		return nil
	}
	defer repo.Close()
	p, err := setupPaths(e, repo)
	if err != nil {
		return err
	}
	st := setup.Inspect(p)
	if len(st.Agents) == 0 && !st.GitHooks && !st.ProjectExists && !st.LocalExists {
		fmt.Fprintln(e.stdout, "○ not set up (run `entire enable` to get started)")
		return nil
	}
	word := "Enabled"
	if !st.Settings.Enabled {
		word = "Disabled"
	}
	fmt.Fprintf(e.stdout, "%s (%s)\n", word, st.Settings.Strategy)
	wired := make([]string, 0, len(st.Agents))
	for _, a := range st.Agents {
		wired = append(wired, a.Type())
	}
	if len(wired) == 0 {
		wired = append(wired, "none (run `entire enable --agent <name>`)")
	}
	fmt.Fprintf(e.stdout, "Agents: %s\n", strings.Join(wired, ", "))
	for _, u := range st.Settings.Unsupported() {
		fmt.Fprintf(e.stdout, "Setting refused: %s\n", u)
	}
	if c.Detailed {
		// The reference's lines: each settings file that exists, with what it says.
		for _, f := range []struct{ name, rel string }{{"Project", setup.ProjectSettingsFile}, {"Local", setup.LocalSettingsFile}} {
			if fs, ok, err := setup.FileSettings(repo.TopLevel, f.rel); ok && err == nil {
				state := "enabled"
				if !fs.Enabled {
					state = "disabled"
				}
				fmt.Fprintf(e.stdout, "%s, %s (%s)\n", f.name, state, fs.Strategy)
			}
		}
		fmt.Fprintf(e.stdout, "  Git hooks: %v\n", st.GitHooks)
		if st.SettingsErr != nil {
			fmt.Fprintf(e.stdout, "  Settings error: %v\n", st.SettingsErr)
		}
	}
	en, closeLog := settledEngine(e, repo)
	closeLog()
	states, err := en.Store.List()
	if err != nil {
		return err
	}
	if damaged, _ := en.Store.Damaged(); len(damaged) > 0 {
		fmt.Fprintln(e.stdout, "\nDamaged journals set aside (their sessions went on; see `entire doctor`):")
		for _, p := range damaged {
			fmt.Fprintf(e.stdout, "  %s\n", p)
		}
	}
	groups := map[string][]session.State{}
	for _, s := range states {
		if s.EndedAt == nil {
			groups[s.WorktreePath] = append(groups[s.WorktreePath], s)
		}
	}
	if len(groups) == 0 {
		fmt.Fprintln(e.stdout, "No active sessions.")
		return nil
	}
	fmt.Fprintln(e.stdout, "\nActive Sessions:")
	paths := make([]string, 0, len(groups))
	for p := range groups {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, wt := range paths {
		fmt.Fprintf(e.stdout, "  %s\n", wt)
		for _, s := range groups[wt] {
			line := fmt.Sprintf("    [%s] %s started %s", s.AgentType, short(s.SessionID, 7), age(s.StartedAt))
			if s.LastInteractionTime != nil {
				line += ", active " + age(*s.LastInteractionTime)
			}
			fmt.Fprintf(e.stdout, "%s (%s, %d checkpoints)\n", line, s.Phase.Normalize(), s.CheckpointCount)
			if s.FirstPrompt != "" {
				fmt.Fprintf(e.stdout, "      %q\n", truncate(s.FirstPrompt, 60))
			}
		}
	}
	return nil
}

func age(t time.Time) string {
	d := time.Since(t).Round(time.Second)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}
