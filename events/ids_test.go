package events

import "testing"

func TestValidCheckpointID(t *testing.T) {
	for id, want := range map[string]bool{
		"0123456789ab": true, "a3b2c4d5e6f7": true, "ffffffffffff": true,
		"": false, "0123456789a": false, "0123456789abc": false,
		"0123456789AB": false, "0123456789ag": false, "0123456789a/": false,
		"0123456789a\n": false, "0123456789aé": false, "../../../etc": false,
	} {
		if got := ValidCheckpointID(id); got != want {
			t.Errorf("ValidCheckpointID(%q) = %v, want %v", id, got, want)
		}
	}
}
