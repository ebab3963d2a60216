package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/maintenance"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/gitexec"
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
	if st.SettingsErr != nil {
		// No "Enabled (<strategy>)" line: the strategy and the switch are unknown, and the
		// defaults are what the hooks go on with (a load error counts as enabled).
		return &exitError{code: 1, err: fmt.Errorf("settings cannot be read: %w; the hooks record as if enabled, with the default settings, until it is fixed (see `entire doctor`)", st.SettingsErr)}
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
	for _, u := range st.Settings.UnknownOptions() {
		fmt.Fprintf(e.stdout, "Setting ignored: %s\n", u)
	}
	if w := unsignedCommitsWarning(e.ctx, repo, st.Settings); w != "" {
		fmt.Fprintln(e.stdout, w)
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
		// What doctor says of them, briefly: the reference's four hooks link commits.
		switch link, relink := setup.GitHooksProblems(p.HooksDir); {
		case link != "":
			fmt.Fprintf(e.stdout, "  Git hooks: would not run (%s): commits are not linked (see `entire doctor`)\n", link)
		case relink != "":
			fmt.Fprintf(e.stdout, "  Git hooks: commits are linked, but %s (see `entire doctor`)\n", relink)
		default:
			fmt.Fprintln(e.stdout, "  Git hooks: ok")
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
	if !st.Settings.Enabled {
		return nil // the reference lists sessions only while recording is on
	}
	// A session of a linked worktree git no longer has (removed, or pruned) is not active:
	// no hook can reach it. It is listed apart, with what clean does about it, rather than
	// under the dead path among the live ones for good.
	m := maintenance.New(en)
	groups, gone := map[string][]session.State{}, map[string][]session.State{}
	for _, s := range states {
		switch {
		case s.EndedAt != nil:
		case m.WorktreeGone(s):
			gone[s.WorktreePath] = append(gone[s.WorktreePath], s)
		default:
			wt := worktreeNow(repo, s)
			groups[wt] = append(groups[wt], s)
		}
	}
	if len(groups) == 0 {
		fmt.Fprintln(e.stdout, "No active sessions.")
	} else {
		fmt.Fprintln(e.stdout, "\nActive Sessions:")
		branches, missing := worktreeBranches(e, repo)
		listSessions(e, groups, func(wt string) string {
			var notes []string
			if b := branches[wt]; b != "" {
				notes = append(notes, b)
			}
			if missing[wt] {
				// Deleted without `git worktree remove`: git still lists it until pruned.
				notes = append(notes, "directory missing: `git worktree prune` forgets it")
			}
			if len(notes) == 0 {
				return wt
			}
			return fmt.Sprintf("%s (%s)", wt, strings.Join(notes, "; "))
		})
	}
	if len(gone) > 0 {
		fmt.Fprintln(e.stdout, "\nSessions of removed worktrees (no hook can reach them; `entire clean` deletes their local state, never their committed checkpoints):")
		listSessions(e, gone, func(wt string) string { return wt + " (removed)" })
	}
	return nil
}

// listSessions prints sessions grouped by worktree, worktrees sorted by path and each one's
// sessions newest first, under the heading head gives a worktree's path.
func listSessions(e *env, groups map[string][]session.State, head func(string) string) {
	paths := make([]string, 0, len(groups))
	for p := range groups {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, wt := range paths {
		fmt.Fprintf(e.stdout, "  %s\n", head(wt))
		ss := groups[wt]
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].StartedAt.After(ss[j].StartedAt) }) // newest first
		for _, s := range ss {
			line := fmt.Sprintf("    [%s] %-9s started %s", s.AgentType, short(s.SessionID, 7), age(s.StartedAt))
			if s.LastInteractionTime != nil {
				line += ", active " + age(*s.LastInteractionTime)
			}
			fmt.Fprintf(e.stdout, "%s (%s, %s)\n", line, s.Phase.Normalize(), plural(s.Checkpoints(), "checkpoint", "checkpoints"))
			if s.FirstPrompt != "" {
				fmt.Fprintf(e.stdout, "      \"%s\"\n", truncate(oneLine(s.FirstPrompt), 60))
			}
		}
	}
}

// worktreeNow is where a session's worktree is now: one moved (git worktree move, or the
// repository renamed) since the session's last hook, which takes the new path only at its next
// prompt or turn end, is found by its git name, as the hooks find it, so that status does not
// list a live session under a path that no longer exists. The session's path otherwise.
func worktreeNow(repo *gitexec.Repo, s session.State) string {
	if s.WorktreeID == "" {
		if repo.WorktreeID() == "" {
			return repo.TopLevel // this is the main worktree
		}
		return s.WorktreePath
	}
	if !filepath.IsLocal(s.WorktreeID) {
		return s.WorktreePath
	}
	admin := filepath.Join(repo.CommonDir, "worktrees", s.WorktreeID)
	data, err := os.ReadFile(filepath.Join(admin, "gitdir"))
	if err != nil {
		return s.WorktreePath
	}
	dotGit := strings.TrimSpace(string(data))
	if !filepath.IsAbs(dotGit) {
		dotGit = filepath.Join(admin, dotGit) // worktree.useRelativePaths
	}
	if filepath.Base(dotGit) != ".git" {
		return s.WorktreePath
	}
	return filepath.Dir(filepath.Clean(dotGit))
}

// worktreeBranches maps each worktree's path to its branch ("" when detached), as
// `git worktree list` says, and this worktree's, and tells the worktrees git calls prunable
// (their directory is gone); nil when git cannot list them.
func worktreeBranches(e *env, repo *gitexec.Repo) (branches map[string]string, prunable map[string]bool) {
	out, err := repo.Run(e.ctx, nil, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, nil
	}
	m, gone := map[string]string{}, map[string]bool{}
	var path string
	for _, l := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok {
			path = p
		} else if b, ok := strings.CutPrefix(l, "branch "); ok {
			m[path] = strings.TrimPrefix(b, "refs/heads/")
		} else if l == "prunable" || strings.HasPrefix(l, "prunable ") {
			gone[path] = true
		}
	}
	// git names a main worktree by its git directory's parent, which is not the worktree when
	// the git directory is elsewhere (`git init --separate-git-dir`, a submodule's): this one's
	// branch is known anyway.
	if _, listed := m[repo.TopLevel]; !listed {
		if b, ok, err := repo.HeadBranch(e.ctx); err == nil && ok {
			m[repo.TopLevel] = b
		}
	}
	return m, gone
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

// plural is a count and the word that agrees with it: "1 checkpoint", "2 checkpoints".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
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
