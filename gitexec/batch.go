package gitexec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// batchProc is a long-lived git process driven one request at a time over
// its stdin and stdout. It starts on first use and ends at Close. A request
// that fails midway (git died, the context ended) discards the process, since
// its protocol state is unknown; the next request starts a fresh one.
type batchProc struct {
	args []string // git arguments after "-C <dir>"

	mu     sync.Mutex
	closed bool
	p      *liveProc
}

// liveProc is one running batch process.
type liveProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	w      *bufio.Writer
	r      *bufio.Reader
	stderr *tailBuffer
	done   chan error // receives cmd.Wait's result once
}

// do runs one request against the process, starting it when needed. fn must
// return an error only when the conversation broke (I/O failure, a reply it
// cannot parse); answers such as "missing" travel through fn's closure.
func (b *batchProc) do(ctx context.Context, r *Repo, fn func(w *bufio.Writer, rd *bufio.Reader) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("git %s: %w", b.args[0], err)
	}
	if b.p == nil {
		p, err := startBatch(r, b.args)
		if err != nil {
			return err
		}
		b.p = p
	}
	p := b.p
	stop := context.AfterFunc(ctx, func() { _ = p.cmd.Process.Kill() })
	err := fn(p.w, p.r)
	if !stop() {
		_ = b.discard(0)
		return fmt.Errorf("git %s: %w", b.args[0], ctx.Err())
	}
	if err != nil {
		// git usually broke the conversation by dying with a message;
		// give it a moment to exit so that message can be reported.
		if werr := b.discard(time.Second); werr != nil {
			return classify(werr)
		}
		return fmt.Errorf("git %s: %w", b.args[0], err)
	}
	return nil
}

// isClosed reports whether close was called.
func (b *batchProc) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// close ends the process for good; later requests fail with ErrClosed.
func (b *batchProc) close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return b.discard(waitDelay)
}

// discard closes the process's stdin and waits up to grace for it to exit
// before killing it. It returns the process's failure as an *Error, if any.
// The caller holds b.mu.
func (b *batchProc) discard(grace time.Duration) error {
	p := b.p
	if p == nil {
		return nil
	}
	b.p = nil
	_ = p.stdin.Close()
	var err error
	select {
	case err = <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		err = <-p.done
	}
	if err == nil {
		return nil
	}
	return newError(context.Background(), b.args, p.stderr.String(), err)
}

// startBatch starts "git -C TopLevel args..." with pipes to talk to it. It
// deliberately has no context: it outlives the call that started it.
func startBatch(r *Repo, args []string) (*liveProc, error) {
	cmd := exec.Command("git", append([]string{"-C", r.TopLevel}, args...)...)
	cmd.Env = r.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start git %s: %w", args[0], err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start git %s: %w", args[0], err)
	}
	p := &liveProc{cmd: cmd, stdin: stdin, stderr: &tailBuffer{max: 64 << 10}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, newError(context.Background(), args, "", err)
	}
	go func() { p.done <- cmd.Wait() }()
	p.w = bufio.NewWriterSize(stdin, 64<<10)
	p.r = bufio.NewReaderSize(stdout, 64<<10)
	return p, nil
}

// tailBuffer keeps the last max bytes written to it, where git's fatal
// message is. It is safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write implements io.Writer.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns what the buffer holds.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// errProtocol reports a reply a batch process should never give.
var errProtocol = errors.New("unexpected reply")
