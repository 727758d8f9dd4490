// Package page is the page engine of one tab: its page (the main session
// and out-of-process frames), its refs and previous snapshot, its
// resolver, the actions' per-tab setup, the JavaScript dialog open on it,
// the record of its console and network, and its action lock. The service
// keeps a Tab per followed tab and decides who may reach it; nothing here
// knows of agents, grants or spaces (what a caller may reach of the tab's
// documents comes in as a cdptab.Reach).
package page

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	cdppage "github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
	"github.com/egohost/egohost/resolver"
)

// Tab is one tab's page engine, opened on first use (Open) and closed with
// the tab (Close).
type Tab struct {
	id   int
	sess cdptab.Sessions // the tab's main session
	refs *refmap.Counter
	log  *slog.Logger

	// acting is the tab's action lock: one element action at a time, so
	// two agents granted the same tab never interleave a click's steps.
	acting chan struct{}
	mu     sync.Mutex
	eng    Engine // zero until Open, and again after Close
	closed bool   // Close ran: the tab is gone (closed or detached)
	// dialog is the JavaScript dialog open on the tab, if any: while it is
	// open the page answers nothing, so calls fail at once instead of
	// waiting for their timeout. Atomic, not under mu: the link's reader
	// sets it, and must never wait for mu (Open holds mu across CDP calls
	// whose replies that same reader delivers).
	dialog atomic.Pointer[protocol.Dialog]

	// answered closes when the tab answered its first command since the
	// attach (Page.enable, which also makes Chrome report the dialogs
	// that open from then on). Until then the tab may be blocked by a
	// dialog that opened before egohost attached, which Chrome never
	// reports. Under mu; nil until the first use.
	answered  chan struct{}
	stopProbe context.CancelFunc

	// worlds follows the worlds Chrome makes in the tab's new documents
	// for the resolver, while the page is open (nil when it could not
	// start); under mu.
	worlds *resolver.NewDocuments

	// rec records the tab's console and network while the page is open.
	// Atomic: the link's reader feeds it.
	rec atomic.Pointer[Record]

	// bg is the work calls started on the tab and did not wait for
	// (Background), each by its cancel; under bgMu.
	bgMu   sync.Mutex
	bg     map[int]context.CancelFunc
	bgNext int
}

// Engine is what works on an open tab's page.
type Engine struct {
	Page *cdptab.Page       // the main session and out-of-process frames
	Snap *snapshot.Tab      // refs and the previous snapshot; lives as long as Page
	Res  *resolver.Resolver // remembers the frames' isolated worlds; lives as long as Page
	Acts *actions.TabSetup  // the actions' per-tab setup (Page, lifecycle, Network on); lives as long as Page
}

