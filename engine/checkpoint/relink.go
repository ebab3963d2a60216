package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/entirerec/entire/gitexec"
)

// A commit whose trailer was lost (a squash by a hosting service, a rebase or amend by someone
// without the hooks, a cherry-pick with an edited message) can still be traced to checkpoints by
// its content: the linked commits it was made from are usually still in some ref or the reflog.

// contentScan bounds how many linked commits a content search reads.
const contentScan = 2000

// ContentLink is a linked commit whose change a trailer-less commit contains.
type ContentLink struct {
	Commit       gitexec.OID `json:"commit"`
	CheckpointID string      `json:"checkpoint_id"`
	Same         bool        `json:"same,omitempty"` // the same change (equal patch-id); else a part of a squash
	// Edited: the one linked commit with exactly this commit's files, some with other content
	// (a cherry-pick or rebase whose conflicts were resolved another way, or an edit on top).
	Edited bool `json:"edited,omitempty"`
	// Part: a linked commit that is no ancestor of this one and changed every file this one
	// changed, to the same content, and more: this commit is a part of it (a linked commit
	// undone with `git reset` and committed again in pieces, or a file an amend took out of it
	// and committed on its own).
	Part bool `json:"part,omitempty"`
}

// ContentIndex is what a content search compares a commit with: the linked commits reachable
// from any ref or the reflog (and those linked by content before), their checkpoint IDs,
// patch-ids and changed files. Building it costs a few git processes, whatever the number of
// commits then searched.
type ContentIndex struct {
	repo     *gitexec.Repo
	order    []string            // linked commits, newest first
	trailers map[string][]string // their checkpoint IDs
	patchIDs map[string][]string // patch-id → linked commits
	files    map[string]map[string]gitexec.OID
}

