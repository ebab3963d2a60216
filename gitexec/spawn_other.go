//go:build !unix

package gitexec

import (
	"errors"
	"os"
)

// SpawnDetached is not supported here; callers do the work in the foreground.
func SpawnDetached(path, argv0 string, args []string, dir string, extra []*os.File) error {
	return errors.New("detached processes are not supported on this platform")
}
