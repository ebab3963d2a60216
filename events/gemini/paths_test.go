package gemini

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/entirerec/entire/events/agent/agenttest"
)

const sid = "3f9a1c2e-7b4d-4e8f-a1b2-c3d4e5f60718"

// touch writes a chat file with modification time at.
func touch(t *testing.T, path string, at time.Time) {
	t.Helper()
	agenttest.WriteFile(t, path, "{}\n", 0o600)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultTranscriptOverride(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(TestChatsDirEnv, dir)
	base := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	a := Agent{}
	if got := a.DefaultTranscript("/repo", sid); got != "" {
		t.Errorf("empty dir: %q, want \"\"", got)
	}
	touch(t, filepath.Join(dir, "session-2026-05-01T08-00-3f9a1c2e.json"), base)
	touch(t, filepath.Join(dir, "session-2026-05-04T09-12-3f9a1c2e.jsonl"), base.Add(time.Hour))
	touch(t, filepath.Join(dir, "session-2026-05-05T10-00-00000000.jsonl"), base.Add(2*time.Hour)) // another session
	touch(t, filepath.Join(dir, "3f9a1c2e.jsonl"), base.Add(3*time.Hour))                          // not a session name
	if err := os.MkdirAll(filepath.Join(dir, "session-2026-05-06T10-00-3f9a1c2e.json"), 0o755); err != nil {
		t.Fatal(err) // a directory with a matching name
	}
	want := filepath.Join(dir, "session-2026-05-04T09-12-3f9a1c2e.jsonl")
	if got := a.DefaultTranscript("/repo", sid); got != want {
		t.Errorf("DefaultTranscript = %q, want %q", got, want)
	}
	// The legacy file written last wins: it is the live one.
	touch(t, filepath.Join(dir, "session-2026-05-01T08-00-3f9a1c2e.json"), base.Add(4*time.Hour))
	if got, want := a.DefaultTranscript("/repo", sid), filepath.Join(dir, "session-2026-05-01T08-00-3f9a1c2e.json"); got != want {
		t.Errorf("after a write: %q, want %q", got, want)
	}
	for _, bad := range []string{"", "../3f9a1c2e", `a\b`} {
		if got := a.DefaultTranscript("/repo", bad); got != "" {
			t.Errorf("DefaultTranscript(%q) = %q, want \"\"", bad, got)
		}
	}
	if got, want := a.DefaultTranscript("/repo", "3f9a"), ""; got != want {
		t.Errorf("short id: %q", got)
	}
	touch(t, filepath.Join(dir, "session-2026-05-07T10-00-3f9a.jsonl"), base)
	if got, want := a.DefaultTranscript("/repo", "3f9a"), filepath.Join(dir, "session-2026-05-07T10-00-3f9a.jsonl"); got != want {
		t.Errorf("short id: %q, want %q", got, want)
	}
}

func TestDefaultTranscriptProjectID(t *testing.T) {
	at := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	name := "session-2026-05-04T09-12-3f9a1c2e.jsonl"
	// SHA-256 of "/work/My Repo", from sha256sum.
	const hash = "7e8fbf89b5e322c41da597af3ee70911c4c6f8739a2438dbdbbe23629df0f4b0"
	tests := []struct {
		name  string
		setup func(t *testing.T, gem string)
		want  string // project id directory, "" for none
	}{
		{"registry", func(t *testing.T, gem string) {
			agenttest.WriteFile(t, filepath.Join(gem, "projects.json"), `{"projects":{"/other":"other","/work/My Repo/":"my-repo-2"}}`, 0o600)
			touch(t, filepath.Join(gem, "tmp", "my-repo-2", "chats", name), at)
			touch(t, filepath.Join(gem, "tmp", "my-repo", "chats", name), at.Add(time.Hour))
		}, "my-repo-2"},
		{"slug without registry", func(t *testing.T, gem string) {
			touch(t, filepath.Join(gem, "tmp", "my-repo", "chats", name), at)
		}, "my-repo"},
		{"slug owned by another project", func(t *testing.T, gem string) {
			agenttest.WriteFile(t, filepath.Join(gem, "tmp", "my-repo", ".project_root"), "/elsewhere/My Repo\n", 0o600)
			touch(t, filepath.Join(gem, "tmp", "my-repo", "chats", name), at)
		}, ""},
		{"slug owned by this project", func(t *testing.T, gem string) {
			agenttest.WriteFile(t, filepath.Join(gem, "tmp", "my-repo", ".project_root"), "/work/My Repo\n", 0o600)
			touch(t, filepath.Join(gem, "tmp", "my-repo", "chats", name), at)
		}, "my-repo"},
		{"registry entry without the file falls back", func(t *testing.T, gem string) {
			agenttest.WriteFile(t, filepath.Join(gem, "projects.json"), `{"projects":{"/work/My Repo":"my-repo-2"}}`, 0o600)
			touch(t, filepath.Join(gem, "tmp", hash, "chats", name), at)
		}, hash},
		{"corrupt registry", func(t *testing.T, gem string) {
			agenttest.WriteFile(t, filepath.Join(gem, "projects.json"), `{"projects":`, 0o600)
			touch(t, filepath.Join(gem, "tmp", hash, "chats", name), at)
		}, hash},
		{"registry id escaping tmp ignored", func(t *testing.T, gem string) {
			agenttest.WriteFile(t, filepath.Join(gem, "projects.json"), `{"projects":{"/work/My Repo":".."}}`, 0o600)
			touch(t, filepath.Join(gem, "chats", name), at)
		}, ""},
		{"nothing", func(*testing.T, string) {}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv(geminiHomeEnv, "")
			t.Setenv(TestChatsDirEnv, "")
			gem := filepath.Join(home, ".gemini")
			tt.setup(t, gem)
			want := ""
			if tt.want != "" {
				want = filepath.Join(gem, "tmp", tt.want, "chats", name)
			}
			if got := (Agent{}).DefaultTranscript("/work/My Repo", sid); got != want {
				t.Errorf("DefaultTranscript = %q, want %q", got, want)
			}
		})
	}
}

func TestDefaultTranscriptGeminiHome(t *testing.T) {
	home, gemHome := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(TestChatsDirEnv, "")
	t.Setenv(geminiHomeEnv, gemHome)
	path := filepath.Join(gemHome, ".gemini", "tmp", "repo", "chats", "session-2026-05-04T09-12-3f9a1c2e.jsonl")
	touch(t, path, time.Now())
	if got := (Agent{}).DefaultTranscript("/src/repo", sid); got != path {
		t.Errorf("DefaultTranscript = %q, want %q", got, path)
	}
	t.Setenv(geminiHomeEnv, "relative/dir") // ignored: not absolute
	if got := (Agent{}).DefaultTranscript("/src/repo", sid); got != "" {
		t.Errorf("relative GEMINI_CLI_HOME: %q, want \"\"", got)
	}
}

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{"My Repo": "my-repo", "--a__b--": "a-b", "日本": "project", "": "project", "v1.2": "v1-2"} {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
}
