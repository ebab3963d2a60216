package redact

import (
	"regexp"
	"strings"
	"sync"
)

// A rule finds one shape of credential. It is anchored at a literal keyword: the rule's
// pattern (which starts with `^`) is matched only on a window of the text that begins at
// an occurrence of one of its keywords.
type rule struct {
	name     string
	keywords []string    // literal triggers; lowercase when fold is set
	fold     bool        // keywords are lowercase and match in any ASCII case
	re       *lazyRegexp // anchored pattern matched at each keyword occurrence
	group    int         // submatch that holds the secret; 0 is the whole match
	window   int         // most bytes the pattern may consume from the keyword on
	boundary bool        // the keyword must not follow an ASCII letter or digit
	tail     bool        // the match must not be followed by an ASCII letter or digit
	// run, when set, is the byte class the pattern scans right after the keyword; if the
	// pattern fails, every later keyword inside that run would fail too and is skipped.
	run *[256]bool
	// check, when set, vets a candidate: s is the text, kw the keyword offset and [a, b)
	// the secret.
	check func(s string, kw, a, b int) bool
}

// tokenWindow bounds prefix-token matches; real tokens are far shorter.
const tokenWindow = 1024

// rules is the credential-shape table. Patterns are written for this package from the
// providers' published token formats.
var rules = []rule{
	// Provider tokens with a distinctive prefix.
	{name: "aws-access-key-id", keywords: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		re: lazyRE(`^A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}`), boundary: true, tail: true},
	{name: "aws-secret-access-key", keywords: []string{"aws_secret_access_key", "aws_secret_key", "secretaccesskey"}, fold: true,
		re: lazyRE(`(?i)^[a-z_]{0,32}["']?\s*(?:[:=]|:=|=>)\s*["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`), group: 1},
	{name: "github-token", keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		re: lazyRE(`^gh[pousr]_[A-Za-z0-9]{36,251}`), boundary: true, tail: true},
	{name: "github-fine-grained-pat", keywords: []string{"github_pat_"},
		re: lazyRE(`^github_pat_[A-Za-z0-9_]{22,244}`), boundary: true},
	{name: "gitlab-token", keywords: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glcbt-"},
		re: lazyRE(`^gl(?:pat|dt|rt|ptt|cbt)-[A-Za-z0-9_-]{20,}`), boundary: true},
	{name: "slack-token", keywords: []string{"xoxa-", "xoxb-", "xoxe-", "xoxp-", "xoxr-", "xoxs-", "xapp-"},
		re: lazyRE(`^x(?:ox[abeprs]|app)-[A-Za-z0-9-]{10,}`), boundary: true},
	{name: "slack-webhook", keywords: []string{"hooks.slack.com/"},
		re: lazyRE(`^hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})`), group: 1},
	{name: "stripe-key", keywords: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"},
		re: lazyRE(`^(?:[sr]k_(?:live|test)|whsec)_[A-Za-z0-9]{16,247}`), boundary: true},
	{name: "anthropic-key", keywords: []string{"sk-ant-"},
		re: lazyRE(`^sk-ant-[A-Za-z0-9_-]{20,}`), boundary: true},
	{name: "openai-key", keywords: []string{"sk-"},
		re: lazyRE(`^sk-(?:proj-|svcacct-|admin-|None-)?([A-Za-z0-9_-]{20,})`), boundary: true,
		check: func(s string, _, a, b int) bool { return mixedAlnum(s[a:b]) }},
	{name: "google-api-key", keywords: []string{"AIza"},
		re: lazyRE(`^AIza[0-9A-Za-z_-]{35}`), boundary: true, tail: true},
	{name: "google-oauth", keywords: []string{"GOCSPX-", "ya29."},
		re: lazyRE(`^(?:GOCSPX-[A-Za-z0-9_-]{24,}|ya29\.[A-Za-z0-9_-]{20,})`), boundary: true},
	{name: "npm-token", keywords: []string{"npm_"},
		re: lazyRE(`^npm_[A-Za-z0-9]{36}`), boundary: true, tail: true},
	{name: "twilio-api-key", keywords: []string{"SK"},
		re: lazyRE(`^SK[0-9a-fA-F]{32}`), boundary: true, tail: true},
	{name: "sendgrid-key", keywords: []string{"SG."},
		re: lazyRE(`^SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}`), boundary: true},
	{name: "huggingface-token", keywords: []string{"hf_"},
		re: lazyRE(`^hf_[A-Za-z0-9]{30,}`), boundary: true, tail: true},
	{name: "pypi-token", keywords: []string{"pypi-AgEI"},
		re: lazyRE(`^pypi-AgEI[A-Za-z0-9_-]{50,}`), boundary: true},
	{name: "jwt", keywords: []string{"eyJ"}, window: 16 << 10, run: &base64URLByte,
		re: lazyRE(`^eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`), boundary: true},

	// Credentials recognised by their context; only the secret part is replaced.
	{name: "url-password", keywords: []string{"://"}, window: 512,
		re: lazyRE(`^://[^\s:@/?#"'<>\\]+:([^\s@/?#"'<>\\]+)@`), group: 1,
		check: func(s string, _, a, b int) bool { return !reference(s[a:b]) }},
	{name: "curl-user", keywords: []string{"-u ", "--user ", "--user="}, window: 512,
		re: lazyRE(`^(?:-u|--user)[ =]\s*["']?[^\s:"']+:([^\s"']+)`), group: 1,
		check: func(s string, kw, a, b int) bool {
			return (kw == 0 || s[kw-1] == ' ' || s[kw-1] == '\t') && !reference(s[a:b])
		}},
	{name: "connection-string-password", keywords: []string{"password", "pwd"}, fold: true, window: 512,
		re: lazyRE(`(?i)^(?:password|pwd)\s*=\s*([^;&"'\s]{3,})`), group: 1, boundary: true,
		check: connStringPassword},
	{name: "authorization", keywords: []string{"authorization"}, fold: true, window: tokenWindow,
		re:    lazyRE(`(?i)^authorization["']?\s*[:=]\s*["']?(?:basic|token|bearer)\s+([A-Za-z0-9._~+/-]{8,}=*)`),
		group: 1, check: func(s string, _, a, b int) bool { return !reference(s[a:b]) }},
	{name: "bearer", keywords: []string{"bearer"}, fold: true, boundary: true,
		re:    lazyRE(`(?i)^bearer\s+([A-Za-z0-9._~+/-]{12,}=*)`),
		group: 1, check: func(s string, _, a, b int) bool { return !wordLike(s[a:b]) }},
	{name: "generic-assignment", keywords: []string{"api_key", "api-key", "apikey", "secret", "token", "passwd", "password", "pwd"},
		fold: true, window: 768,
		re: lazyRE(`(?i)^(api[_-]?key|secret|token|passwd|password|pwd)[A-Za-z0-9_.-]{0,64}(?:\\?["'\]])*[ \t]*` +
			"(?::=|=>|[:=])[ \\t]*(?:\\\\?[\"'`])?([^\\s\"'`<>(){}\\[\\],;\\\\]+)"),
		group: 2, check: genericValue},
}

