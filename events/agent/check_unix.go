//go:build unix

package agent

import "syscall"

// openNonBlocking keeps an open from waiting on a FIFO swapped in after the mode was checked.
const openNonBlocking = syscall.O_NONBLOCK
