package actions

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
)

// TabSetup remembers the per-tab setup actions need, so that each action
// does not send it again: the Page domain and its lifecycle events, the
// Network domain (the settle watches the requests an action starts) and
// the main frame's ID (the tab's target ID, stable for the tab's life).
// One TabSetup belongs to one CDP session of one tab: make a new one when
// the debugger attaches again. The zero value is ready to use; it is safe
// for concurrent use.
type TabSetup struct {
	mu        sync.Mutex
	page      bool
	pageOn    *pageSetup // the Page domain's setup in flight, nil when none is
	network   bool
	mainFrame cdp.FrameID
}

// pageSetup is one turning on of the Page domain and its lifecycle
// events: err is set before done closes.
type pageSetup struct {
	done chan struct{}
	err  error
}

// pageSetupTimeout bounds the Page domain's setup. It goes on when the
// call that started it ends first (an eval's watch closes before Chrome
// answers Page.enable), so that the next call finds the domain on rather
// than send it again; a JavaScript dialog holds Page.enable until it
// closes.
const pageSetupTimeout = 10 * time.Second

// enable turns on what an action needs on s, once. replay sends
// Page.setLifecycleEventsEnabled again all the same: Chrome then reports
// the lifecycle events the current document already reached, which the
// waits for a load state read.
func (t *TabSetup) enable(ctx context.Context, s cdp.Session, withNetwork, replay bool) error {
	started, err := t.pageDomain(ctx, s)
	if err != nil {
		return err
	}
	if replay && !started {
		// A setup this call did not start may have reported the lifecycle
		// before the caller listened.
		if _, err := cdp.Call(ctx, s, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
			return err
		}
	}
	t.mu.Lock()
	netw := t.network
	t.mu.Unlock()
	if withNetwork && !netw {
		// Chrome's default buffers: another user of the session (network
		// recording) may read bodies.
		if _, err := cdp.Call(ctx, s, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		t.mu.Lock()
		t.network = true
		t.mu.Unlock()
	}
	return nil
}

// pageDomain turns the Page domain and its lifecycle events on, once: it
// starts the setup or waits, within ctx, for the one in flight. When that
// one failed, a call that did not start it starts its own (its commands
// then count in its own browserlink.Attempt, which the setup's context
// carries), and so does one whose setup ran out of its own time while ctx
// goes on. started says this call started the setup that turned them on.
func (t *TabSetup) pageDomain(ctx context.Context, s cdp.Session) (started bool, err error) {
	for {
		t.mu.Lock()
		if t.page {
			t.mu.Unlock()
			return false, nil
		}
		ps := t.pageOn
		started = ps == nil
		if started {
			ps = &pageSetup{done: make(chan struct{})}
			t.pageOn = ps
			go t.turnPageOn(context.WithoutCancel(ctx), s, ps)
		}
		t.mu.Unlock()
		select {
		case <-ps.done:
			if ps.err == nil || ctx.Err() != nil || started && !errors.Is(ps.err, context.DeadlineExceeded) {
				return started, ps.err
			}
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

func (t *TabSetup) turnPageOn(ctx context.Context, s cdp.Session, ps *pageSetup) {
	ctx, cancel := context.WithTimeout(ctx, pageSetupTimeout)
	defer cancel()
	_, err := cdp.Call(ctx, s, page.Enable, page.EnableParams{})
	if err == nil {
		_, err = cdp.Call(ctx, s, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true})
	}
	ps.err = err
	t.mu.Lock()
	t.page = err == nil
	t.pageOn = nil
	t.mu.Unlock()
	close(ps.done)
}

func (t *TabSetup) frame() cdp.FrameID {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mainFrame
}

func (t *TabSetup) setFrame(id cdp.FrameID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id != "" {
		t.mainFrame = id
	}
}
