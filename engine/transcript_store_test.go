package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/redact"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/gemini"
	"github.com/entirerec/entire/gitexec"
)

// testRepo makes an empty repository with a hermetic environment and an engine on it.
func testRepo(t testing.TB) *Engine {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	repo, err := gitexec.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	return New(repo, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
}

var words = strings.Fields("the agent reads file main.go then edits func handler to return error when " +
	"input is empty adds test case for nil pointer runs go test ./... which passes refactors loop " +
	"into helper named parseLine updates README with usage example and commits the change " +
	strconv.Itoa(42))

// transcriptLines builds n realistic JSONL lines of about size bytes each.
func transcriptLines(from, n, size int) []byte {
	var b bytes.Buffer
	for i := from; i < from+n; i++ {
		var w strings.Builder
		x := uint32(i*2654435761 + 1)
		for w.Len() < size {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			w.WriteString(words[x%uint32(len(words))])
			w.WriteByte(' ')
		}
		text := w.String()
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"u%d","message":{"id":"msg_%d","role":"assistant","content":[{"type":"text","text":%q}]}}`+"\n", i, i, text)
	}
	return b.Bytes()
}

// reassemble joins chunk blobs as the reference reader does (spec §3.4).
func reassemble(t *testing.T, en *Engine, st storedTranscript) []byte {
	t.Helper()
	var parts [][]byte
	for i, f := range st.files {
		if f.Path != chunkName(i) {
			t.Fatalf("chunk %d named %q", i, f.Path)
		}
		data, ok, err := en.Repo.ReadBlob(context.Background(), string(f.OID))
		if err != nil || !ok {
			t.Fatalf("read chunk %d: %v %v", i, ok, err)
		}
		parts = append(parts, data)
	}
	return bytes.Join(parts, []byte{'\n'})
}

func TestStoreTranscriptRoundTripAndReuse(t *testing.T) {
	defer func(n int) { chunkTarget = n }(chunkTarget)
	chunkTarget = 4096
	en := testRepo(t)
	ctx := context.Background()
	secret := `{"type":"user","uuid":"s","message":{"role":"user","content":"my key is AKIAIOSFODNN7EXAMPLE ok"}}` + "\n"
	data := append([]byte(secret), transcriptLines(0, 40, 300)...)
	first, err := en.storeTranscript(ctx, memSource(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.files) < 3 {
		t.Fatalf("want several chunks, got %d", len(first.files))
	}
	got := reassemble(t, en, first)
	want := redact.JSONL(data)
	if !bytes.Equal(got, want) {
		t.Fatalf("reassembled transcript differs from the redacted one (%d vs %d bytes)", len(got), len(want))
	}
	if bytes.Contains(got, []byte("AKIAIOSFODNN7EXAMPLE")) {
		t.Fatal("secret survived")
	}
	sum := sha256.Sum256(want)
	if string(first.hash) != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("content hash %s is not the hash of the redacted transcript", first.hash)
	}

	// The transcript grows: closed chunks are reused by blob, and the result is still exact.
	grown := append(append([]byte(nil), data...), transcriptLines(40, 40, 300)...)
	second, err := en.storeTranscript(ctx, memSource(grown), first.cache)
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	for i := range first.cache {
		if second.files[i].OID == gitexec.OID(first.cache[i].Blob) {
			shared++
		}
	}
	if shared != len(first.cache) || shared == 0 {
		t.Fatalf("shared %d of %d closed chunks", shared, len(first.cache))
	}
	if got := reassemble(t, en, second); !bytes.Equal(got, redact.JSONL(grown)) {
		t.Fatal("grown transcript does not reassemble exactly")
	}
	sum = sha256.Sum256(redact.JSONL(grown))
	if string(second.hash) != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatal("content hash after reuse is wrong")
	}
	// Only the last closed chunk keeps the hash state a later store resumes from.
	for i, c := range second.cache {
		if (len(c.HashState) > 0) != (i == len(second.cache)-1) {
			t.Fatalf("chunk %d of %d: hash state kept = %v", i, len(second.cache), len(c.HashState) > 0)
		}
	}
	// Cut back before the last closed chunk's end, the transcript cannot resume the hash where
	// the earlier chunks end: it is stored from the start, exactly.
	lastEnd := second.cache[len(second.cache)-1].End
	cut := grown[:bytes.LastIndexByte(grown[:lastEnd-1], '\n')+1]
	if int64(len(cut)) <= second.cache[len(second.cache)-2].End {
		t.Fatal("test transcript too short to cut inside its last closed chunk")
	}
	again, err := en.storeTranscript(ctx, memSource(cut), second.cache)
	if err != nil {
		t.Fatal(err)
	}
	sum = sha256.Sum256(redact.JSONL(cut))
	if got := reassemble(t, en, again); !bytes.Equal(got, redact.JSONL(cut)) || string(again.hash) != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatal("a transcript cut inside its last closed chunk is not stored exactly")
	}
	// A cache for other content (different boundaries) is not reused.
	third, err := en.storeTranscript(ctx, memSource(transcriptLines(100, 30, 500)), second.cache)
	if err != nil {
		t.Fatal(err)
	}
	if got := reassemble(t, en, third); !bytes.Equal(got, redact.JSONL(transcriptLines(100, 30, 500))) {
		t.Fatal("unrelated cache corrupted the transcript")
	}
}

func TestStoreTranscriptSmallIsOneFile(t *testing.T) {
	en := testRepo(t)
	data := transcriptLines(0, 3, 100)
	st, err := en.storeTranscript(context.Background(), memSource(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.files) != 1 || st.files[0].Path != "full.jsonl" {
		t.Fatalf("small transcript stored as %v", st.files)
	}
	if !bytes.Equal(reassemble(t, en, st), data) {
		t.Fatal("small transcript changed")
	}
}

// TestStorageGrowth measures what a session of 20 commits over a growing transcript costs the
// repository with prefix-sharing chunks, against storing the whole transcript each time.
func TestStorageGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("storage measurement")
	}
	ctx := context.Background()
	whole, chunked := testRepo(t), testRepo(t)
	var data []byte
	var cache []events.ChunkRef
	wholeBytes, naive := 0, 0
	seen := map[gitexec.OID]bool{}
	names := map[gitexec.OID]string{} // what git's packing would know each blob by
	chunkBytes := 0
	for commit := 0; commit < 20; commit++ {
		data = append(data, transcriptLines(commit*100, 100, 1500)...) // ~150 KB a commit, 3 MB at the end
		naive += len(data)
		oids, err := whole.Repo.HashBlobs(ctx, [][]byte{data})
		if err != nil {
			t.Fatal(err)
		}
		if !seen[oids[0]] {
			seen[oids[0]] = true
			names[oids[0]] = "full.jsonl"
			wholeBytes += len(data)
		}
		st, err := chunked.storeTranscript(ctx, memSource(data), cache)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range st.files {
			if !seen[f.OID] {
				seen[f.OID] = true
				names[f.OID] = f.Path
				b, _, _ := chunked.Repo.ReadBlob(ctx, string(f.OID))
				chunkBytes += len(b)
			}
		}
		cache = st.cache
	}
	loose := func(en *Engine) int64 { return gitDirSize(t, en.Repo.GitDir+"/objects") }
	packed := func(en *Engine) int {
		all, err := en.Repo.Run(ctx, nil, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
		if err != nil {
			t.Fatal(err)
		}
		// Named as a push names them (rev-list --objects), so that git's delta search pairs
		// the versions of one file, as it does for the record's branch.
		var list []byte
		for _, id := range strings.Fields(string(all)) {
			list = fmt.Appendf(list, "%s %s\n", id, names[gitexec.OID(id)])
		}
		pack, err := en.Repo.Run(ctx, list, "pack-objects", "-q", "--stdout")
		if err != nil {
			t.Fatal(err)
		}
		return len(pack)
	}
	wl, cl := loose(whole), loose(chunked)
	wp, cp := packed(whole), packed(chunked)
	t.Logf("20 commits, final transcript %d bytes: distinct blob bytes whole=%d chunked=%d (%.1fx less); loose objects whole=%d chunked=%d (%.1fx); packed with deltas whole=%d chunked=%d",
		len(data), wholeBytes, chunkBytes, float64(wholeBytes)/float64(chunkBytes), wl, cl, float64(wl)/float64(cl), wp, cp)
	if chunkBytes*3 > wholeBytes {
		t.Fatalf("chunked storage %d is not well below whole storage %d", chunkBytes, wholeBytes)
	}
}

func gitDirSize(t *testing.T, dir string) int64 {
	var n int64
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			n += gitDirSize(t, dir+"/"+e.Name())
			continue
		}
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// TestStoreTranscriptReadsOnlyTheNewPart shows that a growing transcript costs only its new
// part: bytes inside closed chunks are not read again (changing them in place, away from the
// chunk ends that are fingerprinted, does not change what is stored).
func TestStoreTranscriptReadsOnlyTheNewPart(t *testing.T) {
	defer func(n int) { chunkTarget = n }(chunkTarget)
	chunkTarget = 4096
	en := testRepo(t)
	ctx := context.Background()
	path := t.TempDir() + "/t.jsonl"
	data := transcriptLines(0, 40, 300)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := en.storeTranscript(ctx, fileSource(path, int64(len(data))), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.cache) < 2 {
		t.Fatalf("want closed chunks, got %d", len(first.cache))
	}
	// Scribble in the middle of the first closed chunk, then grow the file.
	scribbled := append([]byte(nil), data...)
	copy(scribbled[100:], "XXXXXXXXXXXXXXXX")
	grown := append(scribbled, transcriptLines(40, 10, 300)...)
	if err := os.WriteFile(path, grown, 0o600); err != nil {
		t.Fatal(err)
	}
	second, err := en.storeTranscript(ctx, fileSource(path, int64(len(grown))), first.cache)
	if err != nil {
		t.Fatal(err)
	}
	if second.files[0].OID != gitexec.OID(first.cache[0].Blob) {
		t.Fatal("the first closed chunk was read and stored again")
	}
	if got := reassemble(t, en, second); !bytes.Equal(got, redact.JSONL(append(append([]byte(nil), data...), transcriptLines(40, 10, 300)...))) {
		t.Fatal("stored transcript is not the original prefix plus the new lines")
	}
	// A rewritten file (a chunk end that no longer matches) is read again from the start.
	other := transcriptLines(500, 60, 300)
	if err := os.WriteFile(path, other, 0o600); err != nil {
		t.Fatal(err)
	}
	third, err := en.storeTranscript(ctx, fileSource(path, int64(len(other))), second.cache)
	if err != nil {
		t.Fatal(err)
	}
	if got := reassemble(t, en, third); !bytes.Equal(got, redact.JSONL(other)) {
		t.Fatal("a rewritten transcript was stitched from a stale cache")
	}
}

// geminiDocument is a chat file of Gemini CLI before v0.39: one pretty-printed JSON document.
func geminiDocument(n, size int) []byte {
	var msgs []string
	for i := range n {
		msgs = append(msgs, fmt.Sprintf(`    {"id": "m%d", "type": "user", "content": "%s"}`, i, strings.Repeat("w", size)))
	}
	return []byte("{\n  \"sessionId\": \"g\",\n  \"messages\": [\n" + strings.Join(msgs, ",\n") + "\n  ]\n}\n")
}

// The reference reads a Gemini CLI transcript's chunks as {"messages":[...]} documents to
// merge (spec §3.4), so a Gemini transcript is never cut at line ends: it is one chunk up to
// the reference's limit, JSON lines or document, on the shadow branch and in checkpoints,
// whatever a cache from smaller chunks holds. Another agent's transcript of the same bytes is
// chunked at line ends.
func TestStoreTranscriptGeminiIsOneChunk(t *testing.T) {
	en := testRepo(t)
	ctx := context.Background()
	gem := reader(gemini.Type)
	for name, data := range map[string][]byte{"document": geminiDocument(150, 900), "lines": transcriptLines(0, 500, 300)} {
		claude, err := en.storeTranscript(ctx, memSource(data), nil)
		if err != nil || len(claude.files) < 2 {
			t.Fatalf("%s: Claude transcript of %d bytes stored as %d chunks (%v)", name, len(data), len(claude.files), err)
		}
		for store, fn := range map[string]func(context.Context, tsource, []events.ChunkRef) (storedTranscript, error){
			"redacted": en.storeTranscript, "raw": en.storeRawTranscript,
		} {
			st, err := fn(ctx, memSource(data).of(gem), claude.cache)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.files) != 1 || st.files[0].Path != "full.jsonl" || len(st.cache) != 0 {
				t.Fatalf("%s, %s: Gemini transcript of %d bytes stored as %d chunks, %d cached", name, store, len(data), len(st.files), len(st.cache))
			}
			if got := reassemble(t, en, st); store == "raw" && !bytes.Equal(got, data) {
				t.Fatalf("%s: stored transcript differs", name)
			}
		}
	}
}

// A Gemini CLI document over the reference's chunk limit is split into {"messages":[...]}
// objects of whole messages, which the reader merges back into the same messages; its content
// hash is over the whole redacted document.
func TestStoreTranscriptDocumentSplitsMessages(t *testing.T) {
	en := testRepo(t)
	doc := geminiDocument(60, 900)
	defer func(n int) { maxChunk = n }(maxChunk)
	maxChunk = 16 << 10
	st, err := en.storeTranscript(context.Background(), memSource(doc).of(reader(gemini.Type)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.files) < 3 {
		t.Fatalf("a %d-byte document stored as %d chunks", len(doc), len(st.files))
	}
	var parts [][]byte
	for i, f := range st.files {
		data, _, err := en.Repo.ReadBlob(context.Background(), string(f.OID))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte(`{"messages":[`)) || len(data) > maxChunk {
			t.Errorf("chunk %d: %d bytes starting %.20q", i, len(data), data)
		}
		parts = append(parts, data)
	}
	joined, err := checkpoint.JoinChunks(gemini.Type, parts)
	if err != nil {
		t.Fatal(err)
	}
	got := gjson.GetBytes(joined, "messages.#.id").Array()
	if len(got) != 60 || got[0].Str != "m0" || got[59].Str != "m59" {
		t.Errorf("reassembled %d messages", len(got))
	}
	sum := sha256.Sum256(redact.JSONL(doc))
	if want := "sha256:" + hex.EncodeToString(sum[:]); string(st.hash) != want {
		t.Errorf("content hash %s, want %s", st.hash, want)
	}
}

// BenchmarkStoreTranscriptFirstSight stores a 20 MB transcript with nothing cached, as the first
// condensation of a resumed session does: redaction runs on every core, chunk by chunk.
func BenchmarkStoreTranscriptFirstSight(b *testing.B) {
	en := testRepo(b)
	data := transcriptLines(0, 20<<10, 1000) // about 20 MB
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := en.storeTranscript(context.Background(), memSource(data), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// Transcript chunks grow with their offset, from lo to hi, and each boundary depends only on
// the bytes before it: the transcript cut as it grew, or resumed from any closed chunk's end,
// gives the same boundaries.
func TestTranscriptChunksGrowWithOffset(t *testing.T) {
	const lo, hi = 1 << 10, 4 << 10
	target := growingChunks(lo, hi)
	var b bytes.Buffer
	for i := 0; b.Len() < 64<<10; i++ {
		fmt.Fprintf(&b, `{"n":%d,"text":"%s"}`+"\n", i, strings.Repeat("x", i*37%300))
	}
	data := b.Bytes()
	ends := chunkBounds(data, 0, target)
	start, prevSize := 0, 0
	for i, end := range ends[:len(ends)-1] {
		size, want := end-start, int(min(max(int64(start)/8, lo), hi))
		if size < want || size > want+400 || data[end-1] != '\n' {
			t.Fatalf("chunk %d [%d,%d): %d bytes, want a line end just past %d", i, start, end, size, want)
		}
		if size+400 < prevSize {
			t.Errorf("chunk %d (%d bytes) is smaller than the one before (%d)", i, size, prevSize)
		}
		start, prevSize = end, size
	}
	if first, last := ends[0], ends[len(ends)-2]-ends[len(ends)-3]; first > lo+400 || last < hi {
		t.Errorf("chunk sizes run from %d to %d bytes, want from about %d to at least %d", first, last, lo, hi)
	}
	for _, cut := range []int{ends[3], ends[len(ends)/2], len(data) - 1000} {
		part := chunkBounds(data[:cut], 0, target)
		for i, e := range part[:len(part)-1] {
			if e != ends[i] {
				t.Fatalf("cut at %d: boundary %d is %d, want %d", cut, i, e, ends[i])
			}
		}
	}
	for k := 1; k < len(ends)-1; k += 5 {
		rest := chunkBounds(data[ends[k-1]:], int64(ends[k-1]), target)
		for i, e := range rest {
			if e+ends[k-1] != ends[k+i] {
				t.Fatalf("resumed after chunk %d: boundary %d is %d, want %d", k-1, i, e+ends[k-1], ends[k+i])
			}
		}
	}
}
