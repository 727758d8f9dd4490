package service

import (
	"context"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/filegate"
	"github.com/egohost/egohost/internal/server/pagemethods"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// The page methods (actions, goto, back, forward, reload, eval,
// screenshot, dialog, wait, form.fill) run in internal/server/pagemethods;
// these are the service's calls, tabs and links as they see them.

// pageMethods are the page methods' handlers over this service.
func (s *Service) pageMethods() pagemethods.Methods[*pageTab] {
	return pagemethods.New[*pageTab](pageService{s}, s.log)
}

// pageCallOf gives a call to the page methods.
func pageCallOf(c *call) pagemethods.Call[*pageTab] { return pageCall{c} }

// pageAct makes the handler of an element action (pagemethods.Act): run
// is its actwire mapping.
func pageAct[P pagemethods.ActParams](s *Service, op string, run func(context.Context, actwire.Runner, P, actions.ActOptions) (*actions.Result, error)) handler {
	return bound(pageCallOf, pagemethods.Act(s.pageMethods(), op, run))
}

// withRunner runs fn with an actions.Runner on the target's tab, as the
// page methods run theirs (pagemethods.Methods.Run), for the service's
// other page-level methods.
func (s *Service) withRunner(ctx context.Context, c *call, t protocol.Target, op string, timeout time.Duration, fn func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error)) (any, error) {
	return s.pageMethods().Run(ctx, pageCall{c}, t, op, timeout, func(ctx context.Context, pt *pageTab, r *actions.Runner) (any, error) {
		return fn(ctx, pt.tc, r)
	})
}

// pageService is the service as the page methods use it
// (pagemethods.Service).
type pageService struct{ s *Service }

func (ps pageService) AnswersDialogs(op string) bool { return ps.s.methods[op].dialogs }
func (ps pageService) ActionTimeout() time.Duration  { return ps.s.opts.ActionTimeout }

// pageCall is a call of a page method, judged by the service's access
// checks (access.go) (pagemethods.Call).
type pageCall struct{ c *call }

func (pc pageCall) Tab(ctx context.Context, t protocol.Target, op string, timeout time.Duration) (*pageTab, error) {
	tc, err := pc.c.conn.s.tabContextWithin(ctx, pc.c, t, op, timeout)
	if err != nil {
		return nil, err
	}
	return &pageTab{c: pc.c, tc: tc}, nil
}

func (pc pageCall) Link(ctx context.Context, t protocol.Target) (pagemethods.Link, int, error) {
	l, id, err := pc.c.conn.s.target(ctx, pc.c, t)
	if err != nil {
		return nil, 0, err
	}
	return pageLink{l}, id, nil
}

func (pc pageCall) CheckDestination(url string) error { return pc.c.conn.s.checkDestination(pc.c, url) }
func (pc pageCall) MayAsk(kind confirm.Kind) bool     { return pc.c.conn.s.mayAsk(pc.c, kind) }
func (pc pageCall) TraceBox(b *actions.Box)           { traceBox(pc.c, b) }

func (pc pageCall) CheckLanded(tab int, url string) error {
	return pc.c.conn.s.checkLanded(pc.c, tab, url)
}

func (pc pageCall) NeedsFirstTab(ctx context.Context, browser string) bool {
	return pc.c.conn.s.needsFirstTab(ctx, pc.c, browser)
}

func (pc pageCall) OpenTab(ctx context.Context, p protocol.TabsOpenParams) (protocol.TabResult, error) {
	res, err := pc.c.conn.s.tabsOpen(ctx, pc.c, p)
	if err != nil {
		return protocol.TabResult{}, err
	}
	return res.(protocol.TabResult), nil
}

func (pc pageCall) Snapshot(ctx context.Context, p protocol.SnapshotParams) (protocol.SnapshotResult, error) {
	res, err := pc.c.conn.s.snapshot(ctx, pc.c, p)
	if err != nil {
		return protocol.SnapshotResult{}, err
	}
	return res.(protocol.SnapshotResult), nil
}

// CreateOutput makes a screenshot's file (agentfiles.go), noting for the
// audit line the path asked, then the file made.
func (pc pageCall) CreateOutput(path string) (*filegate.Output, error) {
	pc.c.noteFiles(path)
	f, err := pc.c.conn.s.files.CreateOutput("screenshot", path, isPairedCall(pc.c.conn))
	if err != nil {
		return nil, err
	}
	pc.c.noteFiles(f.Path)
	return f, nil
}

// pageLink is a browser's link as the dialog method probes a tab
// (pagemethods.Link).
type pageLink struct{ l *link }

func (pl pageLink) Reachable(ctx context.Context, tab int) error {
	return pl.l.Tabs.Tab(tab).Reachable(ctx)
}

func (pl pageLink) DismissUnreported(ctx context.Context, tab int, d time.Duration) (*actions.DialogResult, error) {
	return actions.DismissUnreported(ctx, pl.l.Session(tab), d)
}

