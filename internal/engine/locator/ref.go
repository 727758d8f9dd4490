package locator

import (
	"errors"
	"strings"
)

// A target is a snapshot ref (@12) or a locator: the refs' syntax lives
// here with the locators', so that what only checks a target's syntax
// (the CLI, before it dials) needs no ref map (refmap, which links
// cdproto).

// ErrForeignRef is the cause when a target is a ref written the way other
// tools write theirs (see ForeignRef).
var ErrForeignRef = errors.New("refs here are @N (see `egohost snapshot`)")

// ParseRef returns the canonical ref ("21") for "@21", "ref=21" or "21"
// (surrounding white space ignored), and false for anything else.
func ParseRef(input string) (string, bool) {
	s := strings.TrimSpace(input)
	switch {
	case strings.HasPrefix(s, "@"):
		s = s[1:]
	case strings.HasPrefix(s, "ref="):
		s = s[len("ref="):]
	}
	if s == "" || len(s) > 18 {
		return "", false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return s, true
}

// ForeignRef reports whether input is a ref in another tool's form:
// "@e12", "e12", "ref=e5" or "[ref=e5]" (Playwright MCP, agent-browser),
// any case, surrounding white space ignored. Such a number names nothing
// here: it must not be read as @12.
func ForeignRef(input string) bool {
	s := strings.TrimSpace(input)
	if t, ok := strings.CutPrefix(s, "["); ok {
		s, ok = strings.CutSuffix(t, "]")
		if !ok {
			return false
		}
	}
	switch {
	case strings.HasPrefix(s, "@"):
		s = s[1:]
	case len(s) >= 4 && strings.EqualFold(s[:4], "ref="):
		s = s[4:]
	}
	if len(s) < 2 || len(s) > 19 || (s[0] != 'e' && s[0] != 'E') {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
