package gitexec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Ref is a ref and the object it points to.
type Ref struct {
	Name RefName
	OID  OID
}

// Head returns the commit HEAD points to; ok=false on an unborn branch.
func (r *Repo) Head(ctx context.Context) (OID, bool, error) {
	return r.revParseVerify(ctx, "HEAD")
}

// currentHead is Head read from the files when the repository keeps its refs there (a
// linked work tree's HEAD in its own git directory, branches in the common one), and from git
// otherwise.
func (r *Repo) currentHead(ctx context.Context) (OID, bool, error) {
	if r.hexLen == 40 {
		if head, ok := HeadFromFiles(r.GitDir, r.CommonDir); ok {
			return OID(head), head != "", nil
		}
	}
	return r.Head(ctx)
}

// revParseVerify runs "git rev-parse -q --verify name", whose exit code 1
// means the name does not resolve.
func (r *Repo) revParseVerify(ctx context.Context, name string) (OID, bool, error) {
	out, err := r.git(ctx, call{}, "rev-parse", "-q", "--verify", name)
	if err != nil {
		if exitCode(err) == 1 {
			return "", false, nil
		}
		return "", false, fmt.Errorf("resolve %s: %w", name, err)
	}
	oid, err := r.parseOIDLen(strings.TrimSpace(string(out)))
	if err != nil {
		return "", false, fmt.Errorf("resolve %s: %w", name, err)
	}
	return oid, true, nil
}

// SymbolicRef returns the ref that the symbolic ref name points to (git symbolic-ref);
// ok=false when name does not exist or is not symbolic.
func (r *Repo) SymbolicRef(ctx context.Context, name RefName) (RefName, bool, error) {
	out, err := r.git(ctx, call{}, "symbolic-ref", "-q", string(name))
	if err != nil {
		if exitCode(err) == 1 {
			return "", false, nil
		}
		return "", false, fmt.Errorf("read symbolic ref %s: %w", name, err)
	}
	return RefName(strings.TrimSpace(string(out))), true, nil
}

// HeadBranch returns the short name of the branch HEAD is on, also when that
// branch is unborn; ok=false when HEAD is detached.
func (r *Repo) HeadBranch(ctx context.Context) (string, bool, error) {
	// HEAD is a file of the worktree's git dir: "ref: refs/heads/<branch>" or a detached ID.
	data, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return "", false, fmt.Errorf("read HEAD branch: %w", err)
	}
	ref, symbolic := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: ")
	if !symbolic {
		return "", false, nil
	}
	short, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok {
		return "", false, nil
	}
	return short, true, nil
}

// ResolveRef returns the object ref points to; ok=false when the ref does not
// exist. Names under "refs/" are matched exactly, never by git's
// abbreviation rules; other names must be pseudo-refs such as "HEAD". In a
// repository opened from its files it reads the loose ref or packed-refs
// without starting git (a stale answer only costs the compare-and-swap that
// follows every read-then-write a retry).
func (r *Repo) ResolveRef(ctx context.Context, ref RefName) (OID, bool, error) {
	name := string(ref)
	if !strings.HasPrefix(name, "refs/") {
		if !isPseudoRef(name) {
			return "", false, fmt.Errorf("resolve ref %q: not a full ref name", name)
		}
		return r.revParseVerify(ctx, name)
	}
	if r.filesRefs {
		if oid, found, ok := refFromFiles(r.refsDir(name), name); ok {
			if !found {
				return "", false, nil
			}
			id, err := r.parseOIDLen(oid)
			return id, err == nil, err
		}
	}
	refs, err := r.forEachRef(ctx, name)
	if err != nil {
		return "", false, fmt.Errorf("resolve ref %s: %w", name, err)
	}
	for _, x := range refs {
		if x.Name == ref {
			return x.OID, true, nil
		}
	}
	return "", false, nil
}

// refsDir is the git directory that holds ref name: a linked worktree keeps its own bisect,
// worktree and rewritten refs, and shares every other with the common directory.
func (r *Repo) refsDir(name string) string {
	for _, prefix := range []string{"refs/bisect/", "refs/worktree/", "refs/rewritten/"} {
		if strings.HasPrefix(name, prefix) {
			return r.GitDir
		}
	}
	return r.CommonDir
}

