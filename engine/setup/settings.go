// Package setup does the file work behind `entire enable`, `entire disable` and
// `entire status` (spec §7, §8.1, §8.3, §10): it reads and writes the Entire settings
// files, installs and removes the Claude Code hooks in .claude/settings.json and the
// git hooks, and reports what is installed.
//
// It starts no process. The caller resolves the worktree root and the hooks directory
// with git and passes them in as Paths.
package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/entirerec/entire/events/agent"
)

// Settings file locations, relative to the worktree root (spec §7.1).
const (
	ProjectSettingsFile = ".entire/settings.json"
	LocalSettingsFile   = ".entire/settings.local.json"
)

// DefaultStrategy is the strategy used when no settings file names one; AutoCommitStrategy
// commits each turn's changes on the current branch.
const (
	DefaultStrategy    = "manual-commit"
	AutoCommitStrategy = "auto-commit"
)

// CheckStrategy refuses a strategy this tool does not run, in the reference's words.
func CheckStrategy(name string) error {
	if name != DefaultStrategy && name != AutoCommitStrategy {
		return fmt.Errorf("unknown strategy: %s (use manual-commit or auto-commit)", name)
	}
	return nil
}

// jsonText is v as JSON, for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Strategy option keys read by the accessors below.
const (
	optPushSessions        = "push_sessions"
	optMultiSessionWarning = "enable_multisession_warning"
	optConfirmPush         = "confirm_push"
	optRetentionDays       = "retention_days"
	optRetentionMaxMB      = "retention_max_mb"
	optSummarize           = "summarize"
)

// knownOptions are the strategy_options keys this tool reads, sorted: the reference's
// (push_sessions, summarize) and this tool's own.
var knownOptions = []string{optConfirmPush, optMultiSessionWarning, optPushSessions, optRetentionDays, optRetentionMaxMB, optSummarize}

// legacyWarningOptions are the reference's older, inverted multi-session setting (and the
// seed's spelling of it), read when enable_multisession_warning is not set.
var legacyWarningOptions = []string{"disable_multisession_warning", "disable-multisession-warning"}

// Settings is the effective settings (§7.1). Only the six known top-level keys exist in files.
// Strategy is kept as written (after defaulting an empty value); callers map unknown
// strategies to the default when they pick one.
type Settings struct {
	Strategy        string         // default "manual-commit"
	Enabled         bool           // default true
	LocalDev        bool           // hooks run `go run …` instead of `entire`
	LogLevel        string         // empty means the default (INFO)
	StrategyOptions map[string]any // raw object; numbers are json.Number
	Telemetry       *bool          // nil = not asked, false = opted out
}

// DefaultSettings returns the settings in effect when no settings file exists.
func DefaultSettings() Settings {
	return Settings{Strategy: DefaultStrategy, Enabled: true}
}

// PushSessions reports whether pre-push should push session logs: unless
// strategy_options.push_sessions is false. A value that is not a boolean ("no", 0) is taken
// as false too, and refused in Unsupported: the reference pushes then, but a setting someone
// wrote to keep transcripts private must not be read as consent.
func (s Settings) PushSessions() bool {
	v, isBool := s.StrategyOptions[optPushSessions].(bool)
	_, set := s.StrategyOptions[optPushSessions]
	return !set || (isBool && v)
}

// RecordHeld is why git push leaves the record (entire/checkpoints/v1) local under these
// settings, or "" when it pushes it: strategy_options.push_sessions is not true, or loadErr,
// the error LoadSettings returned with s, says the settings cannot be read. A setting written
// to keep transcripts private is no consent to push because its file is broken; recording, by
// contrast, goes on as enabled when the settings cannot be read (spec §9).
func RecordHeld(s Settings, loadErr error) string {
	if loadErr != nil {
		return "the settings cannot be read: " + loadErr.Error()
	}
	if s.PushSessions() {
		return ""
	}
	v := s.StrategyOptions[optPushSessions]
	if b, ok := v.(bool); ok && !b {
		return "strategy_options.push_sessions is false"
	}
	return "strategy_options.push_sessions is " + jsonText(v) + ", not true"
}

// MultiSessionWarning reports whether strategy_options.enable_multisession_warning is true.
// The key lives inside strategy_options because the reference rejects unknown top-level keys.
// Without it, the reference's older disable_multisession_warning is read inverted (seed 003:
// false, which showed the warning there, turns it on), so a setting made for the reference
// keeps its meaning.
func (s Settings) MultiSessionWarning() bool {
	if v, set := s.StrategyOptions[optMultiSessionWarning]; set {
		b, ok := v.(bool)
		return ok && b
	}
	for _, k := range legacyWarningOptions {
		if v, ok := s.StrategyOptions[k].(bool); ok {
			return !v
		}
	}
	return false
}

