package journal_test

import (
	"testing"

	"github.com/entirerec/entire/events/journal"
)

// BenchmarkAppendSync measures one hook's write: Append of one line, then Sync.
func BenchmarkAppendSync(b *testing.B) {
	j, err := journal.Open(journalPath(b))
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	for b.Loop() {
		if err := j.Append(ev(j.LastSeq() + 1)); err != nil {
			b.Fatal(err)
		}
		if err := j.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenLastSeq measures loading a 10k-line journal's position:
// lock, check for a torn tail, read the last line.
func BenchmarkOpenLastSeq(b *testing.B) {
	const n = 10_000
	path := journalPath(b)
	writeFile(b, path, evs(1, n))
	for b.Loop() {
		j, err := journal.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if j.LastSeq() != n {
			b.Fatalf("LastSeq = %d", j.LastSeq())
		}
		j.Close()
	}
}
