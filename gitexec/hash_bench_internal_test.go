package gitexec

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"testing"
)

// BenchmarkWriteBlobs writes a condensation's blobs: the small set of a checkpoint (metadata,
// prompt, context, a transcript chunk) and a set with one 20 MB chunk, as writeBlobs does
// (one unpack-objects, the 20 MB chunk beside it through hash-object) and, for comparison, all
// through one hash-object, each blob read from an inherited pipe or a temporary file. Every
// iteration writes new content, so git stores every object.
func BenchmarkWriteBlobs(b *testing.B) {
	small := []int{300, 2000, 500, 100, 800, 4000, 200, 100}
	big := []int{20 << 20, 500, 300}
	for _, set := range []struct {
		name  string
		sizes []int
	}{{"checkpoint", small}, {"20MB-chunk", big}} {
		for _, how := range []struct {
			name  string
			write func(r *Repo, contents [][]byte) ([]OID, error)
		}{
			{"writeBlobs", func(r *Repo, contents [][]byte) ([]OID, error) {
				return r.writeBlobs(context.Background(), contents)
			}},
			{"hash-object", func(r *Repo, contents [][]byte) ([]OID, error) {
				return r.hashObjects(context.Background(), contents)
			}},
		} {
			b.Run(set.name+"/"+how.name, func(b *testing.B) {
				dir := b.TempDir()
				if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
					b.Fatal(err)
				}
				r, err := Open(context.Background(), dir)
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					var contents [][]byte
					for k, n := range set.sizes {
						contents = append(contents, bytes.Repeat(fmt.Appendf(nil, "%d %d line\n", i, k), n/12))
					}
					if _, err := how.write(r, contents); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
