package gitexec

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
)

// Fallback identity used when git has none configured.
const (
	fallbackName  = "Unknown"
	fallbackEmail = "unknown@local"
)

// CommitTree writes a commit of tree with the given parents and returns its
// id ("git commit-tree"). The message goes in exactly as given, on stdin.
// Author and committer come from the environment and config as git finds
// them, including GIT_AUTHOR_DATE and GIT_COMMITTER_DATE; when git has no
// identity, "Unknown <unknown@local>" stands in for the missing parts. The
// commit is never signed, whatever commit.gpgSign says: a hook must not wait
// on a passphrase prompt. A NUL byte, which git refuses in a message, becomes U+FFFD.
func (r *Repo) CommitTree(ctx context.Context, tree OID, parents []OID, message string) (OID, error) {
	message = commitMessage(message)
	r.useCachedIdentity()
	if r.ident != nil {
		body, err := r.commitBody(tree, parents, message)
		if err != nil {
			return "", fmt.Errorf("commit tree: %w", err)
		}
		blobs := r.takeDeferred()
		oids, err := r.writeObjects(ctx, append(blobObjects(blobs), packObject{"commit", body}))
		if err != nil {
			return "", fmt.Errorf("commit tree: %w", err)
		}
		return oids[len(oids)-1], nil
	}
	args, err := r.commitTreeArgs(tree, parents)
	if err != nil {
		return "", fmt.Errorf("commit tree: %w", err)
	}
	out, err := r.git(ctx, call{stdin: strings.NewReader(message), beside: true}, args...)
	if err != nil && identityMissing(err) {
		// The fallback is learned like any identity: it follows from the same configuration
		// files, variables and host name that the key follows, so while they are unchanged
		// commit-tree would fail and the fallback give the same names again.
		env, ferr := r.fallbackIdentity(ctx)
		if ferr != nil {
			return "", fmt.Errorf("commit tree: %w", ferr)
		}
		out, err = r.git(ctx, call{stdin: strings.NewReader(message), env: env}, args...)
	}
	if err != nil {
		return "", fmt.Errorf("commit tree: %w", err)
	}
	id, err := r.parseOIDLen(strings.TrimSpace(string(out)))
	if err != nil {
		return "", fmt.Errorf("commit tree: %w", err)
	}
	r.learnIdentity(ctx, id)
	return id, nil
}

// commitMessage is message as git takes it: commit-tree refuses a NUL byte ("a NUL byte in
// commit log message not allowed"), and a commit object written here must not hold what git
// would not write. A prompt can hold one, and a shadow commit's subject is the prompt's: each
// becomes U+FFFD, as an unreadable character does elsewhere.
func commitMessage(message string) string {
	if strings.IndexByte(message, 0) < 0 {
		return message
	}
	return strings.ReplaceAll(message, "\x00", "\uFFFD")
}

// commitTreeArgs is the command line of CommitTree.
func (r *Repo) commitTreeArgs(tree OID, parents []OID) ([]string, error) {
	args := []string{"commit-tree", "--no-gpg-sign"}
	for _, p := range parents {
		id, err := r.parseOIDLen(string(p))
		if err != nil {
			return nil, fmt.Errorf("parent: %w", err)
		}
		args = append(args, "-p", string(id))
	}
	treeID, err := r.parseOIDLen(string(tree))
	if err != nil {
		return nil, err
	}
	return append(args, string(treeID)), nil
}

// BuildCommit is BuildTree then CommitTree, with the commit-tree process started as soon as
// the new root tree's id is computed: git's start-up overlaps the writing of the trees
// (commit-tree reads its whole message before it looks for its tree). A tree equal to unless
// (the tree of the commit it would follow, when set) is returned without a commit.
func (r *Repo) BuildCommit(ctx context.Context, base OID, changes []TreeChange, parents []OID, message string, unless OID) (tree, commit OID, err error) {
	message = commitMessage(message)
	r.useCachedIdentity()
	if r.ident != nil {
		return r.buildCommitPacked(ctx, base, changes, parents, message, unless)
	}
	var early []string // the command line started ahead, if any
	tree, err = r.buildTree(ctx, base, changes, func(root OID) {
		if root == unless {
			return
		}
		if args, err := r.commitTreeArgs(root, parents); err == nil {
			early = args
			r.ahead.start(r, args, 0)
		}
	})
	if err != nil {
		if early != nil {
			r.ahead.drop(early)
		}
		return "", "", err
	}
	if early != nil && early[len(early)-1] != string(tree) {
		r.ahead.drop(early) // built again under other ids (the fallback): not this tree
	}
	if unless != "" && tree == unless {
		return tree, "", nil
	}
	commit, err = r.CommitTree(ctx, tree, parents, message)
	return tree, commit, err
}

