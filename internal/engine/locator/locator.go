// Package locator parses and prints egohost's element locators: the
// grammar of seed 000 (css:#submit, role:button[name="Next"], text:…,
// label:…, placeholder:…, alt:…, title:…, testid:…) together with
// Playwright's familiar spellings (css=…, xpath=//… or a bare //…,
// role=button[name="Next" i], text="exact", text=substring, >> chaining,
// nth=0, last) and a bare string as a CSS selector. It only knows syntax:
// what a locator matches in a page is the resolver's business. It imports
// the standard library only.
//
// The grammar, with examples, is in docs/locators.md.
package locator

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is what a query step matches elements by.
type Kind uint8

// The kinds of query step.
const (
	KindCSS         Kind = iota + 1 // a CSS selector; pierces open shadow roots
	KindXPath                       // an XPath expression
	KindRole                        // an ARIA role, with an optional accessible name and states
	KindText                        // the element's text
	KindLabel                       // the text of the element's label, aria-labelledby or aria-label
	KindPlaceholder                 // the placeholder attribute
	KindAlt                         // the alt attribute
	KindTitle                       // the title attribute
	KindTestID                      // the data-testid attribute
)

var kindNames = [...]string{
	KindCSS: "css", KindXPath: "xpath", KindRole: "role", KindText: "text", KindLabel: "label",
	KindPlaceholder: "placeholder", KindAlt: "alt", KindTitle: "title", KindTestID: "testid",
}

// String returns the kind's name as written in a locator ("css", "role", …).
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Op is what a step does with the elements the steps before it produced.
type Op uint8

// The operations of a step.
const (
	// OpQuery finds elements: in the whole document for the first step,
	// inside each element of the previous step for the others.
	OpQuery Op = iota + 1
	// OpNth keeps one element by position (Step.Nth; -1 is the last).
	OpNth
	// OpHasText keeps the elements whose text matches Step.Text.
	OpHasText
	// OpHasNotText keeps the elements whose text does not match Step.Text.
	OpHasNotText
	// OpHas keeps the elements that contain a match of Step.Sub.
	OpHas
	// OpHasNot keeps the elements that contain no match of Step.Sub.
	OpHasNot
	// OpVisible keeps the elements whose visibility is Step.Visible.
	OpVisible
)

// Text matches a string: by default case-insensitively, as a substring,
// with white space normalised on both sides (Playwright's default).
type Text struct {
	// Value is the text, or the source of the regular expression.
	Value string
	// Exact asks for the whole string, case-sensitively (white space is
	// still normalised).
	Exact bool
	// Regex makes Value a JavaScript regular expression with Flags.
	Regex bool
	Flags string
}

// State is a tri-state (or four-state) condition of a role step: unset,
// true, false, or (for checked and pressed) mixed.
type State uint8

// The values of a State.
const (
	Any State = iota
	True
	False
	Mixed
)

// String returns "true", "false", "mixed", or "" for Any.
func (s State) String() string {
	switch s {
	case True:
		return "true"
	case False:
		return "false"
	case Mixed:
		return "mixed"
	}
	return ""
}

// Role is a role step: the ARIA role as Chrome computes it, optionally
// its accessible name and states (Playwright's getByRole options).
type Role struct {
	Role string // lower case ("button", "link", "heading", …)
	Name *Text  // nil: any name
	// States; Any means "don't care".
	Checked, Pressed             State // True, False or Mixed
	Selected, Expanded, Disabled State // True or False
	Level                        int   // heading level etc.; 0 = any
	// IncludeHidden also matches elements hidden from the accessibility tree.
	IncludeHidden bool
}

// Step is one ">>"-separated part of a locator.
type Step struct {
	Op Op
	// Kind says what an OpQuery step matches by.
	Kind Kind
	// Selector is the CSS selector or XPath expression (KindCSS, KindXPath).
	Selector string
	// Role is the role query (KindRole).
	Role Role
	// Text is the matcher of KindText, KindLabel, KindPlaceholder, KindAlt,
	// KindTitle, KindTestID, OpHasText and OpHasNotText.
	Text Text
	// Nth is OpNth's 0-based index; -1 is the last element.
	Nth int
	// Sub is the locator of OpHas and OpHasNot, searched inside each element.
	Sub *Locator
	// Visible is OpVisible's wanted visibility.
	Visible bool
}

