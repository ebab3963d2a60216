package engine

import (
	"strings"
	"testing"

	"github.com/entirerec/entire/events/agent"
)

// Every ID an agent's package maps with agent.SafeID names files, and nothing longer or with
// other characters does.
func TestValidTaskID(t *testing.T) {
	for _, id := range []string{"toolu_01ABC", agent.SafeID(strings.Repeat("call/", 100)), agent.SafeID(strings.Repeat("x", 400))} {
		if !validTaskID(id) {
			t.Errorf("%q (%d bytes) refused", id, len(id))
		}
	}
	for _, id := range []string{"", "../x", "a b", strings.Repeat("x", agent.MaxFileIDLen+1)} {
		if validTaskID(id) {
			t.Errorf("%q accepted", id)
		}
	}
}
