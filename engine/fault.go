package engine

import "os"

// crashEnv names the step at which a test kills the process (test-only; see
// cmd/entire/fault_test.go). The step names are "journaled:<event type>" after an input event
// is durable, and the names passed to crashPoint after each git effect.
const crashEnv = "ENTIRE_TEST_CRASH_AT"

// crashPoint kills this process when the test switch names step: no deferred function runs and
// nothing is flushed, as when the OOM killer or a closed laptop ends a hook.
func crashPoint(step string) {
	if os.Getenv(crashEnv) != step {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
		select {} // the kill is delivered asynchronously
	}
}
