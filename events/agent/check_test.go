//go:build unix

package agent

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCheckTranscript(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(write("t.jsonl", `{"type":"user"}`+"\n"), link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		ok         bool
	}{
		{"transcript", write("a.jsonl", `{"type":"user","message":{"content":"hi"}}`+"\n{}\n"), true},
		{"empty", write("empty.jsonl", ""), true},
		{"one line without newline", write("b.jsonl", `{"type":"user"}`), true},
		{"symlink to a transcript", link, true},
		{"a first line longer than the window", write("long.jsonl", `{"type":"user","message":{"content":"`+strings.Repeat("x", 1<<20)+`"}}`+"\n"), true},
		{"passwd-like", write("passwd", "root:x:0:0:root:/root:/bin/bash\n"), false},
		{"notes", write("notes.md", "# private notes\n"), false},
		{"pretty JSON document", write("doc.json", "{\n  \"a\": 1\n}\n"), true},
		{"a brace, then prose", write("brace.txt", "{\nnot a key\n"), false},
		{"a JSON line, then prose", write("notes.txt", "{\"type\":\"user\"}\nmy private notes\n{}\n"), false},
		{"a JSON line, then a torn one", write("torn.jsonl", "{\"type\":\"user\"}\n{\"type\":\"assi"), true},
		{"binary", write("bin", "\x00\x01\x02{"), false},
		{"directory", dir, false},
		{"FIFO", fifo, false},
	} {
		err := CheckTranscript(tc.path)
		if tc.ok && err != nil {
			t.Errorf("%s: %v, want accepted", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, ErrNotTranscript) {
			t.Errorf("%s: %v, want ErrNotTranscript", tc.name, err)
		}
	}
	if err := CheckTranscript(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want fs.ErrNotExist", err)
	}
}
