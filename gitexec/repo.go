package gitexec

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Repo is a git work tree, found once by Open and named explicitly in every
// git invocation. A Repo holds long-lived child processes: Close it.
type Repo struct {
	TopLevel  string // absolute work-tree root (git rev-parse --show-toplevel)
	GitDir    string // absolute git dir of this work tree
	CommonDir string // absolute common git dir, shared by linked work trees
	// HookIndex is the absolute path of the GIT_INDEX_FILE that was in the
	// environment at Open, or "". Git hooks such as prepare-commit-msg run
	// with a temporary index given this way, often as a path relative to the
	// process's working directory; Open resolves it.
	HookIndex string

	env        []string // environment of every child
	hexLen     int      // 40 (sha1) or 64 (sha256)
	cat        batchProc
	objects    objectCache   // trees and commits read, by names that cannot change
	loose      looseState    // whether loose objects are read from their files (loose.go)
	packs      packSet       // packed objects read from the pack files (packread.go)
	staged     stagedEntries // the index's entries, for StagedPaths (index.go)
	ahead      prestarted    // processes started before their input is known (PrestartWrites)
	headAtOpen OID           // HEAD when opened; "" on an unborn branch
	// filesRefs: opened from its files (openFromFiles), so refs are loose files and
	// packed-refs (in CommonDir, a linked worktree's own refs in GitDir: refsDir), and
	// ResolveRef reads them without a process.
	filesRefs bool
	deferred  deferredBlobs // DeferBlobs' queue
	// ident: the author and committer lines commit-tree would write, when AdoptIdentity
	// learned them; commits are then written in the pack of their trees.
	ident      *identity
	identCache identityCache // where CacheIdentity keeps the identity between processes
}

