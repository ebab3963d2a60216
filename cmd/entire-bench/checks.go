package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// target is what a step must achieve against its floor. The zero target is informational.
type target struct {
	maxRatio float64 // step median / floor median must be at most this
	maxDelta float64 // or: step median - floor median must stay below this many ms
}

func (t target) String() string {
	switch {
	case t.maxRatio > 0:
		r := strconv.FormatFloat(t.maxRatio, 'f', -1, 64) // 1.15 stays 1.15; %.1f printed 1.1
		if !strings.Contains(r, ".") {
			r += ".0"
		}
		return "≤ " + r + "×"
	case t.maxDelta > 0:
		return fmt.Sprintf("< +%.0f ms", t.maxDelta)
	}
	return "—"
}

// outcome is one row of the report: a step next to its floor, and the verdict.
type outcome struct {
	Table       string   `json:"table"`
	Step        string   `json:"step"`
	Median      float64  `json:"median_ms"`
	Min         float64  `json:"min_ms"`
	P90         float64  `json:"p90_ms"`
	N           int      `json:"n"`
	Floor       string   `json:"floor,omitempty"`
	FloorMedian float64  `json:"floor_median_ms,omitempty"`
	Ratio       *float64 `json:"ratio,omitempty"`
	DeltaMS     *float64 `json:"delta_ms,omitempty"`
	Target      string   `json:"target"`
	Result      string   `json:"result"` // PASS, MISS or "" (informational)
	t           target
}

// compare builds the row for step against floor (either may be from another table). It
// returns false when the step was not measured in this run.
func compare(table string, step, floor *series, t target) (outcome, bool) {
	if !step.ok() {
		return outcome{}, false
	}
	o := outcome{Table: table, Step: step.Name, Median: step.median(), Min: step.min(), P90: step.p90(),
		N: len(step.Samples), Target: t.String(), t: t}
	if step.Table != table {
		o.Step = step.Name + " @ " + step.Table
	}
	if !floor.ok() {
		return o, true
	}
	o.Floor = floor.Name
	if floor.Table != table {
		o.Floor = floor.Name + " @ " + floor.Table
	}
	o.FloorMedian = floor.median()
	ratio := o.Median / o.FloorMedian
	delta := o.Median - o.FloorMedian
	o.Ratio, o.DeltaMS = &ratio, &delta
	verdict := func(pass bool) string {
		if pass {
			return "PASS"
		}
		return "MISS"
	}
	switch {
	case t.maxRatio > 0:
		o.Result = verdict(ratio <= t.maxRatio)
	case t.maxDelta > 0:
		o.Result = verdict(delta < t.maxDelta)
	}
	return o, true
}

// comparison shows the row's comparison in the unit of its target.
func (o outcome) comparison() string {
	switch {
	case o.Ratio == nil || math.IsNaN(*o.Ratio):
		return ""
	case o.t.maxDelta > 0:
		return fmt.Sprintf("%+.1f ms", *o.DeltaMS)
	}
	return fmt.Sprintf("%.2f×", *o.Ratio)
}

// section is a titled group of rows.
type section struct {
	Title  string    `json:"title"`
	Floors []*series `json:"-"` // the git floors measured for this section, listed first
	Rows   []outcome `json:"rows"`
	Size   string    `json:"size,omitempty"` // set for the per-size sections: the plan's label
}

