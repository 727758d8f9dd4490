package actions

import (
	"context"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/link/cdptab"
)

// Dialog is a JavaScript dialog (alert, confirm, prompt, beforeunload).
type Dialog struct {
	Type          string `json:"type"`
	Message       string `json:"message"`
	DefaultPrompt string `json:"defaultPrompt,omitempty"`
	URL           string `json:"url,omitempty"`
}

// navEvent is one main-frame navigation event, in the order the watch saw
// them on its channel.
type navEvent struct {
	kind     navKind
	frameID  cdp.FrameID
	loaderID cdp.LoaderID
	url      string
	name     string // lifecycle event name
	bfcache  bool   // a back/forward-cache restore (no new lifecycle)
}

type navKind uint8

const (
	navStarted   navKind = iota + 1 // a navigation was requested or started
	navCommitted                    // a new document committed (frameNavigated)
	navSameDoc                      // a same-document navigation (hash, pushState)
	navLifecycle                    // a lifecycle event (DOMContentLoaded, load, networkIdle…)
	navStopped                      // the frame stopped loading (also when a navigation became a download)
)

// navBuffer is how many navigation events a watch keeps for its reader
// (the settle); a navigation brings a dozen or so.
const navBuffer = 128

// watch follows a tab's page events for the length of one call: the
// JavaScript dialogs (one ends the call's context) and the navigations of
// the main frame. Its goroutines end at close.
type watch struct {
	ctx    context.Context // ends with the parent or when a dialog opens
	cancel context.CancelCauseFunc

	ready     chan struct{} // the Page domain answered (or failed to)
	mainFrame cdp.FrameID   // set before ready closes
	loaderID  cdp.LoaderID  // the main frame's document when the watch started
	url       string
	setupErr  error

	nav chan navEvent
	// leaving is closed at the first navigation of the main frame that
	// starts (or commits) after arm: the action's document is going away.
	leaving   chan struct{}
	leaveOnce sync.Once

	mu     sync.Mutex
	dialog *Dialog
	// armed is set when the action is dispatched: the requests started
	// from then on are the action's; reqs holds those still in flight,
	// and idle is signalled when a request ends.
	armed bool
	reqs  map[network.RequestID]cdp.FrameID // by the frame that made each
	idle  chan struct{}
	// loads are the documents of those (a form posted into a frame),
	// by the frame they load into: never a poll the page renews.
	// docFrames are those frames; loading, the frames that started
	// loading after arm and have not stopped (frameStartedLoading to
	// frameStoppedLoading: their subresources and load event).
	loads     map[network.RequestID]cdp.FrameID
	docFrames map[cdp.FrameID]bool
	loading   map[cdp.FrameID]bool
	// ended counts the action's requests that ended since takeEnded
	// last looked.
	ended int
	// answered are the addresses (without their query) of the answers
	// the page got while the watch ran to requests the action did not
	// start: a request to one of them after arm renews what the page
	// already had out (a long poll, answered and asked again at once:
	// Syncthing's events), which the action's settle does not wait for.
	answered map[string]bool

	// catchUp asks the event reader to handle every event it has received
	// (see caughtUp).
	catchUp chan chan struct{}

	stops []func()
	wg    sync.WaitGroup
}

// watch subscribes to the tab's page events and turns the Page domain and
// its lifecycle events on, in the background: call wait to be sure. It
// reads the main frame's current document, and has its lifecycle events
// sent again (for the waits on the load of the current document).
func (r *Runner) watch(ctx context.Context, op string) *watch {
	return r.watchWith(ctx, op, watchNeeds{document: true})
}

// actionWatch is watch for an action: the main frame's current document is
// not needed (its ID is cached per tab), and the Network domain is on, so
// that the settle sees the requests the action starts.
func (r *Runner) actionWatch(ctx context.Context, op string) *watch {
	return r.watchWith(ctx, op, watchNeeds{network: true})
}

// pageWatch is watch for a call that needs neither the current document
// nor the requests: an evaluation (its dialogs), a navigation to a new
// document that Page.navigate names.
func (r *Runner) pageWatch(ctx context.Context, op string) *watch {
	return r.watchWith(ctx, op, watchNeeds{})
}

