package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
)

// BinEnv names the OpenCode executable Materialize runs (default "opencode").
const BinEnv = "ENTIRE_OPENCODE_BIN"

// exportTimeout bounds one `opencode export` run (a variable so tests can shorten it).
var exportTimeout = 10 * time.Second

// Materialize writes session sessionID as a JSON-lines transcript, <dir>/<sessionID>.jsonl, and
// returns that path. It runs `opencode export <sessionID>` (the executable named by
// ENTIRE_OPENCODE_BIN, else "opencode" on PATH, in the current directory, at most 10 s) and
// writes one line per exported message, the message object compacted.
//
// Offsets into the file stay valid: a line already in the file is kept byte for byte while the
// file's messages are a prefix of the export's and the message has settled (a user message, or
// an assistant message that completed or failed); from the first line that differs, or that
// held an unfinished message, the export's lines follow. Earlier lines therefore never move
// when OpenCode later adds a summary to a user message or marks old tool output as compacted.
// Only a change in the list of messages (an undo that removed messages) rewrites the file from
// that message on. The file (mode 0600) is replaced atomically, and only when its content
// changes.
func Materialize(ctx context.Context, sessionID, dir string) (string, error) {
	if err := agent.ValidateSessionID(sessionID); err != nil {
		return "", fmt.Errorf("materialize opencode session: %w", err)
	}
	if strings.HasPrefix(sessionID, "-") {
		return "", fmt.Errorf("materialize opencode session: session id %q reads as an option", sessionID)
	}
	out, err := runExport(ctx, sessionID)
	if err != nil {
		return "", err
	}
	fresh, err := ExportLines(out)
	if err != nil {
		return "", fmt.Errorf("materialize opencode session %s: %w", sessionID, err)
	}
	path := filepath.Join(dir, sessionID+".jsonl")
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("materialize opencode session: %w", err)
	}
	data := mergeLines(old, fresh)
	if exists && bytes.Equal(old, data) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("materialize opencode session: %w", err)
	}
	if err := agent.WriteFileAtomic(path, data, 0o600); err != nil {
		return "", fmt.Errorf("materialize opencode session: %w", err)
	}
	return path, nil
}

// runExport runs `opencode export <sessionID>` and returns its stdout.
func runExport(ctx context.Context, sessionID string) ([]byte, error) {
	bin := os.Getenv(BinEnv)
	if bin == "" {
		bin = "opencode"
	}
	ctx, cancel := context.WithTimeout(ctx, exportTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "export", sessionID)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second // a child left holding the pipes must not hold us too
	err := cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("opencode export %s: no answer within %s", sessionID, exportTimeout)
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 512 {
			msg = msg[:512] + "..."
		}
		return nil, fmt.Errorf("opencode export %s: %w: %s", sessionID, err, msg)
	}
	return stdout.Bytes(), nil
}

// ExportLines splits the output of `opencode export` into one compact JSON line (without '\n')
// per element of its "messages" array, in order. Text before the JSON document (a notice some
// versions print) is skipped; output without a JSON object holding a "messages" array is an
// error.
func ExportLines(out []byte) ([][]byte, error) {
	doc := bytes.TrimSpace(out)
	for !jsonvalid.Valid(doc) || !gjson.ParseBytes(doc).IsObject() {
		i := bytes.Index(doc, []byte("\n{"))
		if i < 0 {
			return nil, errors.New("export output is not a JSON object")
		}
		doc = doc[i+1:]
	}
	msgs := gjson.GetBytes(doc, "messages")
	if !msgs.IsArray() {
		return nil, errors.New(`export output has no "messages" array`)
	}
	var lines [][]byte
	var err error
	msgs.ForEach(func(_, m gjson.Result) bool {
		var buf bytes.Buffer
		if err = json.Compact(&buf, []byte(m.Raw)); err != nil {
			err = fmt.Errorf("message %d: %w", len(lines), err)
			return false
		}
		lines = append(lines, buf.Bytes())
		return true
	})
	return lines, err
}

// mergeLines is the new file content: the old file's complete lines while they hold the same
// messages as fresh and have settled, then fresh from there on.
func mergeLines(old []byte, fresh [][]byte) []byte {
	var out bytes.Buffer
	i := 0
	for ; i < len(fresh); i++ {
		n := bytes.IndexByte(old, '\n')
		if n < 0 {
			break
		}
		line := old[:n]
		if !settled(line) || messageID(line) != messageID(fresh[i]) {
			break
		}
		out.Write(old[:n+1])
		old = old[n+1:]
	}
	for ; i < len(fresh); i++ {
		out.Write(fresh[i])
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// messageID is a message line's info.id ("" when it has none).
func messageID(line []byte) string {
	if v := gjson.GetBytes(line, "info.id"); v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// settled reports whether a message line can no longer change in a way the transcript needs:
// a user message (its text is fixed when sent), or an assistant message that completed or
// failed. A line without an id is never settled.
func settled(line []byte) bool {
	if !jsonvalid.Valid(line) {
		return false
	}
	info := gjson.GetBytes(line, "info")
	if id := info.Get("id"); id.Type != gjson.String || id.Str == "" {
		return false
	}
	switch info.Get("role").Str {
	case "user":
		return true
	case "assistant":
		return info.Get("time.completed").Type == gjson.Number || info.Get("error").IsObject()
	}
	return false
}
