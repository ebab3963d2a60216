package agent

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRelative(t *testing.T) {
	tests := []struct {
		root, cwd, p string
		want         string
		ok           bool
	}{
		{"/r", "/r", "/r/main.go", "main.go", true},
		{"/r", "/r", "/r/./a/../b/c.go", "b/c.go", true},
		{"/r/", "/r", "/r/a.go", "a.go", true},
		{"/r", "/r/sub", "x.go", "sub/x.go", true},
		{"/r", "/r/sub", "./x.go", "sub/x.go", true},
		{"/r", "/r/sub", "../x.go", "x.go", true},
		{"/r", "/r/sub", "../../x.go", "", false},
		{"/r", "", "x.go", "x.go", true},
		{"/r", "sub", "x.go", "sub/x.go", true},
		{"/r", "/elsewhere", "/r/a.go", "a.go", true},
		{"/r", "/r", "/other/a.go", "", false},
		{"/r", "/r", "/rx/a.go", "", false},
		{"/r", "/r", "/r", "", false},
		{"/r", "/r", "/r/", "", false},
		{"/r", "/r/sub", "..", "", false},
		{"/r", "/r", "", "", false},
		{"", "/r", "/r/a.go", "", false},
		{"/r", "/r", "/r/.entire/metadata/x/prompt.txt", "", false},
		{"/r", "/r", "/r/.entire", "", false},
		{"/r", "/r", "/r/.git/config", "", false},
		{"/r", "/r", "/r/.git", "", false},
		{"/r", "/r", "/r/.gitignore", ".gitignore", true},
		{"/r", "/r", "/r/.entirely/x", ".entirely/x", true},
		{"/r", "/r", "/r/sub/.git/x", "sub/.git/x", true},
		{"/r", "/r", "/r/..foo", "..foo", true},
	}
	for _, tt := range tests {
		got, ok := RepoRelative(tt.root, tt.cwd, tt.p)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RepoRelative(%q, %q, %q) = %q, %v; want %q, %v", tt.root, tt.cwd, tt.p, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRepoRelativeSymlinkedRoot(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "private", "tmp", "repo")
	if err := os.MkdirAll(filepath.Join(real, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "tmp")
	if err := os.Symlink(filepath.Join(base, "private", "tmp"), link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	linked := filepath.Join(link, "repo")
	tests := []struct {
		root, cwd, p string
		want         string
		ok           bool
	}{
		// Root resolved (as git reports it), path through the link (as Claude writes it).
		{real, linked, filepath.Join(linked, "src", "a.go"), "src/a.go", true},
		{real, linked, filepath.Join(linked, "src", "gone", "deleted.go"), "src/gone/deleted.go", true},
		{real, filepath.Join(linked, "src"), "b.go", "src/b.go", true},
		// And the reverse.
		{linked, real, filepath.Join(real, "src", "a.go"), "src/a.go", true},
		{real, linked, filepath.Join(linked, ".entire", "x"), "", false},
		{real, linked, linked, "", false},
		{real, linked, filepath.Join(link, "other", "a.go"), "", false},
	}
	for _, tt := range tests {
		got, ok := RepoRelative(tt.root, tt.cwd, tt.p)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RepoRelative(%q, %q, %q) = %q, %v; want %q, %v", tt.root, tt.cwd, tt.p, got, ok, tt.want, tt.ok)
		}
	}
}
