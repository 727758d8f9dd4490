package aria

import (
	"strings"
	"unicode"
)

// Shown is a name Chrome computed as egohost shows it: without the
// characters that show no text (an icon font's private-use glyphs, zero-
// width spaces, byte order marks), white space collapsed where any were
// taken out. It is aria.js's NO_TEXT rule, for the names Chrome's
// accessibility tree gives: what a snapshot shows and what a role locator
// matches are the same. A name of glyphs alone is "" here; the page's
// name (HasNoText) then tells what names the element (its tooltip).
func Shown(name string) string {
	if !HasNoText(name) {
		return name
	}
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if noText(r) {
			return -1
		}
		return r
	}, name)), " ")
}

// HasNoText says whether s holds a character that shows no text (Shown
// takes them out).
func HasNoText(s string) bool {
	return strings.IndexFunc(s, noText) >= 0
}

func noText(r rune) bool {
	return r == '\u200b' || r == '\ufeff' || unicode.Is(unicode.Co, r)
}
