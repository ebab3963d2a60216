package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
)

// Every agent's installed configuration has a session-start command line that doctor's
// self-test finds, and the self-test's payload parses as that agent's session start.
func TestCanaryFindsEachAgentsSessionStart(t *testing.T) {
	for _, a := range agents.All {
		t.Run(a.Name(), func(t *testing.T) {
			dir := t.TempDir()
			if _, err := a.Install(dir, false); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, a.ConfigFile()))
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(data) {
				t.Skipf("%s is not JSON: its hooks run inside the agent", a.ConfigFile())
			}
			payload := canaryPayload("entire-canary-x", "/tmp/t.jsonl", dir)
			found := false
			for _, c := range configuredHooks(data, a) {
				h, err := a.Parse(c.verb, payload)
				if err == nil && h.Kind == agent.SessionStart {
					found = true
					if h.SessionID != "entire-canary-x" {
						t.Errorf("%s: session ID %q", c.line, h.SessionID)
					}
				}
			}
			if !found {
				t.Errorf("no session-start command line in %s: %q", a.ConfigFile(), configuredHooks(data, a))
			}
		})
	}
}
