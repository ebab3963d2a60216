package claudecode

import "strings"

// strippedTags are the tags whose whole block StripTags removes, besides the
// <ide_*> family (entire-format.md §12.4).
var strippedTags = map[string]bool{
	"local-command-caveat": true,
	"system-reminder":      true,
	"command-name":         true,
	"command-message":      true,
	"command-args":         true,
	"local-command-stdout": true,
}

// StripTags removes the IDE and system blocks Claude Code wraps around a
// prompt (entire-format.md §12.4) and trims the result. A block runs from
// an opening tag (<name> or <name attr...>) to the first matching </name>;
// name is one of the listed tags or starts with "ide_" (<ide_opened_file>,
// <ide_selection>, ...). An opening tag without its closing tag is text and
// stays.
func StripTags(s string) string {
	var b strings.Builder
	unclosed := map[string]bool{} // names with no closing tag after some point
	i := 0
	for {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		j += i
		if name, body := openTag(s, j); name != "" && !unclosed[name] {
			closing := "</" + name + ">"
			if k := strings.Index(s[body:], closing); k >= 0 {
				b.WriteString(s[i:j])
				i = body + k + len(closing)
				continue
			}
			unclosed[name] = true // no later '<name>' can be closed either
		}
		b.WriteString(s[i : j+1])
		i = j + 1
	}
	return strings.TrimSpace(b.String())
}

// openTag reports whether s[at:] starts an opening tag whose block StripTags
// removes. It returns the tag name and the index just after the tag's '>',
// or "" when it does not.
func openTag(s string, at int) (name string, body int) {
	i := at + 1
	for i < len(s) && isTagNameByte(s[i]) {
		i++
	}
	name = s[at+1 : i]
	if !strippedTags[name] && !(strings.HasPrefix(name, "ide_") && len(name) > len("ide_")) {
		return "", 0
	}
	if i >= len(s) {
		return "", 0
	}
	switch s[i] {
	case '>':
		return name, i + 1
	case ' ', '\t', '\n', '\r':
		// Attributes run to the next '>', unless another tag starts first.
		if k := strings.IndexAny(s[i:], "<>"); k >= 0 && s[i+k] == '>' {
			return name, i + k + 1
		}
	}
	return "", 0
}

// isTagNameByte reports whether c may appear in a tag name.
func isTagNameByte(c byte) bool {
	return c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
