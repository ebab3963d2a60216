package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/redact"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/jsonvalid"
	"github.com/entirerec/entire/gitexec"
)

// chunkTarget is where a stored transcript chunk closes: at the first line end at or past this
// many bytes. The reference reader joins full.jsonl, full.jsonl.001, ... with "\n", so any
// boundary on a line end reads back the same; boundaries that only depend on the bytes before
// them stay put as the transcript grows, and consecutive checkpoints of a session then share
// the blobs of the unchanged prefix instead of storing the whole transcript again.
//
// Every checkpoint redacts, hashes and compresses its open last chunk again, so the target
// bounds what a commit pays for a long transcript beyond its new bytes: at 1 MiB that was
// 26 ms of redaction and about 30 ms of hash-object for a full open chunk. 256 KiB makes it a
// quarter, for four times as many (small) tree entries. Like the shadow branch's (below), a
// chunk starting at offset o closes past o/8 bytes within [chunkMin, chunkTarget]: a
// transcript under 2 MiB re-stores at most 64-256 KiB per checkpoint, and a long one keeps
// its chunk list as short as with 256 KiB throughout.
var chunkMin, chunkTarget = 64 << 10, 256 << 10

// shadowChunkMin and shadowChunkTarget bound the chunk size on the shadow branch, where every
// Stop hashes and writes the open last chunk again (unredacted): a chunk starting at offset o
// closes past o/8 bytes, within those bounds. A transcript under 512 KiB is cut every 64 KiB,
// so its Stops write at most that much of it; from 2 MiB on chunks are 256 KiB, so a long
// transcript's chunk list, which every hook decodes with the session's state, stays as short
// as it was with 256 KiB throughout (a 20 MB transcript: about 90 chunks against 80; 320 at
// 64 KiB, which made its Stop 1.09x and commit 1.07x slower). A boundary still depends only on
// the bytes before it.
var shadowChunkMin, shadowChunkTarget = 64 << 10, 256 << 10

// growingChunks is a chunk size schedule: start/8, within [lo, hi] (hi when lo > hi).
func growingChunks(lo, hi int) func(int64) int {
	return func(start int64) int { return int(min(max(start/8, int64(lo)), int64(hi))) }
}

// maxChunk is the largest chunk file the reference writes (spec §3.4). A chunk over it is fitted
// (fitChunk). A variable for tests.
var maxChunk = 50 * 1024 * 1024

// chunkBounds splits data, which starts at offset base of the transcript, into chunks
// closing at the first line end at or past target(the chunk's offset) bytes, or, when that is
// more than maxChunk bytes on, at the last line end within them (a longer line is a chunk of
// its own, fitted when stored: fitChunk). The last chunk is open: it may still grow.
func chunkBounds(data []byte, base int64, target func(start int64) int) []int {
	var ends []int
	start := 0
	for start < len(data) {
		end := start + target(base+int64(start))
		if end >= len(data) {
			end = len(data)
		} else if nl := bytes.IndexByte(data[end-1:], '\n'); nl < 0 {
			end = len(data)
		} else {
			end = end - 1 + nl + 1
		}
		if end-start > maxChunk {
			if within := bytes.LastIndexByte(data[start:start+maxChunk], '\n'); within >= 0 {
				end = start + within + 1
			} else if first := bytes.IndexByte(data[start:end], '\n'); first >= 0 {
				end = start + first + 1 // one long line
			}
		}
		ends = append(ends, end)
		start = end
	}
	return ends
}

// chunkName is the file name of chunk i (spec §3.4).
func chunkName(i int) string {
	if i == 0 {
		return "full.jsonl"
	}
	return fmt.Sprintf("full.jsonl.%03d", i)
}

// storedTranscript is a transcript ready for a committed slot: its chunk files, its content
// hash, and the cache that lets the next checkpoint reuse the closed chunks.
type storedTranscript struct {
	files []gitexec.TreeChange // names relative to the slot directory
	hash  []byte               // content_hash.txt
	cache []events.ChunkRef
}

// storeTranscript redacts and writes a transcript as chunk blobs for the metadata branch.
func (en *Engine) storeTranscript(ctx context.Context, t tsource, cache []events.ChunkRef) (storedTranscript, error) {
	return en.storeChunks(ctx, t, cache, growingChunks(chunkMin, chunkTarget), redact.JSONL)
}

