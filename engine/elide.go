package engine

import (
	"bytes"
	"strconv"

	"github.com/entirerec/entire/events/jsonvalid"
)

// A stored transcript chunk holds at most maxChunk bytes: the reference refuses to write a
// larger one, and forges refuse to take one much larger on a push (GitHub: 100 MB a file). A
// transcript line can be larger (a tool's whole output, an image in base64), and the
// checkpoint must still be written, since a commit's trailer names it. So a chunk over the
// limit is fitted: its long lines are shortened, each keeping its shape.

// bigLine is the length up to which a line is kept whole when its chunk is fitted.
const bigLine = 1 << 20

// fitChunk returns chunk, lines separated by "\n", within limit bytes: when it is larger, each
// line longer than bigLine is shortened to an equal share of the room the others leave.
func fitChunk(chunk []byte, limit int) []byte {
	if len(chunk) <= limit {
		return chunk
	}
	lines := bytes.Split(chunk, []byte{'\n'})
	room, big := limit-(len(lines)-1), 0
	for _, l := range lines {
		if len(l) > bigLine {
			big++
		} else {
			room -= len(l)
		}
	}
	if big == 0 {
		return chunk
	}
	out := make([]byte, 0, limit)
	for i, l := range lines {
		if i > 0 {
			out = append(out, '\n')
		}
		if len(l) > bigLine {
			l = elideLine(l, max(room/big, 0))
		}
		out = append(out, l...)
	}
	return out
}

// noteRoom bounds the length of the note that replaces the end of a cut string.
const noteRoom = len("[... 1234567890123 bytes elided by entire]")

func elisionNote(n int) string { return "[... " + strconv.Itoa(n) + " bytes elided by entire]" }

// elideLine shortens a JSON line to at most limit bytes by cutting its long strings, all to
// the same length, the largest that fits, each ending in a note of how many bytes were left
// out. Short strings, keys, numbers and the structure stay as they were, so the line still
// parses to the same record (its type, its uuid) and the transcript keeps its line count,
// which its offsets count. A line that is not valid JSON, or whose structure alone is over
// the limit, becomes a JSON object that says only how long it was.
func elideLine(line []byte, limit int) []byte {
	if len(line) <= limit {
		return line
	}
	if !jsonvalid.Valid(line) {
		return elidedRecord(len(line))
	}
	type span struct{ start, end int } // a string's content, between its quotes
	var spans []span
	for i := 0; i < len(line); {
		if line[i] != '"' {
			i++
			continue
		}
		end, _, _ := jsonvalid.String(line, i)
		if end-i-2 > noteRoom {
			spans = append(spans, span{i + 1, end - 1})
		}
		i = end
	}
	// size(keep) bounds the line's length with every string cut to keep bytes and a note.
	size := func(keep int) int {
		n := len(line)
		for _, s := range spans {
			if l := s.end - s.start; l > keep+noteRoom {
				n -= l - keep - noteRoom
			}
		}
		return n
	}
	longest := 0
	for _, s := range spans {
		longest = max(longest, s.end-s.start)
	}
	lo, hi := -1, longest // size(lo) fits (lo = -1: not known yet), size(hi+1) does not
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if size(mid) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo < 0 {
		return elidedRecord(len(line))
	}
	out := make([]byte, 0, size(lo))
	at := 0
	for _, s := range spans {
		if s.end-s.start <= lo+noteRoom {
			continue
		}
		cut := cutString(line[s.start:s.end], lo)
		out = append(out, line[at:s.start+cut]...)
		out = append(out, elisionNote(s.end-s.start-cut)...)
		at = s.end
	}
	return append(out, line[at:]...)
}

// cutString returns where to cut a JSON string's content to at most keep bytes: never inside
// a backslash escape or a UTF-8 character.
func cutString(s []byte, keep int) int {
	j := 0
	for j < keep {
		step := 1
		if s[j] == '\\' {
			step = 2
			if s[j+1] == 'u' {
				step = 6
			}
		}
		if j+step > keep {
			break
		}
		j += step
	}
	for j > 0 && j < len(s) && s[j]&0xC0 == 0x80 {
		j--
	}
	return j
}

// elidedRecord stands for a line that could not be shortened.
func elidedRecord(n int) []byte {
	return []byte(`{"entire_elided_bytes":` + strconv.Itoa(n) + `}`)
}
