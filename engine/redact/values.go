package redact

import "strings"

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// asciiLower lowercases the ASCII letters of s and keeps every other byte, so offsets in
// the result are offsets in s.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// mixedAlnum reports whether s has a digit, an upper- and a lowercase letter, as random
// base62 tokens nearly always do and hyphenated names do not.
func mixedAlnum(s string) bool {
	var digit, upper, lower bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		digit = digit || '0' <= c && c <= '9'
		upper = upper || 'A' <= c && c <= 'Z'
		lower = lower || 'a' <= c && c <= 'z'
	}
	return digit && upper && lower
}

// reference reports whether v names a secret instead of holding one: a shell or template
// variable ($TOKEN, ${TOKEN}, %TOKEN%, {{ .Token }}, <password>) or a masked value.
func reference(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '%', '{', '<', '*':
		return true
	}
	return strings.Contains(v, "****")
}

// wordLike reports whether v consists of letters, '_', '-' and '.' only: a word, an
// identifier or a dotted path such as config.apiKey, not a random token.
func wordLike(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// dottedPath reports whether v is two or more identifiers joined by dots
// (self.password, process.env.API_KEY_2).
func dottedPath(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || !(p[0] == '_' || 'a' <= p[0]|0x20 && p[0]|0x20 <= 'z') {
			return false
		}
		for i := 1; i < len(p); i++ {
			if !isAlnum(p[i]) && p[i] != '_' {
				return false
			}
		}
	}
	return true
}

// placeholders are lowercase fragments of documentation values that hold no secret.
var placeholders = []string{"xxxx", "your_", "your-", "example", "placeholder", "redacted", "changeme", "dummy"}

// plausibleSecret reports whether v, the value of an assignment to a secret-named key,
// looks like a credential: long enough, not a reference, a placeholder, a number, a URL or
// path, a word or an identifier.
func plausibleSecret(v string, minLen int) bool {
	if len(v) < minLen || len(v) > 512 || reference(v) || wordLike(v) || dottedPath(v) {
		return false
	}
	if v[0] == '/' || v[0] == '.' || v[0] == '~' || strings.Contains(v, "://") {
		return false
	}
	digits := true
	for i := 0; i < len(v); i++ {
		digits = digits && ('0' <= v[i] && v[i] <= '9' || v[i] == '.' || v[i] == '_')
		if v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r' {
			return false
		}
	}
	if digits {
		return false
	}
	lv := asciiLower(v)
	for _, p := range placeholders {
		if strings.Contains(lv, p) {
			return false
		}
	}
	return true
}

// genericValue vets a generic `name = value` match: passwords may be short (6 bytes),
// other values need 8.
func genericValue(s string, kw, a, b int) bool {
	minLen := 8
	if c := s[kw] | 0x20; c == 'p' {
		minLen = 6
	}
	return plausibleSecret(s[a:b], minLen) && !inURL(s, kw)
}

// inURL reports whether offset i of s lies inside a URL (after "://" in the same
// whitespace- or quote-delimited word); a URL's userinfo is the url-password rule's job.
func inURL(s string, i int) bool {
	for j := i - 1; j >= 2 && j >= i-256; j-- {
		switch s[j] {
		case ' ', '\t', '\n', '\r', '"', '\'', '`':
			return false
		case '/':
			if s[j-1] == '/' && s[j-2] == ':' {
				return true
			}
		}
	}
	return false
}

// connStringPassword accepts a Password=/Pwd= value inside a connection string or query:
// the key follows ';', '&' or '?', or the value is followed by ';' or '&'. Any value that
// is not a reference counts, including plain words.
func connStringPassword(s string, kw, a, b int) bool {
	if reference(s[a:b]) {
		return false
	}
	j := kw - 1
	for j >= 0 && (s[j] == ' ' || s[j] == '\t') {
		j--
	}
	if j >= 0 && (s[j] == ';' || s[j] == '&' || s[j] == '?') {
		return true
	}
	return b < len(s) && (s[b] == ';' || s[b] == '&')
}

// secretKeySuffixes are the endings (lowercase, '_' and '-' removed) of JSON keys whose
// string value is a credential as a whole.
var secretKeySuffixes = []string{"password", "passwd", "pwd", "secret", "apikey", "token", "accesskey", "privatekey"}

// isSecretKey reports whether a JSON object key names a credential (password,
// client_secret, apiKey, GITHUB_TOKEN, …).
func isSecretKey(key []byte) bool {
	if len(key) < 3 || len(key) > 64 {
		return false
	}
	var buf [64]byte
	n := 0
	for _, c := range key {
		switch {
		case c == '_' || c == '-':
		case 'A' <= c && c <= 'Z':
			buf[n] = c + 'a' - 'A'
			n++
		default:
			buf[n] = c
			n++
		}
	}
	k := string(buf[:n])
	for _, suf := range secretKeySuffixes {
		if strings.HasSuffix(k, suf) {
			return true
		}
	}
	return false
}
