package events

import "regexp"

var checkpointIDRe = regexp.MustCompile(`^[0-9a-f]{12}$`)

// ValidCheckpointID reports whether id is a checkpoint ID: 12 lowercase hex characters.
func ValidCheckpointID(id string) bool { return checkpointIDRe.MatchString(id) }
