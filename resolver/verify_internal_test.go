package resolver

import (
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// Role locators read no name where Chrome names by a rule of its own: a
// term always, math only when its name came from its content.
func TestUnnamedHere(t *testing.T) {
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
		name string
		role string
		node *accessibility.Node
		want bool
	}{
		{"a term named by its content", "term", byContent, true},
		{"a term named by aria-label", "term", byLabel, true},
		{"math named by its content", "math", byContent, true},
		{"math named by aria-label", "math", byLabel, false},
		{"math with no name", "math", &accessibility.Node{}, false},
		{"a button named by its content", "button", byContent, false},
	}
	for _, tt := range tests {
		if got := unnamedHere(tt.role, tt.node); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
