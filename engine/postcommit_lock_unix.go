//go:build unix

package engine

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// errLockTimeout is returned when a post-commit lock is still held after lockWait.
var errLockTimeout = errors.New("timed out waiting for the post-commit lock")

// lockWait bounds every wait for the post-commit lock: a worker that hangs must not hang
// every later hook (hooks fail open).
var lockWait = 30 * time.Second

func flock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(lockWait)
	pause := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case err != syscall.EWOULDBLOCK && err != syscall.EINTR:
			return err
		case time.Now().After(deadline):
			return errLockTimeout
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

func funlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
