package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/setup"
	"github.com/entirerec/entire/gitexec"
)

// canary is doctor's capture self-test: in a scratch repository (this one and its record are
// never touched) it installs this repository's git hooks as they are, byte for byte and mode for
// mode, and its settings, plays a Claude Code turn through the agent hook (without the prompt
// hook's repair of the setup, so that what is broken shows), and commits with git, which runs
// those hooks through the `entire` on PATH. It checks every link (the command resolves, the
// agent hook wrote a temporary checkpoint, prepare-commit-msg added the trailer, post-commit wrote
// the checkpoint; under auto-commit, the agent hook committed the turn with its checkpoint and
// git still commits with the hooks) and returns how many are broken.
func canary(e *env, en *engine.Engine) int {
	fmt.Fprintln(e.stdout, "Capture self-test (in a scratch repository; this one is not touched):")
	broken := 0
	link := func(what string, err error) bool {
		if err != nil {
			fmt.Fprintf(e.stdout, "  broken: %s: %v\n", what, err)
			broken++
			return false
		}
		fmt.Fprintf(e.stdout, "  ok: %s\n", what)
		return true
	}
	if !link("the hooks' command `entire` is on PATH", onPath("entire")) {
		return broken
	}
	dir, err := os.MkdirTemp("", "entire-canary-")
	if err != nil {
		link("a scratch repository", err)
		return broken
	}
	defer os.RemoveAll(dir)
	repo, err := canaryRepo(e, en, dir)
	if !link("a scratch repository with this repository's git hooks and settings", err) {
		return broken
	}
	defer repo.Close()
	if settings, err := setup.LoadSettings(dir); err == nil && settings.Strategy == setup.AutoCommitStrategy {
		canaryAutoCommit(e, repo, link)
	} else {
		canaryCommit(e, repo, dir, link)
	}
	return broken + canaryAgents(e, en.Repo, repo, link)
}

// canaryCommit plays a turn and a commit in the scratch repository and checks each link of the
// chain up to the checkpoint, stopping at the first broken one.
func canaryCommit(e *env, repo *gitexec.Repo, dir string, link func(string, error) bool) {
	err := canaryTurn(e, repo)
	if err == nil {
		err = canaryShadow(e, repo)
	}
	if !link("the agent hook recorded a turn (a temporary checkpoint)", err) {
		return
	}
	if _, err := repo.Run(e.ctx, nil, "add", "canary.txt"); err != nil {
		link("git add", err)
		return
	}
	// git runs the installed hooks itself, through whatever `entire` PATH gives it.
	if _, err := repo.Run(e.ctx, nil, "commit", "-q", "-m", "Canary"); err != nil {
		link("git commit with the hooks", err)
		return
	}
	msg, err := repo.CommitMessage(e.ctx, "HEAD")
	id, ok := checkpoint.ParseCheckpointTrailer(msg)
	if err == nil && !ok {
		err = errors.New("the commit has no Entire-Checkpoint trailer: prepare-commit-msg did not run or did not link")
	}
	if !link("prepare-commit-msg added the trailer", err) {
		return
	}
	err = canaryCheckpoint(e, repo, id)
	if err != nil {
		err = fmt.Errorf("%w: post-commit did not run or failed", err)
	}
	link("post-commit wrote the checkpoint", err)
	canaryPrePush(e, repo, link)
}

// canaryCheckpoint checks that the checkpoint id is on the record's branch.
func canaryCheckpoint(e *env, repo *gitexec.Repo, id string) error {
	_, ok, err := repo.ReadTree(e.ctx, string(checkpoint.MetaRef)+":"+checkpoint.CheckpointPath(id))
	if err == nil && !ok {
		err = fmt.Errorf("checkpoint %s is not on %s", id, checkpoint.MetadataBranch)
	}
	return err
}

