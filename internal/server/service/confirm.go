package service

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// Confirmations (issue 26 §1, README "Confirmations"): an act of a paired
// agent that its policy (agents.confirm) names waits, at the moment of
// acting and bound to the element it acts on, for the person's yes — in
// the popup of the tab's browser, or `egohost confirm allow|deny ID`.
// The owner and the person are never asked.

// confirmKinds lists the kinds of a method that the agent's policy may
// ask about on some origin: none (the common case) costs the call no
// round trip to the page.
func (s *Service) confirmKinds(g grant, method string) []confirm.Kind {
	if g.kind != grantPaired {
		return nil // the owner and the person are never asked
	}
	return s.opts.Confirm.KindsOf(g.name, s.methods[method].kinds)
}

// confirmHook is the actions' Confirm of an element action of call c
// (actions.ActOptions.Confirm), nil when its agent's policy can ask
// nothing of it. verb words the act ("click", "press Enter in"); enter:
// a press of Enter (its element submits the form it is in), else a click;
// always: the kinds the act is whatever its element (an upload's).
func (s *Service) confirmHook(ctx context.Context, c *call, tc *tabContext, r *actions.Runner, verb string, enter bool, always ...confirm.Kind) func(context.Context, actions.Element) (bool, error) {
	kinds := c.kinds
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
			if top, err = topURL(ctx, tc.page); err != nil {
				return false, err
			}
		}
		found := confirm.Classify(f.Facts, s.opts.Confirm.PurchaseWords(), !enter)
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
			rule := asks.Always{Agent: c.g.name, Origin: origin, Kind: string(k)}
			if slices.Contains(left, rule) || !slices.Contains(kinds, k) || !s.policyAsks(c.g.name, k, u) ||
				s.confirms.AllowedAlways(c.g.name, origin, k) {
				continue
			}
			left = append(left, rule)
		}
		if len(left) == 0 {
			return false, nil
		}
		kind, origin := confirm.Kind(left[0].Kind), left[0].Origin
		q := protocol.Confirm{
			Agent: c.g.name, Method: c.method, Kind: string(kind), Origin: origin,
			Action: describeAct(verb, f, top), Browser: tc.link.ID, Tab: tc.tabID,
		}
		if pic, err := r.Picture(ctx, f.Box); err == nil {
			q.Picture = pic
		} else {
			s.log.Debug("confirmation picture", "err", err)
		}
		if err := s.askPerson(ctx, c, q, left...); err != nil {
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
			return true, &actions.ChangedError{Op: verb, Target: q.Action, Err: fmt.Errorf("its link now goes to %s, not %s", orNone(is), orNone(was))}
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

// topURL is the URL of the document the tab shows (its top frame's).
func topURL(ctx context.Context, sess cdp.Session) (string, error) {
	h, err := cdp.Call(ctx, sess, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return "", fmt.Errorf("the tab's URL: %w", err)
	}
	return entryURL(h, h.CurrentIndex), nil
}

// entryURL is the URL of history entry i ("" when there is none).
func entryURL(h page.GetNavigationHistoryResult, i int64) string {
	if i < 0 || i >= int64(len(h.Entries)) || h.Entries[i] == nil {
		return ""
	}
	return h.Entries[i].URL
}

// policyAsks reports whether agent's policy asks about an act of kind on
// actURL's origin.
func (s *Service) policyAsks(agent string, kind confirm.Kind, actURL string) bool {
	match := func(patterns []string) bool {
		return pairing.Rules{Allow: patterns, Schemes: []string{"*"}}.Decide(actURL, "").OK
	}
	_, ok := confirm.Asks(s.opts.Confirm.RulesFor(agent), []confirm.Kind{kind}, match)
	return ok
}

// mayAsk reports whether the call may wait for the person about an act of
// kind (on some origin): what a method checks before it reads anything
// more to word or judge the act. Next to free when it may not.
func (s *Service) mayAsk(c *call, kind confirm.Kind) bool {
	return slices.Contains(c.kinds, kind)
}

// confirmCall asks the person about an act of kind of call c, on
// actURL's origin (what the policy's origins and an "always" answer are
// about), when its agent's policy names it there: nil when nothing asks
// or the person said yes. q says the rest of the ask (Action, Browser,
// Tab, Picture).
func (s *Service) confirmCall(ctx context.Context, c *call, kind confirm.Kind, actURL string, q protocol.Confirm) error {
	if !slices.Contains(c.kinds, kind) || !s.policyAsks(c.g.name, kind, actURL) {
		return nil
	}
	origin := pairing.Origin(actURL)
	if s.confirms.AllowedAlways(c.g.name, origin, kind) {
		return nil
	}
	q.Agent, q.Method, q.Kind, q.Origin = c.g.name, c.method, string(kind), origin
	return s.askPerson(ctx, c, q)
}

// confirmNavigation asks the person, when the call's policy names
// navigate_new_origin there, before the tab loads a page of another
// origin than the one it shows: to is goto's URL, or "" for the history
// entry delta away from the current one (back -1, forward +1). verb
// words it ("go to", "go back to"). It returns the origin it judged ("":
// no such history entry), which the navigation must still go to.
func (s *Service) confirmNavigation(ctx context.Context, c *call, tc *tabContext, verb string, delta int64, to string) (string, error) {
	h, err := cdp.Call(ctx, tc.page, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return "", fmt.Errorf("%s: the tab's history: %w", verb, err)
	}
	from := entryURL(h, h.CurrentIndex)
	if to == "" {
		if to = entryURL(h, h.CurrentIndex+delta); to == "" {
			return "", nil // the history method answers that there is none
		}
	}
	if !pairing.NewOrigin(from, to) {
		return pairing.Origin(to), nil
	}
	fromHost := "about:blank"
	if from != "" {
		fromHost = pairing.Host(from)
	}
	q := protocol.Confirm{Action: confirm.DescribeNavigation(verb, pairing.Host(to), fromHost), Browser: tc.link.ID, Tab: tc.tabID}
	return pairing.Origin(to), s.confirmCall(ctx, c, confirm.NavigateNewOrigin, to, q)
}

// confirmWait is how long an ask waits for the person.
func confirmWait(o Options) time.Duration {
	if o.ConfirmTimeout > 0 {
		return o.ConfirmTimeout
	}
	return 60 * time.Second
}

// askPerson lists the ask, tells the tab's browser (badge, popup) and the
// agent's connection, and waits for the answer, timeouts.confirm at
// most. nil is a yes.
func (s *Service) askPerson(ctx context.Context, c *call, q protocol.Confirm, always ...asks.Always) error {
	wait := confirmWait(s.opts)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		wait = time.Until(dl) // the call's own end comes first
	}
	ask := s.confirms.Add(q, wait, always)
	q = ask.Confirm
	defer func() {
		s.confirms.Remove(q.ID)
		s.confirmChanged(q.Browser)
	}()
	s.writeAudit(audit.Entry{Agent: q.Agent, Method: "confirm.ask", Browser: q.Browser, Tab: q.Tab, Origin: q.Origin, Target: q.Action, Result: "waiting"})
	s.confirmChanged(q.Browser)
	msg := "waiting for the person to confirm: " + q.Action
	s.log.Info(msg+": allow or deny it in the extension's popup, or with `egohost confirm allow|deny "+q.ID+"`", "agent", q.Agent, "id", q.ID)
	c.conn.Notify(protocol.NotifyConfirmWaiting, protocol.ConfirmWaiting{ID: q.ID, Kind: q.Kind, Action: q.Action, Origin: q.Origin, Message: msg})

	decision, who, err := ask.Wait(ctx, wait)
	s.writeAudit(audit.Entry{Agent: who, Method: "confirm.answer", Browser: q.Browser, Tab: q.Tab, Origin: q.Origin, Target: q.Agent + ": " + q.Action, Result: decision})
	return err
}

