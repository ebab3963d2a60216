package main

import (
	"context"
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
	return slog.New(&leadHandler{inner: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv})})
}

// leadKeys are the attributes every line starts with, in this order, after time, level and msg
// (entire-cli.md §2): the session the line is about, the component that writes it ("hooks",
// "session", "checkpoint") and the agent.
var leadKeys = [...]string{"session_id", "component", "agent"}

// leadHandler writes the lead attributes first and each of them once: a later value replaces an
// earlier one, whether it comes from a child logger (log.With("component", "checkpoint") of the
// hooks' logger) or from the call itself (a line about another session than the hook's). Other
// attributes keep their order: the loggers' own, then the call's. It does its work only for the
// lines the level lets through (Handle).
type leadHandler struct {
	inner   slog.Handler
	lead    [len(leadKeys)]slog.Attr // zero Key: not set
	attrs   []slog.Attr
	grouped bool // after WithGroup, attributes belong to the group: written as they come
}

func leadIndex(key string) int {
	for i, k := range leadKeys {
		if k == key {
			return i
		}
	}
	return -1
}

func (h *leadHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *leadHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if h.grouped {
		return &leadHandler{inner: h.inner.WithAttrs(attrs), grouped: true}
	}
	c := *h
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range attrs {
		if i := leadIndex(a.Key); i >= 0 {
			c.lead[i] = a
		} else {
			c.attrs = append(c.attrs, a)
		}
	}
	return &c
}

func (h *leadHandler) WithGroup(name string) slog.Handler {
	if h.grouped {
		return &leadHandler{inner: h.inner.WithGroup(name), grouped: true}
	}
	return &leadHandler{inner: h.inner.WithAttrs(h.ordered(h.lead, nil)).WithGroup(name), grouped: true}
}

func (h *leadHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.grouped {
		return h.inner.Handle(ctx, r)
	}
	lead := h.lead
	var call []slog.Attr
	r.Attrs(func(a slog.Attr) bool {
		if i := leadIndex(a.Key); i >= 0 {
			lead[i] = a
		} else {
			call = append(call, a)
		}
		return true
	})
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	out.AddAttrs(h.ordered(lead, call)...)
	return h.inner.Handle(ctx, out)
}

// ordered is the lead attributes that are set, then the loggers' attributes, then call.
func (h *leadHandler) ordered(lead [len(leadKeys)]slog.Attr, call []slog.Attr) []slog.Attr {
	out := make([]slog.Attr, 0, len(lead)+len(h.attrs)+len(call))
	for _, a := range lead {
		if a.Key != "" {
			out = append(out, a)
		}
	}
	return append(append(out, h.attrs...), call...)
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
