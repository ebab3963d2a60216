package checkpoint

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// CheckpointTrailer is the key linking a user commit to its committed checkpoint.
const CheckpointTrailer = "Entire-Checkpoint"

var (
	checkpointTrailerRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`Entire-Checkpoint:\s*([0-9a-f]{12})(?:\s|$)`)
	})
)

// NewCheckpointID returns a random 12-hex ID (also used for turn IDs), spec §4.1.
func NewCheckpointID() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate checkpoint id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// CheckpointPath is the sharded directory of a checkpoint on the metadata branch.
func CheckpointPath(id string) string { return id[:2] + "/" + id[2:] }

// ParseCheckpointTrailer finds the first valid Entire-Checkpoint trailer anywhere in msg.
func ParseCheckpointTrailer(msg string) (string, bool) {
	m := checkpointTrailerRe().FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// CheckpointTrailers are all valid Entire-Checkpoint trailers in msg, in order (a squash of
// linked commits carries several).
func CheckpointTrailers(msg string) []string {
	var ids []string
	for _, m := range checkpointTrailerRe().FindAllStringSubmatch(msg, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// AppendTrailer adds the trailer with the plain-append rule of spec §4.3: join an existing
// trailer block at the end of the message, or open one after a blank line.
func AppendTrailer(msg, id string) string {
	msg = strings.TrimRight(msg, "\n")
	lines := strings.Split(msg, "\n")
	inBlock := false
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if strings.HasPrefix(l, "#") {
			continue
		}
		if strings.TrimSpace(l) == "" {
			break
		}
		inBlock = strings.Contains(l, ": ")
		break
	}
	if inBlock {
		return msg + "\n" + CheckpointTrailer + ": " + id + "\n"
	}
	return msg + "\n\n" + CheckpointTrailer + ": " + id + "\n"
}

// InsertTrailerWithComment adds the trailer for the editor flow of spec §4.3, with comment lines
// telling the user how to unlink the commit.
func InsertTrailerWithComment(msg, id, agent, lastPrompt string) string {
	block := CheckpointTrailer + ": " + id + "\n" +
		"# Remove the Entire-Checkpoint trailer above if you don't want to link this commit to " + agent + " session context.\n"
	if lastPrompt != "" {
		block += "# Last Prompt: " + lastPrompt + "\n"
	}
	block += "# The trailer will be added to your next commit based on this branch."
	idx := -1
	lines := strings.SplitAfter(msg, "\n")
	pos := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "#") {
			idx = pos
			break
		}
		pos += len(l)
	}
	switch {
	case idx < 0:
		return strings.TrimRight(msg, "\n") + "\n\n" + block + "\n"
	case strings.TrimSpace(msg[:idx]) == "":
		return "\n\n" + block + "\n\n" + msg[idx:]
	default:
		return strings.TrimRight(msg[:idx], "\n") + "\n\n" + block + "\n\n" + msg[idx:]
	}
}

// StripLoneTrailer implements commit-msg (spec §4.4): when the message has a checkpoint trailer
// but no user content, remove the trailer lines so git aborts the empty commit.
func StripLoneTrailer(msg string) (string, bool) {
	if _, ok := ParseCheckpointTrailer(msg); !ok {
		return msg, false
	}
	var kept []string
	for _, l := range strings.SplitAfter(msg, "\n") {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, CheckpointTrailer+":") {
			return msg, false
		}
		if !strings.HasPrefix(t, CheckpointTrailer+":") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, ""), true
}

// TrailerValue returns the first value of "<key>: value" read line by line (spec §2.3 advises
// line-wise parsing so an empty value does not swallow the next line).
func TrailerValue(msg, key string) string {
	for _, l := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