// watchNeeds says what a watch reads besides the page's events.
type watchNeeds struct {
	document bool // the main frame's current document, and its lifecycle events again
	network  bool // the requests (the Network domain's events)
}

func (r *Runner) watchWith(ctx context.Context, op string, needs watchNeeds) *watch {
	wctx, cancel := context.WithCancelCause(ctx)
	w := &watch{ctx: wctx, cancel: cancel, ready: make(chan struct{}), nav: make(chan navEvent, navBuffer), leaving: make(chan struct{}), reqs: make(map[network.RequestID]cdp.FrameID), loads: make(map[network.RequestID]cdp.FrameID), docFrames: make(map[cdp.FrameID]bool), loading: make(map[cdp.FrameID]bool), catchUp: make(chan chan struct{})}
	// One stream for every method a watch needs, in arrival order: a call
	// holds one small subscription, not one per method.
	methods := []string{
		page.JavascriptDialogOpening.Method,
		page.FrameRequestedNavigation.Method,
		page.FrameStartedNavigating.Method,
		page.FrameNavigated.Method,
		page.NavigatedWithinDocument.Method,
		page.LifecycleEvent.Method,
		page.FrameStoppedLoading.Method,
	}
	if needs.network {
		methods = append(methods, network.RequestWillBeSent.Method, network.ResponseReceived.Method, network.LoadingFinished.Method, network.LoadingFailed.Method,
			page.FrameStartedLoading.Method, page.FrameDetached.Method) // the frames the action loads (frameLoads)
	}
	events, stop := r.tab.Stream(methods...)
	w.stops = append(w.stops, stop)

	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		defer close(w.ready)
		if err := r.setup.enable(wctx, r.tab, needs.network, needs.document); err != nil {
			w.setupErr = err
			return
		}
		if frame := r.setup.frame(); frame != "" && !needs.document {
			w.mainFrame = frame
			return
		}
		tree, err := cdp.Call(wctx, r.tab, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			w.setupErr = err
			return
		}
		if tree.FrameTree != nil && tree.FrameTree.Frame != nil {
			w.mainFrame, w.loaderID, w.url = tree.FrameTree.Frame.ID, tree.FrameTree.Frame.LoaderID, tree.FrameTree.Frame.URL
			r.setup.setFrame(w.mainFrame)
		}
	}()
	go func() {
		defer w.wg.Done()
		handle := w.handleEvents(op)
		for {
			var e cdptab.Event
			select {
			case <-wctx.Done():
				return
			case done := <-w.catchUp:
				// Every event received so far, then the answer.
				for caught := false; !caught; {
					select {
					case ev, ok := <-events:
						if !ok || !handle(ev) {
							close(done)
							return
						}
					default:
						caught = true
					}
				}
				close(done)
				continue
			case ev, ok := <-events:
				if !ok {
					return
				}
				e = ev
			}
			if !handle(e) {
				return
			}
		}
	}()
	return w
}

