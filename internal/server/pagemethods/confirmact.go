package pagemethods

import (
	"strings"

	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/protocol"
)

// The element actions a paired agent's policy may ask the person about
// (Act): a click, and a press or a type of Enter, which may submit a form.

// confirmVerb words an element action the policy may ask about: a click
// (or a Space pressed on a button, which clicks it), or an Enter pressed
// or typed in an element (enter); ok is false for the others.
func confirmVerb(p any) (verb string, enter, ok bool) {
	switch p := p.(type) {
	case protocol.ClickParams:
		return "click", false, true
	case protocol.PressParams:
		return confirm.KeyVerb(p.Key)
	case protocol.TypeParams:
		if strings.ContainsAny(p.Text, "\r\n") {
			return "type Enter in", true, true
		}
	}
	return "", false, false
}

// focusedTarget is the element an Enter without a target goes to: the
// focused one (the innermost, through shadow roots).
const focusedTarget = "css=:focus >> last"

// confirmTarget gives a press or a type without a target the focused
// element as its target, so that the confirmation is bound to the
// element the key goes to (the press focuses it first: it is focused
// already).
func confirmTarget[P any](p P) P {
	switch pp := any(p).(type) {
	case protocol.PressParams:
		if pp.Element == "" {
			pp.Element = focusedTarget
			return any(pp).(P)
		}
	case protocol.TypeParams:
		if pp.Element == "" {
			pp.Element = focusedTarget
			return any(pp).(P)
		}
	}
	return p
}
