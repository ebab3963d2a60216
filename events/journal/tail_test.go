package journal

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestLastLineSeqReadsOnlyTheTail shows that learning LastSeq costs about one
// block however long the journal is, by counting bytes rather than timing.
func TestLastLineSeqReadsOnlyTheTail(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lines   int
		lastLen int // extra payload in the last line
	}{
		{"100k short lines", 100_000, 0},
		{"last line longer than a block", 1000, 3 * blockSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			for s := 1; s <= tc.lines; s++ {
				pad := ""
				if s == tc.lines {
					pad = strings.Repeat("x", tc.lastLen)
				}
				fmt.Fprintf(&b, `{"v":1,"seq":%d,"data":%q}`+"\n", s, pad)
			}
			r := &countingReaderAt{r: bytes.NewReader(b.Bytes())}
			end, err := lastIndexByte(r, int64(b.Len()), '\n')
			if err != nil || end != int64(b.Len()-1) {
				t.Fatalf("lastIndexByte = %d, %v, want %d", end, err, b.Len()-1)
			}
			seq, reason, err := lastLineSeq(r, end+1)
			if err != nil || reason != "" || seq != uint64(tc.lines) {
				t.Fatalf("lastLineSeq = %d, %q, %v, want %d", seq, reason, err, tc.lines)
			}
			if limit := int64(3*blockSize + 2*(tc.lastLen+100)); r.n > limit {
				t.Errorf("read %d of %d bytes, want at most %d", r.n, b.Len(), limit)
			}
		})
	}
}
