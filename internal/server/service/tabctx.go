package service

import (
	"context"
	"errors"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// tabContext is everything a page-level method needs about its tab.
type tabContext struct {
	link  *link
	tabID int
	tab   *page.Tab          // the tab's engine
	page  *cdptab.Page       // main session + out-of-process frames
	snap  *snapshot.Tab      // the tab's refs and previous snapshot
	res   *resolver.Resolver // refs and locators → elements (Within the caller's reach)
	acts  *actions.TabSetup  // the actions' per-tab setup
	// reach is what the caller may reach of the tab's documents (nil:
	// everything), judged where a call reads or acts (reachFor).
	reach cdptab.Reach
}

// pin holds a Runner's page-world evaluations to the caller's reach
// (nil when it reaches everything), expecting the tab's URL as the
// service last heard it.
func (tc *tabContext) pin() *actions.Pin {
	if tc.reach == nil {
		return nil
	}
	url, _ := tc.link.URLs.Get(tc.tabID)
	return actions.NewPin(url, tc.reach)
}

// tabContext resolves a target to its tab and opens the tab's page.
func (s *Service) tabContext(ctx context.Context, c *call, target protocol.Target) (*tabContext, error) {
	l, id, err := s.target(ctx, c, target)
	if err != nil {
		return nil, err
	}
	tab, eng, err := l.Tabs.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	tc := &tabContext{link: l, tabID: id, tab: tab, page: eng.Page, snap: eng.Snap, res: eng.Res, acts: eng.Acts, reach: s.reachFor(c.conn.grant)}
	if tc.reach != nil {
		tc.res = eng.Res.Within(tc.reach)
	}
	return tc, nil
}

// tabContextWithin is tabContext bounded by a call's own timeout (the
// default action timeout when zero): reaching the tab (the attach, and the
// wait for a tab that answers nothing since the attach) fails within it.
func (s *Service) tabContextWithin(ctx context.Context, c *call, target protocol.Target, op string, timeout time.Duration) (*tabContext, error) {
	if timeout <= 0 {
		timeout = s.opts.ActionTimeout
	}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tc, err := s.tabContext(sctx, c, target)
	err = wireerr.FromLink(err)
	if err != nil && ctx.Err() == nil && sctx.Err() != nil {
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code == protocol.CodeTimeout {
			return nil, protocol.Errorf(protocol.CodeTimeout, "%s: tab not reached within %v: %v", op, timeout, err)
		}
	}
	return tc, err
}

// dialogFreeTab is tabContextWithin for a method that reads or changes
// the page: it fails at once when a dialog blocks the tab (checkDialog).
func (s *Service) dialogFreeTab(ctx context.Context, c *call, target protocol.Target, op string, timeout time.Duration) (*tabContext, error) {
	tc, err := s.tabContextWithin(ctx, c, target, op, timeout)
	if err != nil {
		return nil, err
	}
	if err := tc.checkDialog(op); err != nil {
		return nil, err
	}
	return tc, nil
}

// checker is the params of a method that check themselves (protocol's
// Check methods), op naming the method in their errors.
type checker interface {
	Check(op string) error
}

// pageTab checks p, the params of method, which reads or changes the
// page, and reaches its tab (dialogFreeTab, within timeout).
func (s *Service) pageTab(ctx context.Context, c *call, method string, p checker, target protocol.Target, timeout time.Duration) (*tabContext, error) {
	if err := p.Check(method); err != nil {
		return nil, err
	}
	return s.dialogFreeTab(ctx, c, target, method, timeout)
}

// checkDialog fails at once when a JavaScript dialog blocks the tab: the
// page would answer nothing until someone answers the dialog.
func (tc *tabContext) checkDialog(op string) error {
	if d := tc.seen(tc.link.Tabs.Dialog(tc.tabID)); d != nil {
		return protocol.Errorf(protocol.CodeDialogOpen, "%s: a %s dialog blocks tab %d (%q): answer it with `egohost dialog accept|dismiss`", op, d.Type, tc.tabID, d.Message).With("dialog", d)
	}
	return nil
}

// seen is a dialog as the caller may see it (seenWithin its reach).
func (tc *tabContext) seen(d *protocol.Dialog) *protocol.Dialog { return seenWithin(tc.reach, d) }

// seenWithin is a dialog as a caller with reach (nil: everything) may
// see it: what a document it may not reach wrote in it (the message, the
// default prompt, the URL) is withheld.
func seenWithin(reach cdptab.Reach, d *protocol.Dialog) *protocol.Dialog {
	if d == nil || reach == nil {
		return d
	}
	if ok, _ := reach(d.URL, ""); ok {
		return d
	}
	return &protocol.Dialog{Type: d.Type, Message: "(withheld: opened by " + cdptab.OriginOf(d.URL, "") + ", which this agent may not reach)"}
}

// background makes prepare (the resolver's Prepare of a new document,
// which the Runner starts and does not wait for) the tab's Background
// work: it outlives the call (within actions' bound) but not the person's
// takeover of the tab's space: stopAgentsIn ends it, and one an agent's
// call starts on a tab the person holds does nothing. It registers before
// it looks at the space, so a takeover either finds it running or comes
// before the look.
func (tc *tabContext) background(agent bool, prepare func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		return tc.tab.Background(ctx, func(ctx context.Context) error {
			if agent && tc.link.Held(tc.tabID) {
				return nil
			}
			return prepare(ctx)
		})
	}
}
