package gitexec

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"time"
)

// waitDelay bounds how long a killed git child may keep its pipes open.
const waitDelay = 5 * time.Second

// call describes the inputs of one git run besides its arguments.
type call struct {
	stdin io.Reader
	env   []string // added to the repository environment; a later entry wins
	// writesOnly: the process reads no object (hash-object of files), so blobs deferred by
	// DeferBlobs may stay deferred.
	writesOnly bool
	// beside: the process reads no blob (commit-tree only checks that its tree exists), so
	// the deferred blobs are written by a process running beside it, and whatever runs
	// next waits for them (see flushDeferred).
	beside bool
	// files are inherited by the child as descriptors 3, 4, ...; started runs once it has
	// started (before it is waited for).
	files   []*os.File
	started func()
}

// git runs one git process in the repository and returns its stdout. A
// failure is an *Error, wrapped by classify when it is of a known kind.
func (r *Repo) git(ctx context.Context, c call, args ...string) ([]byte, error) {
	switch {
	case c.beside:
		r.startFlush(ctx)
	case !c.writesOnly:
		if err := r.flushDeferred(ctx); err != nil {
			return nil, err
		}
	}
	if len(c.env) == 0 && c.files == nil {
		// The same command line started ahead (PrestartWrites, PrestartFileHashes) takes
		// the input instead of a new process.
		if p := r.ahead.take(args); p != nil {
			var input []byte
			if c.stdin != nil {
				data, err := io.ReadAll(c.stdin)
				if err != nil {
					p.abandon()
					return nil, err
				}
				input = data
			}
			return p.finish(ctx, input)
		}
	}
	env := r.env
	if len(c.env) > 0 {
		env = withEnv(r.env, c.env...)
	}
	return runGit(ctx, r.TopLevel, env, c, args)
}

// runGit runs "git -C dir args..." with exactly env and the inputs c gives (its stdin, the
// files it inherits, the call-back once it started) and returns its stdout. A failure is an
// *Error, wrapped by classify when it is of a known kind.
func runGit(ctx context.Context, dir string, env []string, c call, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = env
	cmd.Stdin = c.stdin
	cmd.ExtraFiles = c.files
	cmd.WaitDelay = waitDelay
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, classify(newError(ctx, args, "", err))
	}
	if c.started != nil {
		c.started()
	}
	if err := cmd.Wait(); err != nil {
		return stdout.Bytes(), classify(newError(ctx, args, stderr.String(), err))
	}
	return stdout.Bytes(), nil
}

// newError describes a failed run of git with args.
func newError(ctx context.Context, args []string, stderr string, err error) *Error {
	e := &Error{Args: slices.Clone(args), ExitCode: -1, Stderr: stderr, Err: err}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		e.ExitCode = exit.ExitCode()
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		e.ExitCode = -1
		e.Err = ctxErr
	}
	return e
}
