package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/gemini"
	"github.com/entirerec/entire/gitexec/gittest"
)

// geminiDoc is Gemini CLI's legacy chat file after n turns, pretty-printed without a final
// newline as Gemini writes it: turn i prompts "write f<i>" and spends 100*i input tokens.
func geminiDoc(n int) []byte {
	var msgs []string
	for i := 1; i <= n; i++ {
		msgs = append(msgs,
			fmt.Sprintf(`    {"id": "u%d", "type": "user", "content": "write f%d"}`, i, i),
			fmt.Sprintf(`    {"id": "g%d", "type": "gemini", "content": "Wrote f%d.", "tokens": {"input": %d, "output": %d}}`, i, i, 100*i, 10*i))
	}
	return []byte("{\n  \"sessionId\": \"g\",\n  \"messages\": [\n" + strings.Join(msgs, ",\n") + "\n  ]\n}")
}

// A Gemini CLI document is scanned from a message count, not from a byte offset (the file is
// rewritten whole each turn): from the live file and from a copy in memory alike, the part
// after two turns is turn 3 alone, the usage since one turn is turns 2 and 3, scans from one
// offset with different counts are different scans, and a count past the document's end (it
// was rewritten shorter) reads it whole.
func TestScanGeminiDocumentByMessages(t *testing.T) {
	one, two, three := geminiDoc(1), geminiDoc(2), geminiDoc(3)
	path := filepath.Join(t.TempDir(), "session-g.json")
	if err := os.WriteFile(path, three, 0o644); err != nil {
		t.Fatal(err)
	}
	afterTwo := events.Transcript{Lines: 4, Offset: int64(len(two))}
	for name, src := range map[string]tsource{
		"file":   fileSource(path, int64(len(three))).of(gemini.Agent{}),
		"memory": memSource(three).of(gemini.Agent{}),
	} {
		t.Run(name, func(t *testing.T) {
			src = src.memoized()
			sc := src.scan(afterTwo)
			if diff := cmp.Diff([]string{"write f3"}, sc.Prompts); diff != "" || sc.Usage.InputTokens != 300 || sc.Usage.APICallCount != 1 {
				t.Errorf("scan after two turns: prompts (-want +got) %s, usage %+v; want 300 input tokens in 1 call", diff, sc.Usage)
			}
			want := events.TokenUsage{InputTokens: 500, OutputTokens: 50, APICallCount: 2}
			if got, _ := usageSince(src, events.Transcript{Lines: 2, Offset: int64(len(one))}, nil); got == nil || *got != want {
				t.Errorf("usage since turn 1 = %+v, want %+v", got, want)
			}
			if got := src.scan(events.Transcript{Lines: 2, Offset: afterTwo.Offset}).Prompts; !cmp.Equal(got, []string{"write f2", "write f3"}) {
				t.Errorf("scan from message 2 at the same offset = %q, want turns 2 and 3", got)
			}
			if got := src.scan(events.Transcript{Lines: 9}).Prompts; len(got) != 3 {
				t.Errorf("scan from past the end = %q, want all three turns", got)
			}
		})
	}
}

// When the live chat file cannot be read, condensation reads the shadow branch's copy: a
// Gemini CLI document is taken whole (it has no final newline to cut at), its position counts
// its messages, and the checkpoint's part is read from its start message.
func TestSessionTranscriptFromShadowGeminiDocument(t *testing.T) {
	repo := gittest.Repo(t)
	head := gittest.Commit(t, repo, "refs/heads/main", "", "init", map[string]string{"README": "hi\n"})
	doc := geminiDoc(2)
	last := rwShadow(t, repo, head, "", "entire/shadow", "checkpoint", map[string]string{".entire/metadata/s1/full.jsonl": string(doc)})
	s := session.State{SessionID: "s1", AgentType: gemini.Type, TranscriptPath: filepath.Join(t.TempDir(), "gone.json"),
		CheckpointTranscriptStart: 2,
		Recorder:                  session.Recorder{CondensedOffset: int64(len(geminiDoc(1))), LastShadowCommit: string(last)}}
	en := &Engine{Repo: repo}
	data, pos, err := en.sessionTranscript(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if want := (events.Transcript{Lines: 4, Offset: int64(len(doc))}); pos != want {
		t.Errorf("position = %+v, want %+v", pos, want)
	}
	if string(data.mem) != string(doc) {
		t.Errorf("copy = %q, want the whole document", data.mem)
	}
	if got := data.scan(s.Condensed()).Prompts; !cmp.Equal(got, []string{"write f2"}) {
		t.Errorf("prompts since the checkpoint start = %q, want turn 2's", got)
	}
}

// A checkpoint's prompt.txt holds the prompts the hooks read plus those after them: after a
// Gemini CLI document's first turn, that is turn 2's prompt, not the whole document again.
func TestSessionPromptsGeminiDocument(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session-g.json")
	doc := geminiDoc(2)
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	s := session.State{Recorder: session.Recorder{Prompts: []string{"write f1"},
		Scanned: events.Transcript{Path: path, Lines: 2, Offset: int64(len(geminiDoc(1)))}}}
	got := sessionPrompts(s, fileSource(path, int64(len(doc))).of(gemini.Agent{}), path)
	if diff := cmp.Diff([]string{"write f1", "write f2"}, got); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
}