// confirmChanged tells a browser's extension the asks waiting on it (the
// icon's badge, the popup's list).
func (s *Service) confirmChanged(browser string) {
	pending := s.confirms.List(browser, false)
	n := protocol.ConfirmNotice{Pending: pending}
	if len(pending) > 0 {
		n.Badge = "?" + strconv.Itoa(len(pending))
	}
	for _, l := range s.hub.Links() {
		if l.ID != browser {
			continue
		}
		if err := l.Notify(protocol.NoticeConfirm, n); err != nil {
			s.log.Debug("confirm notice", "browser", l.ID, "err", err)
		}
	}
}

// confirmList answers confirm.list (the owner's CLI).
func (s *Service) confirmList(ctx context.Context, c *call, p protocol.ConfirmListParams) (any, error) {
	return protocol.ConfirmListResult{Pending: s.confirms.List("", p.Pictures)}, nil
}

// confirmAnswer answers confirm.answer (the owner's CLI).
func (s *Service) confirmAnswer(ctx context.Context, c *call, p protocol.ConfirmAnswerParams) (any, error) {
	return s.answerConfirm(p, c.conn.auditName())
}

func (s *Service) answerConfirm(p protocol.ConfirmAnswerParams, who string) (any, error) {
	if p.ID == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "confirm.answer: id is empty (see `egohost confirm list`)")
	}
	ans := asks.Answer{Allow: p.Allow, Always: p.Always, Who: who}
	if _, err := s.confirms.Answer(p.ID, ans); err != nil {
		return nil, err
	}
	return protocol.ConfirmAnswerResult{ID: p.ID, Decision: ans.Decision()}, nil
}

// popupConfirmList answers popup.confirm.list: the asks on this browser,
// with their pictures.
func (s *Service) popupConfirmList(ctx context.Context, l *link, _ rpcparams.None) (any, error) {
	return protocol.ConfirmListResult{Pending: s.confirms.List(l.ID, true)}, nil
}

// popupConfirmAnswer answers popup.confirm.answer: the person at this
// browser answers an ask on it.
func (s *Service) popupConfirmAnswer(ctx context.Context, l *link, p protocol.ConfirmAnswerParams) (any, error) {
	if !slices.ContainsFunc(s.confirms.List(l.ID, false), func(q protocol.Confirm) bool { return q.ID == p.ID }) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.confirm.answer: no act waits as %q on this browser", p.ID)
	}
	return s.answerConfirm(p, "person")
}
