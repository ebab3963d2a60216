package opencode

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirerec/entire/events/agent/agenttest"
)

func pluginPath(root string) string { return filepath.Join(root, ".opencode", "plugins", "entire.ts") }

func TestPluginSourceShape(t *testing.T) {
	first, _, _ := strings.Cut(string(pluginSource), "\n")
	if first != "// Entire session recorder for OpenCode: written by `entire enable`, removed by `entire disable`." {
		t.Errorf("first line = %q, want the marker line", first)
	}
	for _, want := range []string{
		`from "node:child_process"`, "spawnSync(COMMAND", `const COMMAND = "entire"`,
		`["hooks", "opencode", verb]`, `"session.created"`, `"session.status"`, `"session.idle"`,
		`"server.instance.disposed"`, `"session.deleted"`, `"chat.message"`, `"tool.execute.before"`,
		`"tool.execute.after"`, "parentID",
	} {
		if !bytes.Contains(pluginSource, []byte(want)) {
			t.Errorf("plugin source lacks %s", want)
		}
	}
	// Every verb the plugin sends is one Parse knows, and Parse knows no verb the plugin lacks.
	for verb := range verbs {
		if !bytes.Contains(pluginSource, []byte(`send("`+verb+`"`)) {
			t.Errorf("plugin never sends %q", verb)
		}
	}
	if n := bytes.Count(pluginSource, []byte(`send("`)); n != len(verbs) {
		t.Errorf("plugin has %d send calls, want one per verb (%d)", n, len(verbs))
	}
}

func TestInstallFresh(t *testing.T) {
	root := t.TempDir()
	n, err := Agent{}.Install(root, false)
	if err != nil || n != 1 {
		t.Fatalf("Install = %d, %v; want 1, nil", n, err)
	}
	got := agenttest.ReadFile(t, pluginPath(root))
	want := agenttest.ReadFile(t, "entire.ts")
	if got != want {
		t.Errorf("installed plugin differs from entire.ts")
	}
	fi, err := os.Stat(pluginPath(root))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("plugin mode = %v, want 0644", fi.Mode().Perm())
	}
	if !(Agent{}).Installed(root) {
		t.Error("Installed = false after Install")
	}
}

func TestInstallIdempotent(t *testing.T) {
	root := t.TempDir()
	if _, err := (Agent{}).Install(root, false); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(pluginPath(root))
	if err != nil {
		t.Fatal(err)
	}
	n, err := Agent{}.Install(root, false)
	if err != nil || n != 0 {
		t.Fatalf("second Install = %d, %v; want 0, nil", n, err)
	}
	after, err := os.Stat(pluginPath(root))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("second Install replaced the file")
	}
	// force rewrites even a current file.
	n, err = Agent{}.Install(root, true)
	if err != nil || n != 1 {
		t.Fatalf("forced Install = %d, %v; want 1, nil", n, err)
	}
	if forced, _ := os.Stat(pluginPath(root)); os.SameFile(after, forced) {
		t.Error("forced Install kept the old file")
	}
}

func TestInstallUpgradesOldPlugin(t *testing.T) {
	root := t.TempDir()
	old := "// Entire session recorder for OpenCode (an older version)\nexport const EntireRecorder = async () => ({})\n"
	agenttest.WriteFile(t, pluginPath(root), old, 0o644)
	if !(Agent{}).Installed(root) {
		t.Error("Installed = false for an older Entire plugin")
	}
	n, err := Agent{}.Install(root, false)
	if err != nil || n != 1 {
		t.Fatalf("Install over an old plugin = %d, %v; want 1, nil", n, err)
	}
	if got := agenttest.ReadFile(t, pluginPath(root)); got != string(pluginSource) {
		t.Error("old plugin not replaced by the current one")
	}
}

func TestInstallKeepsForeign(t *testing.T) {
	root := t.TempDir()
	// A plugin of the user's beside ours, and a config file: both untouched by install and uninstall.
	other := filepath.Join(root, ".opencode", "plugins", "notify.ts")
	config := filepath.Join(root, ".opencode", "opencode.json")
	agenttest.WriteFile(t, other, "export const Notify = async () => ({})\n", 0o600)
	agenttest.WriteFile(t, config, `{"plugin":["x"]}`+"\n", 0o600)
	if n, err := (Agent{}).Install(root, false); err != nil || n != 1 {
		t.Fatalf("Install = %d, %v", n, err)
	}
	if n, err := (Agent{}).Uninstall(root); err != nil || n != 1 {
		t.Fatalf("Uninstall = %d, %v; want 1, nil", n, err)
	}
	if agenttest.Exists(pluginPath(root)) {
		t.Error("Uninstall left entire.ts")
	}
	if agenttest.ReadFile(t, other) != "export const Notify = async () => ({})\n" || agenttest.ReadFile(t, config) != `{"plugin":["x"]}`+"\n" {
		t.Error("foreign files changed")
	}
}

