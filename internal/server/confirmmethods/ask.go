package confirmmethods

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// Confirm asks the person about an act of kind of call c, on actURL's
// origin (what the policy's origins and an "always" answer are about),
// when its agent's policy names it there: nil when nothing asks or the
// person said yes. q says the rest of the ask (Action, Browser, Tab,
// Picture).
func (m *Methods) Confirm(ctx context.Context, c Call, kind confirm.Kind, actURL string, q protocol.Confirm) error {
	if !slices.Contains(c.Kinds(), kind) || !m.policyAsks(c.Agent(), kind, actURL) {
		return nil
	}
	origin := pairing.Origin(actURL)
	if m.s.Asks().AllowedAlways(c.Agent(), origin, kind) {
		return nil
	}
	q.Agent, q.Method, q.Kind, q.Origin = c.Agent(), c.Method(), string(kind), origin
	return m.ask(ctx, c, q)
}

// Navigation asks the person, when the call's policy names
// navigate_new_origin there, before the tab loads a page of another
// origin than the one it shows: to is goto's URL, or "" for the history
// entry delta away from the current one (back -1, forward +1). verb
// words it ("go to", "go back to"). It returns the origin it judged ("":
// no such history entry), which the navigation must still go to.
func (m *Methods) Navigation(ctx context.Context, c Call, t Tab, verb string, delta int64, to string) (string, error) {
	h, err := cdp.Call(ctx, t.Page(), page.GetNavigationHistory, cdp.Empty{})
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
	q := protocol.Confirm{Action: confirm.DescribeNavigation(verb, pairing.Host(to), fromHost), Browser: t.Browser(), Tab: t.ID()}
	return pairing.Origin(to), m.Confirm(ctx, c, confirm.NavigateNewOrigin, to, q)
}

// TopURL is the URL of the document the tab shows (its top frame's).
func TopURL(ctx context.Context, sess cdp.Session) (string, error) {
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
func (m *Methods) policyAsks(agent string, kind confirm.Kind, actURL string) bool {
	match := func(patterns []string) bool {
		return pairing.Rules{Allow: patterns, Schemes: []string{"*"}}.Decide(actURL, "").OK
	}
	_, ok := confirm.Asks(m.s.Policy().RulesFor(agent), []confirm.Kind{kind}, match)
	return ok
}

// ask lists the ask, tells the tab's browser (badge, popup) and the
// agent's connection, and waits for the answer, timeouts.confirm at
// most. nil is a yes. always are the "always" answers a yes with always
// keeps (the ask's own kind and origin when none).
func (m *Methods) ask(ctx context.Context, c Call, q protocol.Confirm, always ...asks.Always) error {
	wait := m.s.Wait()
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		wait = time.Until(dl) // the call's own end comes first
	}
	ask := m.s.Asks().Add(q, wait, always)
	q = ask.Confirm
	defer func() {
		m.s.Asks().Remove(q.ID)
		m.changed(q.Browser)
	}()
	m.s.Audit(audit.Entry{Agent: q.Agent, Method: "confirm.ask", Browser: q.Browser, Tab: q.Tab, Origin: q.Origin, Target: q.Action, Result: "waiting"})
	m.changed(q.Browser)
	msg := "waiting for the person to confirm: " + q.Action
	m.log.Info(msg+": allow or deny it in the extension's popup, or with `egohost confirm allow|deny "+q.ID+"`", "agent", q.Agent, "id", q.ID)
	c.Notify(protocol.NotifyConfirmWaiting, protocol.ConfirmWaiting{ID: q.ID, Kind: q.Kind, Action: q.Action, Origin: q.Origin, Message: msg})

	decision, who, err := ask.Wait(ctx, wait)
	m.s.Audit(audit.Entry{Agent: who, Method: "confirm.answer", Browser: q.Browser, Tab: q.Tab, Origin: q.Origin, Target: q.Agent + ": " + q.Action, Result: decision})
	return err
}

// changed tells a browser's extension the asks waiting on it (the icon's
// badge, the popup's list).
func (m *Methods) changed(browser string) {
	pending := m.s.Asks().List(browser, false)
	n := protocol.ConfirmNotice{Pending: pending}
	if len(pending) > 0 {
		n.Badge = "?" + strconv.Itoa(len(pending))
	}
	if err := m.s.NotifyBrowser(browser, protocol.NoticeConfirm, n); err != nil {
		m.log.Debug("confirm notice", "browser", browser, "err", err)
	}
}
