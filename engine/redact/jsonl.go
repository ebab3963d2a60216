package redact

import "bytes"

// JSONL redacts a JSON Lines text (transcripts, subagent transcripts, incremental data)
// line by line, as spec §12.1 describes:
//
//   - empty lines are kept;
//   - a line that is not one JSON value is redacted as plain text ([String]);
//   - in a JSON line every string value is redacted, except values of keys equal to
//     "signature" or ending in "id"/"ids" (any case) and anything inside an object whose
//     "type" starts with "image" or equals "base64"; a string value under a key that names a
//     credential (password, client_secret, apiKey, *_TOKEN, …) is replaced as a whole when it
//     looks like one;
//   - each changed value's token is replaced in place by the JSON encoding (no HTML
//     escaping) of its redacted text, so all other bytes of the line are preserved.
//     Replacing the token where the scan found it, rather than searching the line for the
//     value's canonical encoding, also covers values the line spells with other escapes
//     (\u0070 for p) and leaves equal text under skipped keys alone.
//
// Newlines are never added or removed. JSONL returns b itself (not a copy) when nothing
// is redacted.
func JSONL(b []byte) []byte {
	return std.jsonl(b)
}

func (r redactor) jsonl(b []byte) []byte {
	var out []byte
	var vals []jsonString
	for start := 0; start < len(b); {
		end := bytes.IndexByte(b[start:], '\n')
		next := len(b)
		if end < 0 {
			end = len(b)
		} else {
			end += start
			next = end + 1
		}
		red, changed := r.line(b[start:end], &vals)
		if changed && out == nil {
			out = make([]byte, 0, len(b)+len(b)/16)
			out = append(out, b[:start]...)
		}
		if out != nil {
			out = append(out, red...)
			out = append(out, b[end:next]...)
		}
		start = next
	}
	if out == nil {
		return b
	}
	return out
}

// JSONLAppend returns the redaction of full given prefixRedacted, the redaction by
// [JSONL] of full[:prefixLen]. Only full[prefixLen:] is examined, so redacting a growing
// transcript costs time linear in the new content, and the result equals JSONL(full).
//
// The caller must guarantee that prefixRedacted is exactly JSONL(full[:prefixLen]) and
// that prefixLen lies on a line boundary: 0, or just after a '\n'. If prefixLen is out of
// range or not on a boundary, JSONLAppend redacts all of full instead. Like append, it may
// write into prefixRedacted's spare capacity; since JSONL can return its argument itself,
// do not pass a prefixRedacted that shares memory with full (clip it with p[:len(p):len(p)]).
func JSONLAppend(prefixRedacted []byte, prefixLen int, full []byte) []byte {
	if prefixLen < 0 || prefixLen > len(full) || prefixLen > 0 && full[prefixLen-1] != '\n' {
		return JSONL(full)
	}
	return append(prefixRedacted, JSONL(full[prefixLen:])...)
}

// line redacts one line without its newline; vals is scratch space reused across lines.
func (r redactor) line(line []byte, vals *[]jsonString) ([]byte, bool) {
	if len(line) == 0 {
		return line, false
	}
	var ok bool
	*vals, ok = scanJSON(line, *vals)
	if !ok {
		red, changed := r.text(string(line))
		if !changed {
			return line, false
		}
		return []byte(red), true
	}
	var out []byte
	last := 0
	for _, v := range *vals {
		if v.end-v.start-2 < minTextLen {
			continue
		}
		text := decodeJSONString(line[v.start:v.end], v.escaped)
		red, changed := r.value(text, v.secretKey)
		if !changed {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(line))
		}
		out = append(out, line[last:v.start]...)
		out = appendJSONString(out, red)
		last = v.end
	}
	if out == nil {
		return line, false
	}
	return append(out, line[last:]...), true
}

// value redacts the text of one JSON string value. A value that belongs to a
// credential-named key and looks like a credential is replaced whole.
func (r redactor) value(text string, secretKey bool) (string, bool) {
	if secretKey && plausibleSecret(text, 8) {
		return Replacement, true
	}
	return r.text(text)
}
