package history

import (
	"bytes"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/gitexec/gittest"
)

// mtEngine is the history of a hermetic repository with one commit on main, with a fixed clock.
func mtEngine(t *testing.T) (*History, string) {
	t.Helper()
	repo := gittest.Repo(t)
	head := gittest.Commit(t, repo, "refs/heads/main", "", "init", map[string]string{"README": "hi\n"})
	en := engine.New(repo, slog.New(slog.NewTextHandler(io.Discard, nil)), &bytes.Buffer{})
	en.Now = func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
	return New(en), string(head)
}

// testRepo is the history of a hermetic empty repository.
func testRepo(t *testing.T) *History {
	t.Helper()
	return New(engine.New(gittest.Repo(t), slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard))
}
