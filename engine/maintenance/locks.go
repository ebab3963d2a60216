package maintenance

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// StaleLockAge is how old a lock on one of entire's refs must be before doctor calls it left
// over: git holds a ref lock for the length of one update, milliseconds.
const StaleLockAge = time.Minute

// RefLock is a lock file on one of entire's refs (or on packed-refs, which deleting a ref
// locks), with how long ago it was made.
type RefLock struct {
	Path string
	Age  time.Duration
}

// RefLocks lists the lock files on entire's refs under commonDir, and on packed-refs. A git
// process that was killed while updating a ref (a hook runner's timeout kills the whole
// process group) leaves its lock behind, and every later update of that ref fails until it is
// removed: the checkpoints of linked commits then stay pending.
func RefLocks(commonDir string, now time.Time) []RefLock {
	var locks []RefLock
	add := func(path string) {
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
			locks = append(locks, RefLock{Path: path, Age: now.Sub(fi.ModTime())})
		}
	}
	_ = filepath.WalkDir(filepath.Join(commonDir, "refs", "heads", "entire"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".lock") {
			add(path)
		}
		return nil
	})
	add(filepath.Join(commonDir, "packed-refs.lock"))
	return locks
}

// RecordRefProblem says what is wrong with entire/checkpoints/v1 when it names an object that
// is missing or not a commit (a ref edited by hand, a repository copied without its objects),
// or "" when it is sound or absent. Nothing of the record can be read until it is repaired.
func (en *Maintenance) RecordRefProblem(ctx context.Context) string {
	ref := gitexec.BranchRef(checkpoint.MetadataBranch)
	oid, ok, err := en.Repo.ResolveRef(ctx, ref)
	if err != nil || !ok {
		return ""
	}
	out, err := en.Repo.Run(ctx, nil, "cat-file", "-t", string(oid))
	if typ := strings.TrimSpace(string(out)); err == nil && typ == "commit" {
		return ""
	} else if err == nil {
		return fmt.Sprintf("%s points to %s, a %s, not a commit", checkpoint.MetadataBranch, oid, typ)
	}
	return fmt.Sprintf("%s points to %s, which is not in the repository", checkpoint.MetadataBranch, oid)
}
