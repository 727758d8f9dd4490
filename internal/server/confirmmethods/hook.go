package confirmmethods

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// Hook is the actions' Confirm of an element action of call c on tab t
// (actions.ActOptions.Confirm), whose runner r reads the element; nil
// when its agent's policy can ask nothing of it. verb words the act
// ("click", "press Enter in"); enter: a press of Enter (its element
// submits the form it is in), else a click; always: the kinds the act is
// whatever its element (an upload's).
func (m *Methods) Hook(c Call, t Tab, r Runner, verb string, enter bool, always ...confirm.Kind) func(context.Context, actions.Element) (bool, error) {
	kinds := c.Kinds()
	if len(kinds) == 0 {
		return nil
	}
	return func(ctx context.Context, el actions.Element) (bool, error) {
		f, err := r.Facts(ctx, el, enter)
		if err != nil {
			return false, err
		}
		// A link is judged against its own document and against the tab's
		// top document: a frame's link with target=_top loads the tab.
		top := f.URL
		if f.Href != "" && slices.Contains(kinds, confirm.NavigateNewOrigin) {
			if top, err = TopURL(ctx, t.Page()); err != nil {
				return false, err
			}
		}
		found := confirm.Classify(f.Facts, m.s.Policy().PurchaseWords(), !enter)
		if leavesOrigin(f, top) {
			found = append(found, confirm.NavigateNewOrigin)
		}
		found = append(found, always...)
		// Every kind the act is asks, unless the policy does not name it on
		// its origin or the person said "always" for it there; one ask,
		// named for the first kind left, covers them all (and its
		// "always" answer all of them).
		var left []asks.Always
		for _, k := range found {
			u := f.URL
			if k == confirm.NavigateNewOrigin {
				u = f.Href // its rules and "always" are the new origin's
			}
			origin := pairing.Origin(u)
			rule := asks.Always{Agent: c.Agent(), Origin: origin, Kind: string(k)}
			if slices.Contains(left, rule) || !slices.Contains(kinds, k) || !m.policyAsks(c.Agent(), k, u) ||
				m.s.Asks().AllowedAlways(c.Agent(), origin, k) {
				continue
			}
			left = append(left, rule)
		}
		if len(left) == 0 {
			return false, nil
		}
		kind, origin := confirm.Kind(left[0].Kind), left[0].Origin
		q := protocol.Confirm{
			Agent: c.Agent(), Method: c.Method(), Kind: string(kind), Origin: origin,
			Action: describeAct(verb, f, top), Browser: t.Browser(), Tab: t.ID(),
		}
		if pic, err := r.Picture(ctx, f.Box); err == nil {
			q.Picture = pic
		} else {
			m.log.Debug("confirmation picture", "err", err)
		}
		if err := m.ask(ctx, c, q, left...); err != nil {
			return true, err
		}
		// What the person confirmed is what is acted on: the same element,
		// still saying the same (a link still going to the same origin:
		// https to http of one host is another).
		now, err := r.Facts(ctx, el, enter)
		if err != nil {
			return true, &actions.ChangedError{Op: verb, Target: q.Action, Err: err}
		}
		if got := describeAct(verb, now, top); got != q.Action {
			return true, &actions.ChangedError{Op: verb, Target: q.Action, Err: fmt.Errorf("it now reads %q", got)}
		}
		if was, is := pairing.Origin(f.Href), pairing.Origin(now.Href); was != is {
			return true, &actions.ChangedError{Op: verb, Target: q.Action, Err: fmt.Errorf("its link now goes to %s, not %s", cmp.Or(is, "none"), cmp.Or(was, "none"))}
		}
		return true, nil
	}
}

// describeAct is an element action in words: "click button 'Place order'
// on shop.example", and for a link to another origin (than its document's
// or the tab's top document's, at top) where it goes ("click link 'Log
// in' on shop.example to bank.example").
func describeAct(verb string, f actions.Facts, top string) string {
	on := f.URL
	if f.Href != "" && !pairing.NewOrigin(f.URL, f.Href) && pairing.NewOrigin(top, f.Href) {
		on = top // a frame's link to its own origin that loads the tab: from the tab's
	}
	s := confirm.Describe(verb, f.Facts, pairing.Host(on))
	if leavesOrigin(f, top) {
		s = confirm.Leading(s, pairing.Host(f.Href))
	}
	return s
}

// leavesOrigin reports whether the element is a link to another origin
// than its document's or the tab's top document's (top).
func leavesOrigin(f actions.Facts, top string) bool {
	return f.Href != "" && (pairing.NewOrigin(f.URL, f.Href) || pairing.NewOrigin(top, f.Href))
}

// Verb words an element action the policy may ask about, from its
// params: a click (or a Space pressed on a button, which clicks it), or
// an Enter pressed or typed in an element (enter); ok is false for the
// others.
func Verb(p any) (verb string, enter, ok bool) {
	switch p := p.(type) {
	case protocol.ClickParams:
		return "click", false, true
	case protocol.SelectParams:
		// A <select> is none of the kinds; the clicks a select gives a
		// widget that acts as one (actions.Runner.Select) are judged as
		// clicks.
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

// Target gives a press or a type without a target the focused element as
// its target, so that the confirmation is bound to the element the key
// goes to (the press focuses it first: it is focused already).
func Target[P any](p P) P {
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
