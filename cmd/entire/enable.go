package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/gitexec"
)

type enableCmd struct {
	Agent            string `help:"Agent whose hooks to install." default:"claude-code" enum:"claude-code"`
	Local            bool   `help:"Write .entire/settings.local.json instead of the project settings."`
	Project          bool   `help:"Write the project settings .entire/settings.json."`
	Force            bool   `short:"f" help:"Reinstall the agent hooks even if present."`
	SkipPushSessions bool   `help:"Do not push session logs with git push."`
	Telemetry        *bool  `help:"Record the telemetry choice (false opts out)."`
}

// openRepo opens the repository around the working directory, with a user-facing error.
func openRepo(e *env) (*gitexec.Repo, error) {
	repo, err := gitexec.Open(e.ctx, e.cwd)
	if errors.Is(err, gitexec.ErrNotRepository) {
		return nil, &exitError{code: 1, err: errors.New("not a git repository")}
	}
	return repo, err
}

func setupPaths(e *env, repo *gitexec.Repo) (setup.Paths, error) {
	hooks, err := repo.GitPath(e.ctx, "hooks")
	if err != nil {
		return setup.Paths{}, err
	}
	return setup.Paths{TopLevel: repo.TopLevel, HooksDir: hooks}, nil
}

func (c *enableCmd) Run(e *env) error {
	repo, err := openRepo(e)
	if err != nil {
		return err
	}
	defer repo.Close()
	if _, ok, _ := repo.Head(e.ctx); !ok {
		fmt.Fprintln(e.stderr, "Warning: the repository has no commits yet; recording starts after the first commit.")
	}
	p, err := setupPaths(e, repo)
	if err != nil {
		return err
	}
	telemetry := c.Telemetry
	if os.Getenv("ENTIRE_TELEMETRY_OPTOUT") != "" {
		f := false
		telemetry = &f
	}
	report, err := setup.Enable(p, setup.EnableOptions{
		Agent: c.Agent, Local: c.Local, Project: c.Project, Force: c.Force,
		SkipPushSessions: c.SkipPushSessions, Telemetry: telemetry,
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
	fmt.Fprintln(e.stdout, "Ready.")
	return nil
}
