package gitexec

import (
	"context"
	"fmt"
	"strings"
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
// on a passphrase prompt.
func (r *Repo) CommitTree(ctx context.Context, tree OID, parents []OID, message string) (OID, error) {
	args := []string{"commit-tree", "--no-gpg-sign"}
	for _, p := range parents {
		id, err := r.parseOIDLen(string(p))
		if err != nil {
			return "", fmt.Errorf("commit tree: parent: %w", err)
		}
		args = append(args, "-p", string(id))
	}
	treeID, err := r.parseOIDLen(string(tree))
	if err != nil {
		return "", fmt.Errorf("commit tree: %w", err)
	}
	args = append(args, string(treeID))
	out, err := r.git(ctx, call{stdin: strings.NewReader(message), beside: true}, args...)
	if err != nil && identityMissing(err) {
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
	return id, nil
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