// Open finds the work tree containing dir with one "git rev-parse". It works
// from any subdirectory and inside a linked work tree. When dir is not inside
// a work tree (including bare repositories and .git directories) the error
// wraps ErrNotRepository.
func Open(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	env := buildEnv(os.Environ())
	if r, ok := openFromFiles(abs, env); ok {
		return r, nil
	}
	args := []string{"rev-parse", "--path-format=absolute",
		"--show-toplevel", "--git-dir", "--git-common-dir", "--show-object-format"}
	// HEAD rides along in the same process; on an unborn branch rev-parse refuses it, and we
	// ask again without it.
	out, err := runGit(ctx, abs, env, call{}, append(args, "--verify", "-q", "HEAD"))
	withHead := err == nil
	if err != nil {
		out, err = runGit(ctx, abs, env, call{}, args)
	}
	if err != nil {
		if stderrHas(err, "not a git repository", "must be run in a work tree") {
			return nil, fmt.Errorf("open repository %s: %w: %w", dir, ErrNotRepository, err)
		}
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	var head string
	if withHead && len(lines) == 5 {
		head, lines = lines[4], lines[:4]
	}
	if len(lines) != 4 {
		return nil, fmt.Errorf("open repository %s: unexpected rev-parse output %q", dir, out)
	}
	r := &Repo{
		TopLevel:  cleanPath(lines[0]),
		GitDir:    cleanPath(lines[1]),
		CommonDir: cleanPath(lines[2]),
		env:       env,
		cat:       batchProc{args: []string{"cat-file", "--batch"}},
	}
	switch lines[3] {
	case "sha1":
		r.hexLen = 40
	case "sha256":
		r.hexLen = 64
	default:
		return nil, fmt.Errorf("open repository %s: unknown object format %q", dir, lines[3])
	}
	if head != "" {
		if r.headAtOpen, err = r.parseOIDLen(head); err != nil {
			return nil, fmt.Errorf("open repository %s: %w", dir, err)
		}
	}
	if idx := os.Getenv("GIT_INDEX_FILE"); idx != "" {
		if r.HookIndex, err = filepath.Abs(idx); err != nil {
			return nil, fmt.Errorf("open repository %s: resolve GIT_INDEX_FILE: %w", dir, err)
		}
	}
	return r, nil
}

// openFromFiles opens, from its files alone, the worktree whose root is dir: the usual case of
// a hook (git runs them at the root), where a rev-parse process would cost more than the hook's
// own work. The main worktree has a .git directory; a linked one a .git file naming its git
// directory, whose commondir file names the common one. GIT_DIR, which git sets for hooks in a
// linked worktree, is not consulted: it never reaches our git children, which find the
// repository from the worktree as this does. Anything unusual (other GIT_* location variables,
// another object format or ref storage, core.worktree or per-worktree config, config includes,
// a linked worktree whose git directory does not lead back to it, a HEAD it cannot resolve)
// returns ok=false and the caller asks git.
func openFromFiles(dir string, env []string) (*Repo, bool) {
	for _, v := range []string{"GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES"} {
		if os.Getenv(v) != "" {
			return nil, false
		}
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, false
	}
	gitDir, commonDir, ok := gitDirsOf(root)
	if !ok {
		return nil, false
	}
	cfg, err := os.ReadFile(filepath.Join(commonDir, "config"))
	if err != nil {
		return nil, false
	}
	low := bytes.ToLower(cfg)
	for _, word := range []string{"objectformat", "refstorage", "worktree", "include", "bare = true"} {
		if bytes.Contains(low, []byte(word)) {
			return nil, false
		}
	}
	if _, err := os.Stat(filepath.Join(commonDir, "commondir")); err == nil {
		return nil, false
	}
	head, ok := HeadFromFiles(gitDir, commonDir)
	if !ok {
		return nil, false
	}
	r := &Repo{
		TopLevel: root, GitDir: gitDir, CommonDir: commonDir, env: env, hexLen: 40, filesRefs: true,
		cat: batchProc{args: []string{"cat-file", "--batch"}},
	}
	if head != "" {
		if r.headAtOpen, err = r.parseOIDLen(head); err != nil {
			return nil, false
		}
	}
	if idx := os.Getenv("GIT_INDEX_FILE"); idx != "" {
		if r.HookIndex, err = filepath.Abs(idx); err != nil {
			return nil, false
		}
	}
	return r, true
}

// GitDirs is gitDirsOf for a worktree root named by any path to it: what a hook can learn of
// its repository without starting git. ok=false when git must be asked.
func GitDirs(dir string) (gitDir, commonDir string, ok bool) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", "", false
	}
	return gitDirsOf(root)
}

// gitDirsOf finds the git directory and the common git directory of the worktree whose root
// is root: root/.git itself for the main worktree; for a linked one, the directory its .git
// file names ("gitdir: <path>"), when that directory's gitdir file leads back to root/.git and
// its commondir file names the common directory.
func gitDirsOf(root string) (gitDir, commonDir string, ok bool) {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotGit)
	switch {
	case err != nil:
		return "", "", false
	case fi.IsDir():
		return dotGit, dotGit, true
	case !fi.Mode().IsRegular():
		return "", "", false
	}
	readPath := func(file, relativeTo string) (string, bool) {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", false
		}
		p := strings.TrimSpace(string(data))
		if p == "" {
			return "", false
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(relativeTo, p)
		}
		p, err = filepath.EvalSymlinks(p)
		return p, err == nil
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return "", "", false
	}
	named, isGitFile := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !isGitFile || strings.ContainsAny(named, "\n\x00") {
		return "", "", false
	}
	if !filepath.IsAbs(named) {
		named = filepath.Join(root, named)
	}
	if gitDir, err = filepath.EvalSymlinks(named); err != nil {
		return "", "", false
	}
	back, ok := readPath(filepath.Join(gitDir, "gitdir"), gitDir)
	if !ok || back != dotGit {
		return "", "", false
	}
	commonDir, ok = readPath(filepath.Join(gitDir, "commondir"), gitDir)
	return gitDir, commonDir, ok
}

