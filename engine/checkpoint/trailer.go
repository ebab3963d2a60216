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

// CheckpointTrailers are all valid Entire-Checkpoint trailers in msg, oldest first (a squash of
// linked commits carries several): in order, except the squashed commits `git merge --squash`
// lists newest first (squashListing), whose trailers are taken from the oldest commit's on.
func CheckpointTrailers(msg string) []string {
	var ids []string
	before, listing, found := strings.Cut(msg, "\n"+squashHeader+"\n")
	if !found {
		before, listing, found = strings.Cut(msg, squashHeader+"\n")
		found = found && before == ""
	}
	if !found {
		before, listing = msg, ""
	}
	for _, m := range checkpointTrailerRe().FindAllStringSubmatch(before, -1) {
		ids = append(ids, m[1])
	}
	if found {
		ids = append(ids, squashListing(listing)...)
	}
	return ids
}

// squashHeader opens the message `git merge --squash` prepares: then each squashed commit, newest
// first, as a "commit <hash>" line and its header and message, the message indented.
const squashHeader = "Squashed commit of the following:"

// squashListing reads the trailers of the commits a squash message lists (after squashHeader),
// the oldest commit's first, each commit's in their order; a trailer outside the listed
// messages (not indented) was added to the squash afterwards and comes last.
func squashListing(listing string) []string {
	var blocks [][]string // per listed commit, newest first
	var after []string
	for _, l := range strings.Split(listing, "\n") {
		if rest, ok := strings.CutPrefix(l, "commit "); ok && len(strings.TrimSpace(rest)) >= 40 {
			blocks = append(blocks, nil)
			continue
		}
		for _, m := range checkpointTrailerRe().FindAllStringSubmatch(l, -1) {
			if len(blocks) > 0 && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
				blocks[len(blocks)-1] = append(blocks[len(blocks)-1], m[1])
			} else {
				after = append(after, m[1])
			}
		}
	}
	var ids []string
	for i := len(blocks) - 1; i >= 0; i-- {
		ids = append(ids, blocks[i]...)
	}
	return append(ids, after...)
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
