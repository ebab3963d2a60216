package codex

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

func TestTableEntry(t *testing.T) {
	var a agent.Agent = Agent{}
	got := []string{a.Name(), a.Type(), a.ConfigDir(), a.ConfigFile(), a.ResumeCommand(sessionID)}
	want := []string{"codex", "Codex", ".codex", ".codex/hooks.json", "codex resume " + sessionID}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"codex-cli", "openai-codex"}, a.Aliases()); diff != "" {
		t.Errorf("Aliases (-want +got):\n%s", diff)
	}
	if u, ok := a.(agent.TurnEndUnreliable); !ok || !u.TurnEndUnreliable() {
		t.Error("a Codex without the Interrupt hook sends no turn end when interrupted: its turn end is unreliable")
	}
}

func TestDefaultTranscript(t *testing.T) {
	sessions := t.TempDir()
	t.Setenv(projectDirEnv, sessions)
	older := filepath.Join(sessions, "2026", "03", "13", "rollout-2026-03-13T23-59-59-"+sessionID+".jsonl")
	newer := filepath.Join(sessions, "2026", "03", "14", "rollout-2026-03-14T09-30-12-"+sessionID+".jsonl")
	other := filepath.Join(sessions, "2026", "03", "15", "rollout-2026-03-15T00-00-00-"+childID+".jsonl")
	for _, p := range []string{older, newer, other} {
		agenttest.WriteFile(t, p, "", 0o600)
	}
	if got := (Agent{}).DefaultTranscript("/repo", sessionID); got != newer {
		t.Errorf("DefaultTranscript = %q, want the newest %q", got, newer)
	}
	if got := (Agent{}).DefaultTranscript("/repo", "019a2b3c-0000-7000-8000-00000000dead"); got != "" {
		t.Errorf("unknown session: %q, want \"\"", got)
	}
	for _, bad := range []string{"", "*", "a/b", "..", "x[0]"} {
		if got := (Agent{}).DefaultTranscript("/repo", bad); got != "" {
			t.Errorf("DefaultTranscript(%q) = %q, want \"\"", bad, got)
		}
	}
	// A rollout placed directly in the override directory.
	flat := filepath.Join(sessions, "rollout-2026-01-01T00-00-00-flat-id.jsonl")
	agenttest.WriteFile(t, flat, "", 0o600)
	if got := (Agent{}).DefaultTranscript("/repo", "flat-id"); got != flat {
		t.Errorf("flat rollout: %q, want %q", got, flat)
	}
}

func TestDefaultTranscriptCodexHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv(projectDirEnv, "")
	t.Setenv("CODEX_HOME", home)
	want := filepath.Join(home, "sessions", "2026", "03", "14", "rollout-2026-03-14T09-30-12-"+sessionID+".jsonl")
	agenttest.WriteFile(t, want, "", 0o600)
	if got := (Agent{}).DefaultTranscript("/repo", sessionID); got != want {
		t.Errorf("DefaultTranscript = %q, want %q", got, want)
	}
	// Without CODEX_HOME the user's ~/.codex is used.
	user := t.TempDir()
	t.Setenv("CODEX_HOME", "")
	t.Setenv("HOME", user)
	want = filepath.Join(user, ".codex", "sessions", "2026", "03", "14", "rollout-2026-03-14T09-30-12-"+sessionID+".jsonl")
	agenttest.WriteFile(t, want, "", 0o600)
	if got := (Agent{}).DefaultTranscript("/repo", sessionID); got != want {
		t.Errorf("DefaultTranscript = %q, want %q", got, want)
	}
}