// storeRawTranscript writes a transcript as chunk blobs unchanged, for the shadow branch
// (which is local and not redacted, spec §12.1).
func (en *Engine) storeRawTranscript(ctx context.Context, t tsource, cache []events.ChunkRef) (storedTranscript, error) {
	return en.storeChunks(ctx, t, cache, growingChunks(shadowChunkMin, shadowChunkTarget), func(b []byte) []byte { return b })
}

// storeChunks transforms and writes a transcript as chunk blobs. Closed chunks listed in the
// cache with the same end offset are reused without being read, transformed or hashed again,
// so the work is linear in the new part of the transcript.
func (en *Engine) storeChunks(ctx context.Context, t tsource, cache []events.ChunkRef, target func(start int64) int, transform func([]byte) []byte) (storedTranscript, error) {
	var out storedTranscript
	merges := checkpoint.MergesDocuments(t.agentType())
	if merges {
		// The reference reads this agent's chunks as documents to merge: the transcript is
		// stored whole up to maxChunk, as the reference stores it, and a longer document is
		// split by messages (storeDocument). Nothing is reused.
		cache, target = nil, func(int64) int { return maxChunk }
	}
	// Closed chunks of the cache that the transcript still covers are taken as they are (the
	// transcript only grows); only the rest is read. Boundaries after a closed chunk depend
	// only on the bytes after it, so they come out the same as from the start.
	h := sha256.New()
	reused := 0
	for reused < len(cache) && cache[reused].Blob != "" && cache[reused].End < t.end &&
		(reused == 0 || cache[reused].End > cache[reused-1].End) && cache[reused].Tail != "" {
		reused++
	}
	// Transcripts only grow: the last reused chunk's fingerprint tells whether this is still
	// the file the cache came from (one small read, however long the transcript).
	if reused > 0 && cache[reused-1].Tail != t.tail(cache[reused-1].End) {
		reused = 0
	}
	if reused > 0 {
		if err := restoreHash(h, cache[reused-1].HashState); err != nil {
			reused = 0
			h.Reset()
		}
	}
	base := int64(0)
	if reused > 0 {
		base = cache[reused-1].End
	}
	data, err := t.read(base)
	if err != nil {
		return out, err
	}
	if merges && len(data) > maxChunk && isJSONDocument(data) {
		return en.storeDocument(ctx, data, maxChunk, transform)
	}
	rel := chunkBounds(data, base, target)
	ends := make([]int, 0, reused+len(rel))
	for i := 0; i < reused; i++ {
		ends = append(ends, int(cache[i].End))
	}
	for _, e := range rel {
		ends = append(ends, int(base)+e)
	}
	for i := 0; i < reused; i++ {
		out.files = append(out.files, gitexec.TreeChange{Path: chunkName(i), Mode: "100644", OID: gitexec.OID(cache[i].Blob)})
		out.cache = append(out.cache, cache[i])
	}
	var contents [][]byte
	start := 0
	if reused > 0 {
		start = ends[reused-1]
	}
	reds := transformChunks(data, base, start, ends[reused:], transform)
	for i := reused; i < len(ends); i++ {
		last := i == len(ends)-1
		red := reds[i-reused]
		h.Write(red)
		if !last {
			h.Write([]byte{'\n'})
		}
		contents = append(contents, red)
		ref := events.ChunkRef{End: int64(ends[i])}
		if !last {
			ref.Tail = t.tail(ref.End)
		}
		if i == len(ends)-2 { // the last closed chunk: the next store resumes the hash here
			if ref.HashState, err = saveHash(h); err != nil {
				return out, err
			}
		}
		out.cache = append(out.cache, ref)
	}
	if len(contents) > 0 {
		// Written with the checkpoint's other blobs, by the same hash-object process.
		for j, oid := range en.Repo.DeferBlobs(contents) {
			i := reused + j
			out.files = append(out.files, gitexec.TreeChange{Path: chunkName(i), Mode: "100644", OID: oid})
			out.cache[i].Blob = string(oid)
		}
	}
	// The open last chunk is never reused: drop it from the cache.
	if n := len(out.cache); n > 0 && t.end == out.cache[n-1].End {
		out.cache = out.cache[:n-1]
	}
	// Only the last closed chunk's hash state is resumed from (the transcript only grows; a
	// store that cannot resume there starts over). Kept for every chunk, the states made up
	// most of a long session's state file and of each checkpoint's journal event.
	for i := range out.cache {
		if i != len(ends)-2 {
			out.cache[i].HashState = nil
		}
	}
	out.hash = []byte("sha256:" + hex.EncodeToString(h.Sum(nil)))
	return out, nil
}

