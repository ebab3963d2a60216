package jsonvalid

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func FuzzValid(f *testing.F) {
	for _, s := range []string{
		``, ` `, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E-7`, `1e5x`, `true`, `tru`, `nul`, `null `, ` false`,
		`""`, `"a`, `"\u00e9"`, `"\u00g9"`, `"\x"`, "\"\t\"", `"\\"`, `"\/\b\f\n\r\t"`, "\"\xff\xfe\"",
		`{}`, `{ }`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1 "b":2}`, `[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `[[[]]]`, `[1,[2,{"x":[true,null]}]]`,
		`{"type":"user","message":{"content":"a long string with no escapes at all, more than eight bytes"}}`,
		`"abcdefgh\"ijklmnop"`, `"abcdefghijklmnop\`, "\"abcdefgh\x01ijklmnop\"", `"abcdefghijklmnopqrstuvwx"`, `["ab","cd"] x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), gjson.ValidBytes(b); got != want {
			t.Fatalf("Valid(%q) = %v, gjson.ValidBytes = %v", b, got, want)
		}
	})
}

// transcriptLines are the lines of a long transcript shaped like Claude Code's.
func transcriptLines(tb testing.TB) [][]byte {
	tb.Helper()
	path := os.Getenv("JSONVALID_TRANSCRIPT")
	if path == "" {
		var lines [][]byte
		body := strings.Repeat("lorem ipsum dolor sit amet, \\\"quoted\\\" text\\n", 200)
		for i := range 200 {
			lines = append(lines, []byte(`{"type":"user","uuid":"u`+strings.Repeat("x", i%7)+`","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"`+body+`"}]},"cwd":"/tmp/r"}`))
		}
		return lines
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	return lines
}

func BenchmarkValid(b *testing.B) {
	lines := transcriptLines(b)
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	for _, c := range []struct {
		name  string
		valid func([]byte) bool
	}{{"jsonvalid", Valid}, {"gjson", gjson.ValidBytes}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				for _, l := range lines {
					if !c.valid(l) {
						b.Fatal("invalid line")
					}
				}
			}
		})
	}
}

// TestDeepNesting checks that nesting deeper than any stack can recurse is answered, not a
// crash: gjson overflowed the goroutine's stack on a few million "[".
func TestDeepNesting(t *testing.T) {
	const n = 20_000_000
	open := bytes.Repeat([]byte("["), n)
	if Valid(open) {
		t.Error("Valid(unclosed arrays) = true")
	}
	closed := append(bytes.Repeat([]byte("["), n), bytes.Repeat([]byte("]"), n)...)
	if !Valid(closed) {
		t.Error("Valid(closed arrays) = false")
	}
	members := append(bytes.Repeat([]byte(`{"a":`), n/4), '1')
	if Valid(members) {
		t.Error("Valid(unclosed objects) = true")
	}
	if !Valid(append(members, bytes.Repeat([]byte("}"), n/4)...)) {
		t.Error("Valid(closed objects) = false")
	}
}
