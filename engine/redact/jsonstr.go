package redact

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeJSONString returns the text of a validated JSON string token (quotes included).
// Like encoding/json it turns unpaired surrogate escapes into U+FFFD; invalid UTF-8 bytes
// are kept as they are.
func decodeJSONString(raw []byte, escaped bool) string {
	raw = raw[1 : len(raw)-1]
	if !escaped {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			out = append(out, raw...)
			break
		}
		out = append(out, raw[:i]...)
		c := raw[i+1]
		raw = raw[i+2:]
		switch c {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(raw)
			raw = raw[4:]
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if len(raw) >= 6 && raw[0] == '\\' && raw[1] == 'u' {
					r2 = hex4(raw[2:])
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					raw = raw[6:]
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\', '/'
			out = append(out, c)
		}
	}
	return string(out)
}

// hex4 decodes four validated hex digits.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		default:
			c = c | 0x20 - 'a' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string encoded the way encoding/json does with
// HTML escaping off: `"` and `\` escaped, control characters as \b \f \n \r \t or \u00XX,
// U+2028 and U+2029 as \u2028 and \u2029, invalid UTF-8 as \ufffd.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
