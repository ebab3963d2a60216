package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A settings file with comments (Gemini CLI accepts them) is refused with its line and what
// to do, and is not rewritten.
func TestReadConfigNamesTheLineOfACommentAndKeepsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	const text = "{\n  \"theme\": \"dark\",\n  // hooks below\n  \"x\": 1\n}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadConfig(path)
	if err == nil {
		t.Fatal("ReadConfig accepted a file with a comment")
	}
	for _, want := range []string{"line 3:", "left unchanged", "remove comments"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if data, _ := os.ReadFile(path); string(data) != text {
		t.Errorf("file changed to %q", data)
	}
}
