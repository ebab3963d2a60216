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
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			w = f
			closeFn = func() { f.Close() }
		}
	}
	return newLogger(w, level, fallback), closeFn
}

// openCommandLog is the log of a user command: the log file where Entire's directory already
// exists, else stderr. A command run in a repository Entire was never set up in (explain,
// rewind --list, relink...) or was uninstalled from thus leaves no untracked .entire/ behind for
// `git add -A` to commit (the reference's commands log to stderr too).
func openCommandLog(root string, stderr io.Writer) (*slog.Logger, func()) {
	if fi, err := os.Stat(filepath.Join(root, ".entire")); err != nil || !fi.IsDir() {
		return newLogger(stderr, "", stderr), func() {}
	}
	return openLog(root, "", stderr)
}

// newLogger is a JSON-lines logger writing to w at level (ENTIRE_LOG_LEVEL wins over it); a
// level that is none of the known ones is said on warn, and INFO used.
func newLogger(w io.Writer, level string, warn io.Writer) *slog.Logger {
	if env := os.Getenv("ENTIRE_LOG_LEVEL"); env != "" {
		level = env
	}
	lv, ok := parseLevel(level)
	if !ok {
		io.WriteString(warn, "[entire] Warning: invalid log level \""+level+"\", defaulting to INFO\n")
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv}))
}

// parseLevel reads a log level (ENTIRE_LOG_LEVEL or settings log_level), case-insensitive;
// ok=false for a value that is none of them (INFO is used).
func parseLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	case "info", "":
		return slog.LevelInfo, true
	}
	return slog.LevelInfo, false
}

// debugLogging reports whether ENTIRE_LOG_LEVEL asks for debug lines, which every hook then
// writes (the idle git hooks' fast path is skipped).
func debugLogging() bool { return strings.EqualFold(os.Getenv("ENTIRE_LOG_LEVEL"), "debug") }
