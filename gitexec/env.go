package gitexec

import (
	"runtime"
	"strings"
)

// envAllowed lists the parent variables a git child may see. Everything git
// lists in "git rev-parse --local-env-vars" (GIT_DIR, GIT_INDEX_FILE,
// GIT_WORK_TREE, GIT_PREFIX, ...) is deliberately absent: hooks set them,
// often relative to a directory we are not in.
var envAllowed = nameSet(
	// Process basics.
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "TZ", "TMPDIR", "XDG_CONFIG_HOME",
	// Windows basics (names compared in upper case there).
	"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT",
	"USERPROFILE", "HOMEDRIVE", "HOMEPATH",
	"APPDATA", "LOCALAPPDATA", "TEMP", "TMP",
	// Configuration sources and repository discovery limits.
	"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	"GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
	"GIT_EXEC_PATH",
	// Identity and dates for commits.
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"EMAIL",
	// Transport: ssh, credentials prompts, proxies and certificates.
	"SSH_AUTH_SOCK", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT",
	"GIT_ASKPASS", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", "DISPLAY",
	"GIT_TERMINAL_PROMPT",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "SSL_CERT_FILE", "SSL_CERT_DIR",
)

// nameSet returns a set of the given names.
func nameSet(names ...string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// buildEnv returns the environment for every git child: the allowed subset
// of parent, plus GIT_OPTIONAL_LOCKS=0 and LC_ALL=C.
func buildEnv(parent []string) []string {
	env := make([]string, 0, 16)
	for _, kv := range parent {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || !envPasses(name) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
}

// envPasses reports whether the parent variable name may reach a child.
func envPasses(name string) bool {
	key := name
	if runtime.GOOS == "windows" {
		key = strings.ToUpper(name)
	}
	switch {
	case key == "LC_ALL":
		return false // always set to C
	case envAllowed[key] || envAllowed[name]:
		return true
	case strings.HasPrefix(key, "LC_"):
		return true
	case strings.HasPrefix(key, "GIT_TRACE"):
		return true
	}
	return false
}

// withEnv returns a copy of base with extra appended; a later entry wins.
func withEnv(base []string, extra ...string) []string {
	out := make([]string, 0, len(base)+len(extra))
	out = append(out, base...)
	return append(out, extra...)
}

// envValue returns the value of name in env (last entry wins).
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}