// ruleSpans appends the secret span of every rule match in s. One pass looks up each
// pair of adjacent bytes in a table of the keywords' first two bytes; only a hit compares
// keywords and runs a rule, which then skips keywords up to the offset matchAt returns.
func ruleSpans(s string, spans []span) []span {
	var next []int // offset below which each rule ignores keywords; made at the first hit
	index, lists := triggers()
	for i := 0; i+1 < len(s); i++ {
		id := index[uint16(s[i])<<8|uint16(s[i+1])]
		if id == 0 {
			continue
		}
		if next == nil {
			next = make([]int, len(rules))
		}
		for _, tr := range lists[id-1] {
			if i < next[tr.rule] || !hasKeyword(s[i:], tr.kw, rules[tr.rule].fold) {
				continue
			}
			sp, resume, ok := rules[tr.rule].matchAt(s, i)
			if ok {
				spans = append(spans, sp)
			}
			next[tr.rule] = resume
		}
	}
	return spans
}

// A trigger is one keyword of one rule.
type trigger struct {
	rule int
	kw   string
}

// triggers returns a table mapping the first two bytes of a keyword (every letter case of them
// for fold rules) to 1 + the index of its triggers in the list; 0 means no keyword starts so.
// It is built at the first redaction: the 128 KiB table would cost every hook process that
// redacts nothing its page faults at start.
var triggers = sync.OnceValues(buildTriggers)

func buildTriggers() (*[1 << 16]uint16, [][]trigger) {
	index := new([1 << 16]uint16)
	var lists [][]trigger
	cases := func(c byte, fold bool) []byte {
		if fold && 'a' <= c && c <= 'z' {
			return []byte{c, c - 'a' + 'A'}
		}
		return []byte{c}
	}
	for ri, r := range rules {
		for _, kw := range r.keywords {
			for _, c0 := range cases(kw[0], r.fold) {
				for _, c1 := range cases(kw[1], r.fold) {
					k := uint16(c0)<<8 | uint16(c1)
					if index[k] == 0 {
						lists = append(lists, nil)
						index[k] = uint16(len(lists))
					}
					lists[index[k]-1] = append(lists[index[k]-1], trigger{ri, kw})
				}
			}
		}
	}
	return index, lists
}

