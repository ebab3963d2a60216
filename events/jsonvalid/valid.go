// Package jsonvalid checks JSON text as gjson.Valid does, faster on long strings: a
// transcript line is mostly string content (tool results, file bodies), which is checked
// eight bytes at a time.
package jsonvalid

import "encoding/binary"

// Valid reports whether b is one JSON value, with optional whitespace around it. It accepts
// exactly what gjson.ValidBytes accepts (FuzzValid): string contents are not checked for
// UTF-8, and nesting has no limit. It keeps the open arrays and objects on a stack of its own
// rather than recursing: a line of a few million "[" overflowed the goroutine's stack in
// gjson, a crash no hook can recover from.
func Valid(b []byte) bool {
	var open []byte // '[' or '{' of each array and object not yet closed
	i := ws(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		var ok bool
		switch c := b[i]; {
		case c == '{' || c == '[':
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if i = ws(b, i+1); i < len(b) && b[i] == closer {
				i, ok = i+1, true // empty
				break
			}
			open = append(open, c)
			if c == '{' {
				if i, ok = member(b, i); !ok {
					return false
				}
			}
			continue
		case c == '"':
			i, _, ok = str(b, i+1)
		case c == '-' || digit(c):
			i, ok = number(b, i)
		case c == 't':
			i, ok = literal(b, i, "true")
		case c == 'f':
			i, ok = literal(b, i, "false")
		case c == 'n':
			i, ok = literal(b, i, "null")
		}
		if !ok {
			return false
		}
		// A value ended at i: close what it ends, or go on to the next element or member.
		for {
			i = ws(b, i)
			if len(open) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := open[len(open)-1]
			if b[i] == ',' {
				i = ws(b, i+1)
				if top == '{' {
					if i, ok = member(b, i); !ok {
						return false
					}
				}
				break
			}
			if top == '[' && b[i] != ']' || top == '{' && b[i] != '}' {
				return false
			}
			open = open[:len(open)-1]
			i++
		}
	}
}

// ws skips JSON whitespace from i.
func ws(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// member checks an object member's name and colon at i and returns where its value starts.
func member(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, _, ok := str(b, i+1)
	if !ok {
		return i, false
	}
	if i = ws(b, i); i >= len(b) || b[i] != ':' {
		return i, false
	}
	return ws(b, i+1), true
}
func literal(b []byte, i int, word string) (int, bool) {
	if len(b)-i >= len(word) && string(b[i:i+len(word)]) == word {
		return i + len(word), true
	}
	return i, false
}

// number checks the number at i: an optional minus, 0 or digits not starting with 0, an
// optional fraction and an optional exponent.
func number(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b) || !digit(b[i]):
		return i, false
	case b[i] == '0':
		i++
	default:
		i = digits(b, i)
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !digit(b[i]) {
			return i, false
		}
		i = digits(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !digit(b[i]) {
			return i, false
		}
		i = digits(b, i)
	}
	return i, true
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

func digits(b []byte, i int) int {
	for i < len(b) && digit(b[i]) {
		i++
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain reports whether none of the eight bytes in w is '"', '\\' or below 0x20. (The
// borrow of a byte that is one of them can mark the bytes above it too, never a word
// without one.)
func plain(w uint64) bool {
	quote := w ^ (ones * '"')
	slash := w ^ (ones * '\\')
	special := (quote-ones)&^quote | (slash-ones)&^slash | (w-ones*0x20)&^w
	return special&highs == 0
}

// String checks the JSON string whose opening quote is at b[i]: end is just past its closing
// quote, escaped tells whether it holds a backslash escape, and ok=false when it is not a
// valid string (a control character, a bad escape, no closing quote).
func String(b []byte, i int) (end int, escaped, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false, false
	}
	end, escaped, ok = str(b, i+1)
	return end, escaped, ok
}

// str checks the rest of a string after its opening quote and returns where it ends.
func str(b []byte, i int) (end int, escaped, ok bool) {
	for {
		for i+8 <= len(b) && plain(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && !special[b[i]] {
			i++
		}
		if i >= len(b) {
			return i, escaped, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c < 0x20:
			return i, escaped, false
		}
		// A backslash escape.
		escaped = true
		if i++; i >= len(b) {
			return i, escaped, false
		}
		switch b[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if len(b)-i < 5 || !hex(b[i+1]) || !hex(b[i+2]) || !hex(b[i+3]) || !hex(b[i+4]) {
				return i, escaped, false
			}
			i += 5
		default:
			return i, escaped, false
		}
	}
}

func hex(c byte) bool { return digit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// special marks the bytes that end a run of plain string content.
var special = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()
