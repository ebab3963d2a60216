package redact

import (
	"bytes"

	"github.com/entirerec/entire/events/jsonvalid"
)

// maxDepth bounds the nesting of a JSON line, as encoding/json does; a deeper line is
// treated as non-JSON and redacted as plain text.
const maxDepth = 10000

// jsonString is a string value of a JSON line that redaction may rewrite.
type jsonString struct {
	start, end int  // the raw token, quotes included
	escaped    bool // the token contains a backslash escape
	secretKey  bool // the value belongs to a key that names a credential
}

// jsonScanner validates one JSON text and records the string values that §12.1 walks: not
// keys, not values of keys equal to "signature" or ending in "id"/"ids", not anything
// inside an object whose "type" starts with "image" or equals "base64".
type jsonScanner struct {
	b     []byte
	i     int
	depth int
	vals  []jsonString
}

// scanJSON reports whether b is one JSON value (surrounding whitespace allowed) and
// returns the string values to redact, appended to vals[:0].
func scanJSON(b []byte, vals []jsonString) ([]jsonString, bool) {
	sc := jsonScanner{b: b, vals: vals[:0]}
	if !sc.value(false, nil) {
		return sc.vals, false
	}
	sc.ws()
	return sc.vals, sc.i == len(b)
}

func (sc *jsonScanner) ws() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// value scans the value at sc.i; skip suppresses recording, key is the member name the
// value belongs to (nil at top level).
func (sc *jsonScanner) value(skip bool, key []byte) bool {
	sc.ws()
	if sc.i >= len(sc.b) {
		return false
	}
	switch c := sc.b[sc.i]; {
	case c == '"':
		start := sc.i
		esc, ok := sc.str()
		if ok && !skip {
			sc.vals = append(sc.vals, jsonString{start, sc.i, esc, isSecretKey(key)})
		}
		return ok
	case c == '{':
		return sc.object(skip)
	case c == '[':
		return sc.array(skip, key)
	case c == 't':
		return sc.literal("true")
	case c == 'f':
		return sc.literal("false")
	case c == 'n':
		return sc.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return sc.number()
	}
	return false
}

func (sc *jsonScanner) object(skip bool) bool {
	if sc.depth++; sc.depth > maxDepth {
		return false
	}
	sc.i++
	mark, binary := len(sc.vals), false
	sc.ws()
	if sc.i < len(sc.b) && sc.b[sc.i] == '}' {
		sc.i++
		sc.depth--
		return true
	}
	for {
		sc.ws()
		if sc.i >= len(sc.b) || sc.b[sc.i] != '"' {
			return false
		}
		ks := sc.i
		kesc, ok := sc.str()
		if !ok {
			return false
		}
		key := sc.b[ks+1 : sc.i-1]
		if kesc {
			key = []byte(decodeJSONString(sc.b[ks:sc.i], true))
		}
		sc.ws()
		if sc.i >= len(sc.b) || sc.b[sc.i] != ':' {
			return false
		}
		sc.i++
		sc.ws()
		vs := sc.i
		if !sc.value(skip || skippedKey(key), key) {
			return false
		}
		if string(key) == "type" && sc.b[vs] == '"' {
			t := decodeJSONString(sc.b[vs:sc.i], bytes.IndexByte(sc.b[vs:sc.i], '\\') >= 0)
			binary = binary || len(t) >= 5 && t[:5] == "image" || t == "base64"
		}
		sc.ws()
		if sc.i >= len(sc.b) {
			return false
		}
		if sc.b[sc.i] == '}' {
			sc.i++
			break
		}
		if sc.b[sc.i] != ',' {
			return false
		}
		sc.i++
	}
	if binary {
		sc.vals = sc.vals[:mark]
	}
	sc.depth--
	return true
}

func (sc *jsonScanner) array(skip bool, key []byte) bool {
	if sc.depth++; sc.depth > maxDepth {
		return false
	}
	sc.i++
	sc.ws()
	if sc.i < len(sc.b) && sc.b[sc.i] == ']' {
		sc.i++
		sc.depth--
		return true
	}
	for {
		if !sc.value(skip, key) {
			return false
		}
		sc.ws()
		if sc.i >= len(sc.b) {
			return false
		}
		if sc.b[sc.i] == ']' {
			sc.i++
			sc.depth--
			return true
		}
		if sc.b[sc.i] != ',' {
			return false
		}
		sc.i++
	}
}

// skippedKey reports whether the value of key is left alone: "signature", or a name ending
// in "id" or "ids" in any case (uuid, tool_use_id, parentUuid, messageIds).
func skippedKey(key []byte) bool {
	if string(key) == "signature" {
		return true
	}
	n := len(key)
	if n >= 1 && key[n-1]|0x20 == 's' {
		n--
	}
	return n >= 2 && key[n-2]|0x20 == 'i' && key[n-1]|0x20 == 'd'
}

// str scans the string token at sc.i and reports whether it contains an escape.
func (sc *jsonScanner) str() (escaped, ok bool) {
	end, escaped, ok := jsonvalid.String(sc.b, sc.i)
	if !ok {
		return false, false
	}
	sc.i = end
	return escaped, true
}

func (sc *jsonScanner) literal(lit string) bool {
	if !bytes.HasPrefix(sc.b[sc.i:], []byte(lit)) {
		return false
	}
	sc.i += len(lit)
	return true
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (sc *jsonScanner) number() bool {
	b, i := sc.b, sc.i
	if b[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	sc.i = i
	return true
}
