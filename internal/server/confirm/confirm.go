// Package confirm is the confirmation policy: which acts of a paired agent
// need the person's yes before they happen (agents.confirm), and what
// kind of act an element action is, from what the page says of the
// element. It does no I/O: the service reads the page, asks the person
// and waits.
package confirm

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Kind is a kind of act the policy can ask about.
type Kind string

// The kinds (config agents.confirm.NAME[].actions).
const (
	// Submit: a click or an Enter that submits a form, or a click on a
	// submit button.
	Submit Kind = "submit"
	// Purchase: a click on an element whose accessible name has a word of
	// the word list (agents.confirm_words).
	Purchase Kind = "purchase"
	// Upload: files set on a file input.
	Upload Kind = "upload"
	// Download: a download saved for the agent.
	Download Kind = "download"
	// CookieWrite: a cookie set or cleared.
	CookieWrite Kind = "cookie_write"
	// NavigateNewOrigin: a navigation to an origin other than the tab's.
	NavigateNewOrigin Kind = "navigate_new_origin"
)

// Kinds lists every kind, in the order the docs give them.
var Kinds = []Kind{Submit, Purchase, Upload, Download, CookieWrite, NavigateNewOrigin}

// ParseKind returns the kind named s, or an error naming the kinds.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.TrimSpace(s))
	if slices.Contains(Kinds, k) {
		return k, nil
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("%q is not an action kind (%s)", s, strings.Join(names, ", "))
}

// DefaultWords are the words that make a click a purchase when its
// element's accessible name has one (agents.confirm_words' default).
var DefaultWords = []string{"buy", "pay", "purchase", "order", "checkout", "send", "transfer", "delete", "remove"}

// DefaultAgent is the policy's entry for every paired agent without one
// of its own.
const DefaultAgent = "default"

// Rule is one rule of an agent's policy: the kinds that ask on the
// origins (patterns as agents.origins takes them).
type Rule struct {
	Origins []string
	Actions []Kind
}

// Default is the policy of a paired agent the config says nothing of:
// submits and purchases ask, on any origin.
func Default() []Rule {
	return []Rule{{Origins: []string{"*"}, Actions: []Kind{Submit, Purchase}}}
}

// Policy is every agent's rules (by agent name, DefaultAgent for the
// others) and the purchase word list.
type Policy struct {
	Agents map[string][]Rule
	Words  []string
}

// RulesFor returns the rules of the named agent: its own entry, else the
// default entry, else Default.
func (p Policy) RulesFor(agent string) []Rule {
	if r, ok := p.Agents[agent]; ok {
		return r
	}
	if r, ok := p.Agents[DefaultAgent]; ok {
		return r
	}
	return Default()
}

