// Package pagemethods answers the agents' page methods (PROTOCOL.md §3.1,
// §3.4): the element actions (click, hover, check, uncheck, focus, fill,
// type, press, select, drag, scroll, and form.fill), goto, back, forward,
// reload, eval, screenshot, dialog and wait. It runs each on its tab with
// an actions.Runner (Run): the retry of a call nothing of which reached
// the page, the tab blocked by a dialog, the end of the call when its tab
// closes or its debugger detaches, the trace's pictures and the caller's
// checks of where an action led. The service gives it the tab with the
// caller's access checks applied (Tab), the caller's judgements and the
// rest of what a handler reaches (Call), and its settings (Service); the
// mapping between the wire and the engine is internal/server/actwire's.
package pagemethods

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/filegate"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// Tab is the tab a call runs on, opened for its caller: the service's tab
// context with the caller's access checks applied (the documents it may
// reach, the refs of its own tabs, its confirmations and its trace).
type Tab interface {
	// ID is the tab's ID.
	ID() int
	// Browser is the ID of the tab's browser.
	Browser() string
	// Subscribe listens to the tab's browser link; the func it returns
	// ends that.
	Subscribe(sub *browserlink.Subscriber) (unsubscribe func())
	// CheckDialog fails at once when a JavaScript dialog blocks the tab.
	CheckDialog(op string) error
	// Dialog is the dialog the tab's record holds open (nil: none), as
	// Chrome reported it.
	Dialog() *protocol.Dialog
	// Seen is a dialog as the caller may see it (what a document it may
	// not reach wrote in it is withheld).
	Seen(d *protocol.Dialog) *protocol.Dialog
	// LockActions takes the tab's action lock: one element action at a
	// time per tab.
	LockActions(ctx context.Context) (unlock func(), err error)
	// Withheld are the origins of the frames the tab shows that the
	// caller may not reach.
	Withheld(ctx context.Context) ([]string, error)
	// Limited reports whether the caller may reach only some of the tab's
	// documents (origin rules or spaces).
	Limited() bool
	// Runner is the tab's actions.Runner for the call: it finds only what
	// the caller may reach.
	Runner() *actions.Runner
	// WatchOpened starts watching for the tabs this tab opens (a link
	// with target=_blank, window.open); the func it returns ends the
	// watch and gives those the caller may reach, waiting up to wait for
	// a window the page announced (ctx bounds it too).
	WatchOpened() (done func(ctx context.Context, wait time.Duration) []protocol.Tab)
	// TraceBefore starts the call's step in the trace that records it, if
	// one does (the picture before a call that acts): false when none
	// does. TraceAfter then ends it (the picture after, what the tab
	// logged meanwhile).
	TraceBefore(ctx context.Context) bool
	TraceAfter(ctx context.Context)
	// ConfirmHook is the actions' Confirm of an element action of the call
	// worded verb (enter: a press of Enter, else a click), nil when its
	// agent's policy can ask nothing of it.
	ConfirmHook(ctx context.Context, r *actions.Runner, verb string, enter bool) func(context.Context, actions.Element) (bool, error)
	// ConfirmNavigation asks the person, when the call's policy names it,
	// before the tab loads a page of another origin: to is goto's URL, or
	// "" for the history entry delta away. It returns the origin judged
	// ("": no such history entry).
	ConfirmNavigation(ctx context.Context, verb string, delta int64, to string) (string, error)
}

// Link is a browser's link as the dialog method probes a tab it has not
// opened.
type Link interface {
	// Reachable fails (dialog_open) while the tab answers nothing since
	// the attach.
	Reachable(ctx context.Context, tab int) error
	// DismissUnreported dismisses the dialog Chrome did not report
	// (actions.DismissUnreported).
	DismissUnreported(ctx context.Context, tab int, d time.Duration) (*actions.DialogResult, error)
}

// Call is one call of a page method: the tab it opens for its caller
// (T, the service's), and the service's judgements of that caller.
type Call[T Tab] interface {
	// Tab resolves a target to its tab and opens it for the caller, within
	// timeout (the attach, and the wait for a tab that answers nothing).
	Tab(ctx context.Context, t protocol.Target, op string, timeout time.Duration) (T, error)
	// Link resolves a target to its browser's link and tab, with the
	// caller's access checks, without opening the tab.
	Link(ctx context.Context, t protocol.Target) (Link, int, error)
	// CheckDestination refuses a URL the caller may not load.
	CheckDestination(url string) error
	// CheckLanded refuses the document a navigation of the caller's
	// ended on when the caller may not reach it.
	CheckLanded(tab int, url string) error
	// MayAsk reports whether the call may wait for the person about an
	// act of kind.
	MayAsk(kind confirm.Kind) bool
	// TraceBox notes, for a traced call, the element it acted on.
	TraceBox(b *actions.Box)
	// NeedsFirstTab reports whether a goto without a tab opens the
	// caller's space's first tab in browser.
	NeedsFirstTab(ctx context.Context, browser string) bool
	// OpenTab is tabs.open.
	OpenTab(ctx context.Context, p protocol.TabsOpenParams) (protocol.TabResult, error)
	// Snapshot is the snapshot method.
	Snapshot(ctx context.Context, p protocol.SnapshotParams) (protocol.SnapshotResult, error)
	// CreateOutput makes the new file a screenshot is written to, under
	// the caller's file rules, and notes it for the audit log.
	CreateOutput(path string) (*filegate.Output, error)
}

