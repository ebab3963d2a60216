package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// logPath is where hooks log: .entire/logs/entire.log under the worktree root, or under the
// current directory when it is not inside a repository.
func logPath(root string) string {
	return filepath.Join(root, ".entire", "logs", "entire.log")
}

// openLog returns a JSON-lines logger appending to the log file, and a closer. It never fails:
// when the file cannot be opened, logs go to stderr.
func openLog(root string, level string, fallback io.Writer) (*slog.Logger, func()) {
	var w io.Writer = fallback
	closeFn := func() {}
	path := logPath(root)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			w = f
			closeFn = func() { f.Close() }
		}
	}
	if env := os.Getenv("ENTIRE_LOG_LEVEL"); env != "" {
		level = env
	}
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: parseLevel(level)})
	return slog.New(h), closeFn
}

func parseLevel(s string) slog.Level {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}
