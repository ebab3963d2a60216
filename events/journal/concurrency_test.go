package journal_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/journal"
)

// helperEnv switches the test binary into an appending child process; see
// TestMain and TestConcurrentAppends.
const helperEnv = "ENTIRE_JOURNAL_TEST_HELPER"

func TestMain(m *testing.M) {
	if path := os.Getenv(helperEnv); path != "" {
		os.Exit(helperProcess(path))
	}
	os.Exit(m.Run())
}

// helperProcess says "ready" on stdout, waits for a line on stdin, then appends
// its share of lines as the writer named by the WRITER and K variables.
func helperProcess(path string) int {
	writer := os.Getenv("WRITER")
	k, err := strconv.Atoi(os.Getenv("K"))
	if err == nil {
		fmt.Println("ready")
		_, err = bufio.NewReader(os.Stdin).ReadString('\n')
	}
	if err == nil {
		err = appendAsWriter(path, writer, k)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// appendAsWriter appends k lines tagged with writer, in batches of 1 to 3, each
// batch in its own Open, LastSeq, Append, Sync, Close cycle, as a hook does.
func appendAsWriter(path, writer string, k int) error {
	for i := 0; i < k; {
		j, err := journal.Open(path)
		if err != nil {
			return err
		}
		var batch [][]byte
		for n := 0; n < 1+i%3 && i < k; n++ {
			seq := j.LastSeq() + uint64(len(batch)) + 1
			batch = append(batch, fmt.Appendf(nil, `{"v":1,"seq":%d,"type":"test","data":{"w":%q,"i":%d}}`, seq, writer, i))
			i++
		}
		err = j.Append(batch...)
		if err == nil {
			err = j.Sync()
		}
		if cerr := j.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writer %s: %w", writer, err)
		}
	}
	return nil
}

func TestConcurrentAppends(t *testing.T) {
	const goroutines, processes, k = 4, 4, 30
	path := journalPath(t)
	start := make(chan struct{})

	// Start the children and wait until each is ready, so that they and the
	// goroutines contend for the lock at the same time.
	var cmds []*exec.Cmd
	var stdins []io.WriteCloser
	for p := range processes {
		cmd := exec.CommandContext(t.Context(), os.Args[0])
		cmd.Env = append(os.Environ(), helperEnv+"="+path, fmt.Sprintf("WRITER=p%d", p), fmt.Sprintf("K=%d", k))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
			t.Fatalf("child %d: %q, %v", p, line, err)
		}
		cmds, stdins = append(cmds, cmd), append(stdins, stdin)
	}

	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			<-start
			errs <- appendAsWriter(path, fmt.Sprintf("g%d", g), k)
		})
	}
	for _, stdin := range stdins {
		if _, err := io.WriteString(stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child p%d: %v", p, err)
		}
	}

	next := map[string]int64{} // next i expected from each writer
	torn, err := journal.ReadFile(path, func(line []byte, seq uint64) error {
		w, i := gjson.GetBytes(line, "data.w").String(), gjson.GetBytes(line, "data.i").Int()
		if i != next[w] {
			return fmt.Errorf("seq %d: writer %s line %d, want %d", seq, w, i, next[w])
		}
		next[w]++
		return nil
	})
	if err != nil || torn {
		t.Fatalf("ReadFile: torn=%v, %v", torn, err)
	}
	total := 0
	for w, n := range next {
		if n != k {
			t.Errorf("writer %s has %d lines, want %d", w, n, k)
		}
		total += int(n)
	}
	if want := (goroutines + processes) * k; total != want || len(next) != goroutines+processes {
		t.Errorf("%d lines from %d writers, want %d from %d", total, len(next), want, goroutines+processes)
	}
}
