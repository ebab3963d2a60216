package gitexec

import (
	"fmt"
	"strings"
)

// OID is a lowercase hexadecimal git object id: 40 characters in a SHA-1
// repository, 64 in a SHA-256 one.
type OID string

// ParseOID checks that s is a full object id (40 or 64 hexadecimal digits) and
// returns it in lowercase.
func ParseOID(s string) (OID, error) {
	if len(s) != 40 && len(s) != 64 {
		return "", fmt.Errorf("parse object id %q: want 40 or 64 hex digits, have %d characters", s, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return "", fmt.Errorf("parse object id %q: %q is not a hex digit", s, c)
		}
	}
	return OID(strings.ToLower(s)), nil
}

// Short returns the first n characters of o, or all of o when it is shorter.
func (o OID) Short(n int) string {
	if n < 0 {
		n = 0
	}
	if n >= len(o) {
		return string(o)
	}
	return string(o[:n])
}

// IsZero reports whether o is empty or consists only of zeros, which git uses
// for "no object" (a created or deleted side of a diff, a ref that must not
// exist).
func (o OID) IsZero() bool {
	return strings.Trim(string(o), "0") == ""
}

// RefName is a full ref name such as "refs/heads/entire/checkpoints/v1", or a
// pseudo-ref such as "HEAD".
type RefName string

// BranchRef returns the full ref name of the local branch called short.
func BranchRef(short string) RefName {
	return RefName("refs/heads/" + short)
}

const (
	emptyTreeSHA1   OID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	emptyTreeSHA256 OID = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	emptyBlobSHA1   OID = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
	emptyBlobSHA256 OID = "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
)

// parseOIDLen parses s as an object id of this repository's hash length.
func (r *Repo) parseOIDLen(s string) (OID, error) {
	o, err := ParseOID(s)
	if err != nil {
		return "", err
	}
	if len(o) != r.hexLen {
		return "", fmt.Errorf("parse object id %q: this repository uses %d-digit ids", s, r.hexLen)
	}
	return o, nil
}

// IsEmptyBlob reports whether blob is the id of the empty file's content.
func (r *Repo) IsEmptyBlob(blob OID) bool {
	if r.hexLen == 64 {
		return blob == emptyBlobSHA256
	}
	return blob == emptyBlobSHA1
}

// IsEmptyTree reports whether tree is the id of the empty tree.
func (r *Repo) IsEmptyTree(tree OID) bool { return tree == r.emptyTree() }

// emptyTree returns the id of the empty tree, which git knows without it
// being stored.
func (r *Repo) emptyTree() OID {
	if r.hexLen == 64 {
		return emptyTreeSHA256
	}
	return emptyTreeSHA1
}