// hasKeyword reports whether s starts with kw, ignoring ASCII case when fold is set (kw is
// then lowercase).
func hasKeyword(s, kw string, fold bool) bool {
	if len(s) < len(kw) {
		return false
	}
	if !fold {
		return s[:len(kw)] == kw
	}
	for j := 0; j < len(kw); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != kw[j] {
			return false
		}
	}
	return true
}

// matchAt runs r at offset p of s, where one of its keywords starts, and returns the
// secret span if the rule fires. It also returns the offset below which r need not look
// at keywords again: the end of the pattern's match even when a check rejects it (a
// keyword inside a rejected candidate only yields a part of it), or the end of the
// scanned run when the pattern fails. This bounds the work on texts dense with keywords.
func (r *rule) matchAt(s string, p int) (span, int, bool) {
	if r.boundary && p > 0 && isAlnum(s[p-1]) {
		return span{}, p + 1, false
	}
	window := r.window
	if window == 0 {
		window = tokenWindow
	}
	m := r.re.FindStringSubmatchIndex(s[p:min(len(s), p+window)])
	if m == nil {
		resume := p + 1
		if r.run != nil {
			for resume < len(s) && r.run[s[resume]] {
				resume++
			}
		}
		return span{}, resume, false
	}
	a, b, end := p+m[2*r.group], p+m[2*r.group+1], p+m[1]
	ok := a >= p && (!r.tail || end == len(s) || !isAlnum(s[end])) && (r.check == nil || r.check(s, p, a, b))
	return span{a, b}, max(end, p+1), ok
}

// base64URLByte marks [A-Za-z0-9_-], the alphabet of a JWT segment.
var base64URLByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isAlnum(byte(c)) || c == '_' || c == '-'
	}
	return t
}()

// pemSpans appends every private key block: from a -----BEGIN … PRIVATE KEY----- line
// through the matching -----END … line. The body may hold real newlines or the two-byte
// escape \n of a JSON string. A header without a footer is redacted with the base64 body
// that follows it.
func pemSpans(s string, spans []span) []span {
	footer := -2 // offset of the next footer at or after the last search start; -1: none
	footerEnd := 0
	for pos := 0; ; {
		i := strings.Index(s[pos:], "-----BEGIN")
		if i < 0 {
			return spans
		}
		p := pos + i
		h := pemHeader.FindStringIndex(s[p:min(len(s), p+128)])
		if h == nil {
			pos = p + len("-----BEGIN")
			continue
		}
		body := p + h[1]
		if footer != -1 && footer < body {
			footer, footerEnd = nextPEMFooter(s, body)
		}
		end := footerEnd
		if footer < 0 {
			end = body
			for end < len(s) && pemBodyByte[s[end]] {
				end++
			}
		}
		spans = append(spans, span{p, end})
		pos = end
	}
}

var (
	pemHeader = lazyRE(`^-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
	pemFooter = lazyRE(`^-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
)

// pemBodyByte marks the bytes a PEM body may contain, the backslash of JSON escapes included.
var pemBodyByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isAlnum(byte(c))
	}
	for _, c := range "+/=\\ \t\r\n" {
		t[c] = true
	}
	return t
}()

// nextPEMFooter returns the offset and end of the first private-key footer at or after
// from, or -1 when there is none.
func nextPEMFooter(s string, from int) (int, int) {
	for pos := from; ; {
		i := strings.Index(s[pos:], "-----END")
		if i < 0 {
			return -1, 0
		}
		p := pos + i
		if m := pemFooter.FindStringIndex(s[p:min(len(s), p+128)]); m != nil {
			return p, p + m[1]
		}
		pos = p + len("-----END")
	}
}

// lazyRegexp compiles its pattern on first use: every hook process links this package, but
// only condensation redacts, so the others should not pay for compiling the rule table.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazyRE(src string) *lazyRegexp { return &lazyRegexp{src: src} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// FindStringSubmatchIndex compiles the pattern if needed and matches it.
func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.get().FindStringSubmatchIndex(s)
}

// FindStringIndex compiles the pattern if needed and matches it.
func (l *lazyRegexp) FindStringIndex(s string) []int { return l.get().FindStringIndex(s) }
