package gitexec

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// ErrPushRejected reports that the remote refused a ref update because it is
// not a fast-forward: the remote branch has commits the pushed one lacks
// (another clone pushed first), or it moved while this push was under way
// (another push updated or created it between the remote's advertisement and
// its ref update). Fetch, integrate and push again. It is wrapped; test with
// errors.Is.
var ErrPushRejected = errors.New("push rejected: not a fast-forward")

// ErrRemoteRefMissing reports that a fetched ref does not exist on the
// remote. It is wrapped; test with errors.Is.
var ErrRemoteRefMissing = errors.New("remote ref not found")

// Push runs "git push --porcelain --no-verify remote refspecs..." with no
// stdin and at most timeout. It never runs the pre-push hook: entire pushes
// from inside that hook. When the remote refuses any ref as a non-fast-forward
// the error wraps ErrPushRejected, as it does when the remote could not update
// a ref because another push moved it meanwhile; other refusals (a remote hook
// declining, a protected branch) and transport failures are plain *Error
// values. A lease whose expected value is stale is refused the same way.
func (r *Repo) Push(ctx context.Context, remote string, refspecs []string, timeout time.Duration, opts ...PushOption) error {
	if err := checkRemoteArgs(remote, refspecs); err != nil {
		return fmt.Errorf("push: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := []string{"push", "--porcelain", "--no-verify"}
	for _, o := range opts {
		args = o(args)
	}
	args = append(append(args, remote), refspecs...)
	out, err := r.git(ctx, call{}, args...)
	// git prints one "<flag>\t<from>:<to>\t<summary>" line per ref on stdout;
	// flag "!" is a refusal, and "[rejected]" (as opposed to "[remote
	// rejected]") is git's own non-fast-forward check. A "[remote rejected]"
	// whose ref could not be locked at the old value the push was built on is
	// the same race lost on the remote's side: the remote's receive-pack says
	// "cannot lock ref '<ref>': is at <oid> but expected <oid>" (or "reference
	// already exists" for a ref created meanwhile) in the summary or on stderr,
	// and a hosting service may say "incorrect old value provided".
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) == 3 && f[0] == "!" && (strings.HasPrefix(f[2], "[rejected]") || remoteRefMoved(f[2], err)) {
			if err == nil {
				err = newError(ctx, args, "", errors.New(f[2]))
			}
			return fmt.Errorf("push %s %s: %w: %w", remote, f[1], ErrPushRejected, err)
		}
	}
	if err != nil {
		return fmt.Errorf("push %s: %w", remote, err)
	}
	return nil
}

// remoteRefMoved reports whether a "[remote rejected]" summary, with git's
// stderr in err, says that the remote's ref was not at the value the push
// expected: another push moved or created it while this one was under way.
func remoteRefMoved(summary string, err error) bool {
	if !strings.HasPrefix(summary, "[remote rejected]") {
		return false
	}
	moved := []string{"cannot lock ref", "incorrect old value"}
	for _, m := range moved {
		if strings.Contains(summary, m) {
			return true
		}
	}
	return stderrHas(err, moved...)
}

// A PushOption adds a flag to Push.
type PushOption func(args []string) []string

// Lease lets Push replace the remote's ref even when that is not a
// fast-forward, but only while the remote still has it at expect
// (--force-with-lease): a push by anyone else in between is never clobbered.
// An empty expect adds nothing.
func Lease(ref RefName, expect OID) PushOption {
	return func(args []string) []string {
		if expect == "" {
			return args
		}
		return append(args, "--force-with-lease="+string(ref)+":"+string(expect))
	}
}

// Fetch runs "git fetch --quiet --no-tags remote refspecs..." with no stdin
// and at most timeout. When the remote lacks a ref a refspec names, the error
// wraps ErrRemoteRefMissing.
func (r *Repo) Fetch(ctx context.Context, remote string, refspecs []string, timeout time.Duration) error {
	if err := checkRemoteArgs(remote, refspecs); err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := append([]string{"fetch", "--quiet", "--no-tags", remote}, refspecs...)
	if _, err := r.git(ctx, call{}, args...); err != nil {
		if stderrHas(err, "couldn't find remote ref") {
			return fmt.Errorf("fetch %s: %w: %w", remote, ErrRemoteRefMissing, err)
		}
		return fmt.Errorf("fetch %s: %w", remote, err)
	}
	return nil
}

// checkRemoteArgs rejects a remote or refspec git would read as an option.
func checkRemoteArgs(remote string, refspecs []string) error {
	if remote == "" || strings.HasPrefix(remote, "-") {
		return fmt.Errorf("invalid remote %q", remote)
	}
	if len(refspecs) == 0 {
		return errors.New("no refspec")
	}
	for _, s := range refspecs {
		if s == "" || strings.HasPrefix(s, "-") {
			return fmt.Errorf("invalid refspec %q", s)
		}
	}
	return nil
}

