package locator

import (
	"slices"
	"strings"
)

// Element is what may name an element in a locator: its tag (lower
// case), its ARIA role and accessible name, its text (white space
// normalised, "" when long), a CSS path unique in its document, and its
// attributes.
type Element struct {
	Tag, Role, Name string
	Text, CSS       string
	Attrs           map[string]string
}

// Candidate is a locator that may name an element, and its kind ("role",
// "label", "placeholder", "alt", "text", "title", "testid", "css").
type Candidate struct {
	Kind, Locator string
}

// Candidates are the locators that may name the element, in the order
// Playwright's locator generator prefers them as issue 12 ranks them: a
// role with its name, then label, placeholder, alt text, text, title and
// test id, CSS last, and a role alone after that. What each matches in
// the page is for the resolver to say.
func Candidates(e Element) []Candidate {
	var out []Candidate
	add := func(kind, loc string) {
		if !slices.ContainsFunc(out, func(c Candidate) bool { return c.Locator == loc }) {
			out = append(out, Candidate{Kind: kind, Locator: loc})
		}
	}
	role, name := e.Role, e.Name
	named := role != "" && role != "none" && role != "generic" && role != "presentation" && role != "StaticText"
	if named && name != "" {
		add("role", "role="+role+"[name="+Quote(name)+"]")
		add("role", "role="+role+"[name="+Quote(name)+"s]")
	}
	if name != "" && (e.Tag == "input" || e.Tag == "textarea" || e.Tag == "select") {
		add("label", "label="+Quote(name))
	}
	for _, a := range []struct{ attr, kind string }{{"placeholder", "placeholder"}, {"alt", "alt"}} {
		if v := strings.TrimSpace(e.Attrs[a.attr]); v != "" {
			add(a.kind, a.kind+"="+Quote(v))
		}
	}
	if e.Text != "" {
		add("text", "text="+Quote(e.Text))
	}
	if v := strings.TrimSpace(e.Attrs["title"]); v != "" {
		add("title", "title="+Quote(v))
	}
	if v := e.Attrs["data-testid"]; v != "" {
		add("testid", "testid="+Quote(v))
	}
	if e.CSS != "" {
		add("css", "css="+e.CSS)
	}
	if named {
		add("role", "role="+role)
	}
	return out
}

// Quote writes a locator value in double quotes with JSON escapes (what
// the locator grammar reads), as a Locator's String does.
func Quote(s string) string { return quote(s) }
