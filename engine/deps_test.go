package engine

import (
	"bytes"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/entirerec/entire"

// execExempt are the non-test packages besides gitexec allowed to run processes, each with its reason.
var execExempt = map[string]string{
	modulePath + "/cmd/entire-bench":     "benchmark harness: times the built binary and git as separate processes",
	modulePath + "/events/opencode":      "OpenCode keeps its transcript in a database; `opencode export` is its only way to hand it over",
	modulePath + "/engine/setup/hookcmd": "doctor's self-test runs each agent's configured hook command line through sh, as the agent would",
}

// area is the top-level layer of a package of this module ("" for anything else).
func area(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, modulePath+"/")
	if !ok {
		return ""
	}
	top, _, _ := strings.Cut(rest, "/")
	return top
}

// listPackages runs go list over the module and returns each package's direct imports and
// transitive dependencies (non-test files only, which is what go list reports).
func listPackages(t *testing.T) (imports, deps map[string][]string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; cannot check the dependency direction")
	}
	gomod, err := exec.Command(goBin, "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(gomod)) == 0 {
		t.Fatalf("go env GOMOD: %v %s", err, gomod)
	}
	cmd := exec.Command(goBin, "list", "-e", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}\t{{join .Deps \" \"}}", "./...")
	cmd.Dir = filepath.Dir(string(bytes.TrimSpace(gomod)))
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	imports, deps = map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("unexpected go list line %q", line)
		}
		imports[f[0]], deps[f[0]] = strings.Fields(f[1]), strings.Fields(f[2])
	}
	return imports, deps
}

func TestDependencyDirection(t *testing.T) {
	imports, deps := listPackages(t)
	// Sanity: the listing has the layers and sees their edges, so the rules below are not vacuous.
	for _, pkg := range []string{"engine", "events", "events/journal", "gitexec", "cmd/entire"} {
		if _, ok := imports[modulePath+"/"+pkg]; !ok {
			t.Fatalf("go list did not report %s/%s", modulePath, pkg)
		}
	}
	for _, dep := range []string{modulePath + "/events", modulePath + "/gitexec"} {
		if !slices.Contains(deps[modulePath+"/engine"], dep) {
			t.Fatalf("engine's dependencies %v lack %s; is go list output parsed right?", deps[modulePath+"/engine"], dep)
		}
	}
	forbidden := map[string][]string{ // layer -> layers it must not depend on, even indirectly
		"events":  {"gitexec", "engine", "cmd"},
		"gitexec": {"events", "engine", "cmd"},
		"engine":  {"cmd"},
	}
	execUsers := 0
	for pkg, ds := range deps {
		for _, d := range ds {
			for _, bad := range forbidden[area(pkg)] {
				if area(d) == bad {
					t.Errorf("%s depends on %s: %s must not depend on %s (STYLE.md)", pkg, d, area(pkg), bad)
				}
			}
		}
		if slices.Contains(imports[pkg], "os/exec") {
			if area(pkg) != "gitexec" && execExempt[pkg] == "" {
				t.Errorf("%s imports os/exec; only gitexec runs processes (STYLE.md)", pkg)
			}
			execUsers++
		}
	}
	// The session core is pure of git and of the engine: it imports only events (STYLE.md).
	core := deps[modulePath+"/engine/session"]
	if !slices.Contains(core, modulePath+"/events") {
		t.Fatalf("engine/session's dependencies %v lack events; is go list output parsed right?", core)
	}
	for _, d := range core {
		if strings.HasPrefix(d, modulePath+"/") && area(d) != "events" {
			t.Errorf("engine/session depends on %s; the session core imports only events", d)
		}
	}
	if execUsers == 0 {
		t.Errorf("no package imports os/exec, not even gitexec; is go list output parsed right?")
	}
}

// TestReducerIsPure checks the reducer's own files (engine/session/reducer*.go): they import only events and standard
// packages that do no I/O and read no clock.
func TestReducerIsPure(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("session", "reducer*.go"))
	if err != nil {
		t.Fatal(err)
	}
	impure := map[string]bool{"os": true, "os/exec": true, "io": true, "io/fs": true, "io/ioutil": true,
		"bufio": true, "net": true, "net/http": true, "path/filepath": true, "syscall": true, "time": true,
		"math/rand": true, "math/rand/v2": true, "crypto/rand": true, "log": true, "log/slog": true, "context": true}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if impure[path] || (area(path) != "" && path != modulePath+"/events") {
				t.Errorf("%s imports %s; the reducer may import only events and pure standard packages", name, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no reducer*.go file found")
	}
}
