package locator

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// SyntaxError is a locator that does not parse. Offset is the byte offset
// in Input where the problem is (-1 when unknown, e.g. a selector the
// browser rejected).
type SyntaxError struct {
	Input  string
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("invalid locator %q: %s", e.Input, e.Msg)
	}
	return fmt.Sprintf("invalid locator %q: %s at offset %d", e.Input, e.Msg, e.Offset)
}

// maxDepth bounds the nesting of has= / has-not= locators (each level of
// quoting doubles the backslashes a printed locator needs).
const maxDepth = 8

// Parse parses a locator (see the package comment and docs/locators.md).
// It does not accept refs ("@12"): callers check for those first.
func Parse(input string) (Locator, error) {
	if !utf8.ValidString(input) {
		off := 0
		for off < len(input) {
			r, n := utf8.DecodeRuneInString(input[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return Locator{}, &SyntaxError{Input: input, Offset: off, Msg: "invalid UTF-8"}
	}
	p := &parser{in: input}
	l, err := p.locator(0)
	if err != nil {
		return Locator{}, err
	}
	return l, nil
}

type parser struct {
	in  string
	pos int
}

func (p *parser) errf(off int, format string, args ...any) error {
	return &SyntaxError{Input: p.in, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) eof() bool { return p.pos >= len(p.in) }

func (p *parser) peek() byte {
	if p.pos < len(p.in) {
		return p.in[p.pos]
	}
	return 0
}

func (p *parser) rest() string { return p.in[p.pos:] }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func (p *parser) skipSpace() {
	for p.pos < len(p.in) && isSpace(p.in[p.pos]) {
		p.pos++
	}
}

// atChain reports whether the input at pos is ">>".
func (p *parser) atChain() bool { return strings.HasPrefix(p.rest(), ">>") }

// locator parses steps separated by ">>" up to the end of the input.
func (p *parser) locator(depth int) (Locator, error) {
	if depth > maxDepth {
		return Locator{}, p.errf(p.pos, "locator nested too deeply")
	}
	var l Locator
	for {
		p.skipSpace()
		if p.eof() || p.atChain() {
			if len(l.Steps) == 0 && p.eof() {
				return Locator{}, p.errf(p.pos, "empty locator")
			}
			return Locator{}, p.errf(p.pos, "empty step")
		}
		steps, err := p.step(depth)
		if err != nil {
			return Locator{}, err
		}
		l.Steps = append(l.Steps, steps...)
		p.skipSpace()
		if p.eof() {
			return l, nil
		}
		if !p.atChain() {
			return Locator{}, p.errf(p.pos, "unexpected %q (want >> or the end)", p.rest()[:min(len(p.rest()), 10)])
		}
		p.pos += 2
	}
}

// endStep checks that a step's value is followed by ">>" or the end.
func (p *parser) endStep() error {
	p.skipSpace()
	if p.eof() || p.atChain() {
		return nil
	}
	return p.errf(p.pos, "unexpected %q after the value", p.rest()[:min(len(p.rest()), 10)])
}

// Engine names recognised before "=" (Playwright's spelling) and before
// ":" (the seed's).
var eqNames = map[string]bool{
	"css": true, "xpath": true, "text": true, "role": true, "label": true, "placeholder": true,
	"alt": true, "title": true, "testid": true, "nth": true, "has-text": true, "has-not-text": true,
	"has": true, "has-not": true, "visible": true,
	"id": true, "data-testid": true, "data-test-id": true, "data-test": true,
}

var colonKinds = map[string]Kind{
	"css": KindCSS, "xpath": KindXPath, "text": KindText, "role": KindRole, "label": KindLabel,
	"placeholder": KindPlaceholder, "alt": KindAlt, "title": KindTitle, "testid": KindTestID,
}

// cssPseudo lists CSS pseudo-classes (and pseudo-elements) that make
// "label:…" and "title:…" a CSS selector rather than a label or title
// locator ("label:has(input)", "label:first-child").
var cssPseudo = map[string]bool{
	"active": true, "any-link": true, "autofill": true, "checked": true, "default": true, "defined": true,
	"dir": true, "disabled": true, "empty": true, "enabled": true, "first-child": true, "first-of-type": true,
	"focus": true, "focus-visible": true, "focus-within": true, "has": true, "has-text": true, "hover": true,
	"in-range": true, "indeterminate": true, "invalid": true, "is": true, "lang": true, "last-child": true,
	"last-of-type": true, "link": true, "not": true, "nth-child": true, "nth-last-child": true,
	"nth-last-of-type": true, "nth-of-type": true, "only-child": true, "only-of-type": true, "optional": true,
	"out-of-range": true, "placeholder-shown": true, "read-only": true, "read-write": true, "required": true,
	"root": true, "scope": true, "target": true, "valid": true, "visited": true, "where": true,
	"before": true, "after": true, "visible": true, "text": true,
}

func identChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// step parses one step (a CSS selector with :has-text() suffixes gives
// several).
func (p *parser) step(depth int) ([]Step, error) {
	if strings.HasPrefix(p.rest(), "loc=") { // ego-lite's facade prefix
		p.pos += len("loc=")
		if p.eof() || isSpace(p.peek()) || p.atChain() {
			return nil, p.errf(p.pos, "empty step")
		}
	}
	start := p.pos
	if hint, ok := internalSpelling(p.rest()); ok {
		return nil, p.errf(start, "%s", hint)
	}
	i := p.pos
	for i < len(p.in) && (p.in[i] >= 'a' && p.in[i] <= 'z' || p.in[i] == '-') {
		i++
	}
	name := p.in[p.pos:i]
	if i < len(p.in) && name != "" {
		switch sep := p.in[i]; {
		case sep == '=' && eqNames[name]:
			p.pos = i + 1
			return p.eqStep(name, start, depth)
		case sep == ':' && colonKinds[name] != 0 && !p.cssAfterColon(name, i+1):
			p.pos = i + 1
			return p.colonStep(colonKinds[name], start)
		}
	}
	// Bare forms.
	r := p.rest()
	switch {
	case r[0] == '"' || r[0] == '\'':
		t, err := p.textValue(false, false)
		if err != nil {
			return nil, err
		}
		return []Step{{Op: OpQuery, Kind: KindText, Text: t}}, p.endStep()
	case isXPathStart(r):
		sel, err := p.raw(false, start)
		if err != nil {
			return nil, err
		}
		return []Step{{Op: OpQuery, Kind: KindXPath, Selector: sel}}, nil
	case wordStep(r, "last"):
		p.pos += len("last")
		return []Step{{Op: OpNth, Nth: -1}}, nil
	case wordStep(r, "first"):
		p.pos += len("first")
		return []Step{{Op: OpNth, Nth: 0}}, nil
	}
	return p.css(start)
}

// internalSpelling recognises the engine-internal selectors of ego-lite's
// facade and Playwright ("internal:nth=1;…", "internal:scope:…",
// "internal:role=…"): they are not accepted (docs/locators.md, "Choices"),
// and the message says what to write instead. A CSS selector for an
// element named "internal" with a pseudo-class ("internal:hover") is not
// one of them.
func internalSpelling(s string) (string, bool) {
	const pre = "internal:"
	if !strings.HasPrefix(s, pre) {
		return "", false
	}
	i := len(pre)
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] == '-') {
		i++
	}
	if i == len(pre) || i == len(s) || (s[i] != '=' && s[i] != ';' && s[i] != ':') {
		return "", false
	}
	switch name := s[len(pre):i]; name {
	case "nth", "last":
		return "ego-lite's " + pre + name + " prefix is not accepted: end the locator with >> nth=N or >> last (e.g. css=li >> nth=1)", true
	case "scope", "filter":
		return "ego-lite's " + pre + name + ": encoding is not accepted: chain the steps with >> (e.g. css=form >> role=button, css=li >> has-text=Milk)", true
	default:
		return "the engine-internal selector " + pre + name + " is not accepted: write the locator with its kind (role=, text=, label=, css=, …; see docs/locators.md)", true
	}
}

// cssAfterColon reports whether "name:" at off starts a CSS pseudo-class
// (only for names that are also HTML elements: label, title).
func (p *parser) cssAfterColon(name string, off int) bool {
	if name != "label" && name != "title" {
		return false
	}
	j := off
	if j < len(p.in) && p.in[j] == ':' { // label::before
		return true
	}
	for j < len(p.in) && identChar(p.in[j]) {
		j++
	}
	if !cssPseudo[strings.ToLower(p.in[off:j])] {
		return false
	}
	return j == len(p.in) || !identChar(p.in[j]) && p.in[j] != ' ' || strings.HasPrefix(p.in[j:], " >>")
}

func isXPathStart(s string) bool {
	t := strings.TrimLeft(s, "(")
	return strings.HasPrefix(t, "//") || strings.HasPrefix(s, "..")
}

// wordStep reports whether s starts with word as a whole step.
func wordStep(s, word string) bool {
	if !strings.HasPrefix(s, word) {
		return false
	}
	r := strings.TrimLeft(s[len(word):], " \t\n\r\f")
	return r == "" || strings.HasPrefix(r, ">>")
}

// raw reads a CSS selector or XPath expression up to the next ">>" outside
// quotes, trimmed. CSS strings take backslash escapes; XPath's do not.
func (p *parser) raw(css bool, stepStart int) (string, error) {
	start := p.pos
	var q byte
	qAt := 0
	i := p.pos
	for i < len(p.in) {
		c := p.in[i]
		switch {
		case q != 0:
			if c == '\\' && css {
				i++
			} else if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q, qAt = c, i
		case c == '\\' && css:
			i++
		case c == '>' && i+1 < len(p.in) && p.in[i+1] == '>':
			goto done
		}
		i++
	}
	if q != 0 {
		return "", p.errf(qAt, "unterminated string")
	}
done:
	if i > len(p.in) {
		i = len(p.in)
	}
	p.pos = i
	sel := strings.TrimSpace(p.in[start:i])
	if sel == "" {
		return "", p.errf(stepStart, "empty selector")
	}
	return sel, nil
}

// CSSString writes s as a CSS string literal, in double quotes: the value
// of an attribute selector, [id="…"].
func CSSString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\%x ", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// css reads a CSS selector and splits off trailing :has-text("…") filters.
func (p *parser) css(start int) ([]Step, error) {
	sel, err := p.raw(true, start)
	if err != nil {
		return nil, err
	}
	var filters []Step
	for {
		base, t, ok := cutHasText(sel)
		if !ok {
			break
		}
		filters = append(filters, Step{Op: OpHasText, Text: t})
		sel = base
	}
	steps := []Step{{Op: OpQuery, Kind: KindCSS, Selector: sel}}
	for i := len(filters) - 1; i >= 0; i-- {
		steps = append(steps, filters[i])
	}
	return steps, nil
}

// cutHasText splits `base:has-text("t")` into base ("*" when empty) and a
// substring matcher for t. The argument must be one quoted string.
func cutHasText(sel string) (string, Text, bool) {
	const pseudo = ":has-text("
	if !strings.HasSuffix(sel, ")") {
		return "", Text{}, false
	}
	i := strings.LastIndex(sel, pseudo)
	if i < 0 {
		return "", Text{}, false
	}
	arg := strings.TrimSpace(sel[i+len(pseudo) : len(sel)-1])
	if arg == "" || arg[0] != '"' && arg[0] != '\'' {
		return "", Text{}, false
	}
	s, n, err := unquote(arg)
	if err != nil || n != len(arg) {
		return "", Text{}, false
	}
	base := strings.TrimSpace(sel[:i])
	if base == "" {
		base = "*"
	}
	return base, Text{Value: s}, true
}

// eqStep parses the value of a "name=" step.
func (p *parser) eqStep(name string, start, depth int) ([]Step, error) {
	switch name {
	case "css":
		return p.css(start)
	case "xpath":
		sel, err := p.raw(false, start)
		if err != nil {
			return nil, err
		}
		return []Step{{Op: OpQuery, Kind: KindXPath, Selector: sel}}, nil
	case "role":
		r, err := p.role()
		if err != nil {
			return nil, err
		}
		return []Step{{Op: OpQuery, Kind: KindRole, Role: r}}, p.endStep()
	case "id", "data-testid", "data-test-id", "data-test":
		// Playwright's attribute engines: the element whose attribute is
		// exactly the value (quotes around it are taken off), through open
		// shadow roots, as CSS [attr="value"] finds it.
		v, err := p.raw(true, start) // a quoted value may hold \" and >>
		if err != nil {
			return nil, err
		}
		if v[0] == '"' || v[0] == '\'' {
			s, n, err := unquote(v)
			if err != nil || n != len(v) {
				return nil, p.errf(start, "%s= wants one value, quoted or not", name)
			}
			v = s
		}
		return []Step{{Op: OpQuery, Kind: KindCSS, Selector: "[" + name + "=" + CSSString(v) + "]"}}, nil
	case "nth":
		return p.nth()
	case "visible":
		p.skipSpace()
		var v bool
		switch {
		case wordStep(p.rest(), "true"):
			v = true
			p.pos += 4
		case wordStep(p.rest(), "false"):
			p.pos += 5
		default:
			return nil, p.errf(p.pos, "visible= wants true or false")
		}
		return []Step{{Op: OpVisible, Visible: v}}, nil
	case "has", "has-not":
		sub, err := p.sub(depth)
		if err != nil {
			return nil, err
		}
		op := OpHas
		if name == "has-not" {
			op = OpHasNot
		}
		return []Step{{Op: op, Sub: &sub}}, nil
	case "has-text", "has-not-text":
		t, err := p.textValue(false, false)
		if err != nil {
			return nil, err
		}
		op := OpHasText
		if name == "has-not-text" {
			op = OpHasNotText
		}
		return []Step{{Op: op, Text: t}}, p.endStep()
	}
	kind := colonKinds[name]
	t, err := p.textValue(false, kind == KindTestID)
	if err != nil {
		return nil, err
	}
	return []Step{{Op: OpQuery, Kind: kind, Text: t}}, p.endStep()
}

// colonStep parses the value of a seed-style "kind:" step.
func (p *parser) colonStep(kind Kind, start int) ([]Step, error) {
	switch kind {
	case KindCSS:
		return p.css(start)
	case KindXPath:
		sel, err := p.raw(false, start)
		if err != nil {
			return nil, err
		}
		return []Step{{Op: OpQuery, Kind: KindXPath, Selector: sel}}, nil
	case KindRole:
		r, err := p.role()
		if err != nil {
			return nil, err
		}
		return []Step{{Op: OpQuery, Kind: KindRole, Role: r}}, p.endStep()
	}
	t, err := p.textValue(true, kind == KindTestID)
	if err != nil {
		return nil, err
	}
	return []Step{{Op: OpQuery, Kind: kind, Text: t}}, p.endStep()
}

func (p *parser) nth() ([]Step, error) {
	p.skipSpace()
	if wordStep(p.rest(), "last") {
		p.pos += 4
		return []Step{{Op: OpNth, Nth: -1}}, nil
	}
	at := p.pos
	j := p.pos
	if j < len(p.in) && p.in[j] == '-' {
		j++
	}
	for j < len(p.in) && p.in[j] >= '0' && p.in[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(p.in[p.pos:j])
	if err != nil || n < -1 || n > 1<<30 {
		return nil, p.errf(at, "nth= wants an index from 0, or -1 (or last) for the last element")
	}
	p.pos = j
	return []Step{{Op: OpNth, Nth: n}}, p.endStep()
}

// sub parses the locator of has= / has-not=: a quoted locator (which may
// chain with >>) or a single unquoted step.
func (p *parser) sub(depth int) (Locator, error) {
	p.skipSpace()
	at := p.pos
	if c := p.peek(); c == '"' || c == '\'' {
		s, err := p.quoted()
		if err != nil {
			return Locator{}, err
		}
		if err := p.endStep(); err != nil {
			return Locator{}, err
		}
		inner := &parser{in: s}
		l, err := inner.locator(depth + 1)
		if err != nil {
			var msg string
			if se, ok := err.(*SyntaxError); ok {
				msg = se.Msg
			} else {
				msg = err.Error()
			}
			return Locator{}, p.errf(at, "in the quoted locator: %s", msg)
		}
		return l, nil
	}
	if p.eof() || p.atChain() {
		return Locator{}, p.errf(at, "has= wants a locator")
	}
	if depth+1 > maxDepth {
		return Locator{}, p.errf(at, "locator nested too deeply")
	}
	steps, err := p.step(depth + 1)
	if err != nil {
		return Locator{}, err
	}
	return Locator{Steps: steps}, nil
}

// textValue parses a text value. In "=" steps (colon false), a quoted
// value is exact unless followed by i, and s forces exact; an unquoted
// value is a substring. In seed-style ":" steps, quotes only quote and an
// "exact:" prefix asks for an exact match. defExact makes every non-regex
// value exact unless an "i" suffix says otherwise (testid).
func (p *parser) textValue(colon, defExact bool) (Text, error) {
	p.skipSpace()
	exact := defExact
	if colon && strings.HasPrefix(p.rest(), "exact:") {
		p.pos += len("exact:")
		exact = true
	}
	at := p.pos
	switch p.peek() {
	case '"', '\'':
		s, err := p.quoted()
		if err != nil {
			return Text{}, err
		}
		if !colon {
			exact = true
		}
		switch p.caseFlag() {
		case 'i':
			exact = false
		case 's':
			exact = true
		}
		return Text{Value: s, Exact: exact}, nil
	case '/':
		return p.regex()
	}
	start := p.pos
	end := strings.Index(p.rest(), ">>")
	if end < 0 {
		p.pos = len(p.in)
	} else {
		p.pos += end
	}
	v := strings.TrimSpace(p.in[start:p.pos])
	if v == "" {
		return Text{}, p.errf(at, "empty text (quote it to match the empty string: \"\")")
	}
	return Text{Value: v, Exact: exact}, nil
}

// quoted reads the quoted string ("…" or '…') at p.pos.
func (p *parser) quoted() (string, error) {
	at := p.pos
	s, n, err := unquote(p.rest())
	if err != nil {
		return "", p.errf(at, "%v", err)
	}
	p.pos += n
	return s, nil
}

// caseFlag reads the flag that may follow a quoted value: 'i' (either
// case: match ignoring case), 's' (either case: match exactly), or 0 when
// there is none (nothing is read).
func (p *parser) caseFlag() byte {
	switch p.peek() {
	case 'i', 'I':
		p.pos++
		return 'i'
	case 's', 'S':
		p.pos++
		return 's'
	}
	return 0
}

// regex reads /source/flags (JavaScript syntax; the browser checks the
// rest) as a regular-expression Text.
func (p *parser) regex() (Text, error) {
	at := p.pos
	i := p.pos + 1
	inClass := false
	for ; i < len(p.in); i++ {
		c := p.in[i]
		if c == '\\' {
			i++
			continue
		}
		if inClass {
			if c == ']' {
				inClass = false
			}
			continue
		}
		if c == '[' {
			inClass = true
		} else if c == '/' {
			break
		}
	}
	if i >= len(p.in) {
		return Text{}, p.errf(at, "unterminated regular expression")
	}
	src := p.in[at+1 : i]
	i++
	j := i
	for j < len(p.in) && strings.IndexByte("dgimsuvy", p.in[j]) >= 0 {
		j++
	}
	flags := p.in[i:j]
	if !validFlags(flags) {
		return Text{}, p.errf(i, "repeated regular expression flag in %q", flags)
	}
	p.pos = j
	return Text{Value: src, Regex: true, Flags: flags}, nil
}

// validFlags reports whether flags are JavaScript RegExp flags, each once.
func validFlags(flags string) bool {
	for k := 0; k < len(flags); k++ {
		if strings.IndexByte("dgimsuvy", flags[k]) < 0 || strings.IndexByte(flags[k+1:], flags[k]) >= 0 {
			return false
		}
	}
	return true
}

// unquote decodes the quoted string at the start of s ("…" with JSON
// escapes, or '…'; a backslash before any other character stands for that
// character) and returns it with the number of bytes read.
func unquote(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		e := s[i+1]
		i += 2
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, n, ok := hex4(s[i:])
			if !ok {
				return "", 0, fmt.Errorf("bad \\u escape")
			}
			i += n
			if utf16.IsSurrogate(r) {
				if r2, n2, ok := hex4(strings.TrimPrefix(s[i:], `\u`)); ok && strings.HasPrefix(s[i:], `\u`) {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 2 + n2
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		default:
			// Any other escaped character stands for itself (\" \\ \/ \' …).
			_, n := utf8.DecodeRuneInString(s[i-1:])
			b.WriteString(s[i-1 : i-1+n])
			i += n - 1
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

func hex4(s string) (rune, int, bool) {
	if len(s) < 4 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	if err != nil {
		return 0, 0, false
	}
	return rune(v), 4, true
}

// role parses ROLE[attr=value]… (Playwright's role selector, and the
// seed's role:ROLE[name=…]).
func (p *parser) role() (Role, error) {
	p.skipSpace()
	at := p.pos
	j := p.pos
	for j < len(p.in) && identChar(p.in[j]) {
		j++
	}
	if j == at {
		return Role{}, p.errf(at, "missing role (e.g. role=button)")
	}
	r := Role{Role: strings.ToLower(p.in[at:j])}
	p.pos = j
	seen := map[string]bool{}
	var exact *bool
	for {
		p.skipSpace()
		if p.peek() != '[' {
			break
		}
		open := p.pos
		p.pos++
		p.skipSpace()
		nameAt := p.pos
		k := p.pos
		for k < len(p.in) && identChar(p.in[k]) {
			k++
		}
		attr := strings.ToLower(p.in[p.pos:k])
		p.pos = k
		if attr == "" {
			return Role{}, p.errf(nameAt, "missing attribute name")
		}
		if seen[attr] {
			return Role{}, p.errf(nameAt, "repeated attribute %q", attr)
		}
		seen[attr] = true
		p.skipSpace()
		var (
			val     *Text // nil: no value ([checked])
			valueAt = p.pos
		)
		switch c := p.peek(); {
		case c == ']':
		case c == '=':
			p.pos++
			p.skipSpace()
			valueAt = p.pos
			t, err := p.attrValue()
			if err != nil {
				return Role{}, err
			}
			val = &t
		case c == 0:
			return Role{}, p.errf(open, "unclosed [")
		default:
			return Role{}, p.errf(p.pos, "unsupported operator (want [%s=value])", attr)
		}
		p.skipSpace()
		if p.peek() != ']' {
			if p.eof() {
				return Role{}, p.errf(open, "unclosed [")
			}
			return Role{}, p.errf(p.pos, "want ] after the value")
		}
		p.pos++
		if err := p.roleAttr(&r, attr, val, nameAt, valueAt, &exact); err != nil {
			return Role{}, err
		}
	}
	if exact != nil {
		if r.Name == nil {
			return Role{}, p.errf(at, "exact needs a name")
		}
		if !r.Name.Regex {
			r.Name.Exact = *exact
		}
	}
	return r, nil
}

// attrValue reads a role attribute's value: "…" or '…' with an optional
// i / s flag, /regex/flags, a JSON TextMatcher {"text":…,"exact":…} or
// {"regex":…,"flags":…} (ego-lite's encoding), or a bare value up to ].
func (p *parser) attrValue() (Text, error) {
	at := p.pos
	switch p.peek() {
	case '"', '\'':
		s, err := p.quoted()
		if err != nil {
			return Text{}, err
		}
		p.skipSpace()
		return Text{Value: s, Exact: p.caseFlag() == 's'}, nil
	case '/':
		return p.regex()
	case '{':
		dec := json.NewDecoder(strings.NewReader(p.rest()))
		var m struct {
			Text  *string `json:"text"`
			Exact bool    `json:"exact"`
			Regex *string `json:"regex"`
			Flags string  `json:"flags"`
		}
		if err := dec.Decode(&m); err != nil {
			return Text{}, p.errf(at, "bad JSON text matcher: %v", err)
		}
		p.pos += int(dec.InputOffset())
		switch {
		case m.Regex != nil && m.Text == nil:
			if !validFlags(m.Flags) {
				return Text{}, p.errf(at, "bad regular expression flags %q", m.Flags)
			}
			// Printed as /source/flags: escape what would end the literal.
			src, ok := regexSource(*m.Regex)
			if !ok {
				return Text{}, p.errf(at, "bad regular expression %q", *m.Regex)
			}
			return Text{Value: src, Regex: true, Flags: m.Flags}, nil
		case m.Text != nil && m.Regex == nil:
			return Text{Value: *m.Text, Exact: m.Exact}, nil
		}
		return Text{}, p.errf(at, `want {"text": …, "exact": …} or {"regex": …, "flags": …}`)
	}
	end := strings.IndexByte(p.rest(), ']')
	if end < 0 {
		return Text{}, p.errf(at, "unclosed [")
	}
	v := strings.TrimSpace(p.rest()[:end])
	p.pos += end
	if v == "" {
		return Text{}, p.errf(at, "empty value")
	}
	return Text{Value: v}, nil
}

// regexSource makes a RegExp source printable between slashes: a / that is
// not escaped and not in a character class gets a backslash. A source that
// cannot be a regular expression literal (an unclosed class, a trailing
// backslash) is refused.
func regexSource(src string) (string, bool) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 >= len(src) {
				return "", false
			}
			b.WriteByte(c)
			i++
			b.WriteByte(src[i])
			continue
		case inClass && c == ']':
			inClass = false
		case !inClass && c == '[':
			inClass = true
		case !inClass && c == '/':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String(), !inClass
}

func (p *parser) roleAttr(r *Role, attr string, val *Text, nameAt, valueAt int, exact **bool) error {
	word := func() (string, bool) {
		if val == nil {
			return "true", true
		}
		if val.Regex {
			return "", false
		}
		return strings.ToLower(val.Value), true
	}
	boolState := func(allowMixed bool) (State, error) {
		w, ok := word()
		switch {
		case ok && w == "true":
			return True, nil
		case ok && w == "false":
			return False, nil
		case ok && w == "mixed" && allowMixed:
			return Mixed, nil
		}
		if allowMixed {
			return Any, p.errf(valueAt, "%s wants true, false or mixed", attr)
		}
		return Any, p.errf(valueAt, "%s wants true or false", attr)
	}
	var err error
	switch attr {
	case "name":
		if val == nil {
			return p.errf(nameAt, "name wants a value")
		}
		t := *val
		r.Name = &t
	case "exact":
		var s State
		if s, err = boolState(false); err == nil {
			b := s == True
			*exact = &b
		}
	case "checked":
		r.Checked, err = boolState(true)
	case "pressed":
		r.Pressed, err = boolState(true)
	case "selected":
		r.Selected, err = boolState(false)
	case "expanded":
		r.Expanded, err = boolState(false)
	case "disabled":
		r.Disabled, err = boolState(false)
	case "include-hidden":
		var s State
		if s, err = boolState(false); err == nil {
			r.IncludeHidden = s == True
		}
	case "level":
		w, _ := word()
		n, convErr := strconv.Atoi(w)
		if val == nil || convErr != nil || n < 1 || n > 1000 {
			return p.errf(valueAt, "level wants a number from 1")
		}
		r.Level = n
	default:
		return p.errf(nameAt, "unknown role attribute %q (want name, exact, checked, disabled, expanded, include-hidden, level, pressed or selected)", attr)
	}
	return err
}
