package redact

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	inputs := []string{
		"", "plain", `quote " and backslash \`, "ctl \x00\x01\b\f\n\r\t\x1f\x7f",
		"<html> & 'apos'", "line\u2028sep\u2029para", "caf\u00e9 \U0001F600",
		"bad utf8 \xff\xfe end", "truncated \xe2\x82", "REDACTED",
	}
	for range 200 {
		inputs = append(inputs, rnd("ab\"\\\n\t\x01\x1f<>&\u00e9\xff\u2028", 12))
	}
	for _, s := range inputs {
		if got, want := string(appendJSONString(nil, s)), `"`+jsonText(s)+`"`; got != want {
			t.Errorf("appendJSONString(%q) = %s, encoding/json gives %s", s, got, want)
		}
	}
}

func TestDecodeJSONStringMatchesEncodingJSON(t *testing.T) {
	tokens := []string{
		`""`, `"plain"`, `"esc \" \\ \/ \b \f \n \r \t"`, `"\u00e9\u20AC"`,
		`"pair \ud83d\ude00 end"`, `"lone high \ud83d end"`, `"lone low \ude00 end"`,
		`"high then non-low \ud83d\u0041"`, `"two highs \ud83d\ud83d\ude00"`, `"\u0000"`,
	}
	for _, tok := range tokens {
		var want string
		if err := json.Unmarshal([]byte(tok), &want); err != nil {
			t.Fatalf("test token %s: %v", tok, err)
		}
		if got := decodeJSONString([]byte(tok), strings.Contains(tok, `\`)); got != want {
			t.Errorf("decodeJSONString(%s) = %q, encoding/json gives %q", tok, got, want)
		}
	}
}

func TestScanJSONAgreesWithEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, ` "s" `, `-0.5e+3`, `true`, `{"a":1,}`, `[1,]`,
		`{"a" 1}`, `01`, `1.`, `.5`, `"\x"`, "\"tab\there\"", `{"a":"\u12"}`, `nul`, `[1 2]`,
		`{"a":1}{"b":2}`, `"unterminated`, `{"a":tru}`, `-`, `1e`, `[`, `{"a":[}`,
	}
	for _, d := range docs {
		_, got := scanJSON([]byte(d), nil)
		if want := json.Valid([]byte(d)); got != want {
			t.Errorf("scanJSON(%q) valid = %v, encoding/json says %v", d, got, want)
		}
	}
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if _, ok := scanJSON([]byte(deep), nil); ok {
		t.Errorf("scanJSON accepted nesting deeper than %d", maxDepth)
	}
}

func TestShannon(t *testing.T) {
	if h := shannon("aaaaaaaaaaaa"); h != 0 {
		t.Errorf("shannon of one repeated byte = %v, want 0", h)
	}
	if h := shannon("aabb"); h != 1 {
		t.Errorf("shannon(aabb) = %v, want 1", h)
	}
	distinct := alnum + "+/"
	for n := 10; n < minEntropyRun; n++ {
		if h := shannon(distinct[:n]); h > entropyThreshold {
			t.Errorf("%d distinct bytes give %v bits > %v: minEntropyRun is wrong", n, h, entropyThreshold)
		}
	}
	if h := shannon(distinct[:minEntropyRun]); h <= entropyThreshold {
		t.Errorf("%d distinct bytes give %v bits, want > %v", minEntropyRun, h, entropyThreshold)
	}
	if h := shannon(distinct[:64]); math.Abs(h-6) > 1e-12 {
		t.Errorf("shannon of 64 distinct bytes = %v, want 6", h)
	}
}

// TestEntropySpansFollowTheSpec compares the scanner with the rule as the spec writes it:
// every match of [A-Za-z0-9/+_=-]{10,} with entropy > 4.5.
func TestEntropySpansFollowTheSpec(t *testing.T) {
	re := regexp.MustCompile(`[A-Za-z0-9/+_=-]{10,}`)
	for i := range 2000 {
		alphabet := []string{hexLow + " ", alnum + " .", b64url + "/+= :"}[i%3]
		s := rnd(alphabet, 10+i%90)
		var want []span
		for _, m := range re.FindAllStringIndex(s, -1) {
			if shannon(s[m[0]:m[1]]) > entropyThreshold {
				want = append(want, span{m[0], m[1]})
			}
		}
		got := entropySpans(s, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("entropySpans(%q) = %v, spec rule gives %v", s, got, want)
		}
	}
}

// TestHexAndUUIDsSurviveEntropy documents the consequence of the spec's rule for git SHAs
// and UUIDs: 16 or 17 symbols cap the entropy at about 4.09 bits, below 4.5.
func TestHexAndUUIDsSurviveEntropy(t *testing.T) {
	for range 100 {
		sha := rnd(hexLow, 40)
		uuid := rnd(hexLow, 8) + "-" + rnd(hexLow, 4) + "-4" + rnd(hexLow, 3) + "-a" + rnd(hexLow, 3) + "-" + rnd(hexLow, 12)
		long := rnd(hexLow, 64) + "-" + rnd(hexLow, 64)
		for _, s := range []string{sha, uuid, long} {
			if got := String("commit " + s + " done"); got != "commit "+s+" done" {
				t.Fatalf("hex string redacted: %s", got)
			}
		}
	}
}

func TestRepeatsOfManySecrets(t *testing.T) {
	var text strings.Builder
	var pws []string
	for i := range 12 {
		pw := rnd(alnum, 5) + "#" + rnd(alnum, 5)
		pws = append(pws, pw)
		text.WriteString("DB" + string(rune('A'+i)) + "_PASSWORD=" + pw + "\n")
	}
	for _, pw := range pws {
		text.WriteString("psql -W " + pw + " && echo " + pw + "\n")
	}
	out := String(text.String())
	for _, pw := range pws {
		if strings.Contains(out, pw) {
			t.Errorf("repeat of %q survives in\n%s", pw, out)
		}
	}
	if n := strings.Count(out, Replacement); n != 36 {
		t.Errorf("got %d replacements, want 36:\n%s", n, out)
	}
}

func TestMergedSpansGiveOneReplacement(t *testing.T) {
	tok := cat("gh", "p_", rnd(alnum, 36))
	if got := String("x " + tok + tok + " y"); got != "x REDACTED y" {
		t.Errorf("adjacent findings: got %q", got)
	}
	if got, want := String(tok[:10]), tok[:10]; got != want {
		t.Errorf("short text changed: %q", got)
	}
	b := []byte("nothing to see here, just words")
	if got := Bytes(b); &got[0] != &b[0] {
		t.Errorf("Bytes copied an unchanged input")
	}
	if got := string(Bytes([]byte("k " + tok))); got != "k REDACTED" {
		t.Errorf("Bytes = %q", got)
	}
}
