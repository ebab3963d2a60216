package checkpoint

import (
	"context"
	"fmt"
	"sort"
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
	if err != nil {
		return nil, err
	}
	return splitRecords(out, n)
}

// splitRecords splits git log -z output of n NUL-separated fields per commit.
func splitRecords(out []byte, n int) ([][]string, error) {
	if len(out) == 0 {
		return nil, nil
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

// RecordedLinkedCommits lists, newest first, the commits reachable from rev that the recorded
// links (ReadLinks) tie to checkpoints: commits whose trailer a rewrite lost, such as a squash
// merge made by a hosting service. Two git processes, whatever the number of links.
func RecordedLinkedCommits(ctx context.Context, repo *gitexec.Repo, rev string) ([]LinkedCommit, error) {
	links, err := ReadLinks(repo.CommonDir)
	if err != nil {
		return nil, err
	}
	var shas []string
	for sha, ls := range links {
		if len(ls) > 0 {
			shas = append(shas, sha)
		}
	}
	if len(shas) == 0 {
		return nil, nil
	}
	// The linked commits that still exist, with their dates and subjects.
	stdin := []byte(strings.Join(shas, "\n") + "\n")
	out, err := repo.Run(ctx, stdin, "log", "-z", "--no-walk", "--ignore-missing", "--stdin",
		"--format=%H%x00%aI%x00%an <%ae>%x00%B", "--")
	if err != nil {
		return nil, fmt.Errorf("list linked commits: %w", err)
	}
	recs, err := splitRecords(out, 4)
	if err != nil {
		return nil, err
	}
	// Those of them rev does not reach: the ones rev-list lists besides rev's own history.
	out, err = repo.Run(ctx, stdin, "rev-list", "--ignore-missing", "--stdin", "^"+rev, "--")
	if err != nil {
		return nil, fmt.Errorf("list linked commits: %w", err)
	}
	unreached := map[string]bool{}
	for _, l := range strings.Fields(string(out)) {
		unreached[l] = true
	}
	var found []LinkedCommit
	for _, f := range recs {
		if unreached[f[0]] {
			continue
		}
		date, _ := time.Parse(time.RFC3339, f[1])
		for _, l := range links[f[0]] {
			found = append(found, LinkedCommit{SHA: gitexec.OID(f[0]), CheckpointID: l.CheckpointID, Subject: subject(f[3]), Date: date, Author: f[2]})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Date.After(found[j].Date) })
	return found, nil
}
