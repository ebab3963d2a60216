package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirerec/entire/events/agent/agenttest"
)

// fakeOpencode installs a stand-in for `opencode` that logs its arguments to <dir>/args and
// prints the file named by FAKE_EXPORT (FAKE_EXIT, FAKE_SLEEP and FAKE_PREAMBLE change that),
// and points ENTIRE_OPENCODE_BIN at it. It returns the directory.
func fakeOpencode(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
printf '%s\n' "$@" > "` + dir + `/args"
if [ -n "$FAKE_SLEEP" ]; then sleep "$FAKE_SLEEP"; fi
if [ -n "$FAKE_EXIT" ]; then echo "Error: Session not found: $2" >&2; exit "$FAKE_EXIT"; fi
if [ -n "$FAKE_PREAMBLE" ]; then printf '%s\n' "$FAKE_PREAMBLE"; fi
cat "$FAKE_EXPORT"
`
	agenttest.WriteFile(t, filepath.Join(dir, "opencode"), script, 0o755)
	t.Setenv(BinEnv, filepath.Join(dir, "opencode"))
	for _, k := range []string{"FAKE_SLEEP", "FAKE_EXIT", "FAKE_PREAMBLE"} {
		t.Setenv(k, "")
	}
	t.Setenv("FAKE_EXPORT", filepath.Join(dir, "export.json"))
	return dir
}

// setExport makes the fake print an export holding these messages.
func setExport(t *testing.T, fake string, messages []json.RawMessage) {
	t.Helper()
	doc := map[string]any{"info": map[string]any{"id": sessionID, "title": "t"}, "messages": messages}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	agenttest.WriteFile(t, filepath.Join(fake, "export.json"), string(data)+"\n", 0o600)
}

// sessionMessages returns the fixture's messages, one raw JSON object each.
func sessionMessages(t *testing.T) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for line := range bytes.Lines(readSession(t)) {
		out = append(out, json.RawMessage(bytes.TrimSuffix(line, []byte("\n"))))
	}
	return out
}

func TestExportLinesMatchFixture(t *testing.T) {
	out, err := os.ReadFile("testdata/export.json")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := ExportLines(out)
	if err != nil {
		t.Fatal(err)
	}
	got := append(bytes.Join(lines, []byte("\n")), '\n')
	if want := readSession(t); !bytes.Equal(got, want) {
		t.Errorf("ExportLines(export.json) differs from session.jsonl:\n%s", got)
	}
	// A notice printed before the document is skipped.
	again, err := ExportLines(append([]byte("Exporting session: "+sessionID+"\n"), out...))
	if err != nil || len(again) != sessionLines {
		t.Errorf("ExportLines after a notice = %d lines, %v; want %d", len(again), err, sessionLines)
	}
}

func TestExportLinesRejects(t *testing.T) {
	for _, in := range []string{"", "Error: Session not found\n", "[]", `{"info":{}}`, `{"messages":{"a":1}}`, `{"messages":[1,`} {
		if lines, err := ExportLines([]byte(in)); err == nil {
			t.Errorf("ExportLines(%q) = %q, want an error", in, lines)
		}
	}
	if lines, err := ExportLines([]byte(`{"messages":[]}`)); err != nil || len(lines) != 0 {
		t.Errorf("ExportLines(no messages) = %q, %v; want none, nil", lines, err)
	}
}

func TestMaterializeWritesJSONL(t *testing.T) {
	fake := fakeOpencode(t)
	agenttest.WriteFile(t, filepath.Join(fake, "export.json"), agenttest.ReadFile(t, "testdata/export.json"), 0o600)
	dir := filepath.Join(t.TempDir(), "transcripts")
	path, err := (Agent{}).Materialize(context.Background(), sessionID, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, sessionID+".jsonl"); path != want {
		t.Errorf("path = %q, want %q", path, want)
	}
	t.Setenv(TestProjectDirEnv, dir)
	if def := (Agent{}).DefaultTranscript("/repo", sessionID); def != path {
		t.Errorf("DefaultTranscript under %s = %q, want the materialized %q", TestProjectDirEnv, def, path)
	}
	if got := agenttest.ReadFile(t, path); got != string(readSession(t)) {
		t.Errorf("materialized transcript differs from session.jsonl:\n%s", got)
	}
	if args := agenttest.ReadFile(t, filepath.Join(fake, "args")); args != "export\n"+sessionID+"\n" {
		t.Errorf("opencode ran with %q, want export <id>", args)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode = %v, want 0600", fi.Mode().Perm())
	}
	// Nothing changed: the file is not replaced.
	if _, err := Materialize(context.Background(), sessionID, dir); err != nil {
		t.Fatal(err)
	}
	if again, err := os.Stat(path); err != nil || !os.SameFile(fi, again) {
		t.Errorf("unchanged export replaced the file (%v)", err)
	}
	// The default executable is opencode on PATH.
	t.Setenv(BinEnv, "")
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	if got, err := Materialize(context.Background(), sessionID, dir); err != nil || got != path {
		t.Errorf("Materialize via PATH = %q, %v", got, err)
	}
}

// Settled messages keep their bytes when OpenCode rewrites them; unfinished ones are replaced.
func TestMaterializeKeepsOffsets(t *testing.T) {
	fake := fakeOpencode(t)
	msgs := sessionMessages(t)
	running := json.RawMessage(`{"info":{"id":"msg_11","role":"assistant","time":{"created":5}},"parts":[{"type":"text","text":"Work"}]}`)
	setExport(t, fake, append(msgs[:4:4], running))
	dir := t.TempDir()
	path, err := Materialize(context.Background(), sessionID, dir)
	if err != nil {
		t.Fatal(err)
	}
	first := agenttest.ReadFile(t, path)
	if n := strings.Count(first, "\n"); n != 5 {
		t.Fatalf("first materialize: %d lines, want 5", n)
	}

	// Later: OpenCode adds a summary to the first user message, marks a tool output of the
	// second message compacted, finishes msg_11 and goes on with the next prompt.
	changed := append([]json.RawMessage(nil), msgs...)
	changed[0] = json.RawMessage(strings.Replace(string(msgs[0]), `"agent":"build"`, `"agent":"build","summary":{"title":"Greet","diffs":[]}`, 1))
	changed[1] = json.RawMessage(strings.Replace(string(msgs[1]), `"time":{"start":1,"end":2}`, `"time":{"start":1,"end":2,"compacted":9}`, 1))
	done := json.RawMessage(`{"info":{"id":"msg_11","role":"assistant","time":{"created":5,"completed":6}},"parts":[{"type":"text","text":"Work done."}]}`)
	setExport(t, fake, append(append(changed[:4:4], done), msgs[4:]...))
	if _, err := Materialize(context.Background(), sessionID, dir); err != nil {
		t.Fatal(err)
	}
	second := agenttest.ReadFile(t, path)
	keep := first[:strings.LastIndex(strings.TrimSuffix(first, "\n"), "\n")+1] // the four settled lines
	if !strings.HasPrefix(second, keep) {
		t.Error("settled lines moved: the first four lines differ from the first materialize")
	}
	if strings.Contains(second, `"summary":{"title"`) || strings.Contains(second, `"compacted":9`) {
		t.Error("settled lines were rewritten with OpenCode's later changes")
	}
	rest := strings.Split(strings.TrimSuffix(second[len(keep):], "\n"), "\n")
	if len(rest) != 1+len(msgs)-4 || rest[0] != string(done) {
		t.Errorf("after the settled lines got %d lines starting %q, want the finished msg_11 then %d more", len(rest), rest[0], len(msgs)-4)
	}
	scan := ScanBytes([]byte(second))
	if scan.LastAssistant != "Added the CHANGELOG entry." || len(scan.Prompts) != 3 || scan.Lines != len(msgs)+1 {
		t.Errorf("scan of the merged file: %q, %d prompts, %d lines", scan.LastAssistant, len(scan.Prompts), scan.Lines)
	}

	// An undo removes messages: the file follows the export from the first difference.
	setExport(t, fake, msgs[:2])
	if _, err := Materialize(context.Background(), sessionID, dir); err != nil {
		t.Fatal(err)
	}
	if got, want := agenttest.ReadFile(t, path), strings.Join(strings.SplitAfter(keep, "\n")[:2], ""); got != want {
		t.Errorf("after the undo the file holds %d lines, want the first 2 as before", strings.Count(got, "\n"))
	}
}

func TestMaterializeErrors(t *testing.T) {
	fake := fakeOpencode(t)
	setExport(t, fake, sessionMessages(t)[:1])
	dir := t.TempDir()
	ctx := context.Background()

	for _, id := range []string{"", "../escape", "a/b", "-h", "--session"} {
		if _, err := Materialize(ctx, id, dir); err == nil {
			t.Errorf("Materialize(%q) succeeded", id)
		}
	}
	if agenttest.Exists(filepath.Join(fake, "args")) {
		t.Error("opencode ran for an invalid session id")
	}

	t.Setenv("FAKE_EXIT", "1")
	if _, err := Materialize(ctx, sessionID, dir); err == nil || !strings.Contains(err.Error(), "Session not found") {
		t.Errorf("failing export: error %v, want one quoting stderr", err)
	}
	t.Setenv("FAKE_EXIT", "")

	agenttest.WriteFile(t, filepath.Join(fake, "export.json"), "Session deleted\n", 0o600)
	if _, err := Materialize(ctx, sessionID, dir); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("non-JSON export: error %v", err)
	}

	t.Setenv(BinEnv, filepath.Join(fake, "missing"))
	if _, err := Materialize(ctx, sessionID, dir); err == nil {
		t.Error("missing executable: no error")
	}
	if agenttest.Exists(filepath.Join(dir, sessionID+".jsonl")) {
		t.Error("a failed export wrote a transcript")
	}
}

func TestMaterializeTimeout(t *testing.T) {
	fake := fakeOpencode(t)
	setExport(t, fake, nil)
	defer func(d time.Duration) { exportTimeout = d }(exportTimeout)
	exportTimeout = 200 * time.Millisecond
	t.Setenv("FAKE_SLEEP", "5")
	start := time.Now()
	_, err := Materialize(context.Background(), sessionID, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("slow export: error %v, want a timeout", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("slow export returned after %v", d)
	}
}

func TestMergeLines(t *testing.T) {
	u := func(id string) string { return `{"info":{"id":"` + id + `","role":"user"},"parts":[]}` }
	done := func(id string) string {
		return `{"info":{"id":"` + id + `","role":"assistant","time":{"completed":1}},"parts":[]}`
	}
	failed := `{"info":{"id":"f","role":"assistant","error":{"name":"MessageAbortedError"}},"parts":[]}`
	open := `{"info":{"id":"o","role":"assistant","time":{}},"parts":[]}`
	lines := func(ls ...string) [][]byte {
		var out [][]byte
		for _, l := range ls {
			out = append(out, []byte(l))
		}
		return out
	}
	tests := []struct {
		name  string
		old   string
		fresh [][]byte
		want  string
	}{
		{"empty file", "", lines(u("a")), u("a") + "\n"},
		{"keeps settled old bytes", `{"info":{"id":"a","role":"user"} }` + "\n", lines(u("a"), done("b")),
			`{"info":{"id":"a","role":"user"} }` + "\n" + done("b") + "\n"},
		{"replaces unfinished", open + "\n" + u("x") + "\n", lines(done("o"), u("x")), done("o") + "\n" + u("x") + "\n"},
		{"keeps failed", failed + "\n", lines(`{"info":{"id":"f","role":"assistant","error":{}},"parts":[1]}`),
			failed + "\n"},
		{"different id rewrites the rest", u("a") + "\n" + u("b") + "\n", lines(u("a"), u("c")), u("a") + "\n" + u("c") + "\n"},
		{"shorter export truncates", u("a") + "\n" + u("b") + "\n", lines(u("a")), u("a") + "\n"},
		{"torn old tail ignored", u("a") + "\n" + `{"info":{"id":"b"`, lines(u("a"), u("b")), u("a") + "\n" + u("b") + "\n"},
		{"no id never kept", `{"info":{"role":"user"}}` + "\n", lines(`{"info":{"role":"user"},"parts":[]}`),
			`{"info":{"role":"user"},"parts":[]}` + "\n"},
		{"nothing exported", u("a") + "\n", nil, ""},
	}
	for _, tt := range tests {
		if got := string(mergeLines([]byte(tt.old), tt.fresh)); got != tt.want {
			t.Errorf("%s: mergeLines =\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
