package gitexec_test

import (
	"strings"
	"testing"

	"github.com/entirerec/entire/gitexec"
)

func TestParseOID(t *testing.T) {
	sha1 := "4B825DC642CB6EB9A060E54BF8D69288FBEE4904"
	if got, err := gitexec.ParseOID(sha1); err != nil || string(got) != strings.ToLower(sha1) {
		t.Errorf("ParseOID(sha1) = %q, %v", got, err)
	}
	sha256 := strings.Repeat("ab", 32)
	if got, err := gitexec.ParseOID(sha256); err != nil || string(got) != sha256 {
		t.Errorf("ParseOID(sha256) = %q, %v", got, err)
	}
	for _, bad := range []string{"", "abc", strings.Repeat("g", 40), strings.Repeat("a", 41), " " + sha1[1:]} {
		if got, err := gitexec.ParseOID(bad); err == nil {
			t.Errorf("ParseOID(%q) = %q, want an error", bad, got)
		}
	}
}

func TestOIDMethods(t *testing.T) {
	o := gitexec.OID("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
	for n, want := range map[int]string{0: "", 7: "4b825dc", 40: string(o), 99: string(o), -1: ""} {
		if got := o.Short(n); got != want {
			t.Errorf("Short(%d) = %q, want %q", n, got, want)
		}
	}
	for oid, want := range map[gitexec.OID]bool{"": true, gitexec.OID(strings.Repeat("0", 40)): true, o: false, "0001": false} {
		if got := oid.IsZero(); got != want {
			t.Errorf("OID(%q).IsZero() = %v, want %v", oid, got, want)
		}
	}
	if got := gitexec.BranchRef("entire/checkpoints/v1"); got != "refs/heads/entire/checkpoints/v1" {
		t.Errorf("BranchRef = %q", got)
	}
}
