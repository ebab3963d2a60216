package main

import (
	"math"
	"slices"
	"time"
)

// series is the samples of one step in one table (a repository size or a scenario).
type series struct {
	Table   string         `json:"table"`
	Name    string         `json:"name"`
	Samples []float64      `json:"samples_ms"`
	Procs   []int          `json:"git_procs,omitempty"` // -trace: git processes per sample
	Cmds    map[string]int `json:"git_cmds,omitempty"`  // -trace: git subcommands, summed over samples
}

// add records one sample. A nil series ignores it (a warm-up or untimed run).
func (s *series) add(d time.Duration, pc *procCount) {
	if s == nil {
		return
	}
	s.Samples = append(s.Samples, float64(d.Microseconds())/1000)
	if pc != nil {
		s.Procs = append(s.Procs, pc.total)
		if s.Cmds == nil {
			s.Cmds = map[string]int{}
		}
		for k, v := range pc.cmds {
			s.Cmds[k] += v
		}
	}
}

// ok reports whether s has samples.
func (s *series) ok() bool { return s != nil && len(s.Samples) > 0 }

// quantile returns the q-quantile of the samples by nearest rank (q=0.5 interpolates the two
// middle samples of an even count).
func (s *series) quantile(q float64) float64 {
	if !s.ok() {
		return math.NaN()
	}
	v := slices.Clone(s.Samples)
	slices.Sort(v)
	if q == 0.5 && len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	i := int(math.Ceil(q*float64(len(v)))) - 1
	return v[max(0, min(i, len(v)-1))]
}

func (s *series) median() float64 { return s.quantile(0.5) }
func (s *series) min() float64    { return s.quantile(0) }
func (s *series) p90() float64    { return s.quantile(0.9) }

// meanProcs is the average number of git processes per sample (-trace only).
func (s *series) meanProcs() float64 {
	if s == nil || len(s.Procs) == 0 {
		return math.NaN()
	}
	sum := 0
	for _, p := range s.Procs {
		sum += p
	}
	return float64(sum) / float64(len(s.Procs))
}

// results holds every series of a run in creation order.
type results struct {
	list []*series
	idx  map[string]*series
}

func newResults() *results { return &results{idx: map[string]*series{}} }

// get returns the series named name in table, creating it.
func (r *results) get(table, name string) *series {
	key := table + "\x00" + name
	if s := r.idx[key]; s != nil {
		return s
	}
	s := &series{Table: table, Name: name}
	r.idx[key] = s
	r.list = append(r.list, s)
	return s
}

// find returns the series named name in table, or nil when it was not measured.
func (r *results) find(table, name string) *series {
	if s := r.idx[table+"\x00"+name]; s.ok() {
		return s
	}
	return nil
}
