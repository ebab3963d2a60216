// Command entire-bench is the end-to-end performance harness of entire (issue 7).
//
// It builds the real binary, generates synthetic repositories of about 100, 10,000 and
// 100,000 files with some history, and drives realistic Claude Code sessions through the
// binary exactly as Claude Code and git do: hooks on stdin, git hooks installed by
// "entire enable", commits through "git commit". Every step is timed as the wall time of
// its process and set next to the git floor for the same work, measured in the same run in
// an identical repository without hooks. Ratios, not absolute times, are the result.
//
// The project rule that only gitexec starts processes applies to the library code. This
// tool is a separate command whose whole job is to time processes, so it uses os/exec
// directly: wrapping the runs in gitexec would hide exactly the cost being measured.
//
// Usage:
//
//	go run ./cmd/entire-bench [-quick] [-trace] [-json results.json] [-keep]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// config holds the command-line flags.
type config struct {
	quick    bool   // 100-file repository only, 3 repetitions
	trace    bool   // count git processes per step (times are inflated then)
	keep     bool   // keep the temporary directory for inspection
	jsonPath string // write raw results here when set
}

func main() {
	var cfg config
	flag.BoolVar(&cfg.quick, "quick", false, "fast smoke run: the 400-file repository only, 3 repetitions")
	flag.BoolVar(&cfg.trace, "trace", false, "diagnostic: count the git processes of every step via GIT_TRACE2_EVENT (times are inflated)")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory (repositories, transcripts, logs)")
	flag.StringVar(&cfg.jsonPath, "json", "", "write the raw results as JSON to this file")
	flag.Parse()
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "entire-bench:", err)
		os.Exit(1)
	}
}

// run performs the whole benchmark and prints the report.
func run(cfg config) error {
	started := time.Now()
	tmp, err := os.MkdirTemp("", "entire-bench-")
	if err != nil {
		return err
	}
	if cfg.keep {
		fmt.Fprintln(os.Stderr, "keeping", tmp)
	} else {
		defer func() {
			t0 := time.Now()
			removeAll(tmp)
			fmt.Fprintf(os.Stderr, "removed %s in %.1fs\n", tmp, time.Since(t0).Seconds())
		}()
	}
	h, err := newHarness(cfg, tmp)
	if err != nil {
		return err
	}
	for _, p := range plansFor(cfg) {
		if err := h.runSize(p); err != nil {
			return fmt.Errorf("%s: %w", p.label, err)
		}
	}
	small := plansFor(cfg)[0]
	if err := h.runLongSession(small); err != nil {
		return fmt.Errorf("long session: %w", err)
	}
	if err := h.runEndedSessions(small); err != nil {
		return fmt.Errorf("ended sessions: %w", err)
	}
	elapsed := time.Since(started)
	rep := newReport(h, elapsed)
	rep.print(os.Stdout)
	if cfg.jsonPath != "" {
		if err := rep.writeJSON(cfg.jsonPath); err != nil {
			return err
		}
	}
	return nil
}

// plan is one repository size and how often each step is repeated there.
type plan struct {
	label string // table name, e.g. "100 files"
	files int
	reps  int
	big   bool // also run the 20 MB transcript scenarios (first sight, the slowest, 3 reps at most)
}

// plansFor returns the repository sizes to run, smallest first.
func plansFor(cfg config) []plan {
	if cfg.quick {
		return []plan{{"400 files", 400, 3, true}}
	}
	// The transcript-size question is asked in the smallest repository only, where git's own
	// work is least: each 20 MB turn costs seconds, and the run must stay within a few
	// minutes on 2 cores while other builds run.
	return []plan{
		{"400 files", 400, 7, true},
		{"10k files", 10_000, 5, false},
		{"100k files", 100_000, 3, false},
	}
}

// removeAll deletes dir, the repositories under it in parallel: a run leaves a few hundred
// thousand files behind, and unlinking them one directory at a time takes long.
func removeAll(dir string) {
	var wg sync.WaitGroup
	for _, sub := range []string{"repos", "templates"} {
		entries, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range entries {
			wg.Go(func() { os.RemoveAll(filepath.Join(dir, sub, e.Name())) })
		}
	}
	wg.Wait()
	os.RemoveAll(dir)
}
