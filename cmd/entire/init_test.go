package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// maxInitBytes is what one of entire's packages may allocate while it initializes. Every hook
// is a new process: a regular expression compiled or a table built at start is paid by every
// hook, whether it uses it or not, so such things are built at their first use instead.
const maxInitBytes = 4 << 10

// TestPackageInitIsSmall runs the binary with the runtime's init trace and checks that none of
// entire's library packages allocates more than maxInitBytes at start. The trace's byte counts
// are exact, not timings. This package is left out: in the test binary it holds the tests too.
func TestPackageInitIsSmall(t *testing.T) {
	cmd := exec.Command("entire", "version") // on PATH: testscript.Main puts the test binary there
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("entire version: %v\n%s", err, stderr.String())
	}
	ours := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/entirerec/entire/gitexec @1.4 ms, 0.033 ms clock, 2104 bytes, 12 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/entirerec/entire/") ||
			f[1] == "github.com/entirerec/entire/cmd/entire" {
			continue
		}
		ours++
		n, err := strconv.Atoi(f[7])
		if err != nil || f[8] != "bytes," {
			t.Fatalf("unexpected init trace line: %q", sc.Text())
		}
		if n > maxInitBytes {
			t.Errorf("%s allocates %d bytes at start (at most %d): build it at first use", f[1], n, maxInitBytes)
		}
	}
	if ours == 0 {
		t.Fatalf("no init trace of entire's packages in:\n%s", stderr.String())
	}
}
