package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
)

// tracer counts git processes with git's own trace2 event log (GIT_TRACE2_EVENT), which
// every git process appends to. A "git" wrapper script first on PATH would miss most of
// them: git puts its exec-path (e.g. /usr/lib/git-core) first on PATH before it runs a
// hook, so the git calls entire makes from inside git hooks bypass any wrapper. gitexec
// passes GIT_TRACE* through its environment allowlist, so the log sees them all.
//
// A nil tracer is disabled.
type tracer struct {
	path string
}

// procCount is what one step started: git processes by subcommand, and hook scripts.
type procCount struct {
	total int
	cmds  map[string]int
}

// plus returns the sum of two counts; nil (not tracing) stays nil.
func (pc *procCount) plus(o *procCount) *procCount {
	if pc == nil {
		return o
	}
	if o == nil {
		return pc
	}
	sum := &procCount{total: pc.total + o.total, cmds: map[string]int{}}
	for _, m := range []map[string]int{pc.cmds, o.cmds} {
		for k, v := range m {
			sum.cmds[k] += v
		}
	}
	return sum
}

// mark returns the current end of the log.
func (t *tracer) mark() int64 {
	if t == nil {
		return 0
	}
	fi, err := os.Stat(t.path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// since counts the processes logged after mark.
func (t *tracer) since(mark int64) *procCount {
	if t == nil {
		return nil
	}
	pc := &procCount{cmds: map[string]int{}}
	f, err := os.Open(t.path)
	if err != nil {
		return pc
	}
	defer f.Close()
	if _, err := f.Seek(mark, io.SeekStart); err != nil {
		return pc
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var ev struct {
			Event      string `json:"event"`
			Name       string `json:"name"`
			ChildClass string `json:"child_class"`
			HookName   string `json:"hook_name"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch {
		case ev.Event == "start":
			pc.total++
		case ev.Event == "cmd_name":
			pc.cmds[ev.Name]++
		case ev.Event == "child_start" && ev.ChildClass == "hook":
			pc.cmds["hook:"+ev.HookName]++
		}
	}
	return pc
}
