package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// A legacy document's position counts messages: the scope from message n is a document of the
// messages from n on, written compactly on one line; a JSONL file's is its lines from line n.
func TestSkipRecords(t *testing.T) {
	doc := "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n" +
		"    {\"id\": \"u1\", \"type\": \"user\", \"content\": \"one\"},\n" +
		"    {\"id\": \"g1\", \"type\": \"gemini\", \"content\": \"One.\", \"tokens\": {\"input\": 100}},\n" +
		"    {\"id\": \"u2\", \"type\": \"user\", \"content\": \"two\"},\n" +
		"    {\"id\": \"g2\", \"type\": \"gemini\", \"content\": \"Two.\", \"tokens\": {\"input\": 200}}\n" +
		"  ]\n}"
	jsonl := `{"sessionId":"s"}` + "\n" + `{"id":"u1","type":"user","content":"one"}` + "\n" + `{"id":"u2","type":"user","content":"two"}` + "\n"
	for _, tc := range []struct {
		name, data string
		n          int
		want       string
	}{
		{"document whole", doc, 0, doc},
		{"document from message 2", doc, 2, `{"messages":[{"id":"u2","type":"user","content":"two"},{"id":"g2","type":"gemini","content":"Two.","tokens":{"input":200}}]}`},
		{"document at its end", doc, 4, `{"messages":[]}`},
		{"document past its end", doc, 9, `{"messages":[]}`},
		{"document cut mid-rewrite", doc[:len(doc)/2], 1, ""},
		{"jsonl from line 2", jsonl, 2, `{"id":"u2","type":"user","content":"two"}` + "\n"},
		{"jsonl past its end", jsonl, 5, ""},
	} {
		if got := string(SkipRecords([]byte(tc.data), tc.n)); got != tc.want {
			t.Errorf("%s: SkipRecords(%d) = %q, want %q", tc.name, tc.n, got, tc.want)
		}
	}
	scoped := ScanBytes(SkipRecords([]byte(doc), 2))
	if diff := cmp.Diff([]string{"two"}, scoped.Prompts); diff != "" || scoped.Usage.InputTokens != 200 || scoped.Lines != 2 {
		t.Errorf("scan of the scope: prompts (-want +got) %s, input %d, lines %d; want 200 in 2 messages", diff, scoped.Usage.InputTokens, scoped.Lines)
	}
}

// ScanBytesFrom reads a chat file held in memory as ScanFile reads it from a file, from every
// position: a document's message counts, a JSONL file's line ends. Beyond the end is
// agent.ErrPastEnd, which the recorder takes as "read it again from the start".
func TestScanBytesFromEqualsScanFile(t *testing.T) {
	doc := readFixture(t, documentFile)
	jsonl := readFixture(t, jsonlFile)
	type at struct {
		data []byte
		file string
		from events.Transcript
	}
	var positions []at
	for k := range wantDocument(0).Lines + 1 {
		positions = append(positions, at{doc, documentFile, events.Transcript{Lines: k, Offset: 17}})
	}
	for i, end := range append([]int64{0}, lineEnds(jsonl)...) {
		positions = append(positions, at{jsonl, jsonlFile, events.Transcript{Lines: i, Offset: end}})
	}
	for _, p := range positions {
		want, err := ScanFile(p.file, p.from)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ScanBytesFrom(p.data, p.from)
		if err != nil {
			t.Fatalf("%s from %+v: %v", p.file, p.from, err)
		}
		if diff := cmp.Diff(want, got, scanOpts); diff != "" {
			t.Errorf("%s from %+v (-ScanFile +ScanBytesFrom):\n%s", p.file, p.from, diff)
		}
	}
	path := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"document in memory": second(ScanBytesFrom(doc, events.Transcript{Lines: 8})),
		"document file":      second(ScanFile(path, events.Transcript{Lines: 8})),
		"jsonl in memory":    second(ScanBytesFrom(jsonl, events.Transcript{Offset: int64(len(jsonl)) + 1})),
	} {
		if !errors.Is(err, agent.ErrPastEnd) || !errors.Is(err, ErrPositionPastEnd) {
			t.Errorf("%s past its end: %v, want agent.ErrPastEnd", name, err)
		}
	}
}

func second(_ agent.Scan, err error) error { return err }
