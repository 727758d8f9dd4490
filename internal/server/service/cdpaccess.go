package service

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/weburl"
	"github.com/egohost/egohost/protocol"
)

// This file is what raw CDP may do (PROTOCOL.md §3.7.1): the allow-list of
// methods a paired agent may send (pairing.CDPRuleOf) with the checks of
// their params, the child sessions it may name, the pages nobody but the
// person may reach (the browser's, DevTools', extensions'), and the one
// navigation that crashes the browser, refused to everyone.

// checkCDPMethod refuses, before anything else, a CDP method the caller
// may not send: a paired agent sends only what the allow-list names.
func checkCDPMethod(a *agent, method string) error {
	if a.grant.kind != grantPaired {
		return nil
	}
	return pairing.CheckCDPMethod(method)
}

// checkCDPParams checks, once the tab is known, what a CDP call's params
// reach: for a paired agent its session and the checks its method's rule
// names; for everyone the navigation that crashes the browser.
func (s *Service) checkCDPParams(ctx context.Context, c *call, l *link, tab int, p protocol.CDPSendParams) error {
	var sess cdp.Session = l.Session(tab)
	if p.SessionID != "" {
		sess = l.Session(tab).Child(target.SessionID(p.SessionID))
	}
	if c.conn.grant.kind == grantPaired {
		if p.SessionID != "" {
			if err := s.checkChildSession(ctx, c, l, tab, p); err != nil {
				return err
			}
		}
		if err := s.checkCDPRule(ctx, c, l, tab, sess, p); err != nil {
			return err
		}
	}
	if p.Method == page.CommandNavigate && p.SessionID == "" {
		var np struct {
			URL     string      `json:"url"`
			FrameID cdp.FrameID `json:"frameId"`
		}
		_ = json.Unmarshal(p.Params, &np)
		crashes, _, err := actions.AboutFragment(ctx, sess, np.URL, np.FrameID)
		if err != nil {
			return err
		}
		if crashes {
			return protocol.Errorf(protocol.CodeUnsupported, "cdp.send: Page.navigate to %q is a fragment of the tab's about: document, which crashes the whole browser through chrome.debugger: set location.hash with Runtime.evaluate, or use goto", np.URL).
				With("method", p.Method)
		}
	}
	return nil
}

// checkChildSession lets a paired agent name only a child session of that
// very tab (one egohost attached: an out-of-process frame, a worker) on a
// page it may reach.
func (s *Service) checkChildSession(ctx context.Context, c *call, l *link, tab int, p protocol.CDPSendParams) error {
	_, eng, err := l.Tabs.Open(ctx, tab)
	if err != nil {
		return err
	}
	pg := eng.Page
	for _, ch := range pg.Children() {
		if string(ch.SessionID) != p.SessionID {
			continue
		}
		// What the child shows now: the URL of its attach may be its
		// first about:blank.
		info, err := cdp.Call(ctx, pg.Child(ch.SessionID), target.GetTargetInfo, target.GetTargetInfoParams{})
		if err != nil {
			return err
		}
		u := ch.URL
		if info.TargetInfo != nil {
			u = info.TargetInfo.URL
		}
		if weburl.BrowserPage(u) {
			return pairing.CDPRefused(p.Method, "session "+p.SessionID+" is a browser, DevTools or extension page ("+pairing.Origin(u)+")")
		}
		return s.checkOriginRead(c, u)
	}
	return pairing.CDPRefused(p.Method, "session "+p.SessionID+" is not a child session of tab "+strconv.Itoa(tab)+" (an out-of-process frame or worker egohost attached)")
}

// checkCDPRule runs the check the method's rule names.
func (s *Service) checkCDPRule(ctx context.Context, c *call, l *link, tab int, sess cdp.Session, p protocol.CDPSendParams) error {
	switch pairing.CDPRuleOf(p.Method).Check {
	case pairing.CheckNavigation:
		dest, err := navigationDest(ctx, sess, p)
		if err != nil || dest == "" {
			return err
		}
		// goto's check of the address, then the agent's origin rules.
		n, err := pairing.CDPDestination(p.Method, dest)
		if err != nil {
			return err
		}
		if err := s.checkDestination(c, n); err != nil {
			return err
		}
		// The tab's own session navigates the tab (or a frame of it: asked
		// too, the safe side) as goto does: the same confirmation.
		if p.SessionID != "" || !s.mayAsk(c, confirm.NavigateNewOrigin) {
			return nil
		}
		from, err := topURL(ctx, sess)
		if err != nil || !pairing.NewOrigin(from, dest) {
			return err
		}
		q := protocol.Confirm{Action: confirm.DescribeNavigation("send "+p.Method+" to", pairing.Host(dest), pairing.Host(from)), Browser: l.ID, Tab: tab}
		return s.confirmCall(ctx, c, confirm.NavigateNewOrigin, dest, q)
	case pairing.CheckOwnCookies:
		u, err := s.tabURL(ctx, l, tab)
		if err != nil {
			return err
		}
		if why := pairing.ForeignCookies(p.Method, p.Params, u); why != "" {
			return pairing.CDPRefused(p.Method, why)
		}
		// A cookie written through raw CDP is asked as cookies.set is (a
		// read, or a method added to the rule later, is not a write).
		switch p.Method {
		case network.CommandSetCookie, network.CommandSetCookies, network.CommandDeleteCookies:
			if s.mayAsk(c, confirm.CookieWrite) {
				q := protocol.Confirm{Action: "send " + p.Method + " on " + pairing.Host(u), Browser: l.ID, Tab: tab}
				return s.confirmCall(ctx, c, confirm.CookieWrite, u, q)
			}
		}
	case pairing.CheckOriginRead:
		return s.checkResourceRead(ctx, c, l, tab, p)
	}
	return nil
}

