package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/jsonvalid"
)

// toolResult is a Claude Code transcript line carrying a tool's output.
func toolResult(uuid, output string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type": "user", "uuid": uuid, "sessionId": "s1",
		"message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": output},
		}},
	})
	return b
}

// checkElided checks that out is line shortened within limit: valid JSON, the same record
// (type and uuid), and each cut string its original's prefix followed by a note whose count
// makes up the original length.
func checkElided(t *testing.T, line, out []byte, limit int) {
	t.Helper()
	if len(out) > limit {
		t.Fatalf("elided line is %d bytes, limit %d", len(out), limit)
	}
	if !jsonvalid.Valid(out) || !json.Valid(out) {
		t.Fatalf("elided line is not valid JSON: %.200s", out)
	}
	for _, key := range []string{"type", "uuid", "message.role", "message.content.0.tool_use_id"} {
		if a, b := gjson.GetBytes(line, key).String(), gjson.GetBytes(out, key).String(); a != b {
			t.Errorf("%s: %q, want %q", key, b, a)
		}
	}
}

func TestElideLineCutsTheLongStringOnly(t *testing.T) {
	output := strings.Repeat("0123456789", 100_000)
	line := toolResult("u2", output)
	const limit = 64 << 10
	out := elideLine(line, limit)
	checkElided(t, line, out, limit)
	got := gjson.GetBytes(out, "message.content.0.content").String()
	i := strings.Index(got, "[... ")
	if i < 0 || !strings.HasPrefix(output, got[:i]) || i < limit-1000 {
		t.Fatalf("cut string keeps %d bytes of its start, then %q", i, got[max(i, 0):])
	}
	want := elisionNote(len(output) - i)
	if got[i:] != want {
		t.Fatalf("note %q, want %q", got[i:], want)
	}
	if again := elideLine(line, limit); !bytes.Equal(again, out) {
		t.Fatal("the same line elided twice differs")
	}
	if short := toolResult("u3", "short"); !bytes.Equal(elideLine(short, limit), short) {
		t.Fatal("a line within the limit changed")
	}
}

func TestElideLineCutsLongStringsToOneLength(t *testing.T) {
	b, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": "a1",
		"a": strings.Repeat("a", 50_000), "b": strings.Repeat("b", 20_000), "c": strings.Repeat("c", 3_000), "d": "tiny"})
	const limit = 20_000
	out := elideLine(b, limit)
	checkElided(t, b, out, limit)
	keep := func(key string) int {
		s := gjson.GetBytes(out, key).String()
		if i := strings.Index(s, "[... "); i >= 0 {
			return i
		}
		return len(s)
	}
	if ka, kb, kc := keep("a"), keep("b"), keep("c"); ka != kb || kc != 3_000 || ka < 7_000 {
		t.Fatalf("kept a=%d b=%d c=%d bytes: want a and b cut to one length, c whole", ka, kb, kc)
	}
	if gjson.GetBytes(out, "d").String() != "tiny" {
		t.Fatal("short field changed")
	}
}

// A cut never splits an escape sequence or a UTF-8 character.
func TestElideLineCutsOnCharacterBoundaries(t *testing.T) {
	for _, unit := range []string{`\u00e9`, `é`, `\n`, `😀`, `\ud83d\ude00`, `\"`, `x\\`} {
		raw := []byte(`{"type":"user","uuid":"u","text":"` + strings.Repeat(unit, 3000) + `"}`)
		for limit := 2000; limit < 2100; limit++ {
			out := elideLine(raw, limit)
			checkElided(t, raw, out, limit)
			var v struct{ Text string }
			if err := json.Unmarshal(out, &v); err != nil || !utf8.ValidString(v.Text) {
				t.Fatalf("unit %s, limit %d: %v", unit, limit, err)
			}
		}
	}
}

// A line that is not JSON, or whose structure alone is over the limit, becomes a record of its
// length.
func TestElideLineWithoutStringsToCut(t *testing.T) {
	for _, line := range [][]byte{
		bytes.Repeat([]byte("["), 10_000),
		[]byte(`{"n":[` + strings.Repeat("1,", 5_000) + `1]}`),
		[]byte(`{"type":"user","text":"` + strings.Repeat("x", 20_000)), // cut off
	} {
		out := elideLine(line, 1000)
		if want := elidedRecord(len(line)); !bytes.Equal(out, want) {
			t.Fatalf("%.20s...: %s, want %s", line, out, want)
		}
	}
}

