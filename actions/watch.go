package actions

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	cdppage "github.com/chromedp/cdproto/page"
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

	mu     sync.Mutex
	dialog *Dialog

	stops []func()
	wg    sync.WaitGroup
}

// watch subscribes to the tab's page events and turns the Page domain and
// its lifecycle events on, in the background: call wait to be sure.
func (r *Runner) watch(ctx context.Context, op string) *watch {
	wctx, cancel := context.WithCancelCause(ctx)
	w := &watch{ctx: wctx, cancel: cancel, ready: make(chan struct{}), nav: make(chan navEvent, 1024)}
	sub := func(method string) <-chan jsonv2.Value {
		ch, stop := r.tab.Subscribe(method)
		w.stops = append(w.stops, stop)
		return ch
	}
	dialogs := sub(cdppage.JavascriptDialogOpening.Method)
	requested := sub(cdppage.FrameRequestedNavigation.Method)
	started := sub(cdppage.FrameStartedNavigating.Method)
	navigated := sub(cdppage.FrameNavigated.Method)
	sameDoc := sub(cdppage.NavigatedWithinDocument.Method)
	lifecycle := sub(cdppage.LifecycleEvent.Method)
	stopped := sub(cdppage.FrameStoppedLoading.Method)

	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		defer close(w.ready)
		if _, err := cdp.Call(wctx, r.tab, cdppage.Enable, cdppage.EnableParams{}); err != nil {
			w.setupErr = err
			return
		}
		if _, err := cdp.Call(wctx, r.tab, cdppage.SetLifecycleEventsEnabled, cdppage.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
			w.setupErr = err
			return
		}
		tree, err := cdp.Call(wctx, r.tab, cdppage.GetFrameTree, cdp.Empty{})
		if err != nil {
			w.setupErr = err
			return
		}
		if tree.FrameTree != nil && tree.FrameTree.Frame != nil {
			w.mainFrame, w.loaderID, w.url = tree.FrameTree.Frame.ID, tree.FrameTree.Frame.LoaderID, tree.FrameTree.Frame.URL
		}
	}()
	go func() {
		defer w.wg.Done()
		put := func(e navEvent) {
			select {
			case w.nav <- e:
			default: // nobody reads: drop (the channel is large)
			}
		}
		for {
			select {
			case <-wctx.Done():
				return
			case v, ok := <-dialogs:
				if !ok {
					return
				}
				var ev cdppage.EventJavascriptDialogOpening
				if jsonv2.Unmarshal(v, &ev) == nil {
					d := &Dialog{Type: string(ev.Type), Message: ev.Message, DefaultPrompt: ev.DefaultPrompt, URL: ev.URL}
					w.mu.Lock()
					w.dialog = d
					w.mu.Unlock()
					w.cancel(&DialogOpenError{Op: op, Dialog: *d})
					return
				}
			case v, ok := <-requested:
				if !ok {
					requested = nil
					continue
				}
				var ev cdppage.EventFrameRequestedNavigation
				if jsonv2.Unmarshal(v, &ev) == nil {
					put(navEvent{kind: navStarted, frameID: ev.FrameID, url: ev.URL})
				}
			case v, ok := <-started:
				if !ok {
					started = nil
					continue
				}
				var ev cdppage.EventFrameStartedNavigating
				if jsonv2.Unmarshal(v, &ev) == nil {
					kind := navStarted
					switch ev.NavigationType {
					case cdppage.FrameStartedNavigatingNavigationTypeSameDocument, cdppage.FrameStartedNavigatingNavigationTypeHistorySameDocument:
						kind = 0 // the navigatedWithinDocument that follows says it all
					}
					if kind != 0 {
						put(navEvent{kind: kind, frameID: ev.FrameID, loaderID: ev.LoaderID, url: ev.URL})
					}
				}
			case v, ok := <-navigated:
				if !ok {
					navigated = nil
					continue
				}
				var ev cdppage.EventFrameNavigated
				if jsonv2.Unmarshal(v, &ev) == nil && ev.Frame != nil && ev.Frame.ParentID == "" {
					put(navEvent{kind: navCommitted, frameID: ev.Frame.ID, loaderID: ev.Frame.LoaderID, url: ev.Frame.URL,
						bfcache: ev.Type == cdppage.NavigationTypeBackForwardCacheRestore})
				}
			case v, ok := <-sameDoc:
				if !ok {
					sameDoc = nil
					continue
				}
				var ev cdppage.EventNavigatedWithinDocument
				if jsonv2.Unmarshal(v, &ev) == nil {
					put(navEvent{kind: navSameDoc, frameID: ev.FrameID, url: ev.URL})
				}
			case v, ok := <-lifecycle:
				if !ok {
					lifecycle = nil
					continue
				}
				var ev cdppage.EventLifecycleEvent
				if jsonv2.Unmarshal(v, &ev) == nil {
					put(navEvent{kind: navLifecycle, frameID: ev.FrameID, loaderID: ev.LoaderID, name: ev.Name})
				}
			case v, ok := <-stopped:
				if !ok {
					stopped = nil
					continue
				}
				var ev cdppage.EventFrameStoppedLoading
				if jsonv2.Unmarshal(v, &ev) == nil {
					put(navEvent{kind: navStopped, frameID: ev.FrameID})
				}
			}
		}
	}()
	return w
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
