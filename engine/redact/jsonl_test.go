package redact

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJSONLKeepsLinesWithoutSecretsByteForByte(t *testing.T) {
	lines := []string{
		`{ "type" : "user",  "message" : { "content" : "hello" } }`,
		`{"z":1,"a":2,"m":{"y":true,"b":null},"arr":[ 1 , 2.5e-3 , -0 ]}`,
		`{"text":"caf\u00e9 \u2014 \ud83d\ude00 \/path\/to \"quoted\" tab\there"}`,
		"\t{\"message\":\"indented with tab, CRLF ending\"}\r",
		`["top", "level", "array"]`,
		`"just a JSON string"`,
		`{"html":"<b>&amp;</b> stays as written"}`,
	}
	in := []byte(strings.Join(lines, "\n") + "\n")
	out := JSONL(in)
	if diff := cmp.Diff(string(in), string(out)); diff != "" {
		t.Fatalf("JSONL changed lines without secrets (-in +out):\n%s", diff)
	}
	if &out[0] != &in[0] {
		t.Errorf("JSONL copied an input it did not change; the doc promises the input back")
	}
}

func TestJSONLChangesOnlyTheSecretValue(t *testing.T) {
	tok := cat("gh", "p_", rnd(alnum, 36))
	tests := []struct{ name, in, want string }{
		{"spacing and key order kept",
			`{ "zeta" : 1,  "cmd" : "export GH_TOKEN=` + tok + ` && make",   "alpha":"caf\u00e9" }`,
			`{ "zeta" : 1,  "cmd" : "export REDACTED && make",   "alpha":"caf\u00e9" }`},
		{"escaped quotes around the secret",
			`{"command":"curl -H \"Authorization: token ` + tok + `\" https://api.github.com"}`,
			`{"command":"curl -H \"Authorization: token REDACTED\" https://api.github.com"}`},
		{"escaped quote inside the secret",
			`{"input":{"password":"Wint\"er2024!"},"note":"x\u00e9"}`,
			`{"input":{"password":"REDACTED"},"note":"x\u00e9"}`},
		{"secret spelled with unicode escapes",
			`{"text":"gh\u0070_` + tok[4:] + `"}`,
			`{"text":"REDACTED"}`},
		{"changed value is re-encoded, its neighbours are not",
			`{"a":"\u00e9 ` + tok + ` \u00e9","b":"\u00e9"}`,
			`{"a":"é REDACTED é","b":"\u00e9"}`},
		{"html characters are not escaped",
			`{"a":"<b> ` + tok + ` & </b>"}`,
			`{"a":"<b> REDACTED & </b>"}`},
	}
	for _, tt := range tests {
		got := string(JSONL([]byte(tt.in)))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestJSONLSkipRules(t *testing.T) {
	tok := cat("gh", "p_", rnd(alnum, 36))
	skipped := []string{
		`{"signature":"` + tok + `"}`,
		`{"tool_use_id":"` + tok + `"}`,
		`{"parentUuid":"` + tok + `","ID":"` + tok + `"}`,
		`{"messageIds":["` + tok + `","` + tok + `"]}`,
		`{"session_ids":{"nested":"` + tok + `"}}`,
		`{"type":"image","source":{"type":"base64","data":"` + tok + `"}}`,
		`{"source":{"data":"` + tok + `","media_type":"image/png","type":"base64"}}`,
		`{"content":[{"text":"` + tok + `","type":"image_url"}]}`,
	}
	for _, line := range skipped {
		if got := string(JSONL([]byte(line))); got != line {
			t.Errorf("skipped value was redacted:\n in: %s\nout: %s", line, got)
		}
	}
	redacted := map[string]string{
		`{"signatures":"` + tok + `"}`:                                              `{"signatures":"REDACTED"}`,
		`{"type":"text","text":"` + tok + `"}`:                                      `{"type":"text","text":"REDACTED"}`,
		`{"type":"imagine","text":"` + tok + `"}`:                                   `{"type":"imagine","text":"REDACTED"}`,
		`{"type":"IMAGE","text":"` + tok + `"}`:                                     `{"type":"IMAGE","text":"REDACTED"}`,
		`[{"type":"image","data":"` + tok + `"},{"type":"text","t":"` + tok + `"}]`: `[{"type":"image","data":"` + tok + `"},{"type":"text","t":"REDACTED"}]`,
		`{"` + tok + `":"key names are not values"}`:                                `{"` + tok + `":"key names are not values"}`,
	}
	for in, want := range redacted {
		if got := string(JSONL([]byte(in))); got != want {
			t.Errorf("JSONL(%s)\n got %s\nwant %s", in, got, want)
		}
	}
}

func TestJSONLPlainAndEmptyLines(t *testing.T) {
	tok := cat("xo", "xb-", "2401-8823190-", rnd(alnum, 24))
	in := "\n" +
		`{"type":"user","message":{"content":"ok"}}` + "\n" +
		"\n\n" +
		"not json: SLACK_BOT=" + tok + " end\n" +
		`{"torn": "line with ` + tok + "\n" +
		"\n"
	want := "\n" +
		`{"type":"user","message":{"content":"ok"}}` + "\n" +
		"\n\n" +
		"not json: REDACTED end\n" +
		`{"torn": "line with REDACTED` + "\n" +
		"\n"
	if diff := cmp.Diff(want, string(JSONL([]byte(in)))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := JSONL(nil); len(got) != 0 {
		t.Errorf("JSONL(nil) = %q", got)
	}
}

// transcript is a small session with secrets on some lines and none on others.
func transcript() []byte {
	var b bytes.Buffer
	for _, c := range secretCorpus()[:12] {
		b.WriteString(`{"type":"user","uuid":"c010174c-a7cd-4bcc-b7d4-61258d6c463f","message":{"content":"please continue"}}` + "\n")
		b.WriteString(c.render() + "\n")
		b.WriteString("\n")
	}
	b.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]}}`)
	return b.Bytes()
}

func TestJSONLAppendEqualsJSONL(t *testing.T) {
	full := transcript()
	orig := bytes.Clone(full)
	want := JSONL(bytes.Clone(full))
	checked := 0
	for n := 0; n <= len(full); n++ {
		if n > 0 && full[n-1] != '\n' {
			continue
		}
		prefix := JSONL(full[:n])
		got := JSONLAppend(prefix[:len(prefix):len(prefix)], n, full)
		if !bytes.Equal(got, want) {
			t.Fatalf("prefixLen %d: JSONLAppend differs from JSONL:\n%s", n, cmp.Diff(string(want), string(got)))
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("only %d line boundaries checked", checked)
	}
	for _, n := range []int{-1, 5, len(full) + 1} {
		if got := JSONLAppend([]byte("junk"), n, full); !bytes.Equal(got, want) {
			t.Errorf("prefixLen %d off a line boundary: got %d bytes, want the full redaction", n, len(got))
		}
	}
	if !bytes.Equal(full, orig) {
		t.Errorf("JSONLAppend modified its input")
	}
}

// TestJSONLAppendSkipsThePrefix shows that the prefix is taken on trust, not redacted
// again: a secret left in the given prefix survives, a secret in the tail does not.
func TestJSONLAppendSkipsThePrefix(t *testing.T) {
	tok := cat("gh", "p_", rnd(alnum, 36))
	full := []byte("prefix " + tok + "\ntail " + tok + "\n")
	got := string(JSONLAppend([]byte("trusted\n"), len("prefix ")+len(tok)+1, full))
	if want := "trusted\ntail REDACTED\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
