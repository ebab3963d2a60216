package claudecode

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
)

// SubagentUsage sums the token usage of the subagents ids of session sessionID whose transcript
// is at transcriptPath (entire-format.md §12.3): each subagent's own transcript, read from its
// start, at <dir of transcriptPath>/<sessionID>/subagents/agent-<id>.jsonl, else at the legacy
// sibling <dir>/agent-<id>.jsonl (agent-hooks.md §1.6). An ID that is not [A-Za-z0-9]+ names
// no file, and a transcript that cannot be read counts nothing. The result is nil when the
// subagents made no API call.
func SubagentUsage(transcriptPath, sessionID string, ids []string) *events.TokenUsage {
	if transcriptPath == "" {
		return nil
	}
	dir := filepath.Dir(transcriptPath)
	var total events.TokenUsage
	for _, id := range ids {
		if !alnum(id) {
			continue
		}
		var paths []string
		if agent.ValidateSessionID(sessionID) == nil {
			paths = append(paths, filepath.Join(dir, sessionID, "subagents", "agent-"+id+".jsonl"))
		}
		for _, p := range append(paths, filepath.Join(dir, "agent-"+id+".jsonl")) {
			sc, err := ScanFile(p, 0)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err == nil {
				total = total.Add(sc.Usage)
			}
			break
		}
	}
	if total.APICallCount == 0 {
		return nil
	}
	return &total
}

// alnum reports whether id is a non-empty run of ASCII letters and digits.
func alnum(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return id != ""
}
