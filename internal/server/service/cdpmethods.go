package service

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/cdpmethods"
	"github.com/egohost/egohost/internal/server/cdpsub"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirmmethods"
	"github.com/egohost/egohost/protocol"
)

// The raw CDP methods run in internal/server/cdpmethods, and the agents'
// cdp.subscribe subscriptions in internal/server/cdpsub; these are the
// service's calls, browsers and links as they see them.

// cdpMethods is the raw CDP methods' handlers (registry.go).
func (s *Service) cdpMethods() *cdpmethods.Methods { return cdpmethods.New(cdpService{}, s.log) }

// cdpCall is call c as a raw CDP method sees it (cdpmethods.Call).
func cdpCallOf(c *call) cdpmethods.Call { return cdpCall{c} }

// cdpService is the service as the raw CDP methods use it
// (cdpmethods.Service).
type cdpService struct{}

func (cdpService) TopURL(ctx context.Context, sess cdp.Session) (string, error) {
	return confirmmethods.TopURL(ctx, sess)
}

// cdpCall is a call of a raw CDP method, judged by the service's access
// checks (access.go) and confirmations (confirmmethods.go).
type cdpCall struct{ c *call }

func (cc cdpCall) Paired() bool { return cc.c.conn.grant.kind == grantPaired }

func (cc cdpCall) Target(ctx context.Context, t protocol.Target) (cdpmethods.Link, int, error) {
	l, id, err := cc.c.conn.s.target(ctx, cc.c, t)
	if err != nil {
		return nil, 0, err
	}
	return subLink{l}, id, nil
}

func (cc cdpCall) CheckDestination(dest string) error {
	return cc.c.conn.s.checkDestination(cc.c, dest)
}
func (cc cdpCall) CheckOriginRead(rawURL string) error {
	return cc.c.conn.s.checkOriginRead(cc.c, rawURL)
}
func (cc cdpCall) HasOriginRules() bool                    { return !cc.c.conn.s.rulesFor(cc.c.conn.grant.name).Empty() }
func (cc cdpCall) Reach() cdptab.Reach                     { return cc.c.conn.s.reachFor(cc.c.conn.grant) }
func (cc cdpCall) MayAsk(kind confirm.Kind) bool           { return cc.c.conn.s.mayAsk(cc.c, kind) }
func (cc cdpCall) Subscriptions() cdpmethods.Subscriptions { return cc.c.conn.subs }

func (cc cdpCall) Confirm(ctx context.Context, kind confirm.Kind, actURL string, q protocol.Confirm) error {
	return cc.c.conn.s.confirmCall(ctx, cc.c, kind, actURL, q)
}

// subBrowsers is the connected browsers as a subscription finds its
// browser's next link (cdpsub.Browsers).
type subBrowsers struct{ s *Service }

func (b subBrowsers) Changed() <-chan struct{} { return b.s.hub.Changed() }

func (b subBrowsers) Link(browser string) cdpsub.Link {
	l := b.s.hub.Get(browser)
	if l == nil {
		return nil
	}
	return subLink{l}
}

// subLink is a link as a subscription uses it (cdpsub.Link), and as the
// raw CDP methods' checks read its tabs (cdpmethods.Link).
type subLink struct{ l *link }

func (sl subLink) Subscribe(sub *browserlink.Subscriber) func() { return sl.l.Subscribe(sub) }

func (sl subLink) Call(ctx context.Context, op extwire.Op) (json.RawMessage, error) {
	return sl.l.Call(ctx, op)
}

func (sl subLink) Closed() <-chan struct{}            { return sl.l.Closed() }
func (sl subLink) HeldEvent(in *extwire.Message) bool { return sl.l.HeldEvent(in) }
func (sl subLink) Log() *slog.Logger                  { return sl.l.Log }

func (sl subLink) Tabs(ctx context.Context) ([]protocol.Tab, error) { return sl.l.listTabs(ctx) }

func (sl subLink) WantEvents(ctx context.Context, methods []string) (func(), error) {
	return sl.l.WantEvents(ctx, methods)
}

func (sl subLink) ID() string                         { return sl.l.ID }
func (sl subLink) Session(tab int) cdpmethods.Session { return sl.l.Session(tab) }

func (sl subLink) Page(ctx context.Context, tab int) (cdpmethods.Page, error) {
	_, eng, err := sl.l.Tabs.Open(ctx, tab)
	if err != nil {
		return nil, err
	}
	return eng.Page, nil
}

func (sl subLink) TabURL(ctx context.Context, tab int) (string, error) {
	return sl.l.tabURL(ctx, tab)
}

// RequestURL returns the URL of a request the tab's record holds.
func (sl subLink) RequestURL(tab int, requestID string) (string, bool) {
	rec := sl.l.Tabs.RecordOf(tab)
	if rec == nil {
		return "", false
	}
	return rec.URLOf(requestID)
}

// Withheld returns the origins of the tab's frames reach refuses.
func (sl subLink) Withheld(ctx context.Context, tab int, reach cdptab.Reach) ([]string, error) {
	_, eng, err := sl.l.Tabs.Open(ctx, tab)
	if err != nil {
		return nil, err
	}
	return eng.Res.Within(reach).Withheld(ctx)
}

// OwnContext reports whether a context of the tab's session is one of
// egohost's own worlds.
func (sl subLink) OwnContext(tab int, session string, id int64) bool {
	return sl.l.Link.OwnContext(tab, session, id)
}

// OwnUniqueContext reports whether a unique context ID is one of
// egohost's own worlds.
func (sl subLink) OwnUniqueContext(unique string) bool { return sl.l.Link.OwnUniqueContext(unique) }

// IsPerson reports whether the agent is the person (cdpsub.Agent).
func (a *agent) IsPerson() bool { return isPerson(a.agentName()) }
