package gitexec

import (
	"errors"
	"strings"
	"testing"
)

// TestRefRetryGivesUpWithGitsMessage: a race lost every time ends within the attempt bounds
// with the last lost race, which keeps git's message and ErrRefMoved; a locked ref is not
// retried.
func TestRefRetryGivesUpWithGitsMessage(t *testing.T) {
	moved := &Error{Args: []string{"update-ref"}, ExitCode: 128,
		Stderr: "fatal: cannot lock ref 'refs/heads/x': is at 1 but expected 2\n"}
	lost := errors.Join(ErrRefMoved, moved)
	var rt RefRetry
	for rt.Next() {
		if !rt.Moved(lost) {
			t.Fatal("a lost race is not retried")
		}
	}
	if rt.attempts < minRefRetries || rt.attempts > maxRefRetries {
		t.Errorf("%d attempts, want %d..%d", rt.attempts, minRefRetries, maxRefRetries)
	}
	err := rt.Err("update x")
	if !errors.Is(err, ErrRefMoved) || !strings.Contains(err.Error(), "is at 1 but expected 2") {
		t.Errorf("err = %v, want ErrRefMoved with git's message", err)
	}
	if rt.Moved(errors.Join(ErrRefLocked, moved)) {
		t.Error("a locked ref is retried")
	}
}