// Service is what the methods need of the service beyond a call.
type Service interface {
	// AnswersDialogs reports whether method op answers a JavaScript
	// dialog, so that a tab a dialog blocks is where it works.
	AnswersDialogs(op string) bool
	// ActionTimeout is the default action timeout (timeouts.action).
	ActionTimeout() time.Duration
}

// Methods runs the page methods on the tabs T of a service. It is a small
// value: a copy runs the same.
type Methods[T Tab] struct {
	svc Service
	log *slog.Logger
}

// New returns the page methods of svc; log says when a call runs again
// (Run).
func New[T Tab](svc Service, log *slog.Logger) Methods[T] { return Methods[T]{svc: svc, log: log} }

// unreportedProbe bounds how long the dialog method waits for a tab's
// first answer before it treats the tab as blocked by a dialog Chrome did
// not report.
const unreportedProbe = time.Second

// dialogUnreported answers the dialog method on a tab that has answered
// nothing since the attach: a dialog that opened before egohost attached,
// which only a navigation closes (actions.DismissUnreported). done is
// false when the tab answers: the ordinary path handles it.
func dialogUnreported[T Tab](ctx context.Context, c Call[T], t protocol.Target, timeout time.Duration) (any, bool, error) {
	l, id, err := c.Link(ctx, t)
	if err != nil {
		return nil, true, err
	}
	pctx, cancel := context.WithTimeout(ctx, min(timeout, unreportedProbe))
	err = l.Reachable(pctx, id)
	cancel()
	var pe *protocol.Error
	if err == nil || !errors.As(err, &pe) || pe.Code != protocol.CodeDialogOpen {
		return nil, false, nil
	}
	res, err := l.DismissUnreported(ctx, id, timeout)
	if err != nil {
		return nil, true, wireerr.Classify(err)
	}
	return protocol.DialogResult{Tab: id, Accepted: res.Accepted, Dialog: actwire.Dialog(res.Dialog), TookMs: actwire.TookMs(res.Took), Unreported: true}, true, nil
}

// Run runs fn with an actions.Runner on the target's tab, and once more
// when nothing the first run sent reached the page (browserlink.Again: a
// static call, so that fn and the closures of a call stay off the heap).
// The context fn gets ends, with a clear cause, when the tab is closed, its debugger
// detached or the browser gone, so nothing waits on a dead tab. timeout
// is the call's own timeout (the default action timeout when zero): it
// bounds reaching the tab too (the attach, and the wait for a tab that
// answers nothing), so a blocked tab fails within it.
func (m Methods[T]) Run(ctx context.Context, c Call[T], t protocol.Target, op string, timeout time.Duration, fn func(ctx context.Context, tab T, r *actions.Runner) (any, error)) (any, error) {
	return browserlink.Again(ctx, m.log, op, func(ctx context.Context) (any, error) { return m.runOnce(ctx, c, t, op, timeout, fn) })
}

// runOnce is one run of Run.
func (m Methods[T]) runOnce(ctx context.Context, c Call[T], t protocol.Target, op string, timeout time.Duration, fn func(ctx context.Context, tab T, r *actions.Runner) (any, error)) (any, error) {
	if timeout <= 0 {
		timeout = m.svc.ActionTimeout()
	}
	answersDialogs := m.svc.AnswersDialogs(op) // a tab a dialog blocks is where it works
	if answersDialogs {
		res, done, err := dialogUnreported(ctx, c, t, timeout)
		if done {
			return res, err
		}
	}
	tab, err := c.Tab(ctx, t, op, timeout)
	if err != nil {
		return nil, err
	}
	if !answersDialogs {
		if err := tab.CheckDialog(op); err != nil {
			return nil, err
		}
	}
	gctx, stop := guard(ctx, tab, op)
	defer stop()
	// A ref another agent's tab handed out is not_in_space before anything
	// reaches the page, on both ways of finding (Tab.Runner).
	r := tab.Runner()
	// A traced call: pictures before and after it acts, and what the tab
	// logged meanwhile.
	if tab.TraceBefore(ctx) {
		defer tab.TraceAfter(ctx)
	}
	res, err := fn(gctx, tab, r)
	if err != nil {
		err = wireerr.Classify(err)
		var cause *protocol.Error
		if ctx.Err() == nil && wireerr.CodeOf(err) == protocol.CodeTimeout && errors.As(context.Cause(gctx), &cause) {
			// The tab closed, its debugger detached or the browser went,
			// which ended the call: say that, not "timed out".
			return nil, cause
		}
		return nil, err
	}
	return res, nil
}

// guard returns a context that ends when the tab is closed or detached,
// or the browser link goes; stop releases it.
func guard(ctx context.Context, tab Tab, op string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	id := tab.ID()
	unsubscribe := tab.Subscribe(&browserlink.Subscriber{
		Filter: func(in *extwire.Message) bool {
			return (in.Event == "tab.removed" || in.Event == "detached") && in.TabID == id
		},
		Deliver: func(in *extwire.Message) {
			if in.Event == "tab.removed" || in.Reason == "target_closed" {
				// Chrome detaches a closing tab's debugger (target_closed)
				// before the extension hears of the tab's removal.
				cancel(protocol.Errorf(protocol.CodeTabNotFound, "%s: tab %d was closed", op, id))
				return
			}
			cancel(protocol.Errorf(protocol.CodeDetached, "%s: the debugger was detached from tab %d (%s)", op, id, in.Reason).With("reason", in.Reason))
		},
		Done: func() {
			cancel(protocol.Errorf(protocol.CodeBrowserGone, "%s: browser %s disconnected", op, tab.Browser()))
		},
	})
	return ctx, func() {
		cancel(nil)
		unsubscribe()
	}
}
