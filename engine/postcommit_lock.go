package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// PostCommitLock is the repository-wide lock held while a commit is condensed. Condensation
// can run in a detached worker after git's post-commit hook returns (the outcome is the same,
// the commit is not kept waiting), so every hook and command that reads or writes session
// state first waits for this lock: nobody sees a half-condensed commit.
type PostCommitLock struct {
	f *os.File
}

func postCommitLockPath(commonDir string) string {
	return filepath.Join(NewStore(commonDir).Dir, ".post-commit.lock")
}

// HoldPostCommit takes the lock exclusively, waiting for a running condensation.
func HoldPostCommit(commonDir string) (*PostCommitLock, error) {
	path := postCommitLockPath(commonDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock(f, true); err != nil {
		f.Close()
		return nil, err
	}
	return &PostCommitLock{f: f}, nil
}

// File is the locked file, to hand to a worker process that keeps holding the lock after
// this process exits.
func (l *PostCommitLock) File() *os.File { return l.f }

// Release unlocks and closes.
func (l *PostCommitLock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = funlock(l.f)
	l.f.Close()
	l.f = nil
}

// WaitPostCommit returns once no condensation is running in the repository. It costs one
// failed stat when no session was ever recorded.
func WaitPostCommit(commonDir string) error {
	f, err := os.Open(postCommitLockPath(commonDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := flock(f, false); err != nil {
		return err
	}
	return funlock(f)
}
