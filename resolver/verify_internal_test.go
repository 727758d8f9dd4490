package resolver

import (
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// The name role locators read (and the snapshot shows) where Chrome's
// differs by rule: a term has none, math named from its content none,
// a table's row its content's, an icon font's glyphs are no text.
func TestLocatorName(t *testing.T) {
	value := func(s string) *accessibility.Value {
		return &accessibility.Value{Type: accessibility.ValueTypeComputedString, Value: jsonv2.Value(`"` + s + `"`)}
	}
	named := func(sources ...*accessibility.ValueSource) *accessibility.Node {
		return &accessibility.Node{Name: &accessibility.Value{Type: accessibility.ValueTypeComputedString, Value: jsonv2.Value(`"x"`), Sources: sources}}
	}
	byContent := named(
		&accessibility.ValueSource{Type: accessibility.ValueSourceTypeRelatedElement},
		&accessibility.ValueSource{Type: accessibility.ValueSourceTypeAttribute},
		&accessibility.ValueSource{Type: accessibility.ValueSourceTypeContents, Value: value("x")})
	byLabel := named(
		&accessibility.ValueSource{Type: accessibility.ValueSourceTypeAttribute, Value: value("x")},
		&accessibility.ValueSource{Type: accessibility.ValueSourceTypeContents, Value: value("y"), Superseded: true})
	tests := []struct {
		name   string
		node   *accessibility.Node
		role   string
		chrome string
		page   string
		want   string
	}{
		{"a term named by its content", byContent, "term", "x", "", ""},
		{"a term named by aria-label", byLabel, "term", "x", "", ""},
		{"math named by its content", byContent, "math", "x", "", ""},
		{"math named by aria-label", byLabel, "math", "x", "", "x"},
		{"a button named by its content", byContent, "button", "x", "", "x"},
		{"a table's row Chrome leaves unnamed", &accessibility.Node{}, "row", "", "Ann 10", "Ann 10"},
		{"a grid's row Chrome names", byContent, "row", "x", "Ann 10", "x"},
		{"a glyph-only name, the page's tooltip", byContent, "button", "\uf0c7", "Save", "Save"},
		{"a glyph-only name, not asked of the page", byContent, "button", "\uf0c7", "", ""},
		{"a glyph in a name", byContent, "link", "\uf07b Home", "", "Home"},
	}
	for _, tt := range tests {
		if got := locatorName(tt.node, tt.role, tt.chrome, tt.page); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