// settingsFile is one settings file as stored; pointers tell an absent key from a zero one.
type settingsFile struct {
	Strategy        string         `json:"strategy"`
	Enabled         *bool          `json:"enabled"`
	LocalDev        *bool          `json:"local_dev"`
	LogLevel        string         `json:"log_level"`
	StrategyOptions map[string]any `json:"strategy_options"`
	Telemetry       *bool          `json:"telemetry"`
}

// onDiskSettings is the shape WriteSettings produces, in the reference's key order.
type onDiskSettings struct {
	Strategy        string         `json:"strategy"`
	Enabled         bool           `json:"enabled"`
	LocalDev        bool           `json:"local_dev,omitempty"`
	LogLevel        string         `json:"log_level,omitempty"`
	StrategyOptions map[string]any `json:"strategy_options,omitempty"`
	Telemetry       *bool          `json:"telemetry,omitempty"`
}

// overlay applies f on top of s with the §7.1 local-override rules: strings only when
// non-empty, booleans whenever present, strategy_options merged key by key.
func (s *Settings) overlay(f settingsFile) {
	if f.Strategy != "" {
		s.Strategy = f.Strategy
	}
	if f.Enabled != nil {
		s.Enabled = *f.Enabled
	}
	if f.LocalDev != nil {
		s.LocalDev = *f.LocalDev
	}
	if f.LogLevel != "" {
		s.LogLevel = f.LogLevel
	}
	if len(f.StrategyOptions) > 0 {
		merged := make(map[string]any, len(s.StrategyOptions)+len(f.StrategyOptions))
		for k, v := range s.StrategyOptions {
			merged[k] = v
		}
		// The multi-session warning has three spellings; one of them in this file decides it,
		// so the earlier file's other spellings go (MultiSessionWarning reads the new key first).
		if setsWarning(f.StrategyOptions) {
			delete(merged, optMultiSessionWarning)
			for _, k := range legacyWarningOptions {
				delete(merged, k)
			}
		}
		for k, v := range f.StrategyOptions {
			merged[k] = v
		}
		s.StrategyOptions = merged
	}
	if f.Telemetry != nil {
		t := *f.Telemetry
		s.Telemetry = &t
	}
}

// setsWarning reports whether opts holds any spelling of the multi-session warning setting.
func setsWarning(opts map[string]any) bool {
	if _, ok := opts[optMultiSessionWarning]; ok {
		return true
	}
	for _, k := range legacyWarningOptions {
		if _, ok := opts[k]; ok {
			return true
		}
	}
	return false
}

// LoadSettings returns the effective settings of the worktree at topLevel: defaults,
// then .entire/settings.json, then .entire/settings.local.json as overrides (§7.1).
// Missing files are skipped. Unknown keys, wrong types, malformed JSON and an unknown
// strategy are errors naming the file; the defaults are returned with the error.
func LoadSettings(topLevel string) (Settings, error) {
	s := DefaultSettings()
	strategyFrom := ""
	for _, rel := range []string{ProjectSettingsFile, LocalSettingsFile} {
		path := filepath.Join(topLevel, rel)
		f, _, err := readSettingsFile(path)
		if err != nil {
			return DefaultSettings(), err
		}
		if f.Strategy != "" {
			strategyFrom = path
		}
		s.overlay(f)
	}
	if err := CheckStrategy(s.Strategy); err != nil {
		return DefaultSettings(), fmt.Errorf("%s: %w", strategyFrom, err)
	}
	return s, nil
}

// FileSettings are one settings file's own values over the defaults (status --detailed shows
// each file); exists is false when the file is missing.
func FileSettings(topLevel, rel string) (s Settings, exists bool, err error) {
	f, exists, err := readSettingsFile(filepath.Join(topLevel, rel))
	s = DefaultSettings()
	s.overlay(f)
	return s, exists, err
}

// readSettingsFile decodes one settings file strictly. A missing file is not an error
// (exists is false).
func readSettingsFile(path string) (f settingsFile, exists bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return settingsFile{}, false, nil
	}
	if err != nil {
		return settingsFile{}, false, fmt.Errorf("read settings: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return settingsFile{}, true, fmt.Errorf("parse settings %s: file is empty", path)
		}
		return settingsFile{}, true, fmt.Errorf("parse settings %s: %w", path, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return settingsFile{}, true, fmt.Errorf("parse settings %s: unexpected data after the JSON object", path)
	}
	return f, true, nil
}