// NewContentIndex reads the linked commits of the repository.
func NewContentIndex(ctx context.Context, repo *gitexec.Repo) (*ContentIndex, error) {
	x := &ContentIndex{repo: repo, trailers: map[string][]string{}, patchIDs: map[string][]string{}, files: map[string]map[string]gitexec.OID{}}
	logArgs := []string{"log", "--all", "--reflog", "--no-merges", fmt.Sprintf("-n%d", contentScan),
		"--grep=^" + CheckpointTrailer + ":", "--format=%H%x00%B%x00"}
	out, err := repo.Run(ctx, nil, logArgs...)
	if err != nil {
		return nil, fmt.Errorf("list linked commits: %w", err)
	}
	fields := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		sha := strings.TrimSpace(fields[i])
		if ids := CheckpointTrailers(fields[i+1]); sha != "" && len(ids) > 0 && x.trailers[sha] == nil {
			x.trailers[sha] = ids
			x.order = append(x.order, sha)
		}
	}
	// Commits linked by content before (entire relink) count as linked: links carry on through
	// further rewrites. A linked commit's recorded links (the checkpoints of commits a rebase
	// folded into it) join its trailers.
	if recorded, err := ReadLinks(repo.CommonDir); err == nil {
		for sha, l := range recorded {
			if len(l) == 0 {
				continue
			}
			listed := x.trailers[sha] != nil
			if !listed {
				if _, err := repo.CommitParents(ctx, sha); err != nil {
					continue // gone with a gc
				}
			}
			for _, c := range l {
				if !slices.Contains(x.trailers[sha], c.CheckpointID) {
					x.trailers[sha] = append(x.trailers[sha], c.CheckpointID)
				}
			}
			if !listed {
				x.order = append(x.order, sha)
			}
		}
	}
	if len(x.order) == 0 {
		return x, nil
	}
	patches, err := repo.Run(ctx, nil, append([]string{"log", "--no-walk=unsorted", "-p", "--format=commit %H", "--no-merges"}, x.order...)...)
	if err != nil {
		return nil, fmt.Errorf("diff linked commits: %w", err)
	}
	ids, err := repo.Run(ctx, patches, "patch-id", "--stable")
	if err != nil {
		return nil, fmt.Errorf("patch-id of linked commits: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(ids))
	for sc.Scan() {
		if pid, sha, ok := strings.Cut(strings.TrimSpace(sc.Text()), " "); ok {
			x.patchIDs[pid] = append(x.patchIDs[pid], sha)
		}
	}
	raw, err := repo.Run(ctx, nil, append([]string{"log", "--no-walk=unsorted", "--raw", "-r", "--no-renames", "--abbrev=40", "--format=%x01%H"}, x.order...)...)
	if err != nil {
		return nil, fmt.Errorf("list linked commits' files: %w", err)
	}
	for _, rec := range strings.Split(string(raw), "\x01")[1:] {
		lines := strings.Split(strings.TrimSpace(rec), "\n")
		sha := strings.TrimSpace(lines[0])
		files := map[string]gitexec.OID{}
		for _, l := range lines[1:] {
			meta, path, ok := strings.Cut(l, "\t")
			f := strings.Fields(meta)
			if !ok || len(f) < 5 {
				continue
			}
			files[path] = gitexec.OID(f[3])
			if f[4] == "D" {
				files[path] = ""
			}
		}
		x.files[sha] = files
	}
	return x, nil
}

// FindByContent looks for the checkpoints of a commit without a trailer among the linked commits
// reachable from any ref or reflog entry (see ContentIndex.Find).
func FindByContent(ctx context.Context, repo *gitexec.Repo, commit gitexec.OID) ([]ContentLink, error) {
	x, err := NewContentIndex(ctx, repo)
	if err != nil {
		return nil, err
	}
	return x.Find(ctx, commit)
}

// Find maps a commit without a trailer to checkpoints: a linked commit with the same patch-id is
// the same change (rebased, amended, cherry-picked); otherwise linked commits whose changed files
// all lie in the commit's change, each leaving at least one file as the commit has it, and
// together covering every file it changed, are the parts of a squash; failing both, a linked
// commit it is a part of (splitOf). Nothing found is no error.
func (x *ContentIndex) Find(ctx context.Context, commit gitexec.OID) ([]ContentLink, error) {
	if len(x.order) == 0 {
		return nil, nil
	}
	patch, err := x.repo.Run(ctx, nil, "diff-tree", "-p", "--root", "--no-commit-id", string(commit))
	if err != nil {
		return nil, fmt.Errorf("diff of %s: %w", commit.Short(7), err)
	}
	var links []ContentLink
	if len(patch) > 0 {
		own, err := x.repo.Run(ctx, patch, "patch-id", "--stable")
		if err != nil {
			return nil, fmt.Errorf("patch-id of %s: %w", commit.Short(7), err)
		}
		ownID, _, _ := strings.Cut(strings.TrimSpace(string(own)), " ")
		same := slices.DeleteFunc(slices.Clone(x.patchIDs[ownID]), func(sha string) bool { return sha == string(commit) })
		for _, sha := range x.distinct(same) {
			for _, id := range x.trailers[sha] {
				links = append(links, ContentLink{Commit: gitexec.OID(sha), CheckpointID: id, Same: true})
			}
		}
	}
	if len(links) > 0 {
		return links, nil
	}
	return x.squashParts(ctx, commit)
}

// squashParts finds the linked commits a trailer-less commit is a squash of (Find): linked
// commits whose files all lie in its change, each keeping at least one file as the commit has
// it, together covering every file it changed. One such commit alone is the same work edited.
func (x *ContentIndex) squashParts(ctx context.Context, commit gitexec.OID) ([]ContentLink, error) {
	mine, err := postImages(ctx, x.repo, string(commit))
	if err != nil || len(mine) == 0 {
		return nil, err
	}
	covered := map[string]bool{}
	var parts []string
	for _, sha := range x.order {
		theirs := x.files[sha]
		if sha == string(commit) || len(theirs) == 0 {
			continue
		}
		inside, kept := true, false
		for p, oid := range theirs {
			got, ok := mine[p]
			if !ok {
				inside = false
				break
			}
			if got == oid {
				kept = true
			}
		}
		if !inside || !kept {
			continue
		}
		parts = append(parts, sha)
		for p := range theirs {
			covered[p] = true
		}
	}
	if len(parts) == 0 || len(covered) != len(mine) {
		return x.splitOf(ctx, commit, mine)
	}
	parts = x.distinct(parts)
	if len(parts) == 1 {
		// One linked commit with the same files, at least one kept as it is: the same work,
		// edited (a conflict resolved another way).
		var links []ContentLink
		for _, id := range x.trailers[parts[0]] {
			links = append(links, ContentLink{Commit: gitexec.OID(parts[0]), CheckpointID: id, Edited: true})
		}
		return links, nil
	}
	sort.SliceStable(parts, func(i, j int) bool { return indexOf(x.order, parts[i]) > indexOf(x.order, parts[j]) }) // oldest first
	var links []ContentLink
	for _, sha := range parts {
		for _, id := range x.trailers[sha] {
			links = append(links, ContentLink{Commit: gitexec.OID(sha), CheckpointID: id})
		}
	}
	return links, nil
}

// splitCandidates bounds the ancestry checks of splitOf (one git process each).
const splitCandidates = 8

// splitOf finds the linked commit a trailer-less commit is a part of: the newest linked commit
// that changed every file the commit changed, to the same content (a deletion or an empty file
// alone is no evidence: any commit may give a path that content), and other files too, that no branch holds any more (onBranch), and whose content
// the commit is the first since their fork to give those files: a commit that only sets a file
// back to what a linked commit had given it (an ancestor's, or a split's piece committed
// before) is no part of it. mine are the commit's post-images.
func (x *ContentIndex) splitOf(ctx context.Context, commit gitexec.OID, mine map[string]gitexec.OID) ([]ContentLink, error) {
	checked := 0
	for _, sha := range x.order {
		theirs := x.files[sha]
		if sha == string(commit) || len(theirs) <= len(mine) {
			continue
		}
		inside, content := true, false
		for p, oid := range mine {
			if got, ok := theirs[p]; !ok || got != oid {
				inside = false
				break
			}
			content = content || oid != "" && !x.repo.IsEmptyBlob(oid)
		}
		if !inside || !content {
			continue
		}
		if checked++; checked > splitCandidates {
			break
		}
		kept, err := x.onBranch(ctx, gitexec.OID(sha))
		if err != nil {
			return nil, err
		}
		if kept {
			continue
		}
		first, err := x.firstToGive(ctx, gitexec.OID(sha), commit, mine)
		if err != nil {
			return nil, err
		}
		if !first {
			continue
		}
		var links []ContentLink
		for _, id := range x.trailers[sha] {
			links = append(links, ContentLink{Commit: gitexec.OID(sha), CheckpointID: id, Part: true})
		}
		return links, nil
	}
	return nil, nil
}

// onBranch reports whether a branch, tag or remote branch (not Entire's own branches) still
// holds commit: a commit split into pieces, or amended, was replaced and is left in the reflog
// only, while one a branch keeps is its own change (another branch's commit with a file as one
// of them has it is no part of it).
func (x *ContentIndex) onBranch(ctx context.Context, commit gitexec.OID) (bool, error) {
	out, err := x.repo.Run(ctx, nil, "for-each-ref", "--contains", string(commit), "--format=%(refname)", "refs/heads", "refs/tags", "refs/remotes")
	if err != nil {
		return false, fmt.Errorf("refs holding %s: %w", commit.Short(7), err)
	}
	for _, ref := range strings.Split(string(out), "\n") {
		name, local := strings.CutPrefix(ref, "refs/heads/")
		if remote, ok := strings.CutPrefix(ref, "refs/remotes/"); ok {
			_, name, _ = strings.Cut(remote, "/")
			local = true
		}
		if ref != "" && !(local && strings.HasPrefix(name, "entire/")) {
			return true, nil
		}
	}
	return false, nil
}

// firstToGive reports whether commit is the first commit since it forked from linked (their
// merge base) to give its files their content there: false when linked is its ancestor, or a
// commit between the fork and it already gave one of them that content.
func (x *ContentIndex) firstToGive(ctx context.Context, linked, commit gitexec.OID, mine map[string]gitexec.OID) (bool, error) {
	base, ok, err := x.repo.MergeBase(ctx, linked, commit)
	if err != nil {
		return false, err
	}
	args := []string{"log", "--raw", "-r", "--no-renames", "--abbrev=40", "--format=%x01%H", string(commit)}
	if ok {
		if base == linked {
			return false, nil
		}
		args = append(args, "^"+string(base))
	}
	args = append(args, "--")
	for p := range mine {
		args = append(args, ":(literal)"+p)
	}
	out, err := x.repo.Run(ctx, nil, args...)
	if err != nil {
		return false, fmt.Errorf("history of %s's files: %w", commit.Short(7), err)
	}
	for _, rec := range strings.Split(string(out), "\x01")[1:] {
		lines := strings.Split(strings.TrimSpace(rec), "\n")
		if strings.TrimSpace(lines[0]) == string(commit) {
			continue
		}
		for _, l := range lines[1:] {
			meta, path, ok := strings.Cut(l, "\t")
			f := strings.Fields(meta)
			if ok && len(f) >= 5 && f[4] != "D" && mine[path] == gitexec.OID(f[3]) {
				return false, nil
			}
		}
	}
	return true, nil
}

// distinct keeps one of the linked commits that carry the same trailers (a rebased or
// cherry-picked copy and its original, both in the reflog: one change), the newest. It
// reuses shas.
func (x *ContentIndex) distinct(shas []string) []string {
	newest := map[string]string{} // trailers → newest commit carrying them
	for _, sha := range shas {
		key := strings.Join(x.trailers[sha], " ")
		if o, ok := newest[key]; !ok || indexOf(x.order, sha) < indexOf(x.order, o) {
			newest[key] = sha
		}
	}
	return slices.DeleteFunc(shas, func(sha string) bool { return newest[strings.Join(x.trailers[sha], " ")] != sha })
}

// postImages maps each path a commit changed against its first parent to its new blob ("" when
// deleted).
func postImages(ctx context.Context, repo *gitexec.Repo, commit string) (map[string]gitexec.OID, error) {
	parents, err := repo.CommitParents(ctx, commit)
	if err != nil {
		return nil, err
	}
	parent := ""
	if len(parents) > 0 {
		parent = string(parents[0])
	}
	diff, err := repo.DiffTree(ctx, parent, commit)
	if err != nil {
		return nil, err
	}
	out := make(map[string]gitexec.OID, len(diff))
	for _, d := range diff {
		if d.Status == 'D' {
			out[d.Path] = ""
		} else {
			out[d.Path] = d.NewOID
		}
	}
	return out, nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// Links are the content links `entire relink` recorded, by commit: later lookups need no search.
// An empty entry records a commit searched without result.
// They live in the repository's common git directory (entire-links.json), outside the record, so
// the metadata branch stays exactly what the reference reads.
type Links map[string][]ContentLink

// LinksPath is where the links of a repository are kept.
func LinksPath(commonDir string) string { return filepath.Join(commonDir, "entire-links.json") }

// ReadLinks loads the recorded links (none when the file is missing).
func ReadLinks(commonDir string) (Links, error) {
	data, err := os.ReadFile(LinksPath(commonDir))
	if errors.Is(err, fs.ErrNotExist) {
		return Links{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	l := Links{}
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("read links %s: %w", LinksPath(commonDir), err)
	}
	return l, nil
}

// WriteLinks saves the links atomically.
func WriteLinks(commonDir string, l Links) error {
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	tmp := LinksPath(commonDir) + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write links: %w", err)
	}
	if err := os.Rename(tmp, LinksPath(commonDir)); err != nil {
		return fmt.Errorf("write links: %w", err)
	}
	return nil
}
