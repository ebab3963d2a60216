//go:build unix

package gitexec

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// SpawnDetached starts a program in a session of its own and does not wait for it: it keeps
// running after the caller exits. Standard streams go to the null device, extra files are
// passed from descriptor 3 on, and argv0 is the name the program sees. (This package is the one
// that starts processes; the recorder uses this to condense a commit after git's post-commit
// hook has returned.)
func SpawnDetached(path, argv0 string, args []string, dir string, extra []*os.File) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("spawn %s: %w", argv0, err)
	}
	defer null.Close()
	cmd := &exec.Cmd{
		Path:        path,
		Args:        append([]string{argv0}, args...),
		Dir:         dir,
		Env:         os.Environ(),
		Stdin:       null,
		Stdout:      null,
		Stderr:      null,
		ExtraFiles:  extra,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("spawn %s: %w", argv0, err)
	}
	return cmd.Process.Release()
}