// HeadFromFiles resolves HEAD from the files of a work tree's git directory and of its common
// directory (the same for the main work tree): a detached ID, or a branch's loose or packed
// ref; "" with ok=true for an unborn branch (a ref that exists nowhere). ok=false when the
// refs are not kept in those files (a reftable), or HEAD points elsewhere than a branch.
func HeadFromFiles(gitDir, commonDir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	head := strings.TrimSpace(string(data))
	ref, isRef := strings.CutPrefix(head, "ref: ")
	if !isRef {
		return head, len(head) == 40
	}
	if !strings.HasPrefix(ref, "refs/heads/") {
		return "", false
	}
	if _, err := os.Lstat(filepath.Join(commonDir, "reftable")); !errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	oid, _, ok := refFromFiles(commonDir, ref)
	return oid, ok
}

// refFromFiles reads a full ref name from a files-backend git directory: the loose ref file,
// else its packed-refs line. found=false when the ref exists in neither; ok=false when the
// files cannot say (a symbolic ref, an unreadable file, a malformed line): ask git.
func refFromFiles(gitDir, ref string) (oid string, found, ok bool) {
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") || strings.ContainsAny(ref, "\\\x00") {
		return "", false, false
	}
	data, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref)))
	if err == nil {
		oid := strings.TrimSpace(string(data))
		return oid, true, len(oid) == 40 && !strings.HasPrefix(oid, "ref:")
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", false, false
	}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return "", false, true
	}
	if err != nil {
		return "", false, false
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if o, name, cut := strings.Cut(line, " "); cut && name == ref {
			return o, true, len(o) == 40
		}
	}
	return "", false, true
}

// cleanPath turns a path printed by git into a clean native path.
func cleanPath(p string) string {
	return filepath.Clean(filepath.FromSlash(p))
}

// Close ends the long-lived git processes. It is safe to call more than
// once; batch operations (object reads, tree writes) fail with ErrClosed
// afterwards.
func (r *Repo) Close() error {
	r.ahead.close()
	err := errors.Join(r.flushDeferred(context.Background()), r.cat.close())
	r.packs.close()
	r.staged.close()
	return err
}

// WorktreeID returns "" for the main work tree and, for a linked one, its
// name under the common dir's "worktrees" directory. It starts no process.
func (r *Repo) WorktreeID() string {
	if r.GitDir == r.CommonDir {
		return ""
	}
	rel, err := filepath.Rel(filepath.Join(r.CommonDir, "worktrees"), r.GitDir)
	if err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !strings.ContainsRune(rel, filepath.Separator) {
		return rel
	}
	return filepath.Base(r.GitDir)
}

// WorktreeMarkFile is the file in a linked worktree's admin directory (<common>/worktrees/<id>)
// holding a token the recorder wrote there: `git worktree move` keeps the directory and the
// token, `git worktree remove` or prune deletes both, so a worktree added again under the same
// name has another token (or none).
const WorktreeMarkFile = "entire-worktree-mark"

// WorktreeMark is the token of this linked worktree, written (random) when it has none yet;
// "" for the main worktree, which cannot be removed, or when the admin directory is not
// writable. One small file read per hook.
func (r *Repo) WorktreeMark() string {
	if r.GitDir == r.CommonDir {
		return ""
	}
	path := filepath.Join(r.GitDir, WorktreeMarkFile)
	if b, err := os.ReadFile(path); err == nil {
		return strings.TrimSpace(string(b))
	}
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return ""
	}
	mark := hex.EncodeToString(raw[:])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if b, rerr := os.ReadFile(path); rerr == nil { // another hook wrote it first
			return strings.TrimSpace(string(b))
		}
		return ""
	}
	_, werr := f.WriteString(mark + "\n")
	if cerr := f.Close(); werr != nil || cerr != nil {
		return ""
	}
	return mark
}

