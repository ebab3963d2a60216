package gitexec

import (
	"context"
	"fmt"
	"strings"
)

// Checkout switches the work tree to a local branch ("git checkout -q <branch> --"). When
// track is not empty the branch does not exist yet and is created from that remote-tracking
// ref, set to track it ("git checkout -q -b <branch> --track <track> --"). Git refuses when
// local changes would be overwritten; that failure is an *Error carrying git's message.
func (r *Repo) Checkout(ctx context.Context, branch string, track RefName) error {
	if branch == "" || strings.HasPrefix(branch, "-") || strings.ContainsAny(branch, "\x00\n") {
		return fmt.Errorf("checkout: invalid branch name %q", branch)
	}
	args := []string{"checkout", "-q", branch, "--"}
	if track != "" {
		if !strings.HasPrefix(string(track), "refs/") {
			return fmt.Errorf("checkout %s: %q is not a full ref name", branch, track)
		}
		args = []string{"checkout", "-q", "-b", branch, "--track", string(track), "--"}
	}
	if _, err := r.git(ctx, call{}, args...); err != nil {
		return fmt.Errorf("checkout %s: %w", branch, err)
	}
	return nil
}
