package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// harness owns one run: the built binary, the hermetic environment, the repositories and the
// results.
type harness struct {
	cfg      config
	tmp      string
	root     string   // the module source tree the binary is built from
	git      string   // absolute path of git, so the harness's own calls bypass PATH
	entire   string   // the binary under test, also first on PATH for the hooks
	env      []string // environment of every process the harness starts
	home     string
	tracer   *tracer
	res      *results
	started  time.Time
	nextID   int      // session counter
	warnings []string // things that make a timing suspect, repeated in the report
}

// newHarness builds the binary into tmp/bin and prepares the hermetic environment: HOME in
// tmp, no system git config, fixed identities, and ENTIRE_TEST_TTY=0 (no person at the
// terminal: the agent commit path).
func newHarness(cfg config, tmp string) (*harness, error) {
	h := &harness{cfg: cfg, tmp: tmp, res: newResults(), started: time.Now()}
	var err error
	if h.git, err = exec.LookPath("git"); err != nil {
		return nil, err
	}
	if h.git, err = filepath.Abs(h.git); err != nil {
		return nil, err
	}
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return nil, fmt.Errorf("find the module root (run from inside the module): %w", err)
	}
	bin := filepath.Join(tmp, "bin")
	h.entire = filepath.Join(bin, "entire")
	h.progress("build %s", h.entire)
	build := exec.Command("go", "build", "-o", h.entire, "./cmd/entire")
	h.root = strings.TrimSpace(string(root))
	build.Dir = h.root
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build: a static binary starts faster
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %w\n%s", err, out)
	}
	h.home = filepath.Join(tmp, "home")
	if err := os.MkdirAll(h.home, 0o755); err != nil {
		return nil, err
	}
	// Automatic gc and maintenance would land as random multi-second outliers in whichever
	// commit crosses the loose-object threshold; they are off in both kinds of repository.
	gitconfig := "[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(h.home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return nil, err
	}
	h.env = []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + h.home,
		"TMPDIR=" + os.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Bench User", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench User", "GIT_COMMITTER_EMAIL=bench@example.com",
		"ENTIRE_TEST_TTY=0",
	}
	if cfg.trace {
		h.tracer = &tracer{path: filepath.Join(tmp, "trace2.jsonl")}
		h.env = append(h.env, "GIT_TRACE2_EVENT="+h.tracer.path)
	}
	return h, nil
}

// progress prints a timestamped progress line to stderr.
func (h *harness) progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%6.1fs] %s\n", time.Since(h.started).Seconds(), fmt.Sprintf(format, args...))
}

// proc is one process to start: the program, its arguments, where, with what on stdin and
// with which environment entries added to the harness's (a later entry wins).
type proc struct {
	dir   string
	stdin []byte
	env   []string
	name  string
	args  []string
}

// run starts p and waits for it. The duration is the wall time from just before the start to
// just after the exit, which is what a caller of the process waits for.
func (h *harness) run(p proc) ([]byte, time.Duration, error) {
	cmd := exec.Command(p.name, p.args...)
	cmd.Dir = p.dir
	cmd.Env = append(append([]string(nil), h.env...), p.env...)
	if p.stdin != nil {
		cmd.Stdin = bytes.NewReader(p.stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if err != nil {
		return stdout.Bytes(), d, fmt.Errorf("%s %s: %w: %s", filepath.Base(p.name),
			strings.Join(p.args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return stdout.Bytes(), d, nil
}

// timing is the outcome of one or more timed runs: the last stdout, the summed wall time and,
// when tracing, the git processes started.
type timing struct {
	stdout []byte
	d      time.Duration
	pc     *procCount
}

// then returns t followed by u: times and process counts add up, stdout is u's.
func (t timing) then(u timing) timing {
	return timing{stdout: u.stdout, d: t.d + u.d, pc: t.pc.plus(u.pc)}
}

// timed runs p and adds its wall time (and, when tracing, its git processes) to s.
func (h *harness) timed(s *series, p proc) (timing, error) {
	mark := h.tracer.mark()
	out, d, err := h.run(p)
	if err != nil {
		return timing{}, err
	}
	t := timing{stdout: out, d: d, pc: h.tracer.since(mark)}
	s.add(t.d, t.pc)
	return t, nil
}

// gitProc describes "git args..." in dir.
func (h *harness) gitProc(dir string, args ...string) proc {
	return proc{dir: dir, name: h.git, args: args}
}

// gitOut runs git untimed and returns its trimmed stdout.
func (h *harness) gitOut(dir string, args ...string) (string, error) {
	out, _, err := h.run(h.gitProc(dir, args...))
	return strings.TrimSpace(string(out)), err
}

// commit stages files (untimed) and times "git commit -q -m msg" into s. env adds
// environment entries, e.g. ENTIRE_TEST_TTY=1 for a person at the terminal.
func (h *harness) commit(s *series, dir string, files []string, msg string, env ...string) error {
	if _, err := h.gitOut(dir, append([]string{"add", "--"}, files...)...); err != nil {
		return err
	}
	p := h.gitProc(dir, "commit", "-q", "-m", msg)
	p.env = env
	_, err := h.timed(s, p)
	return err
}

// enable runs "entire enable" in dir, which installs the git hooks.
func (h *harness) enable(dir string) error {
	_, _, err := h.run(proc{dir: dir, name: h.entire, args: []string{"enable"}})
	return err
}

// hookErrors counts the failures entire logged in dir's .entire/logs/entire.log (hooks
// always exit 0, so a broken path would otherwise be timed as if it worked).
func hookErrors(dir string) int {
	data, err := os.ReadFile(filepath.Join(dir, ".entire", "logs", "entire.log"))
	if err != nil {
		return 0
	}
	return bytes.Count(data, []byte(`"level":"ERROR"`))
}
