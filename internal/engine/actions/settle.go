package actions

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
)

var (
	//go:embed quiet.js
	quietJS string
	//go:embed settle.js
	settleJS string

	// quietFn runs in the page's own world, on its document.
	quietFn = aria.Page(quietJS)
	// settlePageFn is settle.js in the page's own world, where observePage
	// starts its watch.
	settlePageFn = aria.Page(settleJS)

	// settleValueJS is settle.js that also reads what the element holds
	// (value.js) when it answers: an action's read-back of the value rides
	// on the settle's call (Result.readValue).
	settleValueJS = "async (node, ns, ...args) => {\nconst r = await (" + settleJS + ")(node, ns, ...args);\n" +
		"if (r && !r.missing) { r.read = true; r.value = (" + valueJS + ")(node, ns); }\nreturn r;\n}"
)

// settle lets the page settle after an action, within s.Cap: it follows a
// navigation of the main frame the action started (to its
// DOMContentLoaded), then waits for the DOM to be quiet. With el (the
// element acted on, whose checks started observe.js) it ends after one
// animation frame when nothing happened since the action: no DOM mutation
// (that counts: mutation.js leaves out an animation that only moves),
// no navigation, no request the action started still in flight; otherwise,
// and without el, it waits for s.Quiet without DOM mutations, counted from
// the action when el is set. A document a navigation just loaded ends the
// same way after one frame when it has loaded and nothing changed it
// (quiet.js early), and no request is in flight.
// With page (no el: an action with no element, whose call started
// observe.js on the main frame's document in the page's own world:
// observePage), it ends in the same ways as with el.
// With back, the settle's first call on el also reads its value into it.
func (r *Runner) settle(w *watch, s Settle, el Element, page bool, back *readBack) (out Settled) {
	if s.Off {
		return Settled{Skipped: "off"}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(w.ctx, s.Cap)
	defer cancel()
	defer func() { out.Took = time.Since(start) }() // out is the named result: set after every return
	// After a navigation the new document is prepared for the next call
	// (Options.Prepare), in parallel with the settle's watch of it.
	var prep *preparing
	loaded := false // the next round watches a document a navigation just loaded
	follow := func(ev navEvent) {
		if r.followNavigation(ctx, w, ev, &out) {
			loaded = true
			// The element acted on went with its document: settle.js
			// would only find it gone (a round trip in a document being
			// torn down); the rounds after watch the new document.
			el, page = Element{}, false
			prep.stop()
			prep = r.prepare(ctx)
		}
	}
	// Navigation events that arrived with the action's own reply (Chrome
	// sends them before it: once the watch has caught up, whatever the
	// machine's load, they are all here). A navigation already started is
	// followed at once: a call on the old page would get no answer before
	// the new one commits.
	w.caughtUp(ctx)
	for {
		ev, ok := w.next()
		if !ok {
			break
		}
		if w.isMain(ev) && (ev.kind == navStarted || ev.kind == navCommitted) {
			follow(ev)
			break
		}
	}
	for round := 0; round < 4; round++ {
		if ctx.Err() != nil {
			stopped(ctx, &out)
			return out
		}
		q, nav, navigated := r.quietOrNavigation(ctx, w, s, el, page, back != nil, loaded, round > 0)
		loaded = false // once: after the network, the full window
		if q.Read && back != nil {
			back.value, back.read = q.Value, true
		}
		back = nil // once: the value the action left
		if !navigated && q.Early {
			// Nothing in the page: a navigation or a request the action
			// started may still be on its way. The events Chrome sent before
			// the page's answer are read first (a request the page's load
			// handler started just before it, say). (A page that changed at
			// once is not waited for past its quiet: its requests may be a
			// long poll it renews after each answer, as Syncthing's event
			// poll is, which would hold every action to the cap.)
			w.caughtUp(ctx)
			if ev, ok := w.nextNavigation(); ok {
				nav, navigated = ev, true
			} else if r.requests(ctx, w, !out.Navigated) {
				out.For = appendOnce(out.For, "network")
				continue // then the DOM quiet window
			}
		}
		if navigated {
			follow(nav)
			continue
		}
		if q.err != nil {
			if q.gone || chromeContextGone(q.err) {
				// The document went away under the observer: a navigation
				// whose events we will see now, unless it is the one
				// already followed above (then the next round watches the
				// new document; a later navigation shows in its events).
				if !out.Navigated {
					follow(navEvent{})
				}
				continue
			}
			// The tab closed or its debugger detached, most likely: the
			// call's context ends as the service hears of it, which says
			// which (its event may come just after the failed call).
			awaitEnd(ctx)
			if ctx.Err() != nil {
				stopped(ctx, &out)
			}
			return out
		}
		if !q.Early && !out.Navigated && r.frameLoads(ctx, w) {
			out.For = appendOnce(out.For, "network")
			continue // then what the frame's answer did
		}
		if q.Animated {
			out.For = appendOnce(out.For, "animations")
		}
		out.For = appendOnce(out.For, "dom quiet")
		if !q.Quiet {
			out.Capped = true
		}
		return out
	}
	return out
}

// stopped says why the settle's ctx ended before the page settled: its
// cap (Capped), or what ended the call under it (Ended: the tab closed,
// as a popup does after its form is sent; the debugger detached; the
// browser went). A dialog that opened is said by the action's result.
func stopped(ctx context.Context, out *Settled) {
	if out.Ended = endedBy(ctx); out.Ended == nil {
		out.Capped = true
	}
}

// endedBy is what ended ctx under the call, when that is neither its
// deadline nor a dialog (which the action's result says): the tab closed,
// its debugger detached, the browser went. nil otherwise.
func endedBy(ctx context.Context) error {
	cause := context.Cause(ctx)
	var d *DialogOpenError
	if cause == nil || errors.Is(cause, context.DeadlineExceeded) || errors.Is(cause, context.Canceled) || errors.As(cause, &d) {
		return nil
	}
	return cause
}

// goneWait bounds the wait for the call's context to end after a call
// of the action failed, the tab or its debugger likely gone (awaitEnd).
const goneWait = time.Second

// awaitEnd waits for ctx to end, goneWait at most: after a call of the
// action failed, the service's word that the tab closed (tab.removed, a
// detach) may come just after the failed call's answer.
func awaitEnd(ctx context.Context) {
	t := time.NewTimer(goneWait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// gone says whether err is a link's error that no retry mends: the tab,
// its debugger or the browser went (browserlink.Error's Permanent).
func gone(err error) bool {
	var p interface{ Permanent() bool }
	return errors.As(err, &p) && p.Permanent()
}

// readBack is an element's value read by the settle's call on it
// (settleValueJS): read is set when it was.
type readBack struct {
	value *string
	read  bool
}

type quietResult struct {
	Quiet     bool    `json:"quiet"`
	Early     bool    `json:"early"`    // one frame with nothing in it (settle.js)
	Animated  bool    `json:"animated"` // it waited for the short animations of what the page added or changed
	Missing   bool    `json:"missing"`  // settle.js found no watch: use quiet.js
	Mutations int     `json:"mutations"`
	Ms        float64 `json:"ms"`
	// Pending: a hidden document, not quiet yet; Since is how long it has
	// been without a mutation, in ms (see pollQuiet).
	Pending bool    `json:"pending"`
	Since   float64 `json:"since"`
	// Read and Value: what the element held (settleValueJS).
	Read  bool    `json:"read"`
	Value *string `json:"value"`
	err   error
	gone  bool // the document went away under settle.js
}

// quietOrNavigation runs the DOM-quiet observer in the main frame while
// watching for a navigation of the main frame; a navigation wins.
//
// With el it watches the element acted on (settle.js), with page the main
// frame's document observePage watches (settle.js in the page's world),
// again in a later round of the same settle (see settle.js); else, or
// when that found no watch, quiet.js on the main frame's document, with
// loaded (a document a navigation just loaded) its early end.
func (r *Runner) quietOrNavigation(ctx context.Context, w *watch, s Settle, el Element, page, readValue, loaded, again bool) (quietResult, navEvent, bool) {
	qctx, qcancel := context.WithCancel(ctx)
	defer qcancel()
	done := make(chan quietResult, 1)
	go func() {
		if el.ObjectID != "" {
			if q := r.settleOn(qctx, el, s, ctx, readValue, again); !q.Missing {
				done <- q
				return
			}
		} else if page {
			if q := r.settlePage(qctx, s, ctx, again); !q.Missing {
				done <- q
				return
			}
		}
		done <- r.quiet(qctx, s, ctx, loaded && el.ObjectID == "")
	}()
	for {
		select {
		case q := <-done:
			return q, navEvent{}, false
		case ev := <-w.nav:
			if w.isMain(ev) && (ev.kind == navStarted || ev.kind == navCommitted) {
				qcancel()
				<-done
				return quietResult{}, ev, true
			}
		}
	}
}

// capLeft is how long the page may wait in ms: the settle's cap, or less
// when capCtx ends sooner.
func capLeft(s Settle, capCtx context.Context) int64 {
	if dl, ok := capCtx.Deadline(); ok {
		return time.Until(dl).Milliseconds()
	}
	return s.Cap.Milliseconds()
}

// quiet evaluates quiet.js in the main frame's page world (early: see
// quiet.js).
func (r *Runner) quiet(ctx context.Context, s Settle, capCtx context.Context, early bool) quietResult {
	return r.quietIn(ctx, s, capCtx, func(poll bool, capMs int64) string {
		return quietFn.Call(aria.InstallNone, "document", fmt.Sprintf("%d, %d, %t, (%s\n), %t", s.Quiet.Milliseconds(), capMs, poll, mutationJS, early))
	})
}

// settlePage evaluates settle.js on the main frame's document, in the
// page's own world, where observePage started its watch.
func (r *Runner) settlePage(ctx context.Context, s Settle, capCtx context.Context, again bool) quietResult {
	return r.quietIn(ctx, s, capCtx, func(poll bool, capMs int64) string {
		return settlePageFn.Call(aria.InstallNone, "document.documentElement", fmt.Sprintf("%d, %d, %t, %t", s.Quiet.Milliseconds(), capMs, poll, again))
	})
}

// quietIn evaluates a quiet observer's expression (expr: for a poll or
// not, the ms the page may wait) in the main frame's page world, as
// pollCapped asks.
func (r *Runner) quietIn(ctx context.Context, s Settle, capCtx context.Context, expr func(poll bool, capMs int64) string) quietResult {
	return pollCapped(ctx, s, capCtx, func(poll bool, capMs int64) quietResult {
		yes := true
		res, err := cdp.Call(ctx, r.tab, cdpruntime.Evaluate, cdpruntime.EvaluateParams{
			Expression:    expr(poll, capMs),
			ReturnByValue: &yes,
			AwaitPromise:  &yes,
			Silent:        &yes,
		})
		if err != nil {
			return quietResult{err: err}
		}
		if res.ExceptionDetails != nil {
			// "Promise was collected" and the like: the document went away.
			return quietResult{err: fmt.Errorf("dom quiet: %s", exceptionText(res.ExceptionDetails))}
		}
		var q quietResult
		if res.Result != nil {
			if err := json.Unmarshal(res.Result.Value, &q); err != nil {
				return quietResult{err: fmt.Errorf("dom quiet: %w", err)}
			}
		}
		return q
	})
}

// observePage is a statement that starts observe.js on the main frame's
// document, in the page's own world, for an action op with no element (keys
// to the focused element, a wheel over the viewport), run in the action's
// call before its events: the settle then reads it (settlePage) as it reads
// an element action's, and sees what the action's own events changed (a
// dialog Escape starts fading out, which a watch started after them
// missed).
func observePage(op string) string {
	final, _ := json.Marshal(finalEvents(op)) // a list of strings
	// An empty document has no element to watch: the settle then finds no
	// watch, and falls back to quiet.js.
	return "try { (" + observeJS + "\n)(document.documentElement, null, (" + mutationJS + "\n), " + string(final) + "); } catch {}\n"
}

// pollCapped is pollQuiet for an observer that waits in the page up to
// capMs: what is left of capCtx on the first call, the settle's cap on
// the polls after it (counted in the page from the first call).
func pollCapped(ctx context.Context, s Settle, capCtx context.Context, call func(poll bool, capMs int64) quietResult) quietResult {
	capMs := capLeft(s, capCtx)
	if capMs < 1 {
		return quietResult{err: context.DeadlineExceeded}
	}
	return pollQuiet(ctx, s, func(poll bool) quietResult {
		if poll {
			capMs = s.Cap.Milliseconds()
		}
		return call(poll, capMs)
	})
}

// pollQuiet runs a quiet observer (call) until it answers: in a visible
// tab the first call waits in the page. A hidden tab's timers wait for
// Chrome's 1 s wake-ups, so there the page answers at once (Pending, with
// the time since the last mutation) and the waiting is done here: sleep
// until the quiet window would end, ask again (poll), within ctx (the
// cap: then the answer is not quiet).
func pollQuiet(ctx context.Context, s Settle, call func(poll bool) quietResult) quietResult {
	q := call(false)
	for q.err == nil && q.Pending {
		wait := max(s.Quiet-time.Duration(q.Since*float64(time.Millisecond)), 5*time.Millisecond)
		if err := sleep(ctx, wait); err != nil {
			return quietResult{Mutations: q.Mutations, Ms: q.Ms}
		}
		q = call(true)
	}
	return q
}

// settleOn runs settle.js on the element acted on.
func (r *Runner) settleOn(ctx context.Context, el Element, s Settle, capCtx context.Context, readValue, again bool) quietResult {
	fn := settleJS
	if readValue {
		fn = settleValueJS
	}
	return pollCapped(ctx, s, capCtx, func(poll bool, capMs int64) quietResult {
		var q quietResult
		if err := r.callOn(ctx, el, fn, &q, s.Quiet.Milliseconds(), capMs, poll, again); err != nil {
			var na *NotActionableError
			// The element's document went away: a navigation.
			return quietResult{err: err, gone: errors.As(err, &na) && na.Reason == NotAttached}
		}
		return q
	})
}

// requests waits, within ctx, until the requests the action started that
// are in flight now have ended (not those they lead to: a page renews
// its long poll as soon as an answer comes, as Syncthing's event poll
// does after the request the action made; the DOM quiet after this sees
// what a quick follow-up did). It reports whether there were any in
// flight, or, with ownDoc (the action's document: no navigation
// followed), any that ended since it last looked.
func (r *Runner) requests(ctx context.Context, w *watch, ownDoc bool) bool {
	ended := w.takeEnded()
	now, _ := w.inFlight(nil)
	if len(now) == 0 {
		// One that has ended already may not have been handled yet: the
		// page reads its answer, then updates the DOM (a fetch, its
		// body, a setTimeout(0): in a hidden tab that took longer than
		// the settle's first task, under load, and the next snapshot
		// missed it). Not after a navigation: a new document's own
		// loads ended before its load event, whose handlers have run.
		return ownDoc && ended > 0
	}
	defer w.takeEnded() // those are waited for now
	waitWhile(ctx, w, func() (bool, <-chan struct{}) {
		left, idle := w.inFlight(now)
		return len(left) > 0, idle
	})
	return true
}

// frameLoads waits, within ctx, for the documents the action started
// loading into the page's frames (a form posted into a hidden frame:
// Roundcube's Send, whose frame's answer tells the page how it went; a
// frame whose load event hides the page's "Loading...": Roundcube's new
// contact form), each until its frame stopped loading (or, for a frame
// whose events the tab's session does not get, its request ended), and
// reports whether there were any. Unlike its other requests they are
// waited for after a page that changed at once: a document is no poll the
// page renews.
func (r *Runner) frameLoads(ctx context.Context, w *watch) bool {
	main := w.main()
	if pending, _ := w.loadsPending(main); !pending {
		return false
	}
	waitWhile(ctx, w, func() (bool, <-chan struct{}) { return w.loadsPending(main) })
	return true
}

// waitWhile waits, within ctx, while pending says something the settle
// waits for is still on its way (its channel is closed at the next
// change), or until a navigation of the main frame starts (left for the
// settle's next round to follow).
func waitWhile(ctx context.Context, w *watch, pending func() (bool, <-chan struct{})) {
	for {
		more, changed := pending()
		if !more {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case ev := <-w.nav:
			if w.isMain(ev) && (ev.kind == navStarted || ev.kind == navCommitted) {
				w.unread(ev)
				return
			}
		}
	}
}

// followNavigation waits, within ctx, for a navigation of the main frame
// to commit and reach DOMContentLoaded (or to end: a same-document
// navigation, a download, a cancelled load). first is the event that
// announced it (the zero navEvent when only its effects were seen).
// parsed reports whether a new document committed and reached
// DOMContentLoaded (what is worth preparing for the next call).
func (r *Runner) followNavigation(ctx context.Context, w *watch, first navEvent, out *Settled) (parsed bool) {
	out.Navigated = true
	out.For = appendOnce(out.For, "navigation")
	loader := first.loaderID
	committed := first.kind == navCommitted
	if first.url != "" {
		out.URL = first.url
	}
	if committed && first.bfcache {
		return false
	}
	// A lifecycle event may be read before the commit it belongs to is
	// known (the commit came with the action's reply): remember them.
	loaded := make(map[cdp.LoaderID]bool)
	for {
		select {
		case <-ctx.Done():
			stopped(ctx, out)
			return false
		case ev := <-w.nav:
			if !w.isMain(ev) {
				continue
			}
			switch ev.kind {
			case navCommitted:
				committed, loader, out.URL = true, ev.loaderID, ev.url
				if ev.bfcache {
					return false
				}
				if loaded[loader] {
					out.For = appendOnce(out.For, "domcontentloaded")
					return true
				}
			case navSameDoc:
				out.URL = ev.url
				if !committed {
					return false
				}
			case navStopped:
				if !committed {
					return false // no new document: a download, or the load was cancelled
				}
			case navLifecycle:
				if ev.name != "DOMContentLoaded" && ev.name != "load" {
					continue
				}
				if committed && ev.loaderID == loader {
					out.For = appendOnce(out.For, "domcontentloaded")
					return true
				}
				loaded[ev.loaderID] = true
			}
		}
	}
}

// nextNavigation returns the first main-frame navigation start or commit
// among the events that already arrived, if any.
func (w *watch) nextNavigation() (navEvent, bool) {
	for {
		ev, ok := w.next()
		if !ok {
			return navEvent{}, false
		}
		if w.isMain(ev) && (ev.kind == navStarted || ev.kind == navCommitted) {
			return ev, true
		}
	}
}

// unread puts an event back for the next reader (dropped when full).
func (w *watch) unread(ev navEvent) {
	select {
	case w.nav <- ev:
	default:
	}
}

// next returns a navigation event that already arrived, if any.
func (w *watch) next() (navEvent, bool) {
	select {
	case ev := <-w.nav:
		return ev, true
	default:
		return navEvent{}, false
	}
}

// isMain reports whether ev is about the main frame (navCommitted events
// are main-frame only already).
func (w *watch) isMain(ev navEvent) bool {
	main := w.main()
	return ev.kind == navCommitted || main != "" && ev.frameID == main
}

// main is the main frame's ID once the watch is ready, "" before.
func (w *watch) main() cdp.FrameID {
	select {
	case <-w.ready:
		return w.mainFrame
	default:
		return ""
	}
}

func appendOnce(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}