func TestInstallRefusesUserFile(t *testing.T) {
	for _, force := range []bool{false, true} {
		root := t.TempDir()
		user := "// my own recorder\nexport const Mine = async () => ({})\n"
		agenttest.WriteFile(t, pluginPath(root), user, 0o600)
		n, err := Agent{}.Install(root, force)
		if err == nil || !strings.Contains(err.Error(), "not written by Entire") || n != 0 {
			t.Errorf("Install(force=%v) over a user file = %d, %v; want 0 and an error saying so", force, n, err)
		}
		if got := agenttest.ReadFile(t, pluginPath(root)); got != user {
			t.Errorf("Install(force=%v) changed the user's file to %q", force, got)
		}
		if (Agent{}).Installed(root) {
			t.Error("Installed = true for a user file")
		}
		if n, err := (Agent{}).Uninstall(root); n != 0 || err != nil || agenttest.ReadFile(t, pluginPath(root)) != user {
			t.Errorf("Uninstall of a user file = %d, %v, or the file changed", n, err)
		}
	}
}

func TestInstallRejectsWrongShapes(t *testing.T) {
	// A directory where the plugin file goes.
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(pluginPath(root), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if n, err := (Agent{}).Install(root, true); err == nil || n != 0 {
		t.Errorf("Install over a directory = %d, %v; want an error", n, err)
	}
	if n, err := (Agent{}).Uninstall(root); err == nil || n != 0 || !agenttest.Exists(filepath.Join(pluginPath(root), "x")) {
		t.Errorf("Uninstall of a directory = %d, %v; want an error and the directory kept", n, err)
	}
	// A symbolic link to a file elsewhere, even one with our marker: never followed.
	root = t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere.ts")
	agenttest.WriteFile(t, target, string(pluginSource)+"// changed\n", 0o600)
	if err := os.MkdirAll(filepath.Dir(pluginPath(root)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, pluginPath(root)); err != nil {
		t.Skip(err)
	}
	if n, err := (Agent{}).Install(root, true); err == nil || n != 0 {
		t.Errorf("Install over a symlink = %d, %v; want an error", n, err)
	}
	if agenttest.ReadFile(t, target) != string(pluginSource)+"// changed\n" {
		t.Error("Install wrote through the symlink")
	}
	// .opencode itself a file.
	root = t.TempDir()
	agenttest.WriteFile(t, filepath.Join(root, ".opencode"), "not a dir\n", 0o600)
	if n, err := (Agent{}).Install(root, false); err == nil || n != 0 {
		t.Errorf("Install with .opencode a file = %d, %v; want an error", n, err)
	}
	if agenttest.ReadFile(t, filepath.Join(root, ".opencode")) != "not a dir\n" {
		t.Error("Install changed the .opencode file")
	}
}

func TestUninstallExact(t *testing.T) {
	root := t.TempDir()
	if n, err := (Agent{}).Uninstall(root); n != 0 || err != nil {
		t.Errorf("Uninstall with nothing installed = %d, %v", n, err)
	}
	if _, err := (Agent{}).Install(root, false); err != nil {
		t.Fatal(err)
	}
	if n, err := (Agent{}).Uninstall(root); n != 1 || err != nil {
		t.Fatalf("Uninstall = %d, %v; want 1, nil", n, err)
	}
	// The directories Install created are gone with the file; the repository root stays.
	if agenttest.Exists(filepath.Join(root, ".opencode")) {
		t.Error("Uninstall left an empty .opencode/")
	}
	if !agenttest.Exists(root) {
		t.Error("Uninstall removed the repository root")
	}
	if (Agent{}).Installed(root) {
		t.Error("Installed = true after Uninstall")
	}
	if n, err := (Agent{}).Uninstall(root); n != 0 || err != nil {
		t.Errorf("second Uninstall = %d, %v; want 0, nil", n, err)
	}
	// .opencode/ with other content survives; only the emptied plugins/ goes.
	agenttest.WriteFile(t, filepath.Join(root, ".opencode", "opencode.json"), "{}\n", 0o600)
	if _, err := (Agent{}).Install(root, false); err != nil {
		t.Fatal(err)
	}
	if n, err := (Agent{}).Uninstall(root); n != 1 || err != nil {
		t.Fatalf("Uninstall = %d, %v", n, err)
	}
	if agenttest.Exists(filepath.Join(root, ".opencode", "plugins")) || !agenttest.Exists(filepath.Join(root, ".opencode", "opencode.json")) {
		t.Error("Uninstall should drop the emptied plugins/ and keep .opencode/opencode.json")
	}
}
