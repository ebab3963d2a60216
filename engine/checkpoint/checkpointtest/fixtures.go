// Package checkpointtest has checkpoint data written the way the reference Entire CLI writes
// it, for the tests of the packages that read or merge the record.
package checkpointtest

import (
	"context"
	"strings"
	"testing"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// Line1 to Line4 are transcript lines: a prompt, an answer, a second prompt, an answer.
const Line1 = `{"type":"user","message":{"content":"first prompt"}}`
const Line2 = `{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"}]}}`
const Line3 = `{"type":"user","message":{"content":"second prompt"}}`
const Line4 = `{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"done"}]}}`

// SlotFiles is the metadata.json of one slot of checkpoint id, for session.
func SlotFiles(id, slot, session string) map[string]string {
	dir := checkpoint.CheckpointPath(id) + "/" + slot
	return map[string]string{
		dir + "/metadata.json": `{"checkpoint_id":"` + id + `","session_id":"` + session + `","strategy":"manual-commit","created_at":"2026-02-16T01:00:50Z","checkpoints_count":1,"files_touched":["a.go"],"agent":"Claude Code","checkpoint_transcript_start":2,"transcript_lines_at_start":2}` + "\n",
	}
}

// Root is the root metadata.json of checkpoint id with that many slots.
func Root(id string, slots int) string {
	var sessions []string
	for i := range slots {
		d := "/" + checkpoint.CheckpointPath(id) + "/" + string(rune('0'+i))
		sessions = append(sessions, `{"metadata":"`+d+`/metadata.json","transcript":"`+d+`/full.jsonl","context":"","content_hash":"`+d+`/content_hash.txt","prompt":""}`)
	}
	return `{"checkpoint_id":"` + id + `","strategy":"manual-commit","checkpoints_count":1,"files_touched":["a.go"],"sessions":[` + strings.Join(sessions, ",") + `]}` + "\n"
}

// Reader is a checkpoint reader of repo.
func Reader(t testing.TB, repo *gitexec.Repo) *checkpoint.Reader {
	t.Helper()
	r, err := checkpoint.NewReader(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
