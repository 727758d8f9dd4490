package service

import (
	"context"
	"slices"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/server/confirmmethods"
	"github.com/egohost/egohost/protocol"
)

// Confirmations (issue 26 §1, README "Confirmations"): an act of a paired
// agent that its policy (agents.confirm) names waits, at the moment of
// acting and bound to the element it acts on, for the person's yes — in
// the popup of the tab's browser, or `egohost confirm allow|deny ID`.
// The owner and the person are never asked. The asks and the methods
// that answer them (confirm.*, popup.confirm.*) run in
// internal/server/confirmmethods: a call is its Call (confirmingCall), a
// popup's browser its Popup, a tab context its Tab (confirmTab), and
// confirmService its Service; the methods that act ask through the hooks
// below.

// confirmKinds lists the kinds of a method that the agent's policy may
// ask about on some origin: none (the common case) costs the call no
// round trip to the page.
func (s *Service) confirmKinds(g grant, method string) []confirm.Kind {
	if g.kind != grantPaired {
		return nil // the owner and the person are never asked
	}
	return s.opts.Confirm.KindsOf(g.name, s.methods[method].kinds)
}

// confirmWait is how long an ask waits for the person.
func confirmWait(o Options) time.Duration {
	if o.ConfirmTimeout > 0 {
		return o.ConfirmTimeout
	}
	return 60 * time.Second
}

// confirmMethods is the confirmations on s.
func (s *Service) confirmMethods() *confirmmethods.Methods {
	return confirmmethods.New(confirmService{s}, s.log)
}

// confirmCallOf is c as the confirmations see a call.
func confirmCallOf(c *call) confirmmethods.Call { return confirmingCall{c} }

// confirmPopup is l as the confirmations see a popup's browser.
func confirmPopup(l *link) confirmmethods.Popup { return l }

// mayAsk reports whether the call may wait for the person about an act of
// kind (on some origin): what a method checks before it reads anything
// more to word or judge the act. Next to free when it may not.
func (s *Service) mayAsk(c *call, kind confirm.Kind) bool {
	return slices.Contains(c.kinds, kind)
}

// confirmCall asks the person about an act of kind of call c on actURL's
// origin, when its agent's policy names it there (confirmmethods'
// Confirm): nil when nothing asks or the person said yes.
func (s *Service) confirmCall(ctx context.Context, c *call, kind confirm.Kind, actURL string, q protocol.Confirm) error {
	return s.confirmMethods().Confirm(ctx, confirmingCall{c}, kind, actURL, q)
}

// confirmHook is the actions' Confirm of an element action of call c on
// tc's tab (confirmmethods' Hook), nil when its agent's policy can ask
// nothing of it.
func (s *Service) confirmHook(_ context.Context, c *call, tc *tabContext, r *actions.Runner, verb string, enter bool, always ...confirm.Kind) func(context.Context, actions.Element) (bool, error) {
	return s.confirmMethods().Hook(confirmingCall{c}, confirmTab{tc}, r, verb, enter, always...)
}

// confirmNavigation asks the person before tc's tab loads a page of
// another origin (confirmmethods' Navigation), and returns the origin it
// judged.
func (s *Service) confirmNavigation(ctx context.Context, c *call, tc *tabContext, verb string, delta int64, to string) (string, error) {
	return s.confirmMethods().Navigation(ctx, confirmingCall{c}, confirmTab{tc}, verb, delta, to)
}

// confirmingCall is a call as the confirmations see it.
type confirmingCall struct{ c *call }

func (cc confirmingCall) Agent() string                    { return cc.c.conn.grant.name }
func (cc confirmingCall) Method() string                   { return cc.c.method }
func (cc confirmingCall) Kinds() []confirm.Kind            { return cc.c.kinds }
func (cc confirmingCall) AuditName() string                { return cc.c.conn.auditName() }
func (cc confirmingCall) Notify(method string, params any) { cc.c.conn.Notify(method, params) }

// confirmTab is a tab context as the confirmations see it.
type confirmTab struct{ tc *tabContext }

func (ct confirmTab) Browser() string   { return ct.tc.link.ID }
func (ct confirmTab) ID() int           { return ct.tc.tabID }
func (ct confirmTab) Page() cdp.Session { return ct.tc.page }

// confirmService is the service as the confirmations need it.
type confirmService struct{ s *Service }

func (cs confirmService) Policy() confirm.Policy { return cs.s.opts.Confirm }
func (cs confirmService) Asks() *asks.Store      { return cs.s.confirms }
func (cs confirmService) Wait() time.Duration    { return confirmWait(cs.s.opts) }
func (cs confirmService) Audit(e audit.Entry)    { cs.s.writeAudit(e) }

func (cs confirmService) NotifyBrowser(browser, topic string, params any) error {
	if l := cs.s.hub.Get(browser); l != nil {
		return l.Notify(topic, params)
	}
	return nil
}
