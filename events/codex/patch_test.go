package codex

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPatchPaths(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"no envelope", "*** Add File: a.go\n", nil},
		{"all headers", "*** Begin Patch\n*** Add File: a.go\n+x\n*** Update File: b.go\n*** Move to: c.go\n@@\n-y\n+z\n*** Delete File: d.go\n*** End Patch\n",
			[]string{"a.go", "b.go", "c.go", "d.go"}},
		{"paths kept as written", "*** Begin Patch\n*** Update File: /abs/x y.go  \r\n*** Add File: ./rel/../z.go\n*** End Patch",
			[]string{"/abs/x y.go", "./rel/../z.go"}},
		{"after End Patch is not read", "*** Begin Patch\n*** Add File: a\n*** End Patch\n*** Add File: b\n", []string{"a"}},
		{"two envelopes", "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a\n*** End Patch\nEOF\napply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: b\n*** End Patch\nEOF",
			[]string{"a", "b"}},
		{"unterminated envelope", "*** Begin Patch\n*** Update File: a", []string{"a"}},
		{"indented headers (heredoc)", "  *** Begin Patch\n  *** Update File: a\n  *** End Patch", []string{"a"}},
		{"empty path", "*** Begin Patch\n*** Add File:   \n*** End Patch", nil},
		{"header prefix only", "*** Begin Patch\n*** Add Files: a\n*** Update File:b\n*** End Patch", []string{"b"}},
		{"hunk lines are not headers", "*** Begin Patch\n*** Update File: a\n-*** Add File: x\n+*** Delete File: y\n*** End Patch", []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, PatchPaths(tt.in), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("PatchPaths(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestArgumentPatches(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"input key", `{"input":"*** Begin Patch\n*** Add File: a\n*** End Patch"}`, []string{"*** Begin Patch\n*** Add File: a\n*** End Patch"}},
		{"argv", `{"command":["apply_patch","*** Begin Patch\n*** Delete File: b\n*** End Patch"],"workdir":"/w"}`, []string{"*** Begin Patch\n*** Delete File: b\n*** End Patch"}},
		{"nested", `{"a":{"b":[1,{"c":"x *** Begin Patch y"}]}}`, []string{"x *** Begin Patch y"}},
		{"not json", `apply_patch *** Begin Patch`, []string{"apply_patch *** Begin Patch"}},
		{"no patch", `{"cmd":"ls"}`, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, argumentPatches(tt.in), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestCommandOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"cmd":"go test ./...","workdir":"/w"}`, "go test ./..."},
		{`{"command":"ls -la"}`, "ls -la"},
		{`{"command":["bash","-lc","make build"]}`, "make build"},
		{`{"command":["/bin/zsh","-c","echo hi"]}`, "echo hi"},
		{`{"command":["git","status","--short"]}`, "git status --short"},
		{`{"cmd":"","command":"fallback"}`, "fallback"},
		{`{"cmd":5}`, ""},
		{`{"path":"a.go"}`, ""},
		{`["cmd"]`, ""},
		{`not json`, ""},
	}
	for _, tt := range tests {
		if got := commandOf(tt.in); got != tt.want {
			t.Errorf("commandOf(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
