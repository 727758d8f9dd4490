package service

import (
	"context"
	"encoding/json"

	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/tabdata"
	"github.com/egohost/egohost/protocol"
)

// The methods of a tab's data (cookies, storage, its console and
// network records, downloads) run in internal/server/tabdata; these are
// the service's calls, browsers and tabs as they see them.

// tabData is the tab data methods' handlers (registry.go).
func (s *Service) tabData() *tabdata.Methods { return tabdata.New(s.log, s.opts.ActionTimeout) }

// dataCall is call c as a tab data method sees it (tabdata.Call).
func (s *Service) dataCall(c *call) tabdata.Call { return dataCall{s: s, c: c} }

// dataCall is a call of a tab data method, judged by the service's
// access checks (access.go) and confirmations (confirm.go).
type dataCall struct {
	s *Service
	c *call
}

func (dc dataCall) Paired() bool                        { return dc.c.conn.grant.kind == grantPaired }
func (dc dataCall) Reach() cdptab.Reach                 { return dc.s.reachFor(dc.c.conn.grant) }
func (dc dataCall) CheckOriginRead(rawURL string) error { return dc.s.checkOriginRead(dc.c, rawURL) }
func (dc dataCall) MayAsk(kind confirm.Kind) bool       { return dc.s.mayAsk(dc.c, kind) }

func (dc dataCall) Confirm(ctx context.Context, kind confirm.Kind, actURL string, q protocol.Confirm) error {
	return dc.s.confirmCall(ctx, dc.c, kind, actURL, q)
}

func (dc dataCall) Browser(ctx context.Context, name string) (tabdata.Browser, error) {
	l, err := dc.s.pickLink(ctx, dc.c, name)
	if err != nil {
		return nil, err
	}
	return dataBrowser{dc, l}, nil
}

func (dc dataCall) Target(ctx context.Context, t protocol.Target) (tabdata.Browser, int, error) {
	l, id, err := dc.s.target(ctx, dc.c, t)
	if err != nil {
		return nil, 0, err
	}
	return dataBrowser{dc, l}, id, nil
}

func (dc dataCall) Tab(ctx context.Context, t protocol.Target, op string) (tabdata.Tab, error) {
	tc, err := dc.s.tabContextWithin(ctx, dc.c, t, op, 0)
	if err != nil {
		return nil, err
	}
	return dataTab{tc}, nil
}

func (dc dataCall) Act(ctx context.Context, t protocol.Target, op string, fn func(ctx context.Context, r actwire.Runner) (any, error)) (any, error) {
	return dc.s.withRunner(ctx, dc.c, t, op, 0, func(ctx context.Context, _ *tabContext, r *actions.Runner) (any, error) {
		return fn(ctx, r)
	})
}

// dataBrowser is a call's browser link (tabdata.Browser).
type dataBrowser struct {
	dc dataCall
	l  *link
}

func (db dataBrowser) ID() string                                   { return db.l.ID }
func (db dataBrowser) Session(tab int) cdp.Session                  { return db.l.Session(tab) }
func (db dataBrowser) TabURL(tab int) (string, bool)                { return db.l.URLs.Get(tab) }
func (db dataBrowser) Downloads() *page.Downloads                   { return &db.l.Downloads }
func (db dataBrowser) Subscribe(sub *browserlink.Subscriber) func() { return db.l.Subscribe(sub) }

func (db dataBrowser) Call(ctx context.Context, op extwire.Op) (json.RawMessage, error) {
	return db.l.Call(ctx, op)
}

func (db dataBrowser) Record(ctx context.Context, tab int) (*page.Record, error) {
	t, _, err := db.l.Tabs.Open(ctx, tab)
	if err != nil {
		return nil, err
	}
	return t.Record(), nil
}

func (db dataBrowser) Sees(tab int) bool {
	url, _ := db.l.URLs.Get(tab)
	return len(db.dc.s.visibleTabs(db.dc.c.conn, db.l, []protocol.Tab{{ID: tab, GroupID: db.l.Layout.GroupOf(tab), URL: url}})) == 1
}

// dataTab is a call's tab, its page open (tabdata.Tab).
type dataTab struct{ tc *tabContext }

func (dt dataTab) ID() int                     { return dt.tc.tabID }
func (dt dataTab) CheckDialog(op string) error { return dt.tc.checkDialog(op) }
func (dt dataTab) Record() *page.Record        { return dt.tc.link.Tabs.RecordOf(dt.tc.tabID) }
func (dt dataTab) Session() cdp.Session        { return dt.tc.page }

func (dt dataTab) ReadStorage(ctx context.Context, kind, key string) (string, []protocol.StorageItem, error) {
	return page.ReadStorage(ctx, dt.tc.res, dt.tc.tabID, kind, key)
}
