package gitexec

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"slices"
	"sync"
)

// startedGit is a one-shot git process started before its input is known, so that git's own
// start-up (a few milliseconds: loading, reading config) overlaps the caller's work. It reads
// its whole input from stdin and does nothing until that input ends.
type startedGit struct {
	args   []string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan error // receives cmd.Wait's result once
}

// startGit starts "git -C TopLevel args..." with its stdin open. It has no context: it
// outlives the call that started it, and finish or abandon ends it.
func startGit(r *Repo, args []string) (*startedGit, error) {
	p := &startedGit{args: slices.Clone(args), done: make(chan error, 1)}
	p.cmd = exec.Command("git", append([]string{"-C", r.TopLevel}, args...)...)
	p.cmd.Env = r.env
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	p.cmd.WaitDelay = waitDelay
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	p.stdin = stdin
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.done <- p.cmd.Wait() }()
	return p, nil
}

// finish gives the process its input, ends it and waits for it, as runGit would have run it.
func (p *startedGit) finish(ctx context.Context, input []byte) ([]byte, error) {
	stop := context.AfterFunc(ctx, func() { _ = p.cmd.Process.Kill() })
	defer stop()
	_, werr := p.stdin.Write(input)
	cerr := p.stdin.Close()
	err := <-p.done
	if err == nil && werr != nil {
		err = werr
	}
	if err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return p.stdout.Bytes(), classify(newError(ctx, p.args, p.stderr.String(), err))
	}
	return p.stdout.Bytes(), nil
}

// abandon ends a process that was never given its input: with an empty input it does
// nothing.
func (p *startedGit) abandon() {
	_ = p.stdin.Close()
	<-p.done
}

// prestarted holds at most one process started ahead for the next run of the same arguments.
type prestarted struct {
	mu     sync.Mutex
	ready  chan struct{} // closed once the start under way has ended; nil when none was asked
	p      *startedGit
	closed bool
}

// start starts the process in the background unless one was started already.
func (s *prestarted) start(r *Repo, args []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ready != nil {
		return
	}
	ready := make(chan struct{})
	s.ready = ready
	go func() {
		defer close(ready)
		p, err := startGit(r, args)
		if err != nil {
			return // the run that wanted it starts its own and reports the failure
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			p.abandon()
			return
		}
		s.p = p
	}()
}

// take returns the process started for args, waiting for its start when it is under way, or
// nil. It is taken once.
func (s *prestarted) take(args []string) *startedGit {
	s.mu.Lock()
	ready := s.ready
	s.mu.Unlock()
	if ready == nil {
		return nil
	}
	<-ready
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.p
	if p == nil || !slices.Equal(p.args, args) {
		return nil
	}
	s.p = nil
	return p
}

// close abandons the process started and not taken, if any.
func (s *prestarted) close() {
	s.mu.Lock()
	s.closed = true
	ready := s.ready
	s.mu.Unlock()
	if ready != nil {
		<-ready
	}
	s.mu.Lock()
	p := s.p
	s.p = nil
	s.mu.Unlock()
	if p != nil {
		p.abandon()
	}
}
