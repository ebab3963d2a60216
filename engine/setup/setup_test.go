package setup

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/claudecode"
)

func newPaths(t *testing.T) Paths {
	t.Helper()
	top := t.TempDir()
	return Paths{TopLevel: top, HooksDir: filepath.Join(top, ".git", "hooks")}
}

// snapshot reads every file under root into a map of relative path to content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[rel] = readFile(t, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestEnableFreshRepository(t *testing.T) {
	p := newPaths(t)
	writeFile(t, filepath.Join(p.HooksDir, "prepare-commit-msg"), foreignHook, 0o755)
	r, err := Enable(p, EnableOptions{Agents: []agent.Agent{claudecode.Agent{}}, SkipPushSessions: true, Telemetry: boolPtr(false)})
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []string{
		"Agent: Claude Code",
		"Installed 10 hooks for Claude Code - Anthropic's CLI coding assistant",
		"Backed up existing prepare-commit-msg hook to prepare-commit-msg.pre-entire",
		"Installed git hooks: prepare-commit-msg, commit-msg, post-commit, pre-push, post-rewrite, post-merge",
		"✓ Hooks installed",
		"✓ Project configured (.entire/settings.json)",
	}
	if diff := cmp.Diff(wantLines, r.Lines); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	files := snapshot(t, p.TopLevel)
	want := map[string]string{
		".claude/settings.json": freshClaudeSettings(t),
		".entire/.gitignore":    "tmp/\nsettings.local.json\nmetadata/\nlogs/\n",
		".entire/settings.json": `{
  "strategy": "manual-commit",
  "enabled": true,
  "strategy_options": {
    "push_sessions": false
  },
  "telemetry": false
}
`,
		".git/hooks/prepare-commit-msg.pre-entire": foreignHook,
		".git/hooks/commit-msg":                    goldenHooks["commit-msg"],
		".git/hooks/post-commit":                   goldenHooks["post-commit"],
		".git/hooks/pre-push":                      goldenHooks["pre-push"],
		".git/hooks/post-rewrite":                  goldenHooks["post-rewrite"],
		".git/hooks/post-merge":                    goldenHooks["post-merge"],
	}
	got := snapshot(t, p.TopLevel)
	pcm := got[".git/hooks/prepare-commit-msg"]
	delete(got, ".git/hooks/prepare-commit-msg")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(pcm, goldenHooks["prepare-commit-msg"]+"# Chain: run pre-existing hook\n") {
		t.Errorf("prepare-commit-msg not chained:\n%s", pcm)
	}
	if info, _ := os.Stat(filepath.Join(p.TopLevel, ".entire")); info.Mode().Perm() != 0o755 {
		t.Errorf(".entire mode = %v", info.Mode().Perm())
	}

	r, err = Enable(p, EnableOptions{SkipPushSessions: true, Telemetry: boolPtr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(files, snapshot(t, p.TopLevel)); diff != "" {
		t.Errorf("second Enable changed files (-first +second):\n%s", diff)
	}
	if r.Lines[1] != "Hooks for Claude Code - Anthropic's CLI coding assistant already installed" {
		t.Errorf("second report = %q", r.Lines)
	}
}

func TestEnableKeepsProjectSettingsAndRejectsBadOnes(t *testing.T) {
	p := newPaths(t)
	project := filepath.Join(p.TopLevel, ProjectSettingsFile)
	writeFile(t, project, `{"strategy": "auto-commit", "enabled": false, "log_level": "debug"}`, 0o644)
	if _, err := Enable(p, EnableOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"strategy\": \"auto-commit\",\n  \"enabled\": true,\n  \"log_level\": \"debug\"\n}\n"
	if diff := cmp.Diff(want, readFile(t, project)); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}

	writeFile(t, project, `{"strategy": "auto-commit", "colour": "blue"}`, 0o644)
	if _, err := Enable(p, EnableOptions{}); err == nil || !strings.Contains(err.Error(), `"colour"`) {
		t.Errorf("Enable with an unknown key: err = %v", err)
	}
}

// TestDisableProjectOverLocalEnabled: disable --project where the personal settings say
// enabled (enable --local wrote them) turns recording off there too, and says so; it used to
// say "disabled" while the local override kept recording on.
func TestDisableProjectOverLocalEnabled(t *testing.T) {
	p := newPaths(t)
	if _, err := Enable(p, EnableOptions{Telemetry: boolPtr(false)}); err != nil {
		t.Fatal(err)
	}
	if _, err := Enable(p, EnableOptions{Local: true, Strategy: "auto-commit"}); err != nil {
		t.Fatal(err)
	}
	r, err := DisableIn(p, false, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Set enabled to false in .entire/settings.local.json", "Entire is now disabled."}
	if diff := cmp.Diff(want, r.Lines); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if st := Inspect(p); st.Settings.Enabled || st.SettingsErr != nil {
		t.Errorf("after disable --project: enabled=%v err=%v; want recording off", st.Settings.Enabled, st.SettingsErr)
	}
	local := readFile(t, filepath.Join(p.TopLevel, LocalSettingsFile))
	if !strings.Contains(local, `"strategy": "auto-commit"`) || !strings.Contains(local, `"enabled": false`) {
		t.Errorf("settings.local.json keeps its own values but enabled false; got:\n%s", local)
	}
}

func TestDisableThenEnable(t *testing.T) {
	p := newPaths(t)
	if _, err := Enable(p, EnableOptions{Telemetry: boolPtr(false)}); err != nil {
		t.Fatal(err)
	}
	r, err := Disable(p, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Entire is now disabled."}, r.Lines); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	local := filepath.Join(p.TopLevel, LocalSettingsFile)
	want := "{\n  \"strategy\": \"manual-commit\",\n  \"enabled\": false,\n  \"telemetry\": false\n}\n"
	if diff := cmp.Diff(want, readFile(t, local)); diff != "" {
		t.Errorf("settings.local.json (-want +got):\n%s", diff)
	}
	st := Inspect(p)
	if st.Settings.Enabled || st.SettingsErr != nil || !st.ProjectExists || !st.LocalExists || len(st.Agents) != 1 || !st.GitHooks {
		t.Errorf("status after disable = %+v", st)
	}

	r, err = Enable(p, EnableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if last := r.Lines[len(r.Lines)-1]; last != "Set enabled to true in .entire/settings.local.json" {
		t.Errorf("last report line = %q", last)
	}
	if st := Inspect(p); !st.Settings.Enabled {
		t.Error("still disabled after Enable")
	}
}

func TestDisableUninstall(t *testing.T) {
	p := newPaths(t)
	writeFile(t, claudePath(p.TopLevel), foreignClaudeSettings, 0o600)
	writeFile(t, filepath.Join(p.HooksDir, "commit-msg"), foreignHook, 0o755)
	if _, err := Enable(p, EnableOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := Disable(p, true)
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []string{
		"✓ Removed 10 Claude Code hooks from .claude/settings.json",
		"✓ Removed git hooks: prepare-commit-msg, commit-msg, post-commit, pre-push, post-rewrite, post-merge",
		"Restored commit-msg.pre-entire to commit-msg",
		"✓ Removed .entire/",
	}
	if diff := cmp.Diff(wantLines, r.Lines); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	got := snapshot(t, p.TopLevel)
	if diff := cmp.Diff([]string{".claude/settings.json", ".git/hooks/commit-msg"}, mapKeys(got)); diff != "" {
		t.Errorf("files left (-want +got):\n%s", diff)
	}
	if got[".git/hooks/commit-msg"] != foreignHook {
		t.Errorf("commit-msg not restored: %q", got[".git/hooks/commit-msg"])
	}
	gotClaude, _ := agent.DecodeObject([]byte(got[".claude/settings.json"]))
	wantClaude, _ := agent.DecodeObject([]byte(foreignClaudeSettings))
	if diff := cmp.Diff(wantClaude, gotClaude); diff != "" {
		t.Errorf("claude settings (-want +got):\n%s", diff)
	}
	if st := Inspect(p); st.ProjectExists || st.LocalExists || len(st.Agents) > 0 || st.GitHooks {
		t.Errorf("status after uninstall = %+v", st)
	}
}

func mapKeys(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestEnsureGitignoreAppendsOnlyMissing(t *testing.T) {
	top := t.TempDir()
	path := filepath.Join(top, ".entire", ".gitignore")
	writeFile(t, path, "# mine\n/tmp/\nlogs/old", 0o644)
	if err := EnsureGitignore(top); err != nil {
		t.Fatal(err)
	}
	want := "# mine\n/tmp/\nlogs/old\nsettings.local.json\nmetadata/\n"
	if diff := cmp.Diff(want, readFile(t, path)); diff != "" {
		t.Errorf(".gitignore (-want +got):\n%s", diff)
	}
	if err := EnsureGitignore(top); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, readFile(t, path)); diff != "" {
		t.Errorf("second call changed .gitignore (-want +got):\n%s", diff)
	}
}

func TestPathsMustBeAbsolute(t *testing.T) {
	if _, err := Enable(Paths{TopLevel: "repo", HooksDir: "repo/.git/hooks"}, EnableOptions{}); err == nil {
		t.Error("Enable accepted relative paths")
	}
}

// TestEnableAddsAgentHooksToHandEditedSettings: a hand-edited file from before the Agent
// entries (pre-task under "Task" next to a foreign command, the Stop group without a
// "matcher" key) still gets the three additions, and a second Enable changes no byte.
func TestEnableAddsAgentHooksToHandEditedSettings(t *testing.T) {
	p := newPaths(t)
	const handEdited = `{"hooks": {
  "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks claude-code session-start"}]}],
  "SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks claude-code session-end"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "entire hooks claude-code stop"}]}],
  "UserPromptSubmit": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks claude-code user-prompt-submit"}]}],
  "PreToolUse": [{"matcher": "Task", "hooks": [{"type": "command", "command": "audit-task"}, {"type": "command", "command": "entire hooks claude-code pre-task"}]}],
  "PostToolUse": [
    {"matcher": "Task", "hooks": [{"type": "command", "command": "entire hooks claude-code post-task"}]},
    {"matcher": "TodoWrite", "hooks": [{"type": "command", "command": "entire hooks claude-code post-todo"}]}
  ]
}, "permissions": {"deny": ["Read(./.entire/metadata/**)"]}}`
	writeFile(t, claudePath(p.TopLevel), handEdited, 0o600)
	r, err := Enable(p, EnableOptions{SkipPushSessions: true, Telemetry: boolPtr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Lines[1] != "Installed 3 hooks for Claude Code - Anthropic's CLI coding assistant" {
		t.Errorf("first report = %q", r.Lines)
	}
	first := readFile(t, claudePath(p.TopLevel))
	got, err := agent.DecodeObject([]byte(first))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := agent.DecodeObject([]byte(handEdited))
	hooks := want["hooks"].(map[string]any)
	agent := func(c string) any {
		return map[string]any{"matcher": "Agent", "hooks": []any{map[string]any{"type": "command", "command": c}}}
	}
	hooks["PreToolUse"] = append(hooks["PreToolUse"].([]any), agent("entire hooks claude-code pre-task"))
	hooks["PostToolUse"] = append(hooks["PostToolUse"].([]any), agent("entire hooks claude-code post-task"))
	hooks["SubagentStop"] = []any{map[string]any{"matcher": "", "hooks": []any{map[string]any{"type": "command", "command": "entire hooks claude-code subagent-stop"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged settings (-want +got):\n%s", diff)
	}

	files := snapshot(t, p.TopLevel)
	r, err = Enable(p, EnableOptions{SkipPushSessions: true, Telemetry: boolPtr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Lines[1] != "Hooks for Claude Code - Anthropic's CLI coding assistant already installed" {
		t.Errorf("second report = %q", r.Lines)
	}
	if diff := cmp.Diff(files, snapshot(t, p.TopLevel)); diff != "" {
		t.Errorf("second Enable changed files (-first +second):\n%s", diff)
	}
}

func claudePath(top string) string { return filepath.Join(top, claudecode.ClaudeSettingsFile) }

// freshClaudeSettings is what the Claude Code installer writes into an empty repository (its
// own tests hold the golden bytes).
func freshClaudeSettings(t *testing.T) string {
	t.Helper()
	top := t.TempDir()
	if _, err := (claudecode.Agent{}).Install(top, false); err != nil {
		t.Fatal(err)
	}
	return readFile(t, claudePath(top))
}

const foreignClaudeSettings = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls)"], "deny": ["Read(./secret)"]},
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done", "timeout": 30}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
  }
}`