// handleEvents returns the watch's event handler: it reports whether the
// watch goes on (a dialog ends it).
func (w *watch) handleEvents(op string) func(e cdptab.Event) bool {
	put := func(e navEvent) {
		if e.kind == navStarted || e.kind == navCommitted {
			w.noteLeaving(e)
		}
		select {
		case w.nav <- e:
		default: // nobody reads: drop
		}
	}
	return func(e cdptab.Event) bool {
		switch e.Method {
		case page.JavascriptDialogOpening.Method:
			if d, ok := dialogOf(e.Params); ok {
				w.mu.Lock()
				w.dialog = d
				w.mu.Unlock()
				w.cancel(&DialogOpenError{Op: op, Dialog: *d})
				return false
			}
		case page.FrameRequestedNavigation.Method:
			var ev page.EventFrameRequestedNavigation
			if jsonv2.Unmarshal(e.Params, &ev) == nil {
				put(navEvent{kind: navStarted, frameID: ev.FrameID, url: ev.URL})
			}
		case page.FrameStartedNavigating.Method:
			var ev page.EventFrameStartedNavigating
			if jsonv2.Unmarshal(e.Params, &ev) == nil {
				switch ev.NavigationType {
				case page.FrameStartedNavigatingNavigationTypeSameDocument, page.FrameStartedNavigatingNavigationTypeHistorySameDocument:
					// the navigatedWithinDocument that follows says it all
				default:
					put(navEvent{kind: navStarted, frameID: ev.FrameID, loaderID: ev.LoaderID, url: ev.URL})
				}
			}
		case page.FrameNavigated.Method:
			var ev page.EventFrameNavigated
			if jsonv2.Unmarshal(e.Params, &ev) == nil && ev.Frame != nil && ev.Frame.ParentID == "" {
				put(navEvent{kind: navCommitted, frameID: ev.Frame.ID, loaderID: ev.Frame.LoaderID, url: ev.Frame.URL,
					bfcache: ev.Type == page.NavigationTypeBackForwardCacheRestore})
			}
		case page.NavigatedWithinDocument.Method:
			var ev page.EventNavigatedWithinDocument
			if jsonv2.Unmarshal(e.Params, &ev) == nil {
				put(navEvent{kind: navSameDoc, frameID: ev.FrameID, url: ev.URL})
			}
		case page.LifecycleEvent.Method:
			var ev page.EventLifecycleEvent
			if jsonv2.Unmarshal(e.Params, &ev) == nil {
				put(navEvent{kind: navLifecycle, frameID: ev.FrameID, loaderID: ev.LoaderID, name: ev.Name})
			}
		case network.RequestWillBeSent.Method:
			var ev network.EventRequestWillBeSent
			if jsonv2.Unmarshal(e.Params, &ev) == nil && ev.Type != network.ResourceTypeEventSource && ev.Type != network.ResourceTypeWebSocket &&
				ev.Request != nil && !w.renews(ev.Request.URL) {
				w.request(ev.RequestID, true, ev.FrameID, ev.Type == network.ResourceTypeDocument)
			}
		case network.ResponseReceived.Method:
			// Its address only (a response's headers and timing are most
			// of the event, read for every resource a navigation loads).
			var ev struct {
				RequestID network.RequestID `json:"requestId"`
				Response  struct {
					URL string `json:"url"`
				} `json:"response"`
			}
			if jsonv2.Unmarshal(e.Params, &ev) == nil {
				w.noteAnswer(ev.RequestID, ev.Response.URL)
			}
		case network.LoadingFinished.Method:
			var ev network.EventLoadingFinished
			if jsonv2.Unmarshal(e.Params, &ev) == nil {
				w.request(ev.RequestID, false, "", false)
			}
		case network.LoadingFailed.Method:
			var ev network.EventLoadingFailed
			if jsonv2.Unmarshal(e.Params, &ev) == nil {
				w.request(ev.RequestID, false, "", false)
			}
		case page.FrameDetached.Method:
			var ev page.EventFrameDetached
			if jsonv2.Unmarshal(e.Params, &ev) == nil {
				w.frameGone(ev.FrameID)
			}
		case page.FrameStartedLoading.Method:
			var ev page.EventFrameStartedLoading
			if jsonv2.Unmarshal(e.Params, &ev) == nil {
				w.frameLoading(ev.FrameID)
			}
		case page.FrameStoppedLoading.Method:
			var ev page.EventFrameStoppedLoading
			if jsonv2.Unmarshal(e.Params, &ev) == nil {
				w.frameStopped(ev.FrameID)
				put(navEvent{kind: navStopped, frameID: ev.FrameID})
			}
		}
		return true
	}
}