// WriteSettings writes s to path in the §7.1 on-disk shape (keys strategy, enabled,
// local_dev, log_level, strategy_options, telemetry; empty optional keys omitted),
// 2-space indented with a trailing newline, mode 0644. The parent directory is created.
func WriteSettings(path string, s Settings) error {
	data, err := agent.EncodeJSON(onDiskSettings(s))
	if err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create settings directory: %w", err)
	}
	if err := agent.WriteFileAtomic(path, data, 0o644); err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	return nil
}

// ConfirmPush reports whether strategy_options.confirm_push is true: the pre-push hook then
// shows what of the record the push sends, and on a terminal asks first.
func (s Settings) ConfirmPush() bool {
	v, ok := s.StrategyOptions[optConfirmPush].(bool)
	return ok && v
}

// Retention is the record's retention policy (this tool's strategy options, applied by
// `entire clean --retention`): forget the session slots older than Days, and the oldest ones
// while the record's files exceed MaxBytes. Zero values mean no limit.
type Retention struct {
	Days     int
	MaxBytes int64
}

// Set reports whether any limit is configured.
func (r Retention) Set() bool { return r.Days > 0 || r.MaxBytes > 0 }

// Retention reads strategy_options.retention_days and .retention_max_mb; a value that is not
// a positive whole number is an error, never a silent default.
func (s Settings) Retention() (Retention, error) {
	var r Retention
	days, err := positiveOption(s.StrategyOptions, optRetentionDays)
	if err != nil {
		return r, err
	}
	mb, err := positiveOption(s.StrategyOptions, optRetentionMaxMB)
	if err != nil {
		return r, err
	}
	r.Days, r.MaxBytes = int(days), mb<<20
	return r, nil
}

// positiveOption reads a whole-number strategy option; 0 when absent.
func positiveOption(opts map[string]any, key string) (int64, error) {
	v, ok := opts[key]
	if !ok {
		return 0, nil
	}
	var n int64
	var err error
	switch v := v.(type) {
	case json.Number:
		n, err = v.Int64()
	case float64:
		n = int64(v)
		if float64(n) != v {
			err = errors.New("not whole")
		}
	default:
		err = errors.New("not a number")
	}
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("strategy_options.%s must be a positive whole number, not %v", key, v)
	}
	return n, nil
}

// Unsupported lists the settings this build would otherwise accept and ignore, each with what
// to do: the reference's local_dev hooks (`go run` of a checkout) and AI summaries
// (strategy_options.summarize) are not implemented here, and a malformed retention value is
// refused.
func (s Settings) Unsupported() []string {
	var out []string
	if s.LocalDev {
		out = append(out, "local_dev is not supported: the hooks always run `entire` from PATH (remove the key)")
	}
	if m, ok := s.StrategyOptions[optSummarize].(map[string]any); ok {
		if on, _ := m["enabled"].(bool); on {
			out = append(out, "strategy_options.summarize.enabled is not supported: this build does not generate AI summaries (remove the option)")
		}
	}
	if _, err := s.Retention(); err != nil {
		out = append(out, err.Error())
	}
	for _, k := range append([]string{optPushSessions, optMultiSessionWarning, optConfirmPush}, legacyWarningOptions...) {
		if v, set := s.StrategyOptions[k]; set {
			if _, ok := v.(bool); !ok {
				what := "it is ignored"
				if k == optPushSessions {
					what = "session logs are not pushed until it is fixed"
				}
				out = append(out, fmt.Sprintf("strategy_options.%s must be true or false, not %s: %s", k, jsonText(v), what))
			}
		}
	}
	return out
}

// UnknownOptions lists the strategy_options keys this tool does not read, sorted, each said
// with the closest known key when one is a likely typo, and the known ones. Such a key does
// nothing: "push_session": false leaves the record pushed. The reference takes
// strategy_options as a free map, so the file is not refused for it; status and doctor warn.
func (s Settings) UnknownOptions() []string {
	var keys []string
	for k := range s.StrategyOptions {
		if !slices.Contains(knownOptions, k) && !slices.Contains(legacyWarningOptions, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		msg := fmt.Sprintf("strategy_options.%s is not an option this tool knows, so it does nothing", jsonKey(k))
		if near := closestOption(k); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		}
		out = append(out, msg+" (known: "+strings.Join(knownOptions, ", ")+")")
	}
	return out
}

// jsonKey is k as written in a message: quoted when it is not a plain name.
func jsonKey(k string) string {
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// closestOption is the known option within two edits of k (case and '-' for '_' aside), or "".
func closestOption(k string) string {
	norm := strings.ReplaceAll(strings.ToLower(k), "-", "_")
	best, bestDist := "", 3
	for _, o := range knownOptions {
		if d := editDistance(norm, o); d < bestDist {
			best, bestDist = o, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
