package gitexec_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"
)

// TestResetPathsReadsIndexUnderLock: every git process ResetPaths starts opens the index only
// while index.lock is held, so that no other process's write of the index can land between its
// read and its write and be lost. git reset read the index first and took the lock after: two
// sessions' auto-commits syncing the index at once (or one and the user's git add) lost one's
// entries, and the user's next commit deleted the files an agent had just committed. inotify
// reports, in order, the lock's creation and removal and every open of the index.
func TestResetPathsReadsIndexUnderLock(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, map[string]string{"a": "1\n", "b": "1\n"}, "one")
	next := commitFiles(t, dir, map[string]string{"a": "2\n"}, "two")
	git(t, dir, "reset", "-q", "HEAD~1", "--", "a")
	r := open(t, dir)
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	defer syscall.Close(fd)
	mask := uint32(syscall.IN_OPEN | syscall.IN_CREATE | syscall.IN_MOVED_FROM | syscall.IN_DELETE)
	if _, err := syscall.InotifyAddWatch(fd, filepath.Join(dir, ".git"), mask); err != nil {
		t.Fatal(err)
	}
	if err := r.ResetPaths(context.Background(), next, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	held, opens := false, 0
	buf := make([]byte, 1<<16)
	for {
		n, err := syscall.Read(fd, buf)
		if errors.Is(err, syscall.EAGAIN) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			switch {
			case name == "index.lock" && ev.Mask&syscall.IN_CREATE != 0:
				held = true
			case name == "index.lock" && ev.Mask&(syscall.IN_MOVED_FROM|syscall.IN_DELETE) != 0:
				held = false
			case name == "index" && ev.Mask&syscall.IN_OPEN != 0:
				opens++
				if !held {
					t.Errorf("a git process opened the index without holding index.lock")
				}
			}
		}
	}
	if opens == 0 {
		t.Fatal("no git process opened the index")
	}
	if got := git(t, dir, "ls-files", "-s", "a"); !bytes.Contains([]byte(got), []byte(git(t, dir, "rev-parse", string(next)+":a"))) {
		t.Errorf("index entry of a = %q, want the commit's", got)
	}
}
