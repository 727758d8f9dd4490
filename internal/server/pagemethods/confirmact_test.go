package pagemethods

import (
	"testing"

	"github.com/egohost/egohost/protocol"
)

func TestConfirmVerb(t *testing.T) {
	tests := []struct {
		name  string
		p     any
		verb  string
		enter bool
		ok    bool
	}{
		{"click", protocol.ClickParams{Element: "#b"}, "click", false, true},
		{"press Enter", protocol.PressParams{Key: "Enter"}, "press Enter in", true, true},
		{"press Space", protocol.PressParams{Key: "Space"}, "press Space on", false, true},
		{"press Tab", protocol.PressParams{Key: "Tab"}, "", false, false},
		{"type a line", protocol.TypeParams{Text: "hello\n"}, "type Enter in", true, true},
		{"type text", protocol.TypeParams{Text: "hello"}, "", false, false},
		{"fill", protocol.FillParams{Text: "x\n"}, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verb, enter, ok := confirmVerb(tt.p)
			if verb != tt.verb || enter != tt.enter || ok != tt.ok {
				t.Errorf("got %q %v %v, want %q %v %v", verb, enter, ok, tt.verb, tt.enter, tt.ok)
			}
		})
	}
}

// Without a target, the keys' element is the focused one, so the ask is
// bound to where they go.
func TestConfirmTarget(t *testing.T) {
	if got := confirmTarget(protocol.PressParams{Key: "Enter"}); got.Element != focusedTarget {
		t.Errorf("press: got target %q, want %q", got.Element, focusedTarget)
	}
	if got := confirmTarget(protocol.TypeParams{Text: "a\n", Element: "#q"}); got.Element != "#q" {
		t.Errorf("type with a target: got %q, want #q", got.Element)
	}
	if got := confirmTarget(protocol.ClickParams{Element: "#b"}); got.Element != "#b" {
		t.Errorf("click: got %q, want #b", got.Element)
	}
}