func saveHash(h interface{ Sum([]byte) []byte }) ([]byte, error) {
	m, ok := h.(encoding.BinaryMarshaler)
	if !ok {
		return nil, fmt.Errorf("hash state cannot be saved")
	}
	return m.MarshalBinary()
}

func restoreHash(h interface{ Reset() }, state []byte) error {
	u, ok := h.(encoding.BinaryUnmarshaler)
	if !ok || len(state) == 0 {
		return fmt.Errorf("hash state cannot be restored")
	}
	return u.UnmarshalBinary(state)
}

// isJSONDocument reports whether a transcript is one JSON object holding a "messages" array
// (Gemini CLI's chat file before v0.39) rather than JSON lines.
func isJSONDocument(data []byte) bool {
	return jsonvalid.Valid(data) && gjson.GetBytes(data, "messages").IsArray()
}

// storeDocument writes a JSON-document transcript larger than one chunk as several
// {"messages":[...]} objects, each message whole and compact, as the reference splits Gemini
// chat files (spec §3.4); readers merge their message arrays. Nothing is cached: the document
// is rewritten in place, so no part of it is known to stay.
func (en *Engine) storeDocument(ctx context.Context, data []byte, target int, transform func([]byte) []byte) (storedTranscript, error) {
	var out storedTranscript
	var chunks [][]byte
	var cur []json.RawMessage
	size := 0
	flush := func() error {
		b, err := json.Marshal(map[string][]json.RawMessage{"messages": cur})
		if err != nil {
			return err
		}
		chunks = append(chunks, fitChunk(transform(b), maxChunk))
		cur, size = nil, 0
		return nil
	}
	var ferr error
	gjson.GetBytes(data, "messages").ForEach(func(_, m gjson.Result) bool {
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(m.Raw)); err != nil {
			ferr = err
			return false
		}
		if len(cur) > 0 && size+buf.Len()+len(`{"messages":[]}`) > target {
			if ferr = flush(); ferr != nil {
				return false
			}
		}
		cur = append(cur, buf.Bytes())
		size += buf.Len() + 1
		return true
	})
	if ferr == nil {
		ferr = flush()
	}
	if ferr != nil {
		return out, fmt.Errorf("split transcript document: %w", ferr)
	}
	oids, err := en.Repo.HashBlobs(ctx, chunks)
	if err != nil {
		return out, fmt.Errorf("write transcript chunks: %w", err)
	}
	for i, oid := range oids {
		out.files = append(out.files, gitexec.TreeChange{Path: chunkName(i), Mode: "100644", OID: oid})
	}
	sum := sha256.Sum256(transform(data)) // the whole redacted transcript, before chunking (§3.5)
	out.hash = []byte("sha256:" + hex.EncodeToString(sum[:]))
	return out, nil
}

// transformChunks transforms (redacts) the chunks ending at ends, the first starting at start,
// of data (which begins at offset base) on every core: chunks are independent, and redacting a
// long transcript's new part is the slow step of its first condensation. A closed chunk drops
// its final newline (the reader re-adds it); the last keeps its bytes as they are. Each is
// then fitted within maxChunk.
func transformChunks(data []byte, base int64, start int, ends []int, transform func([]byte) []byte) [][]byte {
	out := make([][]byte, len(ends))
	raws := make([][]byte, len(ends))
	for i, end := range ends {
		raw := data[start-int(base) : end-int(base)]
		if i < len(ends)-1 {
			raw = raw[:len(raw)-1]
		}
		raws[i] = raw
		start = end
	}
	workers := min(runtime.GOMAXPROCS(0), len(raws))
	if workers <= 1 {
		for i, raw := range raws {
			out[i] = fitChunk(transform(raw), maxChunk)
		}
		return out
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				out[i] = fitChunk(transform(raws[i]), maxChunk)
			}
		})
	}
	for i := range raws {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