// Run is the escape hatch: it runs "git args..." in the repository with the
// sanitized environment, feeds stdin (nil for none) and returns stdout. A
// failure is an *Error.
func (r *Repo) Run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	c := call{}
	if stdin != nil {
		c.stdin = bytes.NewReader(stdin)
	}
	return r.git(ctx, c, args...)
}

// ConfigGet returns the value of a config key as "git config --get" sees it
// from the repository (the last one when the key has several values);
// ok=false when the key is not set.
func (r *Repo) ConfigGet(ctx context.Context, key string) (string, bool, error) {
	return r.configValue(ctx, nil, key)
}

// ConfigBool is a boolean config key as git reads it (`--type=bool`: yes, on, 1, a key
// without a value...), false when it is not set.
func (r *Repo) ConfigBool(ctx context.Context, key string) (bool, error) {
	v, _, err := r.configValue(ctx, nil, key, "--type=bool")
	return v == "true", err
}

// configValue runs `git config -z [opts] --get key` with env added to git's environment:
// the last value and true, or "" and false when the key is not set.
func (r *Repo) configValue(ctx context.Context, env []string, key string, opts ...string) (string, bool, error) {
	args := append(append([]string{"config", "-z"}, opts...), "--get", key)
	out, err := r.git(ctx, call{env: env}, args...)
	if err != nil {
		if e, ok := asError(err); ok && e.ExitCode == 1 && strings.TrimSpace(e.Stderr) == "" {
			return "", false, nil
		}
		return "", false, fmt.Errorf("read config %s: %w", key, err)
	}
	return strings.TrimSuffix(string(out), "\x00"), true, nil
}

// GitPath returns the absolute path "git rev-parse --git-path name" gives;
// for "hooks" that honours core.hooksPath.
func (r *Repo) GitPath(ctx context.Context, name string) (string, error) {
	out, err := r.git(ctx, call{}, "rev-parse", "--path-format=absolute", "--git-path", name)
	if err != nil {
		return "", fmt.Errorf("resolve git path %s: %w", name, err)
	}
	p := cleanPath(strings.TrimSuffix(string(out), "\n"))
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.TopLevel, p)
	}
	return p, nil
}

// SequencerInProgress reports whether a rebase, cherry-pick or revert is
// under way in this work tree (rebase-merge/, rebase-apply/, CHERRY_PICK_HEAD
// or REVERT_HEAD in GitDir). It starts no process.
func (r *Repo) SequencerInProgress() bool {
	for _, name := range []string{"rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "REVERT_HEAD"} {
		if _, err := os.Lstat(filepath.Join(r.GitDir, name)); err == nil {
			return true
		}
	}
	return false
}

// HeadMovedBySequencer reports whether HEAD's newest reflog entry was written by a
// cherry-pick, revert or rebase. A post-commit hook needs this because git removes
// CHERRY_PICK_HEAD before running it when `git cherry-pick --continue` commits. No process.
func (r *Repo) HeadMovedBySequencer() bool {
	f, err := os.Open(filepath.Join(r.GitDir, "logs", "HEAD"))
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	const tail = 4096
	off := fi.Size() - tail
	if off < 0 {
		off = 0
	}
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return false
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	_, msg, ok := strings.Cut(lines[len(lines)-1], "\t")
	if !ok {
		return false
	}
	// e.g. "cherry-pick: x", "commit (cherry-pick): x", "rebase (pick): x", "revert: x".
	for _, p := range []string{"cherry-pick", "revert", "rebase", "commit (cherry-pick)", "commit (revert)"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// HeadAtOpen is HEAD as it was when the repository was opened (read by the same rev-parse, so
// it costs nothing); ok=false on an unborn branch. Hooks use it: git does not move HEAD while a
// hook runs. Code that moves HEAD itself must call Head instead.
func (r *Repo) HeadAtOpen() (OID, bool) {
	return r.headAtOpen, r.headAtOpen != ""
}
