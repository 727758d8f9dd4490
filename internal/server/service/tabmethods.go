package service

import (
	"context"
	"encoding/json"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/server/tabmethods"
	"github.com/egohost/egohost/protocol"
)

// The browsers and tabs methods run in internal/server/tabmethods; these
// are the service's calls and browsers as they see them. How a call
// reaches its tab (target, pickTab, pickLink: methods.go) stays here:
// every method uses it.

// tabMethods are the handlers of the browsers and tabs methods.
func (s *Service) tabMethods() *tabmethods.Methods { return tabmethods.New(tabService{s}, Version) }

// tabCall is call c as the browsers and tabs methods see it
// (tabmethods.Call).
func (s *Service) tabCall(c *call) tabmethods.Call { return tabCall{s: s, c: c} }

// tabsOpen opens a tab as tabs.open does (goto's first tab, spaces.new):
// its result is a protocol.TabResult.
func (s *Service) tabsOpen(ctx context.Context, c *call, p protocol.TabsOpenParams) (any, error) {
	return s.tabMethods().Open(ctx, s.tabCall(c), p)
}

// tabService is the service as the browsers and tabs methods see it
// (tabmethods.Service).
type tabService struct{ s *Service }

func (ts tabService) Browsers() (connected, reconnecting []protocol.Browser) {
	return ts.s.hub.Browsers()
}

func (ts tabService) Spaces() *spaces.Registry            { return ts.s.spaces.reg }
func (ts tabService) Tokenless() *protocol.TokenlessStats { return ts.s.tokenless.stats() }
func (ts tabService) Dirs() (state, data string)          { return ts.s.opts.StateDir, ts.s.opts.DataDir }

// tabCall is a call of a browsers or tabs method, judged by the
// service's access checks (access.go) and confirmations (confirm.go).
type tabCall struct {
	s *Service
	c *call
}

func (tc tabCall) Agent() string { return tc.c.conn.agentName() }
func (tc tabCall) Person() bool  { return isPerson(tc.c.conn.agentName()) }
func (tc tabCall) Owner() bool   { return tc.c.conn.grant.kind == grantOwner }

func (tc tabCall) Home() string {
	if tc.c.home == nil {
		return ""
	}
	return tc.c.home.ID
}

func (tc tabCall) Pick(ctx context.Context, browser string) (tabmethods.Browser, error) {
	l, err := tc.s.pickLink(ctx, tc.c, browser)
	if err != nil {
		return nil, err
	}
	return tabBrowser{tc, l}, nil
}

func (tc tabCall) Now(browser string) (tabmethods.Browser, []protocol.Browser, error) {
	l, reconnecting, err := tc.s.hub.Now(browser)
	if err != nil || l == nil {
		return nil, reconnecting, err
	}
	return tabBrowser{tc, l}, reconnecting, nil
}

func (tc tabCall) Target(ctx context.Context, t protocol.Target) (tabmethods.Browser, int, error) {
	l, id, err := tc.s.target(ctx, tc.c, t)
	if err != nil {
		return nil, 0, err
	}
	return tabBrowser{tc, l}, id, nil
}

func (tc tabCall) CheckDestination(dest string) error { return tc.s.checkDestination(tc.c, dest) }
func (tc tabCall) CheckLanded(tab int, landed string) error {
	return tc.s.checkLanded(tc.c, tab, landed)
}
func (tc tabCall) MayAsk(kind confirm.Kind) bool { return tc.s.mayAsk(tc.c, kind) }

func (tc tabCall) Confirm(ctx context.Context, kind confirm.Kind, actURL string, q protocol.Confirm) error {
	return tc.s.confirmCall(ctx, tc.c, kind, actURL, q)
}

func (tc tabCall) Load(ctx context.Context, t protocol.Target, url, until string, timeout time.Duration) (protocol.NavResult, error) {
	nav, err := tc.s.withRunner(ctx, tc.c, t, "open", timeout, func(ctx context.Context, x *tabContext, r *actions.Runner) (any, error) {
		n, err := r.Goto(ctx, url, actions.NavOptions{Until: until, Timeout: timeout})
		if err != nil {
			return nil, err
		}
		return actwire.NavResult(x.tabID, n), nil
	})
	if err != nil {
		return protocol.NavResult{}, err
	}
	return nav.(protocol.NavResult), nil
}

// tabBrowser is a browser link as a call of the browsers and tabs
// methods reaches it (tabmethods.Browser).
type tabBrowser struct {
	tc tabCall
	l  *link
}

func (b tabBrowser) ID() string               { return b.l.ID }
func (b tabBrowser) Info() protocol.Browser   { return b.l.Info() }
func (b tabBrowser) CheckAutomation() error   { return b.l.CheckAutomation() }
func (b tabBrowser) Sync(ctx context.Context) { b.tc.s.syncSpaces(ctx, b.l) }

func (b tabBrowser) Call(ctx context.Context, op extwire.Op) (json.RawMessage, error) {
	return b.l.Call(ctx, op)
}

func (b tabBrowser) Tabs(ctx context.Context) ([]protocol.Tab, error) {
	return b.l.listTabs(ctx)
}

func (b tabBrowser) SpaceFor(ctx context.Context, agent string) (spaces.Space, error) {
	return b.tc.s.spaceFor(ctx, agent, b.l)
}

func (b tabBrowser) AddTab(ctx context.Context, sp spaces.Space, tab int) (spaces.Space, error) {
	return b.tc.s.addToSpace(ctx, b.l, sp, tab)
}

func (b tabBrowser) Visible(tabs []protocol.Tab) []protocol.Tab {
	return b.tc.s.visibleTabs(b.tc.c.conn, b.l, tabs)
}

func (b tabBrowser) CheckScope(ctx context.Context, tab int) error {
	return b.tc.s.checkScope(ctx, b.tc.c, b.l, tab)
}

func (b tabBrowser) Dialog(tab int) *protocol.Dialog {
	return seenWithin(b.tc.s.reachFor(b.tc.c.conn.grant), b.l.Tabs.Dialog(tab))
}