// caughtUp returns once the watch has handled every event it had received
// when called (within ctx): Chrome sends a call's reply after the events
// it sent before it, so after caughtUp the watch knows every request the
// page started before its last answer. False when ctx or the watch ended.
func (w *watch) caughtUp(ctx context.Context) bool {
	done := make(chan struct{})
	select {
	case w.catchUp <- done:
	case <-ctx.Done():
		return false
	case <-w.ctx.Done():
		return false
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// waitReady waits until the Page domain is on and the main frame is known.
func (w *watch) waitReady() error {
	select {
	case <-w.ready:
		return w.setupErr
	case <-w.ctx.Done():
		return ctxErr(w.ctx)
	}
}

// noteAnswer notes the address of an answer to a request the action did
// not start (answered).
func (w *watch) noteAnswer(id network.RequestID, url string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ours := w.reqs[id]; ours {
		return
	}
	if w.answered == nil {
		w.answered = make(map[string]bool)
	}
	w.answered[withoutQuery(url)] = true
}

// renews says whether a request to url asks again what the page had out
// before the action (answered).
func (w *watch) renews(url string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.answered[withoutQuery(url)]
}

// withoutQuery is url less its query and fragment.
func withoutQuery(url string) string {
	if i := strings.IndexAny(url, "?#"); i >= 0 {
		return url[:i]
	}
	return url
}

// request records a network request of frame starting (doc: a
// document, which loads into frame) or ending.
func (w *watch) request(id network.RequestID, started bool, frame cdp.FrameID, doc bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ours := w.reqs[id]
	switch {
	case started && w.armed:
		w.reqs[id] = frame
		if doc {
			w.loads[id] = frame
			w.docFrames[frame] = true
		}
	case !started && ours:
		delete(w.reqs, id)
		delete(w.loads, id)
		w.ended++
		w.signal()
	}
}

// inFlight returns the requests the action started that are still in
// flight, of those in of (all of them when of is nil), and, when some are,
// a channel closed when one of the action's requests ends.
func (w *watch) inFlight(of map[network.RequestID]bool) (map[network.RequestID]bool, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[network.RequestID]bool)
	for id := range w.reqs {
		if of == nil || of[id] {
			out[id] = true
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	if w.idle == nil {
		w.idle = make(chan struct{})
	}
	return out, w.idle
}

// frameLoading notes, after arm, that frame started loading.
func (w *watch) frameLoading(frame cdp.FrameID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.armed {
		w.loading[frame] = true
	}
}

// frameGone notes that frame left the tab's session: removed, or swapped
// for a frame of another process (a cross-site navigation), whose
// requests and load the tab's session hears no more of. Its requests
// and its load are no longer waited for.
func (w *watch) frameGone(frame cdp.FrameID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := w.loading[frame]
	delete(w.loading, frame)
	for id, f := range w.reqs {
		if f == frame {
			delete(w.reqs, id)
			delete(w.loads, id)
			changed = true
		}
	}
	if changed {
		w.signal()
	}
}

// frameStopped notes that frame stopped loading: its load event has run.
func (w *watch) frameStopped(frame cdp.FrameID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.loading[frame] {
		delete(w.loading, frame)
		w.signal()
	}
}

// loadsPending reports whether a document the action started loading
// into a frame other than main is still on its way: its request in
// flight, or its frame loading (its subresources, its load event, where
// a page hides its "Loading..."); when one is, a channel closed at the
// next change.
func (w *watch) loadsPending(main cdp.FrameID) (bool, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pending := false
	for _, f := range w.loads {
		pending = pending || f != main
	}
	for f := range w.docFrames {
		pending = pending || w.loading[f] && f != main
	}
	if !pending {
		return false, nil
	}
	if w.idle == nil {
		w.idle = make(chan struct{})
	}
	return true, w.idle
}

// signal closes idle, under w.mu: something the settle waits for ended.
func (w *watch) signal() {
	if w.idle != nil {
		close(w.idle)
		w.idle = nil
	}
}

// takeEnded reports how many of the action's requests ended since it last
// looked.
func (w *watch) takeEnded() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.ended
	w.ended = 0
	return n
}

// arm marks the dispatch of the action: the requests that start from now
// on are its own.
func (w *watch) arm() {
	w.mu.Lock()
	w.armed = true
	w.mu.Unlock()
}

// noteLeaving closes leaving when ev, after arm, is a navigation of the
// main frame.
func (w *watch) noteLeaving(ev navEvent) {
	w.mu.Lock()
	armed := w.armed
	w.mu.Unlock()
	if armed && w.isMain(ev) {
		w.leaveOnce.Do(func() { close(w.leaving) })
	}
}

// drain forgets the navigation events seen so far (those before an action).
func (w *watch) drain() {
	for {
		select {
		case <-w.nav:
		default:
			return
		}
	}
}

// opened returns the dialog that opened during the watch, if any.
func (w *watch) opened() *Dialog {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dialog
}

// close stops the subscriptions and waits for the watch's goroutines.
func (w *watch) close() {
	w.cancel(nil)
	w.wg.Wait()
	for _, stop := range w.stops {
		stop()
	}
}
