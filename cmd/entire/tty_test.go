package main

import (
	"os"
	"testing"
)

// TestTerminalForcedByEnv: ENTIRE_TEST_TTY=1 is a person at the terminal, and any other
// non-empty value is none (spec §1), even where a terminal could be opened; unset, the
// terminal decides.
func TestTerminalForcedByEnv(t *testing.T) {
	saved := openTTY
	t.Cleanup(func() { openTTY = saved })
	openTTY = func() (*os.File, error) { return os.Open(os.DevNull) } // a terminal is there
	for forced, want := range map[string]bool{"": true, "1": true, "0": false, "yes": false, "true": false, "2": false} {
		if got := (terminal{forced: forced}).Available(); got != want {
			t.Errorf("ENTIRE_TEST_TTY=%q: Available() = %v, want %v", forced, got, want)
		}
	}
}
