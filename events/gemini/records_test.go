package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

func TestScanRewind(t *testing.T) {
	rec := func(id, typ, content string) string {
		return `{"id":"` + id + `","type":"` + typ + `","content":"` + content + `"}` + "\n"
	}
	meta := `{"sessionId":"s","projectHash":"h"}` + "\n"
	tests := []struct {
		name, data string
		prompts    []string
		last, uuid string
	}{
		{"rewind drops the message and later ones",
			meta + rec("u1", "user", "one") + rec("g1", "gemini", "a1") + rec("u2", "user", "two") + rec("g2", "gemini", "a2") +
				`{"$rewindTo":"u2"}` + "\n" + rec("u3", "user", "three"),
			[]string{"one", "three"}, "a1", "u3"},
		{"unknown id drops all this scan holds",
			rec("u2", "user", "two") + `{"$rewindTo":"u0"}` + "\n" + rec("u3", "user", "three"),
			[]string{"three"}, "", "u3"},
		{"rewound id written again goes last",
			rec("u1", "user", "one") + rec("u2", "user", "two") + `{"$rewindTo":"u1"}` + "\n" + rec("u1", "user", "one again"),
			[]string{"one again"}, "", "u1"},
		{"last record of an id wins, first place kept",
			rec("u1", "user", "draft") + rec("g1", "gemini", "x") + rec("u1", "user", "final"),
			[]string{"final"}, "x", "g1"},
		{"set records are ignored",
			rec("u1", "user", "one") + `{"$set":{"messages":[{"id":"s1","type":"user","content":"summary of history"}]}}` + "\n",
			[]string{"one"}, "", "u1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScanBytes([]byte(tt.data))
			if diff := cmp.Diff(tt.prompts, s.Prompts, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Prompts (-want +got):\n%s", diff)
			}
			if s.LastAssistant != tt.last || s.LastUUID != tt.uuid {
				t.Errorf("LastAssistant %q LastUUID %q, want %q %q", s.LastAssistant, s.LastUUID, tt.last, tt.uuid)
			}
			if s.Lines != strings.Count(tt.data, "\n") {
				t.Errorf("Lines = %d", s.Lines)
			}
		})
	}
}

func TestScanMessageShapes(t *testing.T) {
	tests := []struct {
		name, line string
		check      func(agent.Scan) bool
	}{
		{"content parts and strings", `{"id":"u","type":"user","content":["a",{"text":"b"},{"inlineData":{}},{"text":7}]}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "ab" }},
		{"single part object", `{"id":"u","type":"user","content":{"text":" hi "}}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "hi" }},
		{"blank prompt dropped", `{"id":"u","type":"user","content":"  \n"}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 0 && s.LastUUID == "u" }},
		{"blank displayContent falls back to content", `{"id":"u","type":"user","content":"real","displayContent":[{"text":" "}]}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 1 && s.Prompts[0] == "real" }},
		{"info is not a prompt", `{"id":"i","type":"info","content":"hi"}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 0 && s.LastAssistant == "" }},
		{"thought parts skipped", `{"id":"g","type":"gemini","content":[{"text":"hmm","thought":true},{"text":"answer"}]}`,
			func(s agent.Scan) bool { return s.LastAssistant == "answer" }},
		{"null tokens are no call", `{"id":"g","type":"gemini","content":"x","tokens":null}`,
			func(s agent.Scan) bool { return s.Usage.IsZero() }},
		{"tokens without id still count", `{"id":"","type":"gemini","tokens":{"input":3,"output":2,"cached":1}}`,
			func(s agent.Scan) bool {
				return s.Usage == events.TokenUsage{InputTokens: 3, OutputTokens: 2, CacheReadTokens: 1, APICallCount: 1} && s.LastUUID == ""
			}},
		{"user tokens ignored", `{"id":"u","type":"user","content":"p","tokens":{"input":3}}`,
			func(s agent.Scan) bool { return s.Usage.IsZero() }},
		{"file arg order", `{"id":"g","type":"gemini","toolCalls":[{"name":"write_file","args":{"filename":"/c","path":"/b"}},{"name":"replace","args":{"path":"","filename":"/d"}}]}`,
			func(s agent.Scan) bool { return cmp.Equal(s.ModifiedFiles, []string{"/b", "/d"}) }},
		{"read tools modify nothing", `{"id":"g","type":"gemini","toolCalls":[{"name":"read_file","args":{"file_path":"/a"}},{"name":"glob","args":{"pattern":"*.go","path":"/r"}}]}`,
			func(s agent.Scan) bool {
				return len(s.ModifiedFiles) == 0 && cmp.Equal(s.Actions, []agent.Action{{Tool: "read_file", Detail: "/a"}, {Tool: "glob", Detail: "*.go"}})
			}},
		{"bad tool calls", `{"id":"g","type":"gemini","toolCalls":[1,{"name":3},{"name":"write_file","args":"x"}]}`,
			func(s agent.Scan) bool {
				return len(s.ModifiedFiles) == 0 && cmp.Equal(s.Actions, []agent.Action{{Tool: "write_file"}})
			}},
		{"non-string id is metadata", `{"id":5,"type":"user","content":"p"}`,
			func(s agent.Scan) bool { return len(s.Prompts) == 0 && s.Lines == 1 }},
		{"array line", `[1,2]`, func(s agent.Scan) bool { return s.Lines == 1 && s.EndOffset == 6 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A metadata record first, so that every line is read as JSONL.
			data := `{"sessionId":"s","projectHash":"h"}` + "\n" + tt.line + "\n"
			s := ScanBytes([]byte(data))
			s.Lines--
			s.EndOffset -= int64(len(`{"sessionId":"s","projectHash":"h"}`) + 1)
			if !tt.check(s) {
				t.Errorf("ScanBytes(%s) = %+v", tt.line, s)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, data string
		want       format
	}{
		{"empty", "", formatJSONL},
		{"blank lines", "\n \n", formatJSONL},
		{"metadata record", `{"sessionId":"s","projectHash":"h"}` + "\n", formatJSONL},
		{"metadata after blank line", "\n" + `{"sessionId":"s"}` + "\n", formatJSONL},
		{"torn first record", `{"sessionId":"s","proj`, formatJSONL},
		{"pretty document", "{\n  \"messages\": []\n}", formatDocument},
		{"compact document", `{"messages":[{"id":"a","type":"user","content":"x"}]}`, formatDocument},
		{"compact document with newline", `{"sessionId":"s","messages":[]}` + "\n", formatDocument},
		{"set record with messages", `{"$set":{"messages":[]}}` + "\n", formatJSONL},
		{"garbage then lines", "not json\n{}\n", formatDocument},
	}
	for _, tt := range tests {
		if got := detectBytes([]byte(tt.data)); got != tt.want {
			t.Errorf("%s: detectBytes = %v, want %v", tt.name, got, tt.want)
		}
		path := filepath.Join(t.TempDir(), "chat")
		if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := detectFile(f)
		f.Close()
		if err != nil || got != tt.want {
			t.Errorf("%s: detectFile = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}
