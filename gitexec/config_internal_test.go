package gitexec

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// coreValues reads what git config reads from the same file, or leaves the file to git.
func TestCoreValuesAgreesWithGit(t *testing.T) {
	for _, tc := range []struct {
		text   string
		parsed bool // read here, without git (the forms git config itself writes among them)
	}{
		{"", true},
		{"[core]\n\tcommentChar = \";\"\n", true},
		{"[core]\n\tcommentchar = %\n", true},
		{"[core]\n\tcommentChar = ;\n", true}, // an empty value: ; starts a comment
		{"[Core]\n  CommentChar = auto # git picks one\n", true},
		{"[core]\n\tcommentChar = \"#\"\n[user]\n\tname = A\n[core]\n\tcommentString = \"//\"\n", true},
		{"[core \"x\"]\n\tcommentChar = !\n[core.y]\n\tcommentChar = !\n[user]\n\tcommentChar = !\n", true},
		{"[core]\n\teditor = vim\n\tcommentChar = \"a b\"  c  \n", true},
		{"[core]\n\tcommentChar = \\\"\n", true},
		{"[core]\r\n\tcommentChar = \"%\"\r\n", true},
		{"\ufeff[core]\n\tcommentChar = \"%\"\n", true},
		{"# [core]\n; commentChar = %\n[core]\n\tbare = false\n", true},
		{"[core]\n\tcommentChar\n", false},           // no value: git's to refuse
		{"[core]\n\tcommentChar = a\\\n b\n", false}, // continued on the next line
		{"[core] commentChar = \"%\"\n", false},      // a key on the header's line
		{"[alias]\n\tx = \"!f() { \\\n[core]\n\tcommentChar = % ; }\"\n", false},
		{"[core]\n\tcommentChar = \\q\n", false}, // an escape git rejects
		{"[core]\n\tcommentChar = \"%\n", false}, // an open quote
	} {
		vals, ok := coreValues(tc.text, commentKeys)
		if ok != tc.parsed {
			t.Errorf("%q: ok = %v, want %v", tc.text, ok, tc.parsed)
		}
		if !ok {
			continue
		}
		if want := gitCommentValues(t, tc.text); !slices.Equal(vals, want) {
			t.Errorf("%q: %q, git config reads %q", tc.text, vals, want)
		}
	}
}

// gitCommentValues are the comment keys' values git config reads from a file holding text.
func gitCommentValues(t *testing.T, text string) []string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "config", "-f", f, "-z", "--get-regexp", `^core\.comment(char|string)$`).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil
	}
	if err != nil {
		t.Fatalf("git config -f on %q: %v", text, err)
	}
	var vals []string
	for _, e := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		_, v, _ := strings.Cut(e, "\n")
		vals = append(vals, v)
	}
	return vals
}
