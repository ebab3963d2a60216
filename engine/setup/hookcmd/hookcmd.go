// Package hookcmd runs an agent's configured hook command line the way the agent runs it:
// through sh, in a directory, with a JSON payload on stdin. Only doctor's capture self-test uses
// it, on a scratch repository; it is the one place besides gitexec that starts a process for
// something other than a benchmark (see engine/deps_test.go).
package hookcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Run runs command with sh -c in dir, stdin on its standard input and extra added to the
// environment, for at most timeout. An error carries the command's stderr.
func Run(ctx context.Context, dir, command string, stdin []byte, extra []string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), extra...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("`%s` failed: %v: %s", command, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
