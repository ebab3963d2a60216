package codex

import (
	"strings"

	"github.com/tidwall/gjson"
)

// The apply_patch envelope (agent-hooks.md §4.3): "*** Begin Patch", then per file one of the
// headers below followed by its hunk, then "*** End Patch".
const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
)

// patchHeaders are the envelope lines that name a file the patch writes: added, updated,
// deleted, or the new name of a moved file.
var patchHeaders = []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"}

// PatchPaths returns the paths an apply_patch text writes, as written, in order of appearance
// (duplicates included). Only lines between "*** Begin Patch" and "*** End Patch" count; a text
// may hold several envelopes (a heredoc in a shell command, say). Lines are compared with
// surrounding whitespace removed, as Codex's own parser does.
func PatchPaths(text string) []string {
	var paths []string
	for {
		i := strings.Index(text, beginPatch)
		if i < 0 {
			return paths
		}
		text = text[i+len(beginPatch):]
		for {
			line, rest, more := strings.Cut(text, "\n")
			text = rest
			line = strings.TrimSpace(line)
			if line == endPatch {
				break
			}
			for _, h := range patchHeaders {
				if p, ok := strings.CutPrefix(line, h); ok {
					if p = strings.TrimSpace(p); p != "" {
						paths = append(paths, p)
					}
					break
				}
			}
			if !more {
				return paths
			}
		}
	}
}

// argumentPatches returns the apply_patch envelopes inside a function_call's arguments: every
// string in the arguments' JSON (nested in objects and arrays, as a shell command's argv is)
// that holds "*** Begin Patch". Arguments that are not JSON are taken as text.
func argumentPatches(arguments string) []string {
	if !gjson.Valid(arguments) {
		if strings.Contains(arguments, beginPatch) {
			return []string{arguments}
		}
		return nil
	}
	var out []string
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		switch {
		case v.Type == gjson.String:
			if strings.Contains(v.Str, beginPatch) {
				out = append(out, v.Str)
			}
		case v.IsArray(), v.IsObject():
			v.ForEach(func(_, e gjson.Result) bool { walk(e); return true })
		}
	}
	walk(gjson.Parse(arguments))
	return out
}
