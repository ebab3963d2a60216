package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// historyCommits is the number of commits of a synthetic repository: one that adds every
// file, then commits that each change about 1% of the files.
const historyCommits = 10

// repo is a working repository of the benchmark.
type repo struct {
	dir   string
	files []string // the tracked synthetic files, relative to dir
	edits int      // edit rounds so far; varies which files change
}

// change is one file the agent rewrote.
type change struct {
	rel, abs, content string
}

// filePath names synthetic file i: 100 files per package directory, 100 packages per module
// directory, so a 100k-file repository has 1,000 directories three levels deep.
func filePath(i int) string {
	d := i / 100
	return fmt.Sprintf("src/m%02d/p%03d/file%03d.go", d/100, d%100, i%100)
}

// fileContent is the text of file i at revision rev: about 500 bytes of Go-like source.
func fileContent(i, rev int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package p%03d\n\n// File %d of the synthetic benchmark repository, revision %d.\n", (i/100)%100, i, rev)
	for j := range 6 {
		fmt.Fprintf(&b, "\n// F%d_%d returns the %d-th value of the table used by the handler.\n", i, j, j)
		fmt.Fprintf(&b, "func F%d_%d() int { return %d }\n", i, j, i*7+j+rev)
	}
	return b.String()
}

// template returns a bare repository of n files with history, generating it with
// "git fast-import" the first time it is asked for in this run.
func (h *harness) template(n int) (string, error) {
	dir := filepath.Join(h.tmp, "templates", fmt.Sprintf("%d.git", n))
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	h.progress("generate a %d-file repository with %d commits (git fast-import)", n, historyCommits)
	if _, err := h.gitOut(h.tmp, "init", "-q", "--bare", "-b", "main", dir); err != nil {
		return "", err
	}
	var s bytes.Buffer
	when := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC).Unix()
	for c := range historyCommits {
		msg := fmt.Sprintf("Synthetic commit %d", c+1)
		fmt.Fprintf(&s, "commit refs/heads/main\nauthor Bench User <bench@example.com> %d +0000\n", when+int64(c)*3600)
		fmt.Fprintf(&s, "committer Bench User <bench@example.com> %d +0000\ndata %d\n%s\n", when+int64(c)*3600, len(msg), msg)
		for i := range n {
			if c > 0 && i%100 != c {
				continue
			}
			text := fileContent(i, c)
			fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", filePath(i), len(text), text)
		}
	}
	p := h.gitProc(dir, "fast-import", "--quiet")
	p.stdin = s.Bytes()
	if _, _, err := h.run(p); err != nil {
		return "", err
	}
	return dir, nil
}

// clone makes a working repository named name from the n-file template.
func (h *harness) clone(n int, name string) (*repo, error) {
	tmpl, err := h.template(n)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(h.tmp, "repos", name)
	if _, err := h.gitOut(h.tmp, "clone", "-q", tmpl, dir); err != nil {
		return nil, err
	}
	r := &repo{dir: dir, files: make([]string, n)}
	for i := range n {
		r.files[i] = filePath(i)
	}
	return r, nil
}

// settle lets the racy-git window pass and refreshes each index once, so no timed command
// re-hashes freshly checked-out files because their mtime equals the index's.
func (h *harness) settle(repos ...*repo) error {
	time.Sleep(1100 * time.Millisecond)
	for _, r := range repos {
		if _, err := h.gitOut(r.dir, "status", "--porcelain"); err != nil {
			return err
		}
	}
	return nil
}

// edit rewrites k tracked files, spread evenly over the repository, as an agent would, and
// returns what it wrote.
func (r *repo) edit(k int) ([]change, error) {
	r.edits++
	n := len(r.files)
	out := make([]change, 0, k)
	for i := range k {
		idx := (r.edits*7919 + i*n/k) % n
		c := change{rel: r.files[idx], abs: filepath.Join(r.dir, r.files[idx]), content: fileContent(idx, 1000+r.edits)}
		if err := os.WriteFile(c.abs, []byte(c.content), 0o644); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// rels returns the relative paths of changes.
func rels(cs []change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.rel
	}
	return out
}