// Locator is a parsed locator: steps applied left to right.
type Locator struct {
	Steps []Step
}

// String prints the locator in canonical form, which Parse reads back to an
// equal Locator. Every step is spelled out with its kind (a bare "button"
// prints as "css=button"), text values are always quoted, and steps are
// joined with " >> ".
func (l Locator) String() string {
	var b strings.Builder
	for i, s := range l.Steps {
		if i > 0 {
			b.WriteString(" >> ")
		}
		s.write(&b)
	}
	return b.String()
}

// String prints one step in canonical form.
func (s Step) String() string {
	var b strings.Builder
	s.write(&b)
	return b.String()
}

func (s Step) write(b *strings.Builder) {
	switch s.Op {
	case OpQuery:
		b.WriteString(s.Kind.String())
		b.WriteByte('=')
		switch s.Kind {
		case KindCSS, KindXPath:
			b.WriteString(s.Selector)
		case KindRole:
			s.Role.write(b)
		case KindTestID:
			writeText(b, s.Text, "")
		default:
			writeText(b, s.Text, "i")
		}
	case OpNth:
		if s.Nth == -1 {
			b.WriteString("last")
		} else {
			b.WriteString("nth=")
			b.WriteString(strconv.Itoa(s.Nth))
		}
	case OpHasText, OpHasNotText:
		if s.Op == OpHasText {
			b.WriteString("has-text=")
		} else {
			b.WriteString("has-not-text=")
		}
		writeText(b, s.Text, "i")
	case OpHas, OpHasNot:
		if s.Op == OpHas {
			b.WriteString("has=")
		} else {
			b.WriteString("has-not=")
		}
		switch {
		case s.Sub == nil:
			b.WriteString(`""`)
		case len(s.Sub.Steps) == 1:
			s.Sub.Steps[0].write(b) // one step needs no quotes
		default:
			b.WriteString(quote(s.Sub.String()))
		}
	case OpVisible:
		b.WriteString("visible=")
		b.WriteString(strconv.FormatBool(s.Visible))
	default:
		b.WriteString("op(" + strconv.Itoa(int(s.Op)) + ")")
	}
}

// writeText prints t as a value of an "=" step: /re/flags, "exact", or
// "substring" followed by inexact ("i"; testid's inexact spelling).
func writeText(b *strings.Builder, t Text, inexact string) {
	switch {
	case t.Regex:
		b.WriteByte('/')
		b.WriteString(t.Value)
		b.WriteByte('/')
		b.WriteString(t.Flags)
	case t.Exact:
		b.WriteString(quote(t.Value))
	default:
		b.WriteString(quote(t.Value))
		if inexact == "" {
			inexact = "i"
		}
		b.WriteString(inexact)
	}
}

func (r Role) write(b *strings.Builder) {
	b.WriteString(r.Role)
	if r.Name != nil {
		b.WriteString("[name=")
		switch {
		case r.Name.Regex:
			writeText(b, *r.Name, "")
		case r.Name.Exact:
			b.WriteString(quote(r.Name.Value))
			b.WriteByte('s')
		default:
			b.WriteString(quote(r.Name.Value))
			b.WriteByte('i')
		}
		b.WriteByte(']')
	}
	attr := func(name string, s State) {
		if s != Any {
			b.WriteString("[" + name + "=" + s.String() + "]")
		}
	}
	attr("checked", r.Checked)
	attr("disabled", r.Disabled)
	attr("expanded", r.Expanded)
	if r.IncludeHidden {
		b.WriteString("[include-hidden]")
	}
	if r.Level != 0 {
		b.WriteString("[level=" + strconv.Itoa(r.Level) + "]")
	}
	attr("pressed", r.Pressed)
	attr("selected", r.Selected)
}

// quote returns s as a JSON string literal (no HTML escaping).
func quote(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\u2028':
			b.WriteString(`\u2028`)
		case r == '\u2029':
			b.WriteString(`\u2029`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