// canaryPrePush checks that git would run Entire's pre-push hook, which pushes the record.
func canaryPrePush(e *env, repo *gitexec.Repo, link func(string, error) bool) {
	hooks, err := repo.GitPath(e.ctx, "hooks")
	if err != nil {
		link("pre-push would push the record", err)
		return
	}
	pp := filepath.Join(hooks, "pre-push")
	data, err := os.ReadFile(pp)
	if fi, serr := os.Stat(pp); err == nil && (serr != nil || fi.Mode().Perm()&0o111 == 0 || !bytes.Contains(data, []byte("entire hooks git pre-push"))) {
		err = errors.New("the pre-push hook is not Entire's or not executable: the record would not be pushed")
	}
	link("pre-push would push the record", err)
}

// onPath reports whether an executable named name is on PATH (without running anything).
func onPath(name string) error {
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return nil
		}
	}
	return fmt.Errorf("not found on PATH (%s): every hook would fail to start", os.Getenv("PATH"))
}

// canaryRepo makes the scratch repository: one commit, the git hooks copied from where git
// runs this repository's hooks, and Entire's settings.
func canaryRepo(e *env, en *engine.Engine, dir string) (*gitexec.Repo, error) {
	if _, err := en.Repo.Run(e.ctx, nil, "init", "-q", dir); err != nil {
		return nil, err
	}
	name, _, _ := en.Repo.ConfigGet(e.ctx, "user.name")
	email, _, _ := en.Repo.ConfigGet(e.ctx, "user.email")
	if name == "" {
		name = "Entire canary"
	}
	if email == "" {
		email = "canary@entire.invalid"
	}
	hooksPath, err := canaryHooks(e, en, dir)
	if err != nil {
		return nil, err
	}
	for _, rel := range append([]string{setup.ProjectSettingsFile, setup.LocalSettingsFile}, hookManagerFiles...) {
		if err := copyFile(filepath.Join(en.Repo.TopLevel, rel), filepath.Join(dir, rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("canary\n"), 0o644); err != nil {
		return nil, err
	}
	repo, err := gitexec.Open(e.ctx, dir)
	if err != nil {
		return nil, err
	}
	cmds := [][]string{{"config", "user.name", name}, {"config", "user.email", email}}
	if hooksPath != "" {
		cmds = append(cmds, []string{"config", "core.hooksPath", hooksPath})
	}
	cmds = append(cmds, []string{"add", "README.md"}, []string{"-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "init"})
	for _, args := range cmds {
		if _, err := repo.Run(e.ctx, nil, args...); err != nil {
			repo.Close()
			return nil, err
		}
	}
	return repo, nil
}

// hookManagerFiles are the configuration files of git hook managers (lefthook) that the hooks
// read from the repository root; the self-test copies those that exist.
var hookManagerFiles = []string{"lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml",
	"lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yml", ".lefthook-local.yaml"}

// canaryHooks gives the scratch repository the git hooks in effect here: with no
// core.hooksPath, the hooks directory copied file for file; with an absolute one, the same
// setting (the same directory runs); with a relative one, the same setting and that directory
// copied (for husky's .husky/_, all of .husky: its hooks run the scripts beside it). It
// returns the core.hooksPath to set ("" for none).
func canaryHooks(e *env, en *engine.Engine, dir string) (string, error) {
	hooksPath, _, err := en.Repo.ConfigGet(e.ctx, "core.hooksPath")
	if err != nil {
		return "", err
	}
	switch {
	case hooksPath == "":
		hooks, err := en.Repo.GitPath(e.ctx, "hooks")
		if err != nil {
			return "", err
		}
		return "", copyDir(hooks, filepath.Join(dir, ".git", "hooks"))
	case filepath.IsAbs(hooksPath) || strings.HasPrefix(hooksPath, "~"):
		return hooksPath, nil
	default:
		rel := filepath.Clean(hooksPath)
		if rel == "." || rel == ".." || strings.HasPrefix(filepath.ToSlash(rel), "../") {
			return "", fmt.Errorf("core.hooksPath %q points outside the repository; the self-test cannot copy it", hooksPath)
		}
		if filepath.Base(rel) == "_" && filepath.Dir(rel) != "." {
			rel = filepath.Dir(rel) // husky v9: .husky/_ runs the scripts in .husky
		}
		return hooksPath, copyDir(filepath.Join(en.Repo.TopLevel, rel), filepath.Join(dir, rel))
	}
}

// copyDir copies the regular files under from to to, keeping their modes.
func copyDir(from, to string) error {
	return filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if path == from && errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		return copyFile(path, filepath.Join(to, rel))
	})
}

func copyFile(from, to string) error {
	fi, err := os.Stat(from)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, fi.Mode().Perm())
}

// canaryTurn plays one Claude Code turn in the scratch repository through the agent hook
// handler (`entire hooks claude-code ...`, in this process): a prompt, a written file, Stop.
func canaryTurn(e *env, repo *gitexec.Repo) error {
	dir := repo.TopLevel
	transcript := filepath.Join(dir, ".git", "canary-transcript.jsonl")
	lines := []map[string]any{
		{"type": "user", "uuid": "c1", "message": map[string]any{"role": "user", "content": "Write canary.txt"}},
		{"type": "assistant", "uuid": "c2", "message": map[string]any{"id": "m1", "role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "t1", "name": "Write", "input": map[string]any{"file_path": filepath.Join(dir, "canary.txt"), "content": "canary\n"}}}}},
		{"type": "assistant", "uuid": "c3", "message": map[string]any{"id": "m2", "role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Done."}}}},
	}
	var buf bytes.Buffer
	for _, l := range lines {
		data, _ := json.Marshal(l)
		buf.Write(append(data, '\n'))
	}
	if err := os.WriteFile(transcript, nil, 0o600); err != nil {
		return err
	}
	hook := func(verb string, extra map[string]string) error {
		payload := map[string]string{"session_id": "entire-canary", "transcript_path": transcript}
		for k, v := range extra {
			payload[k] = v
		}
		data, _ := json.Marshal(payload)
		he := &env{ctx: e.ctx, stdin: bytes.NewReader(data), stdout: io.Discard, stderr: io.Discard, cwd: dir}
		return (&hooksCmd{Agent: "claude-code", Verb: verb, noHeal: true}).Run(he)
	}
	if err := hook("session-start", map[string]string{"source": "startup"}); err != nil {
		return err
	}
	first, _, _ := bytes.Cut(buf.Bytes(), []byte("\n"))
	if err := os.WriteFile(transcript, append(first, '\n'), 0o600); err != nil {
		return err
	}
	if err := hook("user-prompt-submit", map[string]string{"prompt": "Write canary.txt"}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "canary.txt"), []byte("canary\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(transcript, buf.Bytes(), 0o600); err != nil {
		return err
	}
	return hook("stop", map[string]string{"last_assistant_message": "Done."})
}

// canaryShadow checks that the turn left a temporary checkpoint (a shadow branch).
func canaryShadow(e *env, repo *gitexec.Repo) error {
	out, err := repo.Run(e.ctx, nil, "for-each-ref", "--format=%(refname:short)", "refs/heads/entire/")
	if err != nil {
		return err
	}
	for _, b := range strings.Fields(string(out)) {
		if b != checkpoint.MetadataBranch {
			return nil
		}
	}
	return canaryMissing(repo, "no temporary checkpoint")
}

// canaryMissing is the error for what the turn did not leave, with the last error the scratch
// repository's hooks logged, if any.
func canaryMissing(repo *gitexec.Repo, what string) error {
	log, _ := os.ReadFile(filepath.Join(repo.TopLevel, ".entire", "logs", "entire.log"))
	if i := bytes.LastIndex(log, []byte(`"level":"ERROR"`)); i >= 0 {
		return fmt.Errorf("%s; the hook logged: %s", what, bytes.TrimSpace(log[max(0, bytes.LastIndexByte(log[:i], '\n')+1):]))
	}
	return errors.New(what + " after Stop")
}
