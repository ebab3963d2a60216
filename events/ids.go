package events

// ValidCheckpointID reports whether id is a checkpoint ID: 12 lowercase hex characters.
// (A loop rather than a regular expression: every hook process would compile one at start.)
func ValidCheckpointID(id string) bool {
	if len(id) != 12 {
		return false
	}
	for i := range len(id) {
		if c := id[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
