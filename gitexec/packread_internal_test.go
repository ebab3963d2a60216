package gitexec

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// historyRepo is a repository of objectFormat ("sha1" or "sha256") whose files change over
// many commits, so that a repack stores most trees and blobs as deltas.
func historyRepo(t testing.TB, objectFormat string) (string, func(stdin string, args ...string) string) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	run := gitRunner(t, dir)
	run("", "init", "-q", "-b", "main", "--object-format="+objectFormat)
	run("", "config", "user.name", "t")
	run("", "config", "user.email", "t@example.com")
	var log strings.Builder
	for c := range 30 {
		fmt.Fprintf(&log, "line %d: %s\n", c, strings.Repeat("text ", c%7+3))
		files := map[string]string{"log.txt": log.String(), "big.bin": strings.Repeat("0123456789abcdef", maxLooseRead/8) + log.String()}
		for d := range 4 {
			files[fmt.Sprintf("d%d/e/f%d.txt", d, c%5)] = fmt.Sprintf("dir %d commit %d\n%s", d, c, log.String()[:len(log.String())/2])
		}
		writeFiles(t, dir, files)
		run("", "add", "-A")
		run("", "commit", "-q", "-m", fmt.Sprintf("commit %d", c))
	}
	run("", "tag", "-a", "-m", "a tag", "v1")
	return dir, run
}

// deltaCount is how many objects of the repository's packs git stores as deltas.
func deltaCount(t *testing.T, dir string, run func(stdin string, args ...string) string) int {
	t.Helper()
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	n := 0
	for _, idx := range idxs {
		for _, line := range strings.Split(run("", "verify-pack", "-v", idx), "\n") {
			if f := strings.Fields(line); len(f) == 7 && (f[1] == "blob" || f[1] == "tree" || f[1] == "commit") {
				n++ // id, type, size, size in pack, offset, depth, base
			}
		}
	}
	return n
}

// Every object of a repacked repository reads from its pack as cat-file gives it, whether
// stored whole or as a delta by offset or by name, with 32- or 64-bit offsets in the index,
// in sha1 and sha256 repositories. Objects over maxLooseRead are left to cat-file.
func TestPackedReadsMatchCatFile(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		repack       [][]string
	}{
		{"offset deltas", "sha1", [][]string{{"repack", "-adfq", "--depth=50", "--window=50"}}},
		{"name deltas", "sha1", [][]string{{"-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq"}}},
		{"64-bit offsets", "sha1", [][]string{{"repack", "-adfq"}, {"index-pack", "--index-version=2,100"}}},
		{"two packs", "sha1", [][]string{{"repack", "-dq"}, {"commit", "-q", "--allow-empty", "-m", "x"}, {"repack", "-dq"}}},
		{"sha256", "sha256", [][]string{{"repack", "-adfq"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, run := historyRepo(t, tc.format)
			for _, args := range tc.repack {
				if args[0] == "index-pack" { // rewrite the pack's index with every offset in 64 bits
					packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
					idx := strings.TrimSuffix(packs[0], ".pack") + ".idx"
					tmp := filepath.Join(t.TempDir(), "large.idx")
					run("", append(args, "-o", tmp, packs[0])...)
					if err := os.Remove(idx); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(tmp, idx); err != nil {
						t.Fatal(err)
					}
					continue
				}
				run("", args...)
			}
			run("", "prune-packed")
			if n := deltaCount(t, dir, run); n < 20 {
				t.Fatalf("only %d deltas in the packs; the test needs some", n)
			}
			checkPackedReads(t, dir, run)
		})
	}
}

