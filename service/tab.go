package service

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/actions"
	"github.com/egohost/egohost/cdptab"
	"github.com/egohost/egohost/extwire"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
	"github.com/egohost/egohost/snapshot"
)

// tabState is what the service keeps per tab: its page (the main session
// and out-of-process frames), opened on first use.
type tabState struct {
	id int
	// acting is the tab's action lock: one element action at a time, so
	// two agents granted the same tab never interleave a click's steps.
	acting chan struct{}
	mu     sync.Mutex
	page   *cdptab.Page
	snap   *snapshot.Tab      // refs and previous snapshot; lives as long as page
	res    *resolver.Resolver // remembers the frames' isolated worlds; lives as long as page
	acts   *actions.TabSetup  // the actions' per-tab setup (Page, lifecycle, Network on); lives as long as page
	// dialog is the JavaScript dialog open on the tab, if any: while it is
	// open the page answers nothing, so calls fail at once instead of
	// waiting for their timeout. Atomic, not under mu: the link's reader
	// sets it, and must never wait for mu (page holds mu across CDP calls
	// whose replies that same reader delivers).
	dialog atomic.Pointer[protocol.Dialog]

	// answered closes when the tab answered its first command since the
	// attach (Page.enable, which also makes Chrome report the dialogs
	// that open from then on). Until then the tab may be blocked by a
	// dialog that opened before egohost attached, which Chrome never
	// reports. Under mu; nil until the first use.
	answered  chan struct{}
	stopProbe context.CancelFunc

	// rec records the tab's console and network while the page is open
	// (record.go). Atomic: the link's reader feeds it.
	rec atomic.Pointer[tabRecord]
}

// errUnreportedDialog is the error of a call on a tab whose renderer has
// answered nothing since the attach.
func errUnreportedDialog(tabID int, waited time.Duration) error {
	return protocol.Errorf(protocol.CodeDialogOpen,
		"tab %d answered nothing for %v since egohost attached: a JavaScript dialog that opened before the attach is most likely open "+
			"(Chrome does not report those), or a script keeps the page busy; `egohost dialog dismiss` closes such a dialog",
		tabID, waited.Round(time.Millisecond)).
		With("dialog", protocol.Dialog{Type: "unknown"}).With("unreported", true)
}

// probeReserve is the part of a call's time kept to answer it with
// dialog_open rather than let the deadline answer with a bare timeout.
const probeReserve = 200 * time.Millisecond

// reachable waits, within ctx, until the tab has answered its first
// command since the attach. It fails with dialog_open (unreported)
// shortly before ctx's deadline when the tab answers nothing.
func (l *link) reachable(ctx context.Context, t *tabState) error {
	t.mu.Lock()
	if t.answered == nil {
		answered := make(chan struct{})
		pctx, cancel := context.WithCancel(context.Background())
		t.answered, t.stopProbe = answered, cancel
		go func() {
			defer close(answered)
			// It lasts as long as the renderer is blocked: the tab's close
			// ends it. Its error does not matter here: the calls that
			// follow meet whatever is wrong with the tab themselves.
			_ = l.Session(t.id).Call(pctx, page.Enable.Method, page.EnableParams{}, nil)
		}()
	}
	answered := t.answered
	t.mu.Unlock()
	select {
	case <-answered:
		return nil
	default:
	}
	start := time.Now()
	var expire <-chan time.Time
	if dl, ok := ctx.Deadline(); ok {
		timer := time.NewTimer(max(time.Until(dl)-min(probeReserve, time.Until(dl)/10), 0))
		defer timer.Stop()
		expire = timer.C
	}
	select {
	case <-answered:
		return nil
	case <-expire:
		return errUnreportedDialog(t.id, time.Since(start))
	case <-ctx.Done():
		return protocol.Errorf(protocol.CodeTimeout, "tab %d: no answer: %v", t.id, ctx.Err())
	}
}

// trackDialog follows Page.javascriptDialogOpening/Closed of a tab's main
// frame (they flow once anyone enabled the Page domain on the tab).
func (l *link) trackDialog(in *extwire.Message) {
	switch in.Method {
	case page.JavascriptDialogOpening.Method:
		var ev page.EventJavascriptDialogOpening
		if jsonv2.Unmarshal(in.Params, &ev) != nil {
			return
		}
		l.tab(in.TabID).dialog.Store(&protocol.Dialog{Type: string(ev.Type), Message: ev.Message, DefaultPrompt: ev.DefaultPrompt, URL: ev.URL})
	case page.JavascriptDialogClosed.Method:
		l.tab(in.TabID).dialog.Store(nil)
	}
}

// openDialog returns the dialog open on a tab, or nil.
func (l *link) openDialog(tabID int) *protocol.Dialog {
	l.mu.Lock()
	t := l.tabs[tabID]
	l.mu.Unlock()
	if t == nil {
		return nil
	}
	return t.dialog.Load()
}

func (t *tabState) close() {
	t.mu.Lock()
	if t.stopProbe != nil {
		t.stopProbe()
	}
	answered := t.answered
	p := t.page
	t.page = nil
	t.snap = nil
	t.res = nil
	t.rec.Store(nil)
	t.acts = nil
	t.mu.Unlock()
	if p != nil {
		p.Close()
	}
	if answered != nil {
		<-answered // the probe ends with its context
	}
}

// tab returns the state of a tab, creating it on first use.
func (l *link) tab(id int) *tabState {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.tabs[id]
	if !ok {
		t = &tabState{id: id, acting: make(chan struct{}, 1)}
		l.tabs[id] = t
	}
	return t
}

// dropTab forgets a tab's state (closed or detached).
func (l *link) dropTab(id int) {
	l.mu.Lock()
	t := l.tabs[id]
	delete(l.tabs, id)
	l.mu.Unlock()
	if t != nil {
		go t.close() // never block the link's reader on the page's watchers
	}
}

// page returns the tab's page, snapshot state and resolver, opening the
// page (auto-attach to child frames) on first use.
func (l *link) page(ctx context.Context, tabID int) (*tabState, error) {
	t := l.tab(tabID)
	if err := l.reachable(ctx, t); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.page != nil {
		return t, nil
	}
	p, err := cdptab.Open(ctx, l.Session(tabID))
	if err != nil {
		return nil, err
	}
	t.page = p
	t.snap = snapshot.NewTabShared(p, l.refs)
	t.res = resolver.New(p, t.snap)
	t.rec.Store(newTabRecord())
	if err := startRecording(ctx, l.Session(tabID)); err != nil {
		l.log.Warn("record console and network", "tab", tabID, "err", err)
	}
	t.acts = &actions.TabSetup{}
	return t, nil
}

// lockActions waits, within ctx, for the tab's action lock; the function
// it returns releases it.
func (t *tabState) lockActions(ctx context.Context) (func(), error) {
	select {
	case t.acting <- struct{}{}:
		return func() { <-t.acting }, nil
	case <-ctx.Done():
		return nil, protocol.Errorf(protocol.CodeTimeout, "tab %d: another action on this tab did not end in time: %v", t.id, ctx.Err())
	}
}