// NewTab returns the engine of tab id, reached on sess; refs numbers its
// snapshots' refs (shared by every tab, so refs never repeat).
func NewTab(id int, sess cdptab.Sessions, refs *refmap.Counter, log *slog.Logger) *Tab {
	if log == nil {
		log = slog.Default()
	}
	return &Tab{id: id, sess: sess, refs: refs, log: log, acting: make(chan struct{}, 1)}
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

// Reachable waits, within ctx, until the tab has answered its first
// command since the attach. It fails with dialog_open (unreported)
// shortly before ctx's deadline when the tab answers nothing.
func (t *Tab) Reachable(ctx context.Context) error {
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
			_ = t.sess.Call(pctx, cdppage.Enable.Method, cdppage.EnableParams{}, nil)
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

// DialogEvent reports whether FollowDialog takes events of method.
func DialogEvent(method string) bool {
	return method == cdppage.JavascriptDialogOpening.Method || method == cdppage.JavascriptDialogClosed.Method
}

// FollowDialog follows Page.javascriptDialogOpening/Closed of the tab's
// main frame (they flow once anyone enabled the Page domain on the tab).
// It runs in the link's reader: it never waits.
func (t *Tab) FollowDialog(method string, params json.RawMessage) {
	switch method {
	case cdppage.JavascriptDialogOpening.Method:
		var ev cdppage.EventJavascriptDialogOpening
		if jsonv2.Unmarshal(params, &ev) != nil {
			return
		}
		t.dialog.Store(&protocol.Dialog{Type: string(ev.Type), Message: ev.Message, DefaultPrompt: ev.DefaultPrompt, URL: ev.URL})
	case cdppage.JavascriptDialogClosed.Method:
		t.dialog.Store(nil)
	}
}

// Dialog returns the dialog open on the tab, or nil.
func (t *Tab) Dialog() *protocol.Dialog { return t.dialog.Load() }

// Record returns the tab's console and network record, nil when its page
// is not open.
func (t *Tab) Record() *Record { return t.rec.Load() }

// SetRecord replaces the tab's record: what the service's tests of the
// record's readers use in place of a page that a browser opened.
func (t *Tab) SetRecord(r *Record) { t.rec.Store(r) }

// Background runs f, work a call started on the tab and does not wait
// for (a new document's preparation: actions.Options.Prepare), with a
// context that StopBackground and Close end too: the call's own end does
// not stop it, the tab's owner can. It returns f's error.
func (t *Tab) Background(ctx context.Context, f func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t.bgMu.Lock()
	if t.bg == nil {
		t.bg = make(map[int]context.CancelFunc)
	}
	id := t.bgNext
	t.bgNext++
	t.bg[id] = cancel
	t.bgMu.Unlock()
	defer func() {
		t.bgMu.Lock()
		delete(t.bg, id)
		t.bgMu.Unlock()
	}()
	return f(ctx)
}

// StopBackground ends the tab's Background work now and returns how many
// ran. Work started after it runs (the caller decides whether it may).
func (t *Tab) StopBackground() int {
	t.bgMu.Lock()
	defer t.bgMu.Unlock()
	for _, cancel := range t.bg {
		cancel()
	}
	n := len(t.bg)
	clear(t.bg)
	return n
}

// Close closes the page and ends the tab's probe and its Background work;
// the Tab is not used again.
func (t *Tab) Close() {
	t.StopBackground()
	t.mu.Lock()
	if t.stopProbe != nil {
		t.stopProbe()
	}
	answered := t.answered
	p, worlds := t.eng.Page, t.worlds
	t.eng, t.worlds, t.closed = Engine{}, nil, true
	t.rec.Store(nil)
	t.mu.Unlock()
	if worlds != nil {
		worlds.Stop()
	}
	if p != nil {
		p.Close()
	}
	if answered != nil {
		<-answered // the probe ends with its context
	}
}

// Open returns the tab's engine, opening its page (auto-attach to child
// frames) on first use, once the tab answers (Reachable). It fails with
// detached when the tab was closed meanwhile.
func (t *Tab) Open(ctx context.Context) (Engine, error) {
	if err := t.Reachable(ctx); err != nil {
		return Engine{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.eng.Page != nil {
		return t.eng, nil
	}
	if t.closed {
		return Engine{}, protocol.Errorf(protocol.CodeDetached, "tab %d was detached", t.id)
	}
	// The record's domains go on beside the page's auto-attach: one round
	// trip less before the tab's first call. The record is in place before
	// either (Runtime.enable replays the console into it).
	rec := NewRecord()
	t.rec.Store(rec)
	recorded := make(chan error, 1)
	go func() { recorded <- StartRecording(ctx, t.sess) }()
	// Chrome makes egohost's world in each new document from now on, so
	// that a first action after a navigation finds it made (the record's
	// Runtime.enable sends its events); without it, worlds are made as
	// they are needed.
	worlds := make(chan *resolver.NewDocuments, 1)
	go func() {
		fctx, cancel := context.WithTimeout(ctx, recordStartTimeout) // as the record's
		defer cancel()
		nd, err := resolver.FollowNewDocuments(fctx, t.sess)
		if err != nil {
			t.log.Warn("follow new documents' worlds", "tab", t.id, "err", err)
		}
		worlds <- nd
	}()
	p, err := cdptab.Open(ctx, t.sess)
	if rerr := <-recorded; rerr != nil && err == nil {
		t.log.Warn("record console and network", "tab", t.id, "err", rerr)
	}
	if err != nil {
		t.rec.Store(nil) // no page open: no record (Record)
		if nd := <-worlds; nd != nil {
			nd.Stop()
		}
		return Engine{}, err
	}
	snap := snapshot.NewTabShared(p, t.refs)
	snap.PackOver(snapshot.PackRelayed) // its commands cross the extension
	res := resolver.New(p, snap)
	snap.UseMainWorld(res.MainWorld)
	if nd := <-worlds; nd != nil {
		res.UseNewDocuments(nd)
		res.KeepOnPrepare(actions.Checks(), snapshot.Walker())
		t.worlds = nd
	}
	t.eng = Engine{Page: p, Snap: snap, Res: res, Acts: &actions.TabSetup{}}
	return t.eng, nil
}

// Closed reports whether Close ran: the tab's engine is gone for good, and
// a new Tab stands for the tab from then on.
func (t *Tab) Closed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// Engine returns the engine of the open page; ok is false before Open and
// after Close.
func (t *Tab) Engine() (eng Engine, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.eng, t.eng.Page != nil
}

// LockActions waits, within ctx, for the tab's action lock; the function
// it returns releases it.
func (t *Tab) LockActions(ctx context.Context) (func(), error) {
	select {
	case t.acting <- struct{}{}:
		return func() { <-t.acting }, nil
	case <-ctx.Done():
		return nil, protocol.Errorf(protocol.CodeTimeout, "tab %d: another action on this tab did not end in time: %v", t.id, ctx.Err())
	}
}