// IsAncestor reports whether commit a is an ancestor of (or equal to) commit
// b ("git merge-base --is-ancestor", whose exit code 1 means no): whether
// moving a ref from a to b is a fast-forward.
func (r *Repo) IsAncestor(ctx context.Context, a, b OID) (bool, error) {
	for _, o := range []OID{a, b} {
		if _, err := r.parseOIDLen(string(o)); err != nil {
			return false, fmt.Errorf("is-ancestor: %w", err)
		}
	}
	_, err := r.git(ctx, call{}, "merge-base", "--is-ancestor", string(a), string(b))
	switch {
	case err == nil:
		return true, nil
	case exitCode(err) == 1:
		return false, nil
	}
	return false, fmt.Errorf("is-ancestor %s %s: %w", a.Short(7), b.Short(7), err)
}

// MergeBase is a best common ancestor of commits a and b ("git merge-base", whose exit code
// 1 means none); ok=false when their histories share no commit.
func (r *Repo) MergeBase(ctx context.Context, a, b OID) (OID, bool, error) {
	for _, o := range []OID{a, b} {
		if _, err := r.parseOIDLen(string(o)); err != nil {
			return "", false, fmt.Errorf("merge-base: %w", err)
		}
	}
	out, err := r.git(ctx, call{}, "merge-base", string(a), string(b))
	switch {
	case err == nil:
		base, err := r.parseOIDLen(strings.TrimSpace(string(out)))
		if err != nil {
			return "", false, fmt.Errorf("merge-base %s %s: %w", a.Short(7), b.Short(7), err)
		}
		return base, true, nil
	case exitCode(err) == 1:
		return "", false, nil
	}
	return "", false, fmt.Errorf("merge-base %s %s: %w", a.Short(7), b.Short(7), err)
}

// LsRemote asks remote (a configured name, a URL or a path) for the tip of ref ("git ls-remote
// --exit-code", at most timeout); ok=false when the remote has no such ref.
func (r *Repo) LsRemote(ctx context.Context, remote string, ref RefName, timeout time.Duration) (OID, bool, error) {
	if err := checkRemoteArgs(remote, []string{string(ref)}); err != nil {
		return "", false, fmt.Errorf("ls-remote: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := r.git(ctx, call{}, "ls-remote", "--exit-code", remote, string(ref))
	if exitCode(err) == 2 { // no matching ref
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("ls-remote %s: %w", remote, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if oid, name, ok := strings.Cut(line, "\t"); ok && name == string(ref) {
			id, err := r.parseOIDLen(oid)
			return id, err == nil, err
		}
	}
	return "", false, nil
}

// RemoteConfigured reports whether remote is the name of a configured remote
// (it has remote.<name>.url), as opposed to a URL or path given on the
// command line, which has no remote-tracking refs.
func (r *Repo) RemoteConfigured(ctx context.Context, remote string) (bool, error) {
	if remote == "" || strings.ContainsAny(remote, "\x00\n") {
		return false, nil
	}
	_, ok, err := r.ConfigGet(ctx, "remote."+remote+".url")
	return ok, err
}

// RemoteTracking lists the remote-tracking refs of branch, refs/remotes/<remote>/<branch>, by
// remote name: the copies of the branch the fetches of every remote brought. A repository whose
// refs are files is read without a process (a remote whose name holds '/' is then found only in
// packed-refs).
func (r *Repo) RemoteTracking(ctx context.Context, branch string) (map[string]OID, error) {
	suffix := "/" + branch
	remoteOf := func(name string) (string, bool) {
		rest, ok := strings.CutPrefix(name, "refs/remotes/")
		remote, ok2 := strings.CutSuffix(rest, suffix)
		return remote, ok && ok2 && remote != ""
	}
	out := map[string]OID{}
	if !r.filesRefs {
		refs, err := r.ForEachRef(ctx, "refs/remotes/")
		if err != nil {
			return nil, err
		}
		for _, x := range refs {
			if remote, ok := remoteOf(string(x.Name)); ok {
				out[remote] = x.OID
			}
		}
		return out, nil
	}
	if packed, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs")); err == nil && strings.Contains(string(packed), suffix+"\n") {
		for _, line := range strings.Split(string(packed), "\n") {
			o, name, _ := strings.Cut(line, " ")
			if remote, ok := remoteOf(name); ok {
				if oid, err := r.parseOIDLen(o); err == nil {
					out[remote] = oid
				}
			}
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	entries, err := os.ReadDir(filepath.Join(r.CommonDir, "refs", "remotes"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list remote-tracking refs: %w", err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(r.CommonDir, "refs", "remotes", e.Name(), filepath.FromSlash(branch)))
		if err != nil {
			continue
		}
		if oid, err := r.parseOIDLen(strings.TrimSpace(string(data))); err == nil {
			out[e.Name()] = oid // a loose ref is newer than its packed copy
		}
	}
	return out, nil
}

// Remotes are the names of the configured remotes (those with remote.<name>.url), sorted.
func (r *Repo) Remotes(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, call{}, "config", "-z", "--get-regexp", `^remote\..*\.url$`)
	if exitCode(err) == 1 {
		return nil, nil // none
	}
	if err != nil {
		return nil, fmt.Errorf("list remotes: %w", err)
	}
	var names []string
	for _, rec := range strings.Split(string(out), "\x00") {
		key, _, _ := strings.Cut(rec, "\n")
		name, ok := strings.CutPrefix(key, "remote.")
		if name, ok2 := strings.CutSuffix(name, ".url"); ok && ok2 && name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}
