package gitexec

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// TestClassify feeds the classifier failures as git 2.39 reports them (LC_ALL=C), including
// ones that are hard to cause in a test (a full disk).
func TestClassify(t *testing.T) {
	updateRef := []string{"-c", "core.filesRefLockTimeout=800", "update-ref", "--stdin", "-z"}
	const lockHint = "\n\nAnother git process seems to be running in this repository, e.g.\n" +
		"an editor opened by 'git commit'.\n"
	tests := []struct {
		name   string
		args   []string
		stderr string
		want   error
	}{
		{"disk full writing an object", []string{"hash-object", "-w", "--stdin"},
			"error: file write error: No space left on device\nfatal: unable to write loose object file\n", ErrDiskFull},
		{"disk full in update-ref", updateRef,
			"fatal: update_ref failed for ref 'refs/heads/x': cannot update ref 'refs/heads/x': unable to append to '.git/logs/refs/heads/x': No space left on device\n", ErrDiskFull},
		{"ref lock held", updateRef,
			"fatal: cannot lock ref 'refs/heads/x': Unable to create '/r/.git/refs/heads/x.lock': File exists." + lockHint, ErrRefLocked},
		{"packed-refs lock held", updateRef,
			"fatal: Unable to create '/r/.git/packed-refs.lock': File exists." + lockHint, ErrRefLocked},
		{"index lock is no ref lock", []string{"read-tree", "HEAD"},
			"fatal: Unable to create '/r/.git/index.lock': File exists." + lockHint, nil},
		{"stale old value", updateRef,
			"fatal: cannot lock ref 'refs/heads/x': is at 1c7f894b93e358516784488311e9dc6d02634408 but expected 1234567890123456789012345678901234567890\n", ErrRefMoved},
		{"exists when creating", updateRef,
			"fatal: cannot lock ref 'refs/heads/x': reference already exists\n", ErrRefMoved},
		{"missing when expected", updateRef,
			"fatal: cannot lock ref 'refs/heads/x': unable to resolve reference 'refs/heads/x'\n", ErrRefMoved},
		{"race message from another command", []string{"symbolic-ref", "HEAD"},
			"fatal: cannot lock ref 'HEAD': reference already exists\n", nil},
		{"directory/file conflict", updateRef,
			"fatal: cannot lock ref 'refs/heads/x/y': 'refs/heads/x' exists; cannot create 'refs/heads/x/y'\n", nil},
		{"update-ref to a missing object", updateRef,
			"fatal: cannot update ref 'refs/heads/x': trying to write ref 'refs/heads/x' with nonexistent object 1234567890123456789012345678901234567890\n", ErrObjectMissing},
		{"commit-tree of a missing tree", []string{"commit-tree", "1234567"},
			"fatal: 1234567890123456789012345678901234567890 is not a valid object\n", ErrObjectMissing},
		{"cat-file of a missing object", []string{"cat-file", "-p", "1234567"},
			"fatal: Not a valid object name 1234567890123456789012345678901234567890\n", ErrObjectMissing},
		{"diff-tree of a missing object", []string{"diff-tree", "1234567", "HEAD"},
			"fatal: bad object 1234567890123456789012345678901234567890\n", ErrObjectMissing},
		{"mktree entry missing", []string{"mktree"},
			"fatal: entry 'f' object 1234567890123456789012345678901234567890 is unavailable\n", ErrObjectMissing},
		{"read-tree of a missing tree", []string{"read-tree", "1234567"},
			"fatal: failed to unpack tree object 1234567890123456789012345678901234567890\n", ErrObjectMissing},
		{"corrupt loose object", []string{"cat-file", "--batch"},
			"error: inflate: data stream error (incorrect header check)\nerror: unable to unpack 2c02c8f56571995a64733bc06667bf64627cba09 header\n" +
				"fatal: loose object 2c02c8f56571995a64733bc06667bf64627cba09 (stored in .git/objects/2c/02c8f56571995a64733bc06667bf64627cba09) is corrupt\n", ErrObjectMissing},
		{"unrelated failure", []string{"commit-tree", "x"},
			"fatal: empty ident name (for <a@b>) not allowed\n", nil},
	}
	kinds := []error{ErrDiskFull, ErrRefLocked, ErrObjectMissing, ErrRefMoved}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gerr := &Error{Args: tt.args, ExitCode: 128, Stderr: tt.stderr, Err: errors.New("exit status 128")}
			err := classify(fmt.Errorf("doing it: %w", gerr))
			for _, k := range kinds {
				if errors.Is(err, k) != (k == tt.want) {
					t.Errorf("errors.Is(err, %v) = %v; err = %v, want kind %v", k, !(k == tt.want), err, tt.want)
				}
			}
			var got *Error
			if !errors.As(err, &got) || got != gerr {
				t.Errorf("err = %v does not carry the *Error", err)
			}
			if line := messageLine(tt.stderr); !strings.Contains(err.Error(), line) {
				t.Errorf("err = %v, want git's message %q", err, line)
			}
			if again := classify(err); again != err {
				t.Errorf("classify twice = %v, want the error unchanged", again)
			}
		})
	}
}

// TestClassifyWriteENOSPC: a file gitexec writes for git on a full disk is ErrDiskFull.
func TestClassifyWriteENOSPC(t *testing.T) {
	werr := &fs.PathError{Op: "write", Path: "/r/.git/entire-blobs-1/0", Err: syscall.ENOSPC}
	err := classify(werr)
	if !errors.Is(err, ErrDiskFull) || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("classify(%v) = %v, want ErrDiskFull wrapping ENOSPC", werr, err)
	}
	if other := classify(fs.ErrPermission); other != fs.ErrPermission {
		t.Errorf("classify(ErrPermission) = %v, want it unchanged", other)
	}
}
