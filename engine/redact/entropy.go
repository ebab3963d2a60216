package redact

import "math"

// entropyThreshold is the spec's limit: a run is a secret when its Shannon entropy is
// strictly greater than this many bits per byte.
const entropyThreshold = 4.5

// minEntropyRun is the shortest run that can exceed entropyThreshold. A run of n bytes has
// at most log2(n) bits per byte (all bytes distinct), and log2(22) ≈ 4.46 < 4.5 < log2(23),
// so the spec's `{10,}` runs of 10 to 22 bytes never fire and are not measured.
const minEntropyRun = 23

// entropyByte marks the bytes of the spec's entropy class [A-Za-z0-9/+_=-].
var entropyByte = func() (t [256]bool) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c], t[c+'a'-'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "/+_=-" {
		t[c] = true
	}
	return t
}()

// entropySpans appends every maximal run of entropy-class bytes in s whose entropy is
// above entropyThreshold.
func entropySpans(s string, spans []span) []span {
	for i := 0; i < len(s); {
		if !entropyByte[s[i]] {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && entropyByte[s[j]] {
			j++
		}
		if j-i >= minEntropyRun && shannon(s[i:j]) > entropyThreshold {
			spans = append(spans, span{i, j})
		}
		i = j
	}
	return spans
}

// shannon returns the Shannon entropy of s in bits per byte: -Σ p·log2(p) over the
// relative frequency p of each distinct byte value.
func shannon(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
