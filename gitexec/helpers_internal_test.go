package gitexec

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// gitRunner returns a function that runs git in dir with stdin and returns its output,
// trimmed; a failure ends the test with git's message.
func gitRunner(t testing.TB, dir string) func(stdin string, args ...string) string {
	return func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("git %v: %v\n%s", args, err, ee.Stderr)
			}
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
}

// openTest opens dir and closes the Repo when the test ends.
func openTest(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