// navigationDest is where a navigation method would take the frame: its
// url, or the URL of the history entry it names ("" for an entry the tab
// does not have: Chrome refuses it).
func navigationDest(ctx context.Context, sess cdp.Session, p protocol.CDPSendParams) (string, error) {
	switch p.Method {
	case page.CommandNavigate:
		var np struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal(p.Params, &np); err != nil || np.URL == "" {
			return "", pairing.CDPRefused(p.Method, "it needs a url")
		}
		return np.URL, nil
	case page.CommandNavigateToHistoryEntry:
		var hp struct {
			EntryID int64 `json:"entryId"`
		}
		_ = json.Unmarshal(p.Params, &hp)
		h, err := cdp.Call(ctx, sess, page.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return "", err
		}
		for _, e := range h.Entries {
			if e != nil && e.ID == hp.EntryID {
				return e.URL, nil
			}
		}
	}
	return "", nil
}

// checkResourceRead checks that a resource a method reads (a request's
// response, a frame's resource) is at a URL the agent's origin rules
// permit: reading it past CORS must not reach an origin the agent may not.
func (s *Service) checkResourceRead(ctx context.Context, c *call, l *link, tab int, p protocol.CDPSendParams) error {
	var rp struct {
		URL       string `json:"url"`
		RequestID string `json:"requestId"`
	}
	_ = json.Unmarshal(p.Params, &rp)
	if rp.URL != "" {
		return s.checkOriginRead(c, rp.URL)
	}
	if s.rulesFor(c.conn.grant.name).Empty() {
		return nil // nothing to keep it from
	}
	if u, ok := l.requestURL(tab, rp.RequestID); ok {
		return s.checkOriginRead(c, u)
	}
	return pairing.CDPRefused(p.Method, "request "+rp.RequestID+" is not one egohost recorded on tab "+strconv.Itoa(tab)+", so its URL cannot be checked against the agent's origin rules (a followed tab's requests are recorded, PROTOCOL.md §3.1.1)")
}

// checkOriginRead refuses to let a paired agent read what is at rawURL when
// its origin rules deny that origin.
func (s *Service) checkOriginRead(c *call, rawURL string) error {
	if c.g.kind != grantPaired {
		return nil
	}
	if ok, rule := s.rulesFor(c.g.name).Permits(rawURL); !ok {
		return protocol.Errorf(protocol.CodeForbiddenOriginScope, "%s: %s is an origin agent %q may not read (%s)", c.method, orNone(pairing.Origin(rawURL)), c.g.name, rule).
			With("origin", pairing.Origin(rawURL)).With("rule", rule)
	}
	return nil
}

// requestURL returns the URL of a request the tab's record holds.
func (l *link) requestURL(tab int, requestID string) (string, bool) {
	rec := l.Tabs.RecordOf(tab)
	if rec == nil {
		return "", false
	}
	return rec.URLOf(requestID)
}

// checkBrowserPage refuses a tab that shows a browser, DevTools or
// extension page to everyone but the person: code run there would speak
// with the extension's own rights (its popup approves pairings and stops
// automation; issue 22).
func (s *Service) checkBrowserPage(ctx context.Context, c *call, l *link, tab int) error {
	if isPerson(c.conn.agentName()) {
		return nil
	}
	u, err := s.tabURL(ctx, l, tab)
	if err != nil {
		return err
	}
	if !weburl.BrowserPage(u) {
		return nil
	}
	const rule = "browser or extension page"
	return protocol.Errorf(protocol.CodeForbiddenOriginScope, "%s: tab %d shows %s, a %s that only the person may use", c.method, tab, orNone(pairing.Origin(u)), rule).
		With("tab", tab).With("origin", pairing.Origin(u)).With("rule", rule)
}
