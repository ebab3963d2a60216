package checkpoint

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/entirerec/entire/gitexec"
)

// LinkedCommit is a commit whose message carries an Entire-Checkpoint trailer.
type LinkedCommit struct {
	SHA          gitexec.OID
	CheckpointID string
	Subject      string
	Date         time.Time // author date
	Author       string    // "Name <email>"
}

// LinkedCommits lists, newest first, the commits reachable from rev that carry a checkpoint
// trailer (one entry per trailer, in the message's order) (only those naming id, when id is not ""), at most limit of them (0: all), with one
// git log.
func LinkedCommits(ctx context.Context, repo *gitexec.Repo, rev, id string, limit int) ([]LinkedCommit, error) {
	return LinkedCommitsIn(ctx, repo, []string{rev}, id, limit)
}

// LinkedCommitsIn is LinkedCommits over the commits git log lists for revs (revisions and
// options such as --first-parent or ^<excluded>).
func LinkedCommitsIn(ctx context.Context, repo *gitexec.Repo, revs []string, id string, limit int) ([]LinkedCommit, error) {
	want := "[0-9a-f]{12}"
	if id != "" {
		want = id
	}
	args := []string{"log", "-z", "-E", "--grep=" + CheckpointTrailer + ":[[:space:]]*" + want,
		"--format=%H%x00%aI%x00%an <%ae>%x00%B"}
	if limit > 0 {
		args = append(args, "--max-count="+strconv.Itoa(limit))
	}
	args = append(args, revs...)
	recs, err := logRecords(ctx, repo, append(args, "--"), 4)
	if err != nil {
		return nil, fmt.Errorf("list linked commits: %w", err)
	}
	var out []LinkedCommit
	for _, f := range recs {
		date, _ := time.Parse(time.RFC3339, f[1])
		// A squash of linked commits carries several trailers: each links its checkpoint.
		for _, cp := range CheckpointTrailers(f[3]) {
			if id == "" || cp == id {
				out = append(out, LinkedCommit{SHA: gitexec.OID(f[0]), CheckpointID: cp, Subject: subject(f[3]), Date: date, Author: f[2]})
			}
		}
	}
	return out, nil
}

// logRecords runs a git log whose -z format has n NUL-separated fields per commit.
func logRecords(ctx context.Context, repo *gitexec.Repo, args []string, n int) ([][]string, error) {
	out, err := repo.Run(ctx, nil, args...)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(fields)%n != 0 {
		return nil, fmt.Errorf("unexpected git log output: %d fields", len(fields))
	}
	var recs [][]string
	for i := 0; i < len(fields); i += n {
		recs = append(recs, fields[i:i+n])
	}
	return recs, nil
}

func subject(msg string) string {
	first, _, _ := strings.Cut(strings.TrimLeft(msg, "\n"), "\n")
	return strings.TrimSpace(first)
}
