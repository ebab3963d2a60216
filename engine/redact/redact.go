package redact

import (
	"encoding/binary"
	"slices"
	"strings"
)

// minTextLen is the length below which no detector can fire: entropy needs 23 bytes and
// the shortest rule match ("-u a:b") has 6.
const minTextLen = 6

// minRepeatLen is the shortest secret whose other occurrences in the same text are
// redacted as well; shorter findings would hit ordinary words.
const minRepeatLen = 8

// String returns s with every detected secret replaced by [Replacement] (plain mode, used
// for prompt.txt, context.md and other copied text files). It returns s itself when
// nothing is found.
func String(s string) string {
	r, _ := std.text(s)
	return r
}

// Bytes is [String] for a byte slice. It returns b itself (not a copy) when nothing is
// found, so callers that keep the result must not modify b afterwards.
func Bytes(b []byte) []byte {
	r, changed := std.text(string(b))
	if !changed {
		return b
	}
	return []byte(r)
}

// span is a half-open byte range [start, end) of a text to replace.
type span struct{ start, end int }

// A redactor is a choice of detectors. The package uses std, which runs them all; tests
// switch entropy off to tell which detector changed a text.
type redactor struct {
	entropy bool
}

var std = redactor{entropy: true}

// text runs the detectors over s and reports whether anything was replaced.
func (r redactor) text(s string) (string, bool) {
	if len(s) < minTextLen {
		return s, false
	}
	var spans []span
	if r.entropy {
		spans = entropySpans(s, spans)
	}
	spans = ruleSpans(s, spans)
	spans = pemSpans(s, spans)
	if len(spans) == 0 {
		return s, false
	}
	spans = repeatSpans(s, spans)
	spans = mergeSpans(spans)
	return applySpans(s, spans), true
}

// mergeSpans sorts spans and joins those that overlap or touch, so that adjacent findings
// become one REDACTED rather than REDACTEDREDACTED.
func mergeSpans(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp.start <= last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// applySpans replaces each of the sorted, disjoint spans of s by Replacement.
func applySpans(s string, spans []span) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.start])
		b.WriteString(Replacement)
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// repeatSpans adds a span for every occurrence in s of each distinct finding that is at
// least minRepeatLen bytes long. A few secrets are searched for one by one; many are
// looked up by their first 8 bytes at every offset of s, which keeps the pass linear
// however many findings the text has.
func repeatSpans(s string, spans []span) []span {
	var secrets []string
	seen := make(map[string]bool)
	for _, sp := range spans {
		sec := s[sp.start:sp.end]
		if len(sec) >= minRepeatLen && !seen[sec] {
			seen[sec] = true
			secrets = append(secrets, sec)
		}
	}
	if len(secrets) <= 8 {
		for _, sec := range secrets {
			for pos := 0; ; {
				i := strings.Index(s[pos:], sec)
				if i < 0 {
					break
				}
				spans = append(spans, span{pos + i, pos + i + len(sec)})
				pos += i + len(sec)
			}
		}
		return spans
	}
	// A bitset over a hash of the 8-byte prefixes rules out nearly every offset before
	// the map is consulted.
	bits := 12
	for 1<<bits < 64*len(secrets) {
		bits++
	}
	filter := make([]uint64, 1<<bits/64)
	hash := func(k uint64) uint64 { return k * 0x9E3779B97F4A7C15 >> (64 - bits) }
	byPrefix := make(map[uint64][]string, len(secrets))
	for _, sec := range secrets {
		k := binary.LittleEndian.Uint64([]byte(sec[:8]))
		byPrefix[k] = append(byPrefix[k], sec)
		h := hash(k)
		filter[h/64] |= 1 << (h % 64)
	}
	for i := 0; i+minRepeatLen <= len(s); i++ {
		k := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		if h := hash(k); filter[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, sec := range byPrefix[k] {
			if strings.HasPrefix(s[i:], sec) {
				spans = append(spans, span{i, i + len(sec)})
			}
		}
	}
	return spans
}
