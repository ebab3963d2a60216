package sharing

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/entirerec/entire/gitexec"
)

// Record is the metadata branch of one repository, as shared through its remotes.
type Record struct {
	Repo   *gitexec.Repo
	Log    *slog.Logger
	Stderr io.Writer // warnings for the person pushing
}

// treeOf resolves the tree of a commit.
func (r *Record) treeOf(ctx context.Context, commit string) (gitexec.OID, error) {
	tree, err := r.Repo.CommitTreeOID(ctx, commit)
	if err != nil {
		return "", fmt.Errorf("resolve tree of %s: %w", commit, err)
	}
	return tree, nil
}
