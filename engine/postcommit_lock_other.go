//go:build !unix

package engine

import (
	"os"
	"time"
)

// lockWait is unused without flock; kept so that tests build everywhere.
var lockWait = 30 * time.Second

// Without flock the lock is a no-op; such platforms condense synchronously (see cmd/entire).
func flock(*os.File, bool) error { return nil }

func funlock(*os.File) error { return nil }
