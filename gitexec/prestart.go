package gitexec

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
)

// startedGit is a one-shot git process started before its input is known, so that git's own
// start-up (a few milliseconds: loading, reading config) overlaps the caller's work. It waits
// on its stdin, doing nothing, until finish gives it its input.
type startedGit struct {
	args   []string
	cmd    *exec.Cmd
	pipes  []*os.File // write ends of the pipes the child inherited as descriptors 3, 4, ...
	stdin  io.WriteCloser
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan error // receives cmd.Wait's result once
}

// startGit starts "git -C TopLevel args..." with its stdin open. It has no context: it
// outlives the call that started it, and finish or abandon ends it.
func startGit(r *Repo, args []string, pipes int) (*startedGit, error) {
	p := &startedGit{args: slices.Clone(args), done: make(chan error, 1)}
	p.cmd = exec.Command("git", append([]string{"-C", r.TopLevel}, args...)...)
	p.cmd.Env = r.env
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	p.cmd.WaitDelay = waitDelay
	var reads []*os.File
	defer func() {
		for _, f := range reads {
			f.Close() // the child has its copies
		}
	}()
	for range pipes {
		rd, wr, err := os.Pipe()
		if err != nil {
			p.closePipes()
			return nil, err
		}
		reads, p.pipes = append(reads, rd), append(p.pipes, wr)
	}
	p.cmd.ExtraFiles = reads
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		p.closePipes()
		return nil, err
	}
	p.stdin = stdin
	if err := p.cmd.Start(); err != nil {
		p.closePipes()
		return nil, err
	}
	go func() { p.done <- p.cmd.Wait() }()
	return p, nil
}

// closePipes closes the write ends of the pipes not handed out.
func (p *startedGit) closePipes() {
	for _, f := range p.pipes {
		f.Close()
	}
	p.pipes = nil
}

// finish gives the process its input, ends it and waits for it, as runGit would have run it.
func (p *startedGit) finish(ctx context.Context, input []byte) ([]byte, error) {
	p.closePipes() // those the caller did not take: the child never opens them
	stop := context.AfterFunc(ctx, func() { _ = p.cmd.Process.Kill() })
	defer stop()
	_, werr := p.stdin.Write(input)
	cerr := p.stdin.Close()
	err := <-p.done
	// A process that needs no end of input (unpack-objects stops at the pack's checksum) may
	// exit between the write and the close, and Wait then closes the pipe first: its exit
	// status is the verdict.
	for _, e := range []error{werr, cerr} {
		if err == nil && e != nil && !errors.Is(e, os.ErrClosed) {
			err = e
		}
	}
	if err != nil {
		return p.stdout.Bytes(), classify(newError(ctx, p.args, p.stderr.String(), err))
	}
	return p.stdout.Bytes(), nil
}

// abandon ends a process that was never given its input. It is killed, not given an empty
// input: a commit-tree would then write a commit with an empty message.
func (p *startedGit) abandon() {
	p.closePipes()
	_ = p.cmd.Process.Kill()
	_ = p.stdin.Close()
	<-p.done
}

// prestarted holds the processes started ahead of their runs, at most one per command line.
type prestarted struct {
	mu     sync.Mutex
	slots  map[string]*prestartSlot
	closed bool
}

// prestartSlot is one process started ahead.
type prestartSlot struct {
	ready chan struct{} // closed once the start has ended
	p     *startedGit   // nil when the start failed or the process was taken
}

func argsKey(args []string) string { return strings.Join(args, "\x00") }

// start starts "git args..." in the background unless one was started already for args; the
// child inherits that many new pipes as descriptors 3, 4, ...
func (s *prestarted) start(r *Repo, args []string, pipes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := argsKey(args)
	if s.closed || s.slots[key] != nil {
		return
	}
	if s.slots == nil {
		s.slots = map[string]*prestartSlot{}
	}
	slot := &prestartSlot{ready: make(chan struct{})}
	s.slots[key] = slot
	go func() {
		defer close(slot.ready)
		p, err := startGit(r, args, pipes)
		if err != nil {
			return // the run that wanted it starts its own and reports the failure
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			p.abandon()
			return
		}
		slot.p = p
	}()
}

// take returns the process started for args, waiting for its start when it is under way, or
// nil. Each is taken once.
func (s *prestarted) take(args []string) *startedGit {
	key := argsKey(args)
	s.mu.Lock()
	slot := s.slots[key]
	s.mu.Unlock()
	if slot == nil {
		return nil
	}
	<-slot.ready
	s.mu.Lock()
	defer s.mu.Unlock()
	p := slot.p
	slot.p = nil
	if s.slots[key] == slot {
		delete(s.slots, key)
	}
	return p
}

// has reports whether a process was started for args and not taken.
func (s *prestarted) has(args []string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slots[argsKey(args)] != nil
}

// drop abandons the process started for args, if it was not taken.
func (s *prestarted) drop(args []string) {
	if p := s.take(args); p != nil {
		p.abandon()
	}
}

// close abandons every process started and not taken; later starts do nothing.
func (s *prestarted) close() {
	s.mu.Lock()
	s.closed = true
	slots := s.slots
	s.slots = nil
	s.mu.Unlock()
	for _, slot := range slots {
		<-slot.ready
		s.mu.Lock()
		p := slot.p
		slot.p = nil
		s.mu.Unlock()
		if p != nil {
			p.abandon()
		}
	}
}
