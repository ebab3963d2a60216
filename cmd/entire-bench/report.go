package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Markers around the markdown tables, so a script can cut it out and paste it into the README.
const (
	markdownBegin = "<!-- entire-bench:begin -->"
	markdownEnd   = "<!-- entire-bench:end -->"
)

// report is the outcome of a run.
type report struct {
	Meta     meta      `json:"meta"`
	Sections []section `json:"sections"`
	Series   []*series `json:"series"`
	Warnings []string  `json:"warnings,omitempty"`
	trace    bool
}

// meta describes the run.
type meta struct {
	Date     string  `json:"date"`
	Source   string  `json:"source"` // git describe of the tree the binary was built from
	Go       string  `json:"go"`
	Git      string  `json:"git"`
	CPUs     int     `json:"cpus"`
	Mode     string  `json:"mode"`
	Trace    bool    `json:"trace"`
	ElapsedS float64 `json:"elapsed_s"`
}

// newReport evaluates the targets of h's results.
func newReport(h *harness, elapsed time.Duration) *report {
	gitVersion, _ := exec.Command(h.git, "version").Output()
	source, _ := exec.Command(h.git, "-C", h.root, "describe", "--always", "--dirty").Output()
	mode := "full"
	if h.cfg.quick {
		mode = "quick"
	}
	secs := sections(h) // before copying the series list: it derives a few series
	return &report{
		Meta: meta{Date: time.Now().UTC().Format(time.RFC3339), Source: strings.TrimSpace(string(source)), Go: runtime.Version(),
			Git:  strings.TrimPrefix(strings.TrimSpace(string(gitVersion)), "git version "),
			CPUs: runtime.NumCPU(), Mode: mode, Trace: h.cfg.trace, ElapsedS: elapsed.Seconds()},
		Sections: secs, Series: h.res.list, Warnings: h.warnings, trace: h.cfg.trace,
	}
}

// summary is the one-line description of the run.
func (r *report) summary() string {
	pass, miss := 0, 0
	for _, s := range r.Sections {
		for _, o := range s.Rows {
			switch o.Result {
			case "PASS":
				pass++
			case "MISS":
				miss++
			}
		}
	}
	return fmt.Sprintf("%s run of %s, %s, git %s, %d CPUs, %s: %d PASS, %d MISS",
		r.Meta.Mode, r.Meta.Source, r.Meta.Go, r.Meta.Git, r.Meta.CPUs,
		(time.Duration(r.Meta.ElapsedS) * time.Second).Round(time.Second), pass, miss)
}