// identityMissing reports whether git refused to commit for lack of a name
// or email.
func identityMissing(err error) bool {
	return stderrHas(err,
		"Please tell me who you are",
		"empty ident name",
		"unable to auto-detect",
		"auto-detection is disabled",
	)
}

// fallbackIdentity returns environment entries that fill in the name and
// email git could not find, keeping whatever the environment or config
// does provide.
func (r *Repo) fallbackIdentity(ctx context.Context) ([]string, error) {
	name, _, err := r.ConfigGet(ctx, "user.name")
	if err != nil {
		return nil, err
	}
	email, _, err := r.ConfigGet(ctx, "user.email")
	if err != nil {
		return nil, err
	}
	if email == "" {
		email = envValue(r.env, "EMAIL")
	}
	var env []string
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		if envValue(r.env, "GIT_"+who+"_NAME") == "" && name == "" {
			env = append(env, "GIT_"+who+"_NAME="+fallbackName)
		}
		if envValue(r.env, "GIT_"+who+"_EMAIL") == "" && email == "" {
			env = append(env, "GIT_"+who+"_EMAIL="+fallbackEmail)
		}
	}
	return env, nil
}

// identity is the author and committer lines of the commits this Repo writes (their values:
// "Name <email> 1700000000 +0100"), or with clock set, the names alone ("Name <email>"), to
// which each commit adds the clock's time.
type identity struct {
	author, committer string
	clock             bool
}

// AdoptIdentity has the commits written from now on carry the author and committer lines of
// commit, and go in the pack of their trees instead of through commit-tree, when those are
// the lines commit-tree would write: in the hooks git commit runs, git exports the new
// commit's author as GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL and GIT_AUTHOR_DATE, which commit-tree
// would take, and the committer it found (config or environment) is what commit-tree would
// find. Only the committer's time may differ: the commit's, where commit-tree takes the
// clock's, a second later at most. It reports whether it adopted them; it does not when
// the environment does not name commit's author, or commit has a header commit-tree would
// not write the same (an encoding).
func (r *Repo) AdoptIdentity(ctx context.Context, commit OID) bool {
	obj, err := r.readCommit(ctx, string(commit))
	if err != nil {
		return false
	}
	header, _, _ := bytes.Cut(obj.data, []byte("\n\n"))
	var id identity
	for _, line := range strings.Split(string(header), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree", "parent", "mergetag", "gpgsig", "gpgsig-sha256", "":
			// "" continues a multi-line header (a signature) that commit-tree would not write
		case "author":
			id.author = val
		case "committer":
			id.committer = val
		default:
			return false
		}
	}
	when := strings.LastIndexByte(id.author, '>')
	if when < 0 || id.committer == "" {
		return false
	}
	name, email, ok := strings.Cut(id.author[:when], " <")
	if !ok || envValue(r.env, "GIT_AUTHOR_NAME") != name || envValue(r.env, "GIT_AUTHOR_EMAIL") != email ||
		envValue(r.env, "GIT_AUTHOR_DATE") != "@"+strings.TrimSpace(id.author[when+1:]) {
		return false
	}
	r.ident = &id
	return true
}

// commitBody is the commit object commit-tree would write with the adopted identity.
func (r *Repo) commitBody(tree OID, parents []OID, message string) ([]byte, error) {
	return r.ident.body(r, tree, parents, message, time.Now())
}

// body is the commit object commit-tree would write with this identity at time now.
func (id *identity) body(r *Repo, tree OID, parents []OID, message string, now time.Time) ([]byte, error) {
	args, err := r.commitTreeArgs(tree, parents) // checks the ids
	if err != nil {
		return nil, err
	}
	author, committer := id.author, id.committer
	if id.clock {
		stamp := identStamp(now)
		author, committer = author+" "+stamp, committer+" "+stamp
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", args[len(args)-1])
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s", author, committer, message)
	return b.Bytes(), nil
}

// buildCommitPacked is BuildCommit with an adopted identity: the deferred blobs, the new
// trees and the commit go to git in one pack.
func (r *Repo) buildCommitPacked(ctx context.Context, base OID, changes []TreeChange, parents []OID, message string, unless OID) (tree, commit OID, err error) {
	b, tree, err := r.buildTreeHeld(ctx, base, changes)
	if err != nil {
		return "", "", err
	}
	if unless != "" && tree == unless {
		_, err := b.flush(ctx)
		return tree, "", err
	}
	body, err := r.commitBody(tree, parents, message)
	if err != nil {
		return "", "", fmt.Errorf("commit tree: %w", err)
	}
	b.pending = append(b.pending, packObject{"commit", body})
	oids, err := b.flush(ctx)
	if err != nil {
		return "", "", err
	}
	return tree, oids[len(oids)-1], nil
}
