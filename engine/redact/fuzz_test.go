package redact

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// FuzzJSONL checks that JSONL never panics, keeps every newline, keeps valid UTF-8 valid,
// and agrees with JSONLAppend split at the first line boundary.
func FuzzJSONL(f *testing.F) {
	for _, c := range secretCorpus() {
		f.Add([]byte(c.render()))
	}
	for _, c := range cleanCorpus()[:20] {
		f.Add([]byte(c.input()))
	}
	f.Add([]byte("{\"a\":\"\\ud83d\"}\n\n[1,2]\r\n\"x"))
	f.Fuzz(func(t *testing.T, in []byte) {
		orig := bytes.Clone(in)
		out := JSONL(in)
		if !bytes.Equal(in, orig) {
			t.Fatalf("JSONL modified its input")
		}
		if got, want := bytes.Count(out, []byte("\n")), bytes.Count(in, []byte("\n")); got != want {
			t.Fatalf("line count %d, want %d\n in: %q\nout: %q", got, want, in, out)
		}
		if utf8.Valid(in) && !utf8.Valid(out) {
			t.Fatalf("valid UTF-8 became invalid\n in: %q\nout: %q", in, out)
		}
		if n := bytes.IndexByte(in, '\n') + 1; n > 0 {
			prefix := bytes.Clone(JSONL(in[:n]))
			if got := JSONLAppend(prefix, n, in); !bytes.Equal(got, out) {
				t.Fatalf("JSONLAppend at %d differs\n got: %q\nwant: %q", n, got, out)
			}
		}
	})
}