// sections evaluates every target the harness reports, in report order.
func sections(h *harness) []section {
	r := h.res
	var out []section
	add := func(sec *section, table string, step, floor *series, t target) {
		if o, ok := compare(table, step, floor, t); ok {
			sec.Rows = append(sec.Rows, o)
		}
	}
	ks := []int{1, 10, 100}
	plans := plansFor(h.cfg)
	for _, p := range plans {
		tb := p.label
		f := func(name string) *series { return r.find(tb, name) }
		sec := section{Title: "Repository of " + tb, Size: tb}
		for _, name := range []string{stRevParse, stCommitTree, stUpdateRef} {
			sec.Floors = append(sec.Floors, f(name))
		}
		for _, k := range ks {
			sec.Floors = append(sec.Floors, f(stHash(k)), f(stTempTree(k)), f(stBlobsTree(k)), f(stBareCommit(k)))
		}
		sec.Floors = append(sec.Floors, f(stHash20MB))
		sec.Floors = append(sec.Floors, f(stEmptyHooks))
		add(&sec, tb, f(stNoSession), f(stEmptyHooks), target{maxRatio: 1.15})
		add(&sec, tb, f(stNoSession), f(stBareCommit(10)), target{})
		add(&sec, tb, f(stStart), f(stRevParse), target{})
		add(&sec, tb, f(stPrompt), f(stRevParse), target{})
		for _, k := range ks {
			add(&sec, tb, f(stStop(k)), f(stBlobsTree(k)), target{maxRatio: 1.5})
		}
		for _, k := range ks {
			add(&sec, tb, f(stCommit(k)), f(stBareCommit(k)), target{maxRatio: commitTarget(p.files)})
		}
		add(&sec, tb, f(stCommitMid), f(stBareCommit(10)), target{maxRatio: 3})
		add(&sec, tb, f(stStopAfterMid), f(stBlobsTree(10)), target{})
		add(&sec, tb, f(stCommitPerson), f(stBareCommit(10)), target{maxRatio: 3})
		add(&sec, tb, f(stStop20MB), f(stStop(10)), target{maxRatio: 1.2})
		add(&sec, tb, f(stCommit20MB), f(stCommit(10)), target{maxRatio: 1.2})
		add(&sec, tb, f(stStop20MB), f(stHash20MB), target{})
		add(&sec, tb, f(stFirstSight), f(stHash20MB), target{maxRatio: 6})
		add(&sec, tb, f(stFirstPrompt), f(stHash20MB), target{})
		add(&sec, tb, f(stFirstStop), f(stHash20MB), target{})
		add(&sec, tb, f(stFirstCommit), f(stHash20MB), target{})
		add(&sec, tb, f(stEnd), f(stRevParse), target{})
		out = append(out, sec)
	}
	small := plans[0].label
	if len(plans) > 1 {
		sec := section{Title: "Repository size at fixed K=10"}
		for _, p := range plans[1:] {
			add(&sec, sec.Title, r.find(p.label, stStop(10)), r.find(small, stStop(10)), target{maxRatio: 2})
			add(&sec, sec.Title, overhead(r, p.label), overhead(r, small), target{maxRatio: 2})
			add(&sec, sec.Title, r.find(p.label, stNoSession), r.find(small, stNoSession), target{})
		}
		out = append(out, sec)
	}
	L := longTable(plans[0])
	long := section{Title: "Session length (" + L + ")"}
	add(&long, L, r.find(L, stStopLast), r.find(L, stStopFirst), target{maxRatio: 1.2})
	add(&long, L, r.find(L, stPromptLast), r.find(L, stPromptFirst), target{maxRatio: 1.2})
	add(&long, L, r.find(L, stCommitLong), r.find(small, stBareCommit(10)), target{maxRatio: 3})
	E := endedTable(plans[0])
	ended := section{Title: "Ended sessions (" + E + ")"}
	add(&ended, E, r.find(E, stCommitEnded), r.find(E, stCommitNone), target{maxDelta: 5})
	return append(out, long, ended)
}

// overhead derives, for a table, the hooks' share of "commit after Stop, K=10": each sample
// minus the median plain git commit of the same files in the same run.
func overhead(r *results, table string) *series {
	c, bare := r.find(table, stCommit(10)), r.find(table, stBareCommit(10))
	if c == nil || bare == nil {
		return nil
	}
	s := r.get(table, "hook overhead of commit after Stop (minus git commit), K=10")
	if len(s.Samples) == 0 {
		floor := bare.median()
		for _, v := range c.Samples {
			s.Samples = append(s.Samples, v-floor)
		}
	}
	return s
}

// commitTarget is the bound on a session commit against a bare commit: the hooks' fixed
// cost weighs less as git's own work grows with the repository.
func commitTarget(files int) float64 {
	switch {
	case files >= 100_000:
		return 1.2
	case files >= 10_000:
		return 1.5
	}
	return 3.0
}
