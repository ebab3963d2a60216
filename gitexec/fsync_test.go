package gitexec

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestFsyncsCommits checks when the journal follows git in fsyncing: only where the
// configuration may ask git to, and whenever it cannot be told.
func TestFsyncsCommits(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		global string            // ~/.gitconfig
		local  string            // .git/config, appended
		files  map[string]string // more files under $HOME
		env    map[string]string
		want   bool
	}{
		{name: "default", want: false},
		{name: "unrelated settings", global: "[user]\n\tname = a\n[core]\n\teditor = vi\n", want: false},
		{name: "local core.fsync", local: "[core]\n\tfsync = committed\n", want: true},
		{name: "global core.fsyncObjectFiles", global: "[core]\n\tfsyncObjectFiles = true\n", want: true},
		{name: "core.fsyncMethod, any case", global: "[Core]\n\tFsyncMethod = batch\n", want: true},
		{name: "included from home", global: "[include]\n\tpath = ~/inc.cfg\n", files: map[string]string{"inc.cfg": "[core]\n\tfsync = all\n"}, want: true},
		{name: "includeIf, relative", global: "[includeIf \"gitdir:/elsewhere/\"]\n\tpath = sub/rel.cfg\n", files: map[string]string{"sub/rel.cfg": "[core]\n\tfsync = reference\n"}, want: true},
		{name: "nested include", global: "[include]\n\tpath = a.cfg\n", files: map[string]string{"a.cfg": "[include]\n\tpath = b.cfg\n", "b.cfg": "[core]\n\tfsync = loose-object\n"}, want: true},
		{name: "include without fsync", global: "[include]\n\tpath = ~/inc.cfg\n", files: map[string]string{"inc.cfg": "[user]\n\temail = a@b\n"}, want: false},
		{name: "include of a missing file", global: "[include]\n\tpath = ~/missing.cfg\n", want: false},
		{name: "quoted include path", global: "[include]\n\tpath = \"~/inc.cfg\"\n", files: map[string]string{"inc.cfg": "[user]\n\temail = a@b\n"}, want: true},
		{name: "include on the section's line", global: "[include] path = ~/inc.cfg\n", want: true},
		{name: "git -c", env: map[string]string{"GIT_CONFIG_PARAMETERS": "'core.fsync'='all'"}, want: true},
		{name: "GIT_CONFIG_COUNT", env: map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsync", "GIT_CONFIG_VALUE_0": "committed"}, want: true},
		{name: "git -c of something else", env: map[string]string{"GIT_CONFIG_PARAMETERS": "'core.editor'='vi'"}, want: false},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			t.Setenv("GIT_CONFIG_SYSTEM", filepath.Join(home, "system.cfg")) // absent
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			for _, k := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"} {
				t.Setenv(k, c.env[k])
			}
			write := func(path, data string) {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if c.global != "" {
				write(filepath.Join(home, ".gitconfig"), c.global)
			}
			for name, data := range c.files {
				write(filepath.Join(home, name), data)
			}
			dir := t.TempDir()
			run := gitRunner(t, dir)
			run("", "init", "-q")
			if c.local != "" {
				f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(c.local)
				f.Close()
			}
			r, err := Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := r.FsyncsCommits(); got != c.want {
				t.Errorf("FsyncsCommits = %v, want %v", got, c.want)
			}
		})
	}
}
