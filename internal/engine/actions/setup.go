package actions

import (
	"context"
	"sync"

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
	network   bool
	mainFrame cdp.FrameID
}

// enable turns on what an action needs on s, once. replay sends
// Page.setLifecycleEventsEnabled again all the same: Chrome then reports
// the lifecycle events the current document already reached, which the
// waits for a load state read.
func (t *TabSetup) enable(ctx context.Context, s cdp.Session, withNetwork, replay bool) error {
	t.mu.Lock()
	pageOn, netw := t.page, t.network
	t.mu.Unlock()
	if !pageOn {
		if _, err := cdp.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
			return err
		}
	}
	if !pageOn || replay {
		if _, err := cdp.Call(ctx, s, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
			return err
		}
		t.mu.Lock()
		t.page = true
		t.mu.Unlock()
	}
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