func TestFitChunkKeepsSmallLinesAndLineCount(t *testing.T) {
	small := toolResult("u1", "hello")
	big := toolResult("u2", strings.Repeat("z", 3*bigLine))
	chunk := bytes.Join([][]byte{small, big, small, toolResult("u4", strings.Repeat("y", 2*bigLine)), small}, []byte{'\n'})
	limit := 2 * bigLine
	out := fitChunk(chunk, limit)
	if len(out) > limit {
		t.Fatalf("fitted chunk %d bytes, limit %d", len(out), limit)
	}
	lines := bytes.Split(out, []byte{'\n'})
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5", len(lines))
	}
	for _, i := range []int{0, 2, 4} {
		if !bytes.Equal(lines[i], small) {
			t.Fatalf("small line %d changed", i)
		}
	}
	checkElided(t, big, lines[1], limit/2)
	if withNewline := append(append([]byte(nil), chunk...), '\n'); !bytes.HasSuffix(fitChunk(withNewline, limit), []byte("}\n")) {
		t.Fatal("an open chunk's final newline was lost")
	}
	if !bytes.Equal(fitChunk(small, 10), small) {
		t.Fatal("a chunk without a long line changed")
	}
}

// A transcript line over the chunk limit no longer fails the store (and with it the
// checkpoint a commit's trailer names): it is stored shortened, every chunk within the limit,
// and the content hash is that of what was stored.
func TestStoreTranscriptWithLineOverChunkLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 51 MiB line")
	}
	en := testRepo(t)
	ctx := context.Background()
	huge := toolResult("u2", strings.Repeat("q", maxChunk+(1<<20)))
	data := bytes.Join([][]byte{transcriptLines(0, 20, 300), huge, transcriptLines(20, 20, 300)}, nil)
	data = bytes.Replace(data, huge, append(huge, '\n'), 1)
	for name, store := range map[string]func(context.Context, tsource, []events.ChunkRef) (storedTranscript, error){
		"redacted": en.storeTranscript, "raw": en.storeRawTranscript,
	} {
		st, err := store(ctx, memSource(data), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := reassemble(t, en, st)
		if n := bytes.Count(got, []byte{'\n'}); n != bytes.Count(data, []byte{'\n'}) {
			t.Fatalf("%s: %d lines stored, want %d", name, n, bytes.Count(data, []byte{'\n'}))
		}
		for i, f := range st.files {
			blob, _, _ := en.Repo.ReadBlob(ctx, string(f.OID))
			if len(blob) > maxChunk {
				t.Fatalf("%s: chunk %d is %d bytes", name, i, len(blob))
			}
		}
		line := bytes.Split(got, []byte{'\n'})[20]
		checkElided(t, huge, line, maxChunk)
		sum := sha256.Sum256(got)
		if string(st.hash) != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Fatalf("%s: content hash is not the hash of the stored transcript", name)
		}
	}
}

// Chunks close within maxChunk at a line end where there is one, whatever the target, and a
// line longer than that is a chunk of its own; the boundaries stay those of the transcript
// cut anywhere after them.
func TestChunkBoundsWithinLimit(t *testing.T) {
	defer func(n int) { maxChunk = n }(maxChunk)
	maxChunk = 1000
	line := func(n int) string { return `{"x":"` + strings.Repeat("x", n-9) + `"}` + "\n" }
	data := []byte(strings.Repeat(line(100), 25) + line(3000) + strings.Repeat(line(100), 5))
	for _, target := range []int{50, 400, 5000} {
		ends := chunkBounds(data, 0, func(int64) int { return target })
		want := []int{1000, 2000, 2500, 5500, 6000}
		if target == 400 {
			want = []int{400, 800, 1200, 1600, 2000, 2400, 2500, 5500, 5900, 6000}
		}
		if target == 50 {
			want = nil
			for e := 100; e <= 2500; e += 100 {
				want = append(want, e)
			}
			want = append(want, 5500, 5600, 5700, 5800, 5900, 6000)
		}
		if !slices.Equal(ends, want) {
			t.Fatalf("target %d: ends %v, want %v", target, ends, want)
		}
		for _, cut := range []int{2600, 5600} {
			part := chunkBounds(data[:cut], 0, func(int64) int { return target })
			if !slices.Equal(part[:len(part)-1], ends[:len(part)-1]) {
				t.Fatalf("target %d, cut at %d: %v", target, cut, part)
			}
		}
	}
}

func FuzzElideLine(f *testing.F) {
	f.Add([]byte(`{"type":"user","text":"`+strings.Repeat("ab\\u00e9c", 40)+`"}`), 100)
	f.Add([]byte(`["`+strings.Repeat("é", 100)+`","`+strings.Repeat(`\"`, 60)+`"]`), 90)
	f.Add([]byte(`"`+strings.Repeat("x", 300)+`"`), 50)
	f.Fuzz(func(t *testing.T, line []byte, limit int) {
		limit = min(max(limit, 0), 1<<20)
		out := elideLine(line, limit)
		switch {
		case len(line) <= limit:
			if !bytes.Equal(out, line) {
				t.Fatal("a line within the limit changed")
			}
		case bytes.Equal(out, elidedRecord(len(line))):
		case !jsonvalid.Valid(line):
			t.Fatalf("invalid line not replaced: %q", out)
		case len(out) > limit || !jsonvalid.Valid(out):
			t.Fatalf("limit %d: %d bytes, valid %v: %q", limit, len(out), jsonvalid.Valid(out), out)
		}
	})
}
