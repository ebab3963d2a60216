package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/gitexec"
)

// The overlap check asks about the session's files a few at a time and stops at the first
// file the commit changes that existed before: a commit of a hundred of the session's files
// looks up eight of them. When none of those decides, every file is asked about.
func TestLinkFactsStopsAtFirstOverlap(t *testing.T) {
	en := testRepo(t)
	var touched []string
	for i := range 100 {
		touched = append(touched, fmt.Sprintf("d%03d/f", i))
	}
	s := session.State{SessionID: "s", Phase: session.PhaseIdle, FilesTouched: touched}
	source := func(changed map[string]byte) (changeSource, *int) {
		asked := new(int)
		return func(_ context.Context, paths []string) ([]gitexec.DiffEntry, error) {
			*asked += len(paths)
			var out []gitexec.DiffEntry
			for _, p := range paths {
				if st, ok := changed[p]; ok {
					out = append(out, gitexec.DiffEntry{Path: p, Status: st})
				}
			}
			return out, nil
		}, asked
	}
	all := map[string]byte{}
	for _, p := range touched {
		all[p] = 'M'
	}
	changed, asked := source(all)
	if overlap, _, _, err := en.linkFacts(context.Background(), s, changed); err != nil || !overlap {
		t.Fatalf("overlap = %v, %v; want true", overlap, err)
	}
	if *asked > 8 {
		t.Errorf("asked about %d files to find the first of a hundred changed", *asked)
	}
	changed, asked = source(map[string]byte{"d099/f": 'D'})
	if overlap, _, _, err := en.linkFacts(context.Background(), s, changed); err != nil || !overlap {
		t.Fatalf("overlap = %v, %v with the last file deleted; want true", overlap, err)
	}
	if *asked != len(touched) {
		t.Errorf("asked about %d files, want all %d", *asked, len(touched))
	}
	changed, _ = source(map[string]byte{"elsewhere": 'M'})
	if overlap, _, _, err := en.linkFacts(context.Background(), s, changed); err != nil || overlap {
		t.Fatalf("overlap = %v, %v for a commit of other files; want false", overlap, err)
	}
}
