package droid

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
)

func TestTableEntry(t *testing.T) {
	var a agent.Agent = Agent{}
	got := []string{a.Name(), a.Type(), a.ConfigDir(), a.ConfigFile(), a.ResumeCommand(sessionID)}
	want := []string{"droid", "Factory AI Droid", ".factory", ".factory/hooks.json", "droid --resume " + sessionID}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"factory", "factoryai-droid", "factory-droid"}, a.Aliases()); diff != "" {
		t.Errorf("Aliases (-want +got):\n%s", diff)
	}
	u, ok := a.(agent.TurnEndUnreliable)
	if !ok || !u.TurnEndUnreliable() {
		t.Error("Droid's Stop does not fire on interrupts: TurnEndUnreliable must be true")
	}
}

func TestSessionDirName(t *testing.T) {
	for in, want := range map[string]string{
		"/home/u/src/svc":      "-home-u-src-svc",
		"/Users/me/my_proj.v2": "-Users-me-my-proj-v2",
		`C:\Users\me\proj`:     "C--Users-me-proj",
		"/tmp/ünï code/x":      "-tmp--n--code-x", // per character, not per byte
	} {
		if got := SessionDirName(in); got != want {
			t.Errorf("SessionDirName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDefaultTranscript(t *testing.T) {
	home := t.TempDir()
	t.Setenv(projectDirEnv, "")
	t.Setenv(homeOverrideEnv, home)
	want := filepath.Join(home, ".factory", "sessions", "-home-u-src-svc", sessionID+".jsonl")
	if got := (Agent{}).DefaultTranscript("/home/u/src/svc", sessionID); got != want {
		t.Errorf("with FACTORY_HOME_OVERRIDE: %q, want %q", got, want)
	}
	user := t.TempDir()
	t.Setenv(homeOverrideEnv, "")
	t.Setenv("HOME", user)
	want = filepath.Join(user, ".factory", "sessions", "-home-u-src-svc", sessionID+".jsonl")
	if got := (Agent{}).DefaultTranscript("/home/u/src/svc", sessionID); got != want {
		t.Errorf("in the user's home: %q, want %q", got, want)
	}
	dir := t.TempDir()
	t.Setenv(projectDirEnv, dir)
	if got := (Agent{}).DefaultTranscript("/home/u/src/svc", sessionID); got != filepath.Join(dir, sessionID+".jsonl") {
		t.Errorf("with the test override: %q", got)
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if got := (Agent{}).DefaultTranscript("/r", bad); got != "" {
			t.Errorf("DefaultTranscript(%q) = %q, want \"\"", bad, got)
		}
	}
}
