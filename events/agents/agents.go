// Package agents is the table of the coding agents the recorder supports. Adding an agent is
// one package under events/ implementing agent.Agent, plus one entry in All.
package agents

import (
	"slices"
	"strings"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/claudecode"
	"github.com/entirerec/entire/events/codex"
	"github.com/entirerec/entire/events/copilot"
	"github.com/entirerec/entire/events/cursor"
	"github.com/entirerec/entire/events/droid"
	"github.com/entirerec/entire/events/gemini"
	"github.com/entirerec/entire/events/opencode"
)

// All lists the agents, in the order `entire enable` offers them.
var All = []agent.Agent{
	claudecode.Agent{},
	gemini.Agent{},
	cursor.Agent{},
	codex.Agent{},
	copilot.Agent{},
	opencode.Agent{},
	droid.Agent{},
}

// Default is the agent chosen when nothing else says which.
var Default agent.Agent = claudecode.Agent{}

// Lookup finds an agent by its CLI name or one of its aliases (case-insensitive).
func Lookup(name string) (agent.Agent, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, a := range All {
		if a.Name() == name || slices.Contains(a.Aliases(), name) {
			return a, true
		}
	}
	return nil, false
}

// ByType finds an agent by its name in checkpoint metadata; an empty or unknown type gives
// the default agent and false.
func ByType(typ string) (agent.Agent, bool) {
	for _, a := range All {
		if a.Type() == typ {
			return a, true
		}
	}
	return Default, false
}

// Names lists the CLI names of all agents.
func Names() []string {
	out := make([]string, 0, len(All))
	for _, a := range All {
		out = append(out, a.Name())
	}
	return out
}
