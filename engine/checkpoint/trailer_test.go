package checkpoint_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/entirerec/entire/engine/checkpoint"
)

func TestCheckpointTrailers(t *testing.T) {
	const (
		a = "aaaaaaaaaaaa"
		b = "bbbbbbbbbbbb"
		c = "cccccccccccc"
		d = "dddddddddddd"
	)
	h1, h2 := strings.Repeat("1", 40), strings.Repeat("2", 40)
	tests := []struct {
		name, msg string
		want      []string
	}{
		{"one", "Add a\n\nEntire-Checkpoint: " + a + "\n", []string{a}},
		{"rebase squash, in order", "Add a\n\nEntire-Checkpoint: " + a + "\n\nAdd b\n\nEntire-Checkpoint: " + b + "\n", []string{a, b}},
		{"git merge --squash lists newest first", "Squashed commit of the following:\n\n" +
			"commit " + h2 + "\nAuthor: U <u@e.com>\nDate:   today\n\n    Add b\n\n    Entire-Checkpoint: " + b + "\n\n" +
			"commit " + h1 + "\nAuthor: U <u@e.com>\nDate:   today\n\n    Add a\n\n    Entire-Checkpoint: " + a + "\n    Entire-Checkpoint: " + c + "\n",
			[]string{a, c, b}},
		{"text above the listing, a trailer added after it", "Feature\n\nEntire-Checkpoint: " + d + "\n\nSquashed commit of the following:\n\n" +
			"commit " + h2 + "\n\n    Add b\n\n    Entire-Checkpoint: " + b + "\n\n" +
			"commit " + h1 + "\n\n    Add a\n\n    Entire-Checkpoint: " + a + "\n\nEntire-Checkpoint: " + c + "\n",
			[]string{d, a, b, c}},
		{"the header quoted in a line is no listing", "Why: Squashed commit of the following:\nEntire-Checkpoint: " + a + "\nEntire-Checkpoint: " + b + "\n", []string{a, b}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkpoint.CheckpointTrailers(tt.msg); !slices.Equal(got, tt.want) {
				t.Errorf("CheckpointTrailers = %v, want %v", got, tt.want)
			}
		})
	}
}