// pageTab is a page method's tab: the tab context opened for call c, and
// the call's trace step (pagemethods.Tab). It is the Runner's finder too
// (Find, FindCall): a ref another agent's tab handed out is not_in_space
// before anything reaches the page (checkRef).
type pageTab struct {
	c  *call
	tc *tabContext

	// The trace step of a traced call (TraceBefore).
	rec   *trace.Recording
	step  *trace.Notes
	acts  bool
	since time.Time
}

func (pt *pageTab) ID() int                                      { return pt.tc.tabID }
func (pt *pageTab) Browser() string                              { return pt.tc.link.ID }
func (pt *pageTab) CheckDialog(op string) error                  { return pt.tc.checkDialog(op) }
func (pt *pageTab) Dialog() *protocol.Dialog                     { return pt.tc.link.Tabs.Dialog(pt.tc.tabID) }
func (pt *pageTab) Seen(d *protocol.Dialog) *protocol.Dialog     { return pt.tc.seen(d) }
func (pt *pageTab) Limited() bool                                { return pt.tc.reach != nil }
func (pt *pageTab) Subscribe(sub *browserlink.Subscriber) func() { return pt.tc.link.Subscribe(sub) }

// WatchOpened watches the tab's browser for the tabs it opens
// (page.Layout.WatchOpened); the caller sees those tabs.list would show
// it.
func (pt *pageTab) WatchOpened() func(context.Context, time.Duration) []protocol.Tab {
	l := pt.tc.link
	w := l.Layout.WatchOpened(pt.tc.tabID)
	return func(ctx context.Context, wait time.Duration) []protocol.Tab {
		tabs := w.Done(ctx, wait)
		if len(tabs) == 0 {
			return nil
		}
		for i := range tabs {
			t := &tabs[i]
			t.Browser, t.GroupID = l.ID, l.Layout.GroupOf(t.ID)
			if sp, ok := pt.c.conn.s.spaces.reg.ByGroup(l.ID, t.GroupID); ok {
				t.Space = sp.ID
			}
			if t.URL == "" {
				t.URL, _ = l.URLs.Get(t.ID)
			}
			if t.URL == "" {
				t.URL = "about:blank" // a new tab's first document, before any navigation
			}
			// What Chrome said as it made the tab (complete, no title)
			// is no news of its page, which is only starting to load.
			t.Status, t.Title = "", ""
		}
		return pt.c.conn.s.visibleTabs(pt.c.conn, l, tabs)
	}
}

func (pt *pageTab) LockActions(ctx context.Context) (func(), error) {
	return pt.tc.tab.LockActions(ctx)
}

func (pt *pageTab) Withheld(ctx context.Context) ([]string, error) { return pt.tc.res.Withheld(ctx) }

func (pt *pageTab) Runner() *actions.Runner {
	tc := pt.tc
	return actions.New(tc.page, pt, actions.Options{Timeout: pt.c.conn.s.opts.ActionTimeout, Transient: resolver.IsTransient, Setup: tc.acts, Pin: tc.pin(), Prepare: tc.background(!isPerson(pt.c.conn.agentName()), tc.res.Prepare)})
}

// Find is the Runner's finding of an element (actions.Finder).
func (pt *pageTab) Find(ctx context.Context, target string) (actions.Element, error) {
	if err := pt.c.conn.s.checkRef(ctx, pt.c, pt.tc, target); err != nil {
		return actions.Element{}, err
	}
	return pt.tc.res.Object(ctx, target)
}

// FindCall is the Runner's finding of an element with a call on it
// (actions.FindCaller).
func (pt *pageTab) FindCall(ctx context.Context, target, fn string, args ...any) (actions.Element, cdptab.Called, error) {
	if err := pt.c.conn.s.checkRef(ctx, pt.c, pt.tc, target); err != nil {
		return actions.Element{}, cdptab.Called{}, err
	}
	return pt.tc.res.ObjectCall(ctx, target, fn, args...)
}

// TraceBefore starts a traced call's step (trace.go): the picture before
// a call that acts.
func (pt *pageTab) TraceBefore(ctx context.Context) bool {
	st, need := pt.c.traceStep()
	if st == nil {
		return false
	}
	rec := pt.c.conn.s.traces.Current()
	if rec == nil {
		return false
	}
	pt.rec, pt.step, pt.acts, pt.since = rec, st, need >= pairing.NeedAct, time.Now()
	if pt.acts {
		pt.c.conn.s.traceBefore(ctx, rec, st, pt.tc)
	}
	return true
}

// TraceAfter ends the step TraceBefore started.
func (pt *pageTab) TraceAfter(ctx context.Context) {
	pt.c.conn.s.traceAfter(ctx, pt.rec, pt.step, pt.tc, pt.acts, pt.since)
}

func (pt *pageTab) ConfirmHook(ctx context.Context, r *actions.Runner, verb string, enter bool) func(context.Context, actions.Element) (bool, error) {
	return pt.c.conn.s.confirmHook(ctx, pt.c, pt.tc, r, verb, enter)
}

func (pt *pageTab) ConfirmNavigation(ctx context.Context, verb string, delta int64, to string) (string, error) {
	return pt.c.conn.s.confirmNavigation(ctx, pt.c, pt.tc, verb, delta, to)
}
