package claudecode

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hookLine is a Claude Code hook_progress line for command at time ts.
func hookLine(command string, ts time.Time) string {
	return `{"parentUuid":"p","isSidechain":false,"userType":"external","cwd":"/r","sessionId":"s","version":"2.1.31",` +
		`"type":"progress","data":{"type":"hook_progress","hookEvent":"Stop","hookName":"Stop","command":"` + command + `"},` +
		`"parentToolUseID":"","toolUseID":"","timestamp":"` + ts.UTC().Format(time.RFC3339Nano) + `","uuid":"u"}` + "\n"
}

func TestWaitForFlushSeesStopMarker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	// A half-written line: the size-stable rule cannot fire, only the marker can.
	if err := os.WriteFile(path, []byte(`{"type":"user","message":{"content":"hi"}}`+"\n"+`{"type":"assis`), 0o600); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	done := make(chan error, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		_, err = f.WriteString(`tant"}` + "\n" + hookLine("entire hooks claude-code stop", since.Add(time.Second)) + `{"type":"sys`)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	if !WaitForFlush(context.Background(), path, since, 10*time.Second) {
		t.Error("WaitForFlush = false, want true once the stop hook_progress line appears")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestWaitForFlushGivesUp(t *testing.T) {
	dir := t.TempDir()
	since := time.Now()
	torn := `{"type":"assis`
	tests := []struct {
		name    string
		content string
	}{
		{"no marker, torn tail", torn},
		{"marker too old", hookLine("entire hooks claude-code stop", since.Add(-3*time.Second)) + torn},
		{"marker too new", hookLine("entire hooks claude-code stop", since.Add(3*time.Second)) + torn},
		{"other hook", hookLine("entire hooks claude-code session-end", since) + torn},
		{"marker cut by the tail window", hookLine("entire hooks claude-code stop", since)[:100] + torn},
		{"empty file", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if WaitForFlush(context.Background(), path, since, 400*time.Millisecond) {
				t.Error("WaitForFlush = true, want false")
			}
		})
	}
}

func TestWaitForFlushStableFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"user"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !WaitForFlush(context.Background(), path, time.Now(), 10*time.Second) {
		t.Error("WaitForFlush on a stable newline-terminated file = false, want true")
	}
}

func TestWaitForFlushMissingFileAndCancel(t *testing.T) {
	dir := t.TempDir()
	if WaitForFlush(context.Background(), filepath.Join(dir, "missing.jsonl"), time.Now(), time.Hour) {
		t.Error("missing file: WaitForFlush = true")
	}
	path := filepath.Join(dir, "torn.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"assis`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if WaitForFlush(ctx, path, time.Now(), time.Hour) {
		t.Error("cancelled context: WaitForFlush = true")
	}
}

func TestHasStopMarker(t *testing.T) {
	since := time.Date(2026, 2, 16, 1, 0, 50, 0, time.UTC)
	stop := "entire hooks claude-code stop"
	tests := []struct {
		tail string
		want bool
	}{
		{hookLine(stop, since), true},
		{hookLine(stop, since.Add(2*time.Second)), true},
		{hookLine(stop, since.Add(-2*time.Second)), true},
		{hookLine(stop, since.Add(2001*time.Millisecond)), false},
		{hookLine("/usr/local/bin/entire hooks claude-code stop", since.Add(time.Second)), true},
		{strings.TrimSuffix(hookLine(stop, since), "\n"), true}, // complete object, newline pending
		{hookLine(stop, since)[10:], false},                     // cut at the window start
		{strings.Replace(hookLine(stop, since), `"hook_progress"`, `"agent_progress"`, 1), false},
		{strings.Replace(hookLine(stop, since), `"timestamp":"`, `"timestamp":"x`, 1), false},
		{`{"type":"user","message":{"content":"hooks claude-code stop \"hook_progress\""},"timestamp":"2026-02-16T01:00:50Z"}`, false}, // quoted text inside a prompt is escaped
		{"", false},
	}
	for _, tt := range tests {
		if got := hasStopMarker([]byte(tt.tail), since); got != tt.want {
			t.Errorf("hasStopMarker(%q) = %v, want %v", tt.tail, got, tt.want)
		}
	}
}
