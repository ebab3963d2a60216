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
