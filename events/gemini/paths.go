package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/jsonvalid"
)

// Environment variables DefaultTranscript reads.
const (
	// TestChatsDirEnv names a chats directory to use instead of the computed one (tests).
	TestChatsDirEnv = "ENTIRE_TEST_GEMINI_PROJECT_DIR"
	// geminiHomeEnv relocates the home directory Gemini CLI keeps .gemini/ under.
	geminiHomeEnv = "GEMINI_CLI_HOME"
)

// TranscriptFor is where Gemini CLI keeps the chat file of session sessionID for the project
// at repoRoot: the newest session-*-<first 8 of the id>.jsonl (or legacy .json) in
// ~/.gemini/tmp/<project-id>/chats/, or in $ENTIRE_TEST_GEMINI_PROJECT_DIR when set. It
// returns "" when no such file exists: the name holds the session's start time, which
// cannot be computed.
//
// The project id is tried in Gemini CLI's order of history (agent-hooks.md §2.4): the short
// id registered in ~/.gemini/projects.json, the slug a new registration would claim (the
// base name, lower-cased, runs of other characters as '-'), then the SHA-256 of the root
// that builds before the registry used.
func TranscriptFor(repoRoot, sessionID string) string {
	if sessionID == "" || strings.ContainsAny(sessionID, `/\`) {
		return ""
	}
	if dir := os.Getenv(TestChatsDirEnv); dir != "" {
		return newestSession(dir, sessionID)
	}
	home := geminiHome()
	if home == "" || repoRoot == "" {
		return ""
	}
	tmp := filepath.Join(home, ".gemini", "tmp")
	for _, id := range projectIDs(home, repoRoot) {
		if p := newestSession(filepath.Join(tmp, id, "chats"), sessionID); p != "" {
			return p
		}
	}
	return ""
}

// geminiHome is the directory Gemini CLI keeps .gemini/ under: $GEMINI_CLI_HOME when it is
// absolute, else the user's home ("" when unknown).
func geminiHome() string {
	if dir := os.Getenv(geminiHomeEnv); filepath.IsAbs(dir) {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return home
}

// projectIDs lists the candidate names of the project's directory under ~/.gemini/tmp.
func projectIDs(home, repoRoot string) []string {
	root := filepath.Clean(repoRoot)
	var ids []string
	add := func(id string) {
		if id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`) && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	add(registeredID(filepath.Join(home, ".gemini", "projects.json"), root))
	if slug := slugify(filepath.Base(root)); ownsSlug(filepath.Join(home, ".gemini", "tmp", slug), root) {
		add(slug)
	}
	sum := sha256.Sum256([]byte(repoRoot))
	add(hex.EncodeToString(sum[:]))
	return ids
}

// registeredID looks root up in Gemini CLI's project registry {"projects": {path: id}}.
func registeredID(path, root string) string {
	data, err := os.ReadFile(path)
	if err != nil || !jsonvalid.Valid(data) {
		return ""
	}
	id := ""
	gjson.GetBytes(data, "projects").ForEach(func(k, v gjson.Result) bool {
		if v.Type == gjson.String && samePath(k.String(), root) {
			id = v.Str
			return false
		}
		return true
	})
	return id
}

// ownsSlug reports whether the project directory dir is not claimed by another project: its
// .project_root marker, when present, names root.
func ownsSlug(dir, root string) bool {
	owner, err := os.ReadFile(filepath.Join(dir, ".project_root"))
	if err != nil {
		return true
	}
	return samePath(strings.TrimSpace(string(owner)), root)
}

// samePath compares two absolute paths as Gemini CLI's registry does (case-insensitively on
// Windows).
func samePath(a, root string) bool {
	a = filepath.Clean(a)
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, root)
	}
	return a == root
}

var nonSlug = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[^a-z0-9]+`)
})

// slugify is the short id Gemini CLI derives from a project's base name.
func slugify(name string) string {
	s := strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		return "project"
	}
	return s
}

// newestSession is the most recently modified session-*-<id[:8]>.jsonl or .json in dir
// (ties: the greater name), or "".
func newestSession(dir, sessionID string) string {
	short := sessionID[:min(8, len(sessionID))]
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	best, bestTime := "", int64(0)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "session-") ||
			!(strings.HasSuffix(name, "-"+short+".jsonl") || strings.HasSuffix(name, "-"+short+".json")) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		t := info.ModTime().UnixNano()
		if best == "" || t > bestTime || (t == bestTime && name > best) {
			best, bestTime = name, t
		}
	}
	if best == "" {
		return ""
	}
	return filepath.Join(dir, best)
}
