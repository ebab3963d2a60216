package gitexec

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Stop writes a commit (the shadow branch's checkpoint) outside git's hooks, where nothing
// names the identity commit-tree would find: git reads it from the environment and its
// configuration files. The first commit-tree's answer is kept in a file (CacheIdentity) with
// what it came from: the variables git reads it from, the host name, and the size and time
// of every configuration file git read then or could read (the system, global, local and
// worktree files, and any file they include). While all of those are unchanged, the names
// are what commit-tree would write again, and later commits take them with the clock's time
// and go in the pack of their trees, as in post-commit (AdoptIdentity). Anything the key
// cannot follow keeps commit-tree: dates in the environment, configuration given on git's
// command line, includes that depend on the branch.

// identityEnv are the variables that decide the identity commit-tree finds, directly or by
// naming the configuration files it reads.
var identityEnv = []string{
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL",
	"HOME", "USER", "LOGNAME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	"GIT_EXEC_PATH",
}

// identityCache is a Repo's use of the identity file.
type identityCache struct {
	path  string // the file; "" when not cached
	once  sync.Once
	mu    sync.Mutex
	learn bool // the file is missing or stale: learn from the next commit-tree
}

// identityFile is the file's content.
type identityFile struct {
	Key       string   `json:"key"`
	Files     []string `json:"files"` // configuration files git read, beyond the usual ones
	Author    string   `json:"author"`
	Committer string   `json:"committer"`
}

// CacheIdentity has the commits this Repo writes outside git's hooks take their author and
// committer from the file at path when it is current, and learn them into it from
// commit-tree when it is not.
func (r *Repo) CacheIdentity(path string) {
	r.identCache.path = path
}

// useCachedIdentity adopts the cached identity, once, when the file is current.
func (r *Repo) useCachedIdentity() {
	c := &r.identCache
	c.once.Do(func() {
		if c.path == "" || r.ident != nil {
			return
		}
		data, err := os.ReadFile(c.path)
		var f identityFile
		if err == nil {
			err = json.Unmarshal(data, &f)
		}
		key, ok := r.identityKey(f.Files)
		if !ok {
			return
		}
		if err != nil || key != f.Key || !validIdent(f.Author) || !validIdent(f.Committer) {
			c.mu.Lock()
			c.learn = true
			c.mu.Unlock()
			return
		}
		r.ident = &identity{author: f.Author, committer: f.Committer, clock: true}
	})
}

// validIdent reports whether s is "Name <email>" as git writes it.
func validIdent(s string) bool {
	return strings.HasSuffix(s, ">") && strings.Count(s, "<") == 1 && strings.Count(s, ">") == 1 &&
		!strings.ContainsAny(s, "\n\x00")
}

// configFiles are the configuration files git may read for this repository, present or not,
// with the system files of a git built with another prefix (otherSystemConfigs).
func (r *Repo) configFiles() []string {
	return append(append(r.configSources(), r.otherSystemConfigs()...), filepath.Join(r.GitDir, "config.worktree"))
}

// identityKey digests what the identity depends on, with the configuration files and extra;
// ok=false when the environment sets a date (commit-tree takes it, the cache does not).
func (r *Repo) identityKey(extra []string) (string, bool) {
	if envValue(r.env, "GIT_AUTHOR_DATE") != "" || envValue(r.env, "GIT_COMMITTER_DATE") != "" {
		return "", false
	}
	h := sha256.New()
	for _, name := range identityEnv {
		for _, kv := range r.env {
			if k, _, _ := strings.Cut(kv, "="); k == name {
				fmt.Fprintf(h, "%s\x00", kv)
			}
		}
		fmt.Fprintf(h, "\x01")
	}
	host, _ := os.Hostname()
	fmt.Fprintf(h, "host=%s\x00gitdir=%s\x00", host, r.GitDir)
	files := append(r.configFiles(), extra...)
	slices.Sort(files)
	for _, f := range slices.Compact(files) {
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(h, "%s %d %d\x00", f, fi.Size(), fi.ModTime().UnixNano())
		} else {
			fmt.Fprintf(h, "%s -\x00", f)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// learnIdentity keeps the author and committer of commit, just written by commit-tree, when
// writing them with their times gives back that commit, and every configuration source git
// read is a file the key can follow.
func (r *Repo) learnIdentity(ctx context.Context, commit OID) {
	c := &r.identCache
	c.mu.Lock()
	learn := c.learn
	c.learn = false
	c.mu.Unlock()
	if !learn {
		return
	}
	obj, err := r.readCommit(ctx, string(commit))
	if err != nil {
		return
	}
	header, message, _ := bytes.Cut(obj.data, []byte("\n\n"))
	var tree OID
	var parents []OID
	var author, committer string
	for _, line := range strings.Split(string(header), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			tree = OID(val)
		case "parent":
			parents = append(parents, OID(val))
		case "author":
			author = val
		case "committer":
			committer = val
		default:
			return // a header commit-tree wrote from the configuration (an encoding)
		}
	}
	authorName, authorTime, ok1 := cutIdentTime(author)
	committerName, committerTime, ok2 := cutIdentTime(committer)
	if !ok1 || !ok2 || authorTime != committerTime || !validIdent(authorName) || !validIdent(committerName) {
		return
	}
	stamp, err := strconv.ParseInt(strings.Fields(authorTime)[0], 10, 64)
	if err != nil || identStamp(time.Unix(stamp, 0)) != authorTime {
		return // a time zone this process would write differently
	}
	learned := &identity{author: authorName, committer: committerName, clock: true}
	body, err := learned.body(r, tree, parents, string(message), time.Unix(stamp, 0))
	if err != nil || !bytes.Equal(body, obj.data) {
		return
	}
	files, ok := r.configOrigins(ctx)
	if !ok {
		return
	}
	key, ok := r.identityKey(files)
	if !ok {
		return
	}
	data, err := json.Marshal(identityFile{Key: key, Files: files, Author: authorName, Committer: committerName})
	if err != nil {
		return
	}
	tmp := c.path + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return
	}
	if err := os.Rename(tmp, c.path); err != nil {
		_ = os.Remove(tmp)
	}
}

// cutIdentTime splits "Name <email> 1700000000 +0100" after the email.
func cutIdentTime(line string) (ident, when string, ok bool) {
	at := strings.LastIndexByte(line, '>')
	if at < 0 || at+2 > len(line) || line[at+1] != ' ' {
		return "", "", false
	}
	return line[:at+1], line[at+2:], true
}

// identStamp is t as git writes a commit's time: seconds and the local offset.
func identStamp(t time.Time) string {
	return strconv.FormatInt(t.Unix(), 10) + " " + t.Local().Format("-0700")
}

// configOrigins lists the files git reads configuration from here, and the files they
// include, present or not (one created later may set the identity); ok=false when it also
// reads another kind of source, a file includes others by branch (which the key does not
// follow), or an include names a path this reader does not resolve.
func (r *Repo) configOrigins(ctx context.Context) ([]string, bool) {
	out, err := r.git(ctx, call{}, "config", "--list", "--show-origin", "-z")
	if err != nil {
		return nil, false
	}
	var files, included []string
	fields := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		origin, ok := strings.CutPrefix(fields[i], "file:")
		if !ok {
			return nil, false // command line, standard input, a blob
		}
		if !filepath.IsAbs(origin) {
			origin = filepath.Join(r.TopLevel, origin)
		}
		files = append(files, origin)
		key, val, _ := strings.Cut(fields[i+1], "\n")
		if key = strings.ToLower(key); key == "include.path" ||
			strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path") {
			target, ok := r.includeTarget(origin, val)
			if !ok {
				return nil, false
			}
			included = append(included, target)
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || bytes.Contains(bytes.ToLower(data), []byte("onbranch:")) {
			return nil, false
		}
	}
	files = append(files, included...)
	slices.Sort(files)
	return slices.Compact(files), true
}

// includeTarget is the file an include.path (or includeIf's path) value names in the
// configuration file origin, as git resolves it: "~/" is the home directory, a relative path
// is relative to origin's directory. ok=false for what this reader leaves alone (another
// user's home, git's install prefix, an empty value).
func (r *Repo) includeTarget(origin, val string) (string, bool) {
	switch {
	case val == "" || strings.HasPrefix(val, "%(prefix)"):
		return "", false
	case strings.HasPrefix(val, "~/"):
		home := envValue(r.env, "HOME")
		if home == "" {
			return "", false
		}
		return filepath.Join(home, val[2:]), true
	case strings.HasPrefix(val, "~"):
		return "", false
	case filepath.IsAbs(val):
		return filepath.Clean(val), true
	}
	return filepath.Join(filepath.Dir(origin), val), true
}
