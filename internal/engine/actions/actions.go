// Package actions does what a person does with a page, over CDP: it
// clicks, types, fills, selects, checks, drags, uploads, scrolls, focuses,
// takes screenshots, waits, navigates, answers JavaScript dialogs and
// evaluates scripts. Before acting on an element it checks what Playwright
// checks (attached, visible, stable, enabled, editable, receives events at
// the action point) and waits for those checks with Playwright's backoff
// until a timeout; after acting it lets the page settle for a short,
// capped time and says what it waited for.
//
// A Runner works on one tab through the cdp.Session seam (the extension
// relay in production, a direct DevTools connection in tests), and finds
// elements through a Finder (the resolver in production).
package actions

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/internal/link/cdptab"
)

// Tab is the tab a Runner acts on: a cdptab.Tab whose sessions also stream
// events (the watchers of navigation, dialogs and settling). *cdptab.Page
// satisfies it.
type Tab interface {
	cdptab.Tab
	cdptab.Streamer
}

var _ Tab = (*cdptab.Page)(nil)

// Element is one element found by a Finder: a remote object in the
// session of the element's frame (what resolver.Object is too).
type Element = cdptab.Object

// Finder finds the one element a target (a locator or a @ref) names. Its
// errors say whether waiting may help: Options.Transient decides.
type Finder interface {
	Find(ctx context.Context, target string) (Element, error)
}

// FindCaller is a Finder that can also run a function on the element it
// finds in the same call to the page (resolver.Resolver.ObjectCall): fn
// is a JavaScript function's source with the calling convention of
// package aria (called as fn(el, ns, ...args): the element, the page
// module, args), awaited. The element may be boxed (cdptab.Object.Boxed).
// An exception of fn is in the Called, not an error.
type FindCaller interface {
	Finder
	FindCall(ctx context.Context, target, fn string, args ...any) (Element, cdptab.Called, error)
}

// FindCallFunc is the function form of FindCaller.FindCall.
type FindCallFunc func(ctx context.Context, target, fn string, args ...any) (Element, cdptab.Called, error)

// FindCallers makes a FindCaller of its two functions (a resolver's Object
// and ObjectCall).
func FindCallers(find FinderFunc, call FindCallFunc) FindCaller { return findCaller{find, call} }

type findCaller struct {
	find FinderFunc
	call FindCallFunc
}

func (f findCaller) Find(ctx context.Context, target string) (Element, error) {
	return f.find(ctx, target)
}

func (f findCaller) FindCall(ctx context.Context, target, fn string, args ...any) (Element, cdptab.Called, error) {
	return f.call(ctx, target, fn, args...)
}

// FinderFunc adapts a function to Finder.
type FinderFunc func(ctx context.Context, target string) (Element, error)

// Find calls f.
func (f FinderFunc) Find(ctx context.Context, target string) (Element, error) { return f(ctx, target) }

// Options tune a Runner. The zero value is usable.
type Options struct {
	// Timeout is the default auto-wait of actions and waits (5 s).
	Timeout time.Duration
	// NavigationTimeout is the default wait of goto, back, forward and
	// reload (20 s).
	NavigationTimeout time.Duration
	// Settle is the default settle after an action.
	Settle Settle
	// Transient reports whether a Finder error may clear by waiting
	// (default: the error, or one it wraps, has a Transient() bool method
	// that returns true).
	Transient func(error) bool
	// Setup is the tab's per-tab setup, shared by the Runners of one tab
	// so that an action does not send it again (a Runner of its own when
	// nil).
	Setup *TabSetup
	// GOOS is the browser's operating system, for ControlOrMeta and the
	// editing commands of macOS (default: runtime.GOOS).
	GOOS string
	// Pin, when set, holds the evaluations in the main frame's page world
	// to the documents the caller may reach (see Pin).
	Pin *Pin
	// Prepare, when set, readies what the first call on a new document
	// of the main frame needs (resolver.Resolver.Prepare: egohost's world
	// and its module). It runs in the background as soon as a navigation
	// the Runner waits for commits (goto, back, forward, reload, and the
	// settle of an action that navigated), in parallel with the wait for
	// the load or the quiet page, and may outlast the call (bounded by
	// prepareTimeout): the Runner does not wait for it (the caller's next
	// resolution does, resolver.Resolver.Prepare). Its error is ignored:
	// the first call then does the work itself, as it would without it.
	Prepare func(ctx context.Context) error
}

// Settle says how long to let the page settle after an action.
type Settle struct {
	// Off skips the settle.
	Off bool
	// Quiet is how long the DOM must go without mutations (100 ms).
	Quiet time.Duration
	// Cap bounds the whole settle, a navigation included (2 s).
	Cap time.Duration
}

func (s Settle) withDefaults() Settle {
	if s.Quiet <= 0 {
		s.Quiet = 100 * time.Millisecond
	}
	if s.Cap <= 0 {
		s.Cap = 2 * time.Second
	}
	return s
}

// Runner acts on one tab. It is safe for concurrent use, but actions on
// one tab should not overlap (as a person's would not).
type Runner struct {
	tab   Tab
	find  Finder
	opts  Options
	kb    *keyboard
	setup *TabSetup
}

// New returns a Runner for tab that finds elements with find (which may be
// nil when only tab-level operations are used).
func New(tab Tab, find Finder, opts Options) *Runner {
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.NavigationTimeout <= 0 {
		opts.NavigationTimeout = 20 * time.Second
	}
	opts.Settle = opts.Settle.withDefaults()
	if opts.Transient == nil {
		opts.Transient = hasTransient
	}
	if opts.GOOS == "" {
		opts.GOOS = runtime.GOOS
	}
	setup := opts.Setup
	if setup == nil {
		setup = &TabSetup{}
	}
	return &Runner{tab: tab, find: find, opts: opts, kb: usKeyboard(), setup: setup}
}

// session returns the CDP session of an element's frame.
func (r *Runner) session(id target.SessionID) cdp.Session {
	if id == "" {
		return r.tab
	}
	return r.tab.Child(id)
}

// transient reports whether an attempt's error may clear by waiting.
func (r *Runner) transient(err error) bool {
	return hasTransient(err) || r.opts.Transient(err)
}

// hasTransient is the default Options.Transient.
func hasTransient(err error) bool {
	var t interface{ Transient() bool }
	return errors.As(err, &t) && t.Transient()
}

// timeout returns d, or def when d is not positive.
func timeout(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
