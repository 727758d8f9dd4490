package audit

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxField is the most bytes of one text field an entry keeps; a longer
// one is cut at a character boundary and marked (Cut).
const MaxField = 256

// MaxList is the most items of one list field an entry keeps; the rest
// are dropped and the last item kept says how many there were.
const MaxList = 16

// Sanitise returns e with every text an agent could have chosen capped:
// each string field (each item of a list of strings, the string behind a
// pointer, the fields of nested structs too) is valid UTF-8 of at most
// MaxField bytes plus a marker; a list keeps at most MaxList items. It
// walks the fields by reflection, so a field added to Entry later is
// capped too, without anyone remembering to. Log.Append and everything
// that reads the log apply it; it is idempotent, and allocates nothing
// for an entry that needs no cut.
func Sanitise(e Entry) Entry {
	sanitiseValue(reflect.ValueOf(&e).Elem())
	return e
}

func sanitiseValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); needsCut(s) {
			v.SetString(Cut(s))
		}
	case reflect.Pointer:
		// The pointee is the caller's: a cut goes into a copy.
		switch {
		case v.IsNil():
		case v.Elem().Kind() == reflect.String:
			if s := v.Elem().String(); needsCut(s) {
				c := reflect.New(v.Type().Elem())
				c.Elem().SetString(Cut(s))
				v.Set(c)
			}
		case v.Elem().Kind() == reflect.Struct:
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(v.Elem())
			sanitiseValue(c.Elem())
			v.Set(c)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.String {
			return // none today
		}
		n := v.Len()
		m := min(n, MaxList)
		dirty := n > MaxList
		for i := 0; i < m && !dirty; i++ {
			dirty = needsCut(v.Index(i).String())
		}
		if !dirty {
			return
		}
		// A fresh slice: the caller's backing array stays as it was.
		c := reflect.MakeSlice(v.Type(), m, m)
		for i := range m {
			c.Index(i).SetString(Cut(v.Index(i).String()))
		}
		if n > MaxList {
			c.Index(m - 1).SetString(fmt.Sprintf("… (%d items in all)", n))
		}
		v.Set(c)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				sanitiseValue(f)
			}
		}
	}
}

func needsCut(s string) bool { return len(s) > MaxField || !utf8.ValidString(s) }

// Cut returns s as valid UTF-8 (a run of invalid bytes becomes one
// U+FFFD) of at most MaxField bytes; a longer s is cut at a character
// boundary and ends with "… (N bytes in all)", within the MaxField.
func Cut(s string) string { return CutTo(s, MaxField) }

// CutTo is Cut to at most most bytes instead of MaxField (most is raised
// to 32, so that the mark fits): for a field made of several parts, each
// part's share of it.
func CutTo(s string, most int) string {
	most = max(most, 32)
	if len(s) <= most && utf8.ValidString(s) {
		return s
	}
	limit, mark := most, ""
	if len(s) > most {
		mark = fmt.Sprintf("… (%d bytes in all)", len(s))
		limit -= len(mark)
		end := limit
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		s = s[:end]
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	for len(s) > limit { // replacements can grow it
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s + mark
}

// Printable returns s for a terminal: control characters (newlines, ESC
// and the rest of C0 and C1, DEL) and the characters that reorder text
// (bidi overrides and isolates) are written as Go escapes (\n, \x1b,
// \u202e), and a backslash as \\, so a field cannot forge a line,
// colour the screen or hide what follows it.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == '\\' || unprintable(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100 && unprintable(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unprintable(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func unprintable(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true // bidi embeddings, overrides, isolates and marks
	}
	return false
}
