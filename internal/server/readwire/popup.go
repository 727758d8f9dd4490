package readwire

import (
	"fmt"
	"strings"

	"github.com/egohost/egohost/internal/engine/overlay"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// Highlight is match m, the i-th of the n elements target matched, as
// popup.highlight lists it and as the overlay draws it (nil when it has no
// box to draw).
func Highlight(target string, i, n int, m resolver.Match) (protocol.PopupHighlight, *overlay.Box) {
	h := protocol.PopupHighlight{Target: target, Role: m.Role, Name: m.Name, Box: Box(m.Box)}
	if m.Box == nil {
		return h, nil
	}
	// The resolver's box is the centre and the size; the overlay draws from the top-left.
	return h, &overlay.Box{X: m.Box.X - m.Box.Width/2, Y: m.Box.Y - m.Box.Height/2, Width: m.Box.Width, Height: m.Box.Height, Label: boxLabel(target, i, n, m)}
}

// boxLabel is what a highlight box says: the match's number when a
// locator matches several (the popup lists who they are; long labels of
// neighbours would cover each other), else the ref if it is one and the
// element's role and name.
func boxLabel(target string, i, n int, m resolver.Match) string {
	if n > 1 {
		return fmt.Sprintf("%d/%d", i+1, n)
	}
	var b strings.Builder
	if strings.HasPrefix(target, "@") {
		b.WriteString(target + " ")
	}
	b.WriteString(m.Role)
	if m.Name != "" {
		name := m.Name
		if r := []rune(name); len(r) > 40 {
			name = string(r[:40]) + "…"
		}
		fmt.Fprintf(&b, " %q", name)
	}
	return b.String()
}

// Attrs are a DOM node's attributes, given as Chrome gives them (name,
// value, name, value …), by name.
func Attrs(flat []string) map[string]string {
	attrs := map[string]string{}
	for i := 0; i+1 < len(flat); i += 2 {
		attrs[flat[i]] = flat[i+1]
	}
	return attrs
}

// Locators is locators' result in tab for the element named as the
// popup's picker names it.
func Locators(tab int, named protocol.PopupPickResult) protocol.LocatorsResult {
	if named.Candidates == nil {
		named.Candidates = []protocol.PickCandidate{}
	}
	return protocol.LocatorsResult{Tab: tab, Locator: named.Locator, Ref: named.Ref, Role: named.Role, Name: named.Name, Candidates: named.Candidates}
}