// isPseudoRef reports whether name looks like HEAD, ORIG_HEAD, FETCH_HEAD...
func isPseudoRef(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('A' <= c && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

// ForEachRef lists the refs whose full name starts with prefix (plain string
// prefix, e.g. "refs/heads/entire/"), sorted by name. An empty prefix lists
// every ref.
func (r *Repo) ForEachRef(ctx context.Context, prefix string) ([]Ref, error) {
	// git matches patterns by whole path components, so ask for the
	// enclosing directory and filter here.
	pattern := prefix[:strings.LastIndexByte(prefix, '/')+1]
	refs, err := r.forEachRef(ctx, pattern)
	if err != nil {
		return nil, fmt.Errorf("list refs %s: %w", prefix, err)
	}
	out := refs[:0]
	for _, x := range refs {
		if strings.HasPrefix(string(x.Name), prefix) {
			out = append(out, x)
		}
	}
	return out, nil
}

// forEachRef runs "git for-each-ref" with an optional pattern.
func (r *Repo) forEachRef(ctx context.Context, pattern string) ([]Ref, error) {
	args := []string{"for-each-ref", "--format=%(objectname) %(refname)"}
	if pattern != "" {
		args = append(args, pattern)
	}
	out, err := r.git(ctx, call{}, args...)
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if line == "" {
			continue
		}
		oid, name, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("unexpected for-each-ref line %q", line)
		}
		id, err := r.parseOIDLen(oid)
		if err != nil {
			return nil, err
		}
		refs = append(refs, Ref{Name: RefName(name), OID: id})
	}
	return refs, nil
}

// RefUpdate is one step of a ref transaction. New "" deletes the ref. Old ""
// requires that the ref does not exist yet; otherwise the ref must currently
// point to Old. (New "" with Old "" only checks that the ref is absent.)
type RefUpdate struct {
	Name RefName
	New  OID
	Old  OID
}

// refLockTimeoutMS is how long, in milliseconds, update-ref waits for
// another process's lock on a ref (core.filesRefLockTimeout, git's default
// 100) or on packed-refs (core.packedRefsTimeout, default 1000) before it
// fails with ErrRefLocked. Git retries for at least this long and its last
// backoff step can overshoot by about a quarter, so 800 keeps a hook's wait on
// a held lock to about a second.
const refLockTimeoutMS = 800

// UpdateRefs applies updates as one "git update-ref --stdin -z" transaction:
// all of them or none. When a ref's current value is not the expected one the
// error wraps ErrRefMoved; when another process holds a ref's lock for longer
// than refLockTimeoutMS, ErrRefLocked; when a new value names an object that
// does not exist, ErrObjectMissing.
func (r *Repo) UpdateRefs(ctx context.Context, updates []RefUpdate) error {
	if len(updates) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, u := range updates {
		if err := r.writeRefUpdate(&in, u); err != nil {
			return fmt.Errorf("update refs: %w", err)
		}
	}
	_, err := r.git(ctx, call{stdin: &in}, updateRefArgs...)
	if err != nil {
		return fmt.Errorf("update refs: %w", err)
	}
	return nil
}

// updateRefArgs run every ref transaction: a lock another process holds is waited for
// refLockTimeoutMS at most.
var updateRefArgs = []string{
	"-c", "core.filesRefLockTimeout=" + strconv.Itoa(refLockTimeoutMS),
	"-c", "core.packedRefsTimeout=" + strconv.Itoa(refLockTimeoutMS),
	"update-ref", "--stdin", "-z",
}

// PrestartWrites starts, in the background, the blob and tree writers and the process of the
// next ref transaction, for a caller about to write a commit and move a branch (a condensation, a
// checkpoint): git starts up while the caller reads and computes. A process left unused
// ends at Close, having done nothing.
func (r *Repo) PrestartWrites() {
	r.ahead.start(r, unpackArgs, 0)
	r.ahead.start(r, updateRefArgs, 0)
}

// writeRefUpdate appends u to the update-ref -z input.
func (r *Repo) writeRefUpdate(in *bytes.Buffer, u RefUpdate) error {
	name := string(u.Name)
	if name == "" || strings.ContainsAny(name, "\x00\n") {
		return fmt.Errorf("invalid ref name %q", name)
	}
	var ids [2]OID
	for i, o := range []OID{u.New, u.Old} {
		if o.IsZero() {
			continue
		}
		id, err := r.parseOIDLen(string(o))
		if err != nil {
			return fmt.Errorf("ref %s: %w", name, err)
		}
		ids[i] = id
	}
	newID, oldID := ids[0], ids[1]
	switch {
	case newID != "" && oldID == "":
		fmt.Fprintf(in, "create %s\x00%s\x00", name, newID)
	case newID != "":
		fmt.Fprintf(in, "update %s\x00%s\x00%s\x00", name, newID, oldID)
	case oldID != "":
		fmt.Fprintf(in, "delete %s\x00%s\x00", name, oldID)
	default:
		fmt.Fprintf(in, "verify %s\x00\x00", name)
	}
	return nil
}