// KindsOf returns those of kinds (an agents' method's) that the named
// agent's rules ask about on some origin; none (the common case) costs
// its calls no look at the page.
func (p Policy) KindsOf(agent string, kinds []Kind) []Kind {
	if len(kinds) == 0 {
		return nil
	}
	var out []Kind
	for _, r := range p.RulesFor(agent) {
		for _, k := range r.Actions {
			if slices.Contains(kinds, k) && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// PurchaseWords is the purchase word list: the policy's, else
// DefaultWords.
func (p Policy) PurchaseWords() []string {
	if p.Words != nil {
		return p.Words
	}
	return DefaultWords
}

// Asks returns the first of kinds that a rule asks about, on an origin
// its patterns match (match reports whether a list of patterns matches the
// act's origin); ok is false when none asks.
func Asks(rules []Rule, kinds []Kind, match func(patterns []string) bool) (Kind, bool) {
	for _, k := range kinds {
		for _, r := range rules {
			if slices.Contains(r.Actions, k) && match(r.Origins) {
				return k, true
			}
		}
	}
	return "", false
}

// Facts are what the page says of the element an action is about to act
// on.
type Facts struct {
	// Tag is its tag name, lower case ("button", "a", "input").
	Tag string `json:"tag"`
	// Role and Name are its ARIA role and accessible name.
	Role string `json:"role"`
	Name string `json:"name"`
	// Submits: activating it submits a form (a submit button of a form,
	// an input of a form Enter submits).
	Submits bool `json:"submits"`
	// InForm: it is in a form (or names one with form=).
	InForm bool `json:"inForm"`
	// Href is the resolved href of the link it is (an <a href> or an
	// <area href>: the link a click lands in), "" for the others.
	Href string `json:"href,omitempty"`
}

// Classify returns the kinds of a click on an element with these facts
// (for a press, pass click false: an Enter): submit when it submits a
// form; purchase when its accessible name has one of words (a whole word,
// any case). Whether a link goes to a new origin is the service's to
// judge (pairing.NewOrigin, the origin the policy and "always" use).
func Classify(f Facts, words []string, click bool) []Kind {
	var out []Kind
	if f.Submits {
		out = append(out, Submit)
	}
	if click && HasWord(f.Name, words) {
		out = append(out, Purchase)
	}
	return out
}

// KeyVerb words a key press (a key or a combo, as press takes it) that
// the policy may ask about: an Enter, which submits the form its element
// is in (enter), or a Space, which clicks a button; ok is false for the
// other keys.
func KeyVerb(key string) (verb string, enter, ok bool) {
	switch lastKey(key) {
	case "enter":
		return "press Enter in", true, true
	case "space", " ":
		return "press Space on", false, true
	}
	return "", false, false
}

// UploadVerb words an upload of n files, as Describe takes it: "upload
// 2 files to".
func UploadVerb(n int) string {
	if n == 1 {
		return "upload 1 file to"
	}
	return fmt.Sprintf("upload %d files to", n)
}

// lastKey is the key a combo presses, lower case ("Control+Enter": enter).
func lastKey(combo string) string {
	if combo == " " || strings.HasSuffix(combo, "+ ") {
		return " "
	}
	i := strings.LastIndex(combo, "+")
	return strings.ToLower(strings.TrimSpace(combo[i+1:]))
}

// DescribeNavigation is a navigation in words, for the person: "go to
// bank.example from shop.example" (verb "go to", "go back to", …), "open
// bank.example in a new tab" when from is "" (a tab that shows nothing
// yet).
func DescribeNavigation(verb, toHost, fromHost string) string {
	to := clip(toHost, 80)
	if fromHost == "" {
		return "open " + to + " in a new tab"
	}
	return verb + " " + to + " from " + clip(fromHost, 80)
}

// HasWord reports whether name has one of words as a whole word, any
// case ("Place order" has "order"; "Orderly" has none).
func HasWord(name string, words []string) bool {
	fields := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		if slices.Contains(fields, strings.ToLower(strings.TrimSpace(w))) {
			return true
		}
	}
	return false
}

// Describe is the act in words, for the person: "click button 'Place
// order' on shop.example".
func Describe(verb string, f Facts, host string) string {
	what := f.Role
	if what == "" || what == "generic" {
		what = f.Tag
	}
	s := verb
	if what = clip(what, 40); what != "" {
		s += " " + what
	}
	if name := clip(f.Name, 80); name != "" {
		s += " '" + name + "'"
	}
	if host != "" {
		s += " on " + host
	}
	return s
}

// DescribeCookies is a cookie write in words, for the person: its verb
// ("set", "clear"), the cookies' names (the first five, then how many
// more) and domain, never their values: "set cookie 'sid' on
// .shop.example", "clear cookies 'a', 'b' on shop.example".
func DescribeCookies(verb string, names []string, domain string) string {
	s := verb + " cookie"
	if len(names) != 1 {
		s += "s"
	}
	for i, n := range names {
		if i == 5 {
			s += fmt.Sprintf(" and %d more", len(names)-5)
			break
		}
		if i > 0 {
			s += ","
		}
		s += " '" + clip(n, 40) + "'"
	}
	return s + " on " + clip(domain, 80)
}

// DescribeDownload is a download in words, for the person: "download
// 'statement.pdf' from bank.example" (name: the file's, "" when Chrome
// has not named it yet).
func DescribeDownload(name, host string) string {
	s := "download"
	if name = clip(name, 80); name != "" {
		s += " '" + name + "'"
	}
	return s + " from " + clip(host, 80)
}

// Leading adds where an act leads to its words: "click link 'Log in' on
// shop.example to bank.example".
func Leading(act, toHost string) string {
	return act + " to " + clip(toHost, 80)
}

// clip shortens s to n runes with an ellipsis, its whitespace folded and
// every rune that does not print (terminal escapes, bidi controls,
// zero-width characters: the page chose them) shown as U+FFFD.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) || unicode.IsSpace(r) {
			return r
		}
		return unicode.ReplacementChar
	}, strings.Join(strings.Fields(s), " "))
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