// print writes the readable tables, the trace breakdown when tracing, and the markdown table.
func (r *report) print(w io.Writer) {
	if r.trace {
		fmt.Fprintln(w, "\nNOTE: -trace was on; every git process also wrote trace2 events, so times are inflated.")
	}
	for _, s := range r.Sections {
		fmt.Fprintf(w, "\n== %s\n", s.Title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		if floors := slices.DeleteFunc(slices.Clone(s.Floors), func(f *series) bool { return !f.ok() }); len(floors) > 0 {
			fmt.Fprintln(tw, "git floor\tmedian ms\tmin–p90 ms\tn\t")
			for _, f := range floors {
				fmt.Fprintf(tw, "%s\t%.1f\t%s\t%d\t\n", f.Name, f.median(), spread(f), len(f.Samples))
			}
			fmt.Fprintln(tw, "\t\t\t\t")
		}
		fmt.Fprintln(tw, "step\tmedian ms\tmin–p90 ms\tn\tfloor\tfloor ms\tratio\ttarget\tresult\t")
		for _, o := range s.Rows {
			fmt.Fprintf(tw, "%s\t%.1f\t%.1f–%.1f\t%d\t%s\t%s\t%s\t%s\t%s\t\n", o.Step, o.Median, o.Min, o.P90, o.N,
				o.Floor, floorMS(o), o.comparison(), o.Target, o.Result)
		}
		tw.Flush()
	}
	if r.trace {
		r.printTrace(w)
	}
	for _, msg := range r.Warnings {
		fmt.Fprintln(w, "\nWARNING:", msg)
	}
	fmt.Fprintf(w, "\n%s\n\n", r.summary())
	fmt.Fprintln(w, markdownBegin)
	r.markdown(w)
	fmt.Fprintln(w, markdownEnd)
}

// printTrace lists, for every series measured with -trace, the git processes one run started.
func (r *report) printTrace(w io.Writer) {
	fmt.Fprintln(w, "\n== git processes per run (trace2; includes the timed git command itself; hook:* are the hook scripts git ran)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "table\tstep\tgit procs\tbreakdown per run\t")
	for _, s := range r.Series {
		if len(s.Procs) == 0 {
			continue
		}
		names := make([]string, 0, len(s.Cmds))
		for k := range s.Cmds {
			names = append(names, k)
		}
		slices.SortFunc(names, func(a, b string) int { return s.Cmds[b] - s.Cmds[a] })
		var parts []string
		for _, k := range names {
			parts = append(parts, fmt.Sprintf("%s×%.3g", k, float64(s.Cmds[k])/float64(len(s.Procs))))
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%s\t\n", s.Table, s.Name, s.meanProcs(), strings.Join(parts, " "))
	}
	tw.Flush()
}

// markdown writes the rows as two markdown tables, headed by the run's summary: the
// per-size steps with one column per repository size, then the remaining checks.
func (r *report) markdown(w io.Writer) {
	fmt.Fprintf(w, "End-to-end hook timings (`make bench-e2e`; %s). A cell is step median / floor median = ratio; floors are the same work done by plain git in an identical repository without hooks, in the same run.\n\n", r.summary())
	type key struct{ step, floor, target string }
	var keys []key
	var sizes []string
	cells := map[key]map[string]string{}
	for _, s := range r.Sections {
		if s.Size == "" {
			continue
		}
		sizes = append(sizes, s.Size)
		for _, o := range s.Rows {
			k := key{o.Step, o.Floor, o.Target}
			if cells[k] == nil {
				keys = append(keys, k)
				cells[k] = map[string]string{}
			}
			cells[k][s.Size] = mdCell(o)
		}
	}
	fmt.Fprintf(w, "| step | floor | target | %s |\n", strings.Join(sizes, " | "))
	fmt.Fprintf(w, "|---|---|---|%s\n", strings.Repeat("---:|", len(sizes)))
	for _, k := range keys {
		row := []string{k.step, k.floor, k.target}
		for _, size := range sizes {
			row = append(row, cells[k][size])
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w, "\n| scenario | step | floor | target | result |")
	fmt.Fprintln(w, "|---|---|---|---|---:|")
	for _, s := range r.Sections {
		if s.Size != "" {
			continue
		}
		for _, o := range s.Rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", o.Table, o.Step, o.Floor, o.Target, mdCell(o))
		}
	}
}

// mdCell is a row's result in one markdown cell.
func mdCell(o outcome) string {
	switch {
	case o.Floor == "":
		return fmt.Sprintf("%.1f ms", o.Median)
	case o.t.maxDelta > 0:
		return strings.TrimSpace(fmt.Sprintf("%.1f − %.1f ms = %s %s", o.Median, o.FloorMedian, o.comparison(), bold(o.Result)))
	}
	return strings.TrimSpace(fmt.Sprintf("%.1f / %.1f ms = %s %s", o.Median, o.FloorMedian, o.comparison(), bold(o.Result)))
}

// writeJSON writes the raw results: every sample of every series, and every row.
func (r *report) writeJSON(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func spread(s *series) string { return fmt.Sprintf("%.1f–%.1f", s.min(), s.p90()) }

func floorMS(o outcome) string {
	if o.Floor == "" {
		return ""
	}
	return fmt.Sprintf("%.1f", o.FloorMedian)
}

func bold(result string) string {
	if result == "MISS" {
		return "**MISS**"
	}
	return result
}
