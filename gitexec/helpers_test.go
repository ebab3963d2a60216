package gitexec_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

// Fixed identity and dates so commits are reproducible.
const (
	testName  = "Test Author"
	testEmail = "author@example.com"
	testDate  = "1700000000 +0000"
)

// hermetic gives the test its own HOME, no system config, a fixed identity
// and none of the variables a git hook would have set.
func hermetic(tb testing.TB) {
	tb.Helper()
	home := tb.TempDir()
	tb.Setenv("HOME", home)
	tb.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	tb.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	tb.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		tb.Setenv("GIT_"+who+"_NAME", testName)
		tb.Setenv("GIT_"+who+"_EMAIL", testEmail)
		tb.Setenv("GIT_"+who+"_DATE", testDate)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX",
		"GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
		"GIT_CEILING_DIRECTORIES", "EMAIL"} {
		unsetenv(tb, k)
	}
}

// unsetenv removes k for the duration of the test.
func unsetenv(tb testing.TB, k string) {
	tb.Helper()
	tb.Setenv(k, "")
	if err := os.Unsetenv(k); err != nil {
		tb.Fatal(err)
	}
}

// newRepo makes a hermetic, empty repository on branch main and returns its
// real (symlink-free) path.
func newRepo(tb testing.TB) string {
	tb.Helper()
	hermetic(tb)
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	git(tb, dir, "init", "-q", "-b", "main")
	return dir
}

// git runs git in dir for test setup and returns its trimmed stdout.
func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return gitIn(tb, dir, nil, "", args...)
}

// gitIn runs git in dir with extra environment and stdin.
func gitIn(tb testing.TB, dir string, env []string, stdin string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out))
}

// writeFile writes content to dir/rel, creating directories.
func writeFile(tb testing.TB, dir, rel, content string) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// commitFiles writes files, commits everything and returns the commit id.
func commitFiles(tb testing.TB, dir string, files map[string]string, msg string) gitexec.OID {
	tb.Helper()
	for rel, content := range files {
		writeFile(tb, dir, rel, content)
	}
	git(tb, dir, "add", "-A")
	git(tb, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return gitexec.OID(git(tb, dir, "rev-parse", "HEAD"))
}

// open opens dir and closes the Repo when the test ends.
func open(tb testing.TB, dir string) *gitexec.Repo {
	tb.Helper()
	r, err := gitexec.Open(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return r
}
