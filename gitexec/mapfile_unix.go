//go:build unix

package gitexec

import (
	"os"
	"syscall"
)

// mapFile maps a file read-only: an index of 100k files is about 9 MB, which a fresh process
// copies in several milliseconds and maps in one. release unmaps it; data must not be used
// after. git replaces an index by a rename and never rewrites one in place, so a mapping
// stays whole while it is read.
func mapFile(path string) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	if size == 0 || size != int64(int(size)) {
		data, err := os.ReadFile(path)
		return data, func() {}, err
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		data, err := os.ReadFile(path)
		return data, func() {}, err
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}
