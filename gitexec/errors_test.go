package gitexec_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

// TestObjectMissing names an object that is not in the repository to the commands that
// write commits and refs, and to a reader: each failure is ErrObjectMissing, not a lost race.
func TestObjectMissing(t *testing.T) {
	r, _, c2 := refsFixture(t)
	ctx := context.Background()
	missing := gitexec.OID(strings.Repeat("1234567890", 4))
	tree, err := r.EmptyTree(ctx)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"commit-tree of a missing tree": func() error {
			_, err := r.CommitTree(ctx, missing, nil, "m\n")
			return err
		},
		"commit-tree with a missing parent": func() error {
			_, err := r.CommitTree(ctx, tree, []gitexec.OID{missing}, "m\n")
			return err
		},
		"update-ref to a missing object": func() error {
			return r.UpdateRefs(ctx, []gitexec.RefUpdate{{Name: "refs/heads/main", New: missing, Old: c2}})
		},
		"cat-file -p of a missing object": func() error {
			_, err := r.Run(ctx, nil, "cat-file", "-p", string(missing))
			return err
		},
	}
	for name, call := range calls {
		err := call()
		if !errors.Is(err, gitexec.ErrObjectMissing) || errors.Is(err, gitexec.ErrRefMoved) {
			t.Errorf("%s: err = %v, want ErrObjectMissing", name, err)
			continue
		}
		if !strings.Contains(err.Error(), string(missing)) {
			t.Errorf("%s: err = %v, want git's message naming the object", name, err)
		}
	}
}