// checkPackedReads compares readPacked with cat-file for every object of the repository.
func checkPackedReads(t *testing.T, dir string, run func(stdin string, args ...string) string) {
	t.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ids := strings.Split(run("", "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"), "\n")
	want, found, err := r.askObjects(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	read, large := 0, 0
	for i, id := range ids {
		got, ok := r.readPacked(id)
		switch {
		case !found[i]:
			t.Fatalf("cat-file does not find %s", id)
		case len(want[i].data) > maxLooseRead:
			large++
			if ok {
				t.Errorf("%s: %d bytes read from the pack, over the limit", id, len(got.data))
			}
		case !ok:
			t.Errorf("%s: not read from its pack", id)
		case got.oid != want[i].oid || got.typ != want[i].typ || !bytes.Equal(got.data, want[i].data):
			t.Errorf("%s: pack gave %s %s (%d bytes), cat-file %s %s (%d bytes)", id, got.typ, got.oid, len(got.data), want[i].typ, want[i].oid, len(want[i].data))
		default:
			read++
		}
	}
	if read < 200 || large == 0 {
		t.Errorf("read %d objects and left %d large ones to cat-file; the repository should have both", read, large)
	}
	r.Close()
	if _, ok := r.readPacked(ids[0]); ok {
		t.Error("an object was read after Close")
	}
}

// A pack whose entry no longer inflates to the object its index names (damaged, or replaced
// under the reader) gives nothing: the read goes to cat-file, never returns other bytes.
func TestDamagedPackEntryIsNotRead(t *testing.T) {
	dir, run := looseRepo(t)
	blob := run("", "rev-parse", "HEAD:a.txt")
	run("", "repack", "-adq")
	run("", "prune-packed")
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	data, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	off := mustFind(t, r, blob)
	// The blob is stored whole ("hello\n" deflated): change its content's first byte. zlib's
	// stored checksum no longer matches; with a fixed-up checksum the id would not.
	at := bytes.Index(data[off:], []byte{0x78})
	if at < 0 {
		t.Fatal("no zlib stream after the entry's header")
	}
	data[off+int64(at)+3] ^= 0x01
	if err := os.WriteFile(packs[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	if obj, ok := r.readPacked(blob); ok {
		t.Errorf("a damaged entry was read: %q", obj.data)
	}
}

// mustFind is the offset of object id in r's packs.
func mustFind(t *testing.T, r *Repo, id string) int64 {
	t.Helper()
	r.packs.once.Do(func() { r.packs.load(r.CommonDir, r.hexLen/2) })
	raw, err := hex.DecodeString(id)
	if err != nil {
		t.Fatal(err)
	}
	_, off, ok := r.packs.find(raw)
	if !ok {
		t.Fatalf("%s is in no pack", id)
	}
	return off
}

// applyDelta refuses what git would never write: a copy past the base, an insert past the
// declared size, a reserved instruction, sizes that do not match.
func TestApplyDeltaRefusesBadDeltas(t *testing.T) {
	base := []byte("0123456789")
	for _, tc := range []struct {
		name  string
		delta []byte
		want  string
		ok    bool
	}{
		{"copy and insert", []byte{10, 6, 0x91, 2, 3, 3, 'a', 'b', 'c'}, "234abc", true},
		{"copy of 0x10000 when no size", []byte{10, 0x80, 0x80, 0x04, 0x80}, "", false},
		{"copy past the base", []byte{10, 4, 0x91, 8, 4}, "", false},
		{"wrong base size", []byte{9, 1, 1, 'x'}, "", false},
		{"insert past the size", []byte{10, 1, 2, 'x', 'y'}, "", false},
		{"reserved instruction", []byte{10, 1, 0, 1, 'x'}, "", false},
		{"short", []byte{10, 3, 1, 'x'}, "", false},
	} {
		got, ok := applyDelta(base, tc.delta, maxDeltaBase)
		if ok != tc.ok || ok && string(got) != tc.want {
			t.Errorf("%s: %q %v, want %q %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzPackedReads damages a real pack and its index (one byte changed in each, either cut
// short) and reads every object of it: a read must never panic or hang, and what it returns
// is the object asked for, whatever the files hold.
func FuzzPackedReads(f *testing.F) {
	dir, run := historyRepo(f, "sha1")
	run("", "repack", "-adfq", "--depth=20")
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	pack, err := os.ReadFile(packs[0])
	if err != nil {
		f.Fatal(err)
	}
	idx, err := os.ReadFile(strings.TrimSuffix(packs[0], ".pack") + ".idx")
	if err != nil {
		f.Fatal(err)
	}
	ids := strings.Split(run("", "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"), "\n")
	want := map[string]object{}
	r, err := Open(context.Background(), dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, id := range ids {
		if obj, ok := r.readPacked(id); ok {
			want[id] = obj
		}
	}
	r.Close()
	f.Add(uint32(0), byte(0), uint32(0), byte(0), uint32(0), uint32(0))
	f.Add(uint32(12), byte(0x80), uint32(0), byte(0), uint32(0), uint32(0))
	f.Add(uint32(0), byte(0), uint32(8+255*4+3), byte(0x40), uint32(0), uint32(0))
	f.Add(uint32(len(pack)/2), byte(1), uint32(len(idx)-30), byte(1), uint32(len(pack)-100), uint32(0))
	f.Fuzz(func(t *testing.T, packAt uint32, packXor byte, idxAt uint32, idxXor byte, packCut, idxCut uint32) {
		p, x := bytes.Clone(pack), bytes.Clone(idx)
		p[int(packAt)%len(p)] ^= packXor
		x[int(idxAt)%len(x)] ^= idxXor
		if packCut > 0 {
			p = p[:int(packCut)%len(p)]
		}
		if idxCut > 0 {
			x = x[:int(idxCut)%len(x)]
		}
		common := t.TempDir()
		packDir := filepath.Join(common, "objects", "pack")
		if err := os.MkdirAll(packDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(packDir, "pack-x.pack"), p, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(packDir, "pack-x.idx"), x, 0o644); err != nil {
			t.Fatal(err)
		}
		r := &Repo{CommonDir: common, hexLen: 40}
		defer r.packs.close()
		for _, id := range ids {
			got, ok := r.readPacked(id)
			if !ok {
				continue
			}
			if w, known := want[id]; !known || got.typ != w.typ || !bytes.Equal(got.data, w.data) {
				t.Fatalf("%s read as a %s of %d bytes from a damaged pack", id, got.typ, len(got.data))
			}
		}
	})
}

// BenchmarkPackedReads reads a commit's trees and files (29 objects) from
// a repacked repository, as a hook does for the session's base: from the packs, and through
// cat-file as before, once with its start-up (a hook that had to start it) and once already
// running. Each iteration of the first two reads in a new Repo, so no cache holds the objects.
func BenchmarkPackedReads(b *testing.B) {
	dir, run := historyRepo(b, "sha1")
	run("", "repack", "-adfq")
	run("", "prune-packed")
	var ids []string
	for _, line := range strings.Split(run("", "ls-tree", "-r", "-t", "HEAD"), "\n") {
		// mode, type, id, path; big.bin is over the limit and left to cat-file
		if f := strings.Fields(line); len(f) == 4 && f[3] != "big.bin" {
			ids = append(ids, f[2])
		}
	}
	ctx := context.Background()
	open := func(b *testing.B) *Repo {
		r, err := Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	b.Run("packs", func(b *testing.B) {
		for range b.N {
			r := open(b)
			for _, id := range ids {
				if _, ok := r.readPacked(id); !ok {
					b.Fatalf("%s not read", id)
				}
			}
			r.Close()
		}
	})
	b.Run("cat-file-started", func(b *testing.B) {
		for range b.N {
			r := open(b)
			if _, _, err := r.askObjects(ctx, ids); err != nil {
				b.Fatal(err)
			}
			r.Close()
		}
	})
	b.Run("cat-file-running", func(b *testing.B) {
		r := open(b)
		defer r.Close()
		if _, _, err := r.askObjects(ctx, ids[:1]); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if _, _, err := r.askObjects(ctx, ids); err != nil {
				b.Fatal(err)
			}
		}
	})
}
