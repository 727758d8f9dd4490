package tabmethods

import (
	"context"
	"errors"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// Open is tabs.open: it opens a tab (a named agent's in its current
// space) and, unless noWait, loads the URL in it the way goto does and
// waits for its load state: an agent's next call finds the page there.
// Its result is a protocol.TabResult.
func (m *Methods) Open(ctx context.Context, c Call, p protocol.TabsOpenParams) (any, error) {
	url := "about:blank"
	if p.URL != "" {
		var err error
		if url, err = actwire.URL("tabs.open", p.URL); err != nil {
			return nil, err
		}
	}
	if err := actwire.CheckUntil("tabs.open", p.Until); err != nil {
		return nil, err
	}
	if p.NoWait && (p.Until != "" || p.TimeoutMs != 0) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "tabs.open: noWait excludes until and timeoutMs")
	}
	if p.TimeoutMs < 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "tabs.open: timeoutMs must not be negative")
	}
	if err := c.CheckDestination(url); err != nil {
		return nil, err
	}
	wait := !p.NoWait && url != "about:blank"
	name := c.Agent()
	browser := p.Browser
	if browser == "" && !c.Person() {
		if sp, ok := m.svc.Spaces().Current(name); ok {
			browser = sp.Browser
		}
	}
	b, err := c.Pick(ctx, browser)
	if err != nil {
		return nil, err
	}
	// A new tab shows no origin yet: a page in it is on a new origin
	// (pairing.NewOrigin), asked before the tab is made.
	if url != "about:blank" && c.MayAsk(confirm.NavigateNewOrigin) && pairing.NewOrigin("", url) {
		q := protocol.Confirm{Action: confirm.DescribeNavigation("", pairing.Host(url), ""), Browser: b.ID()}
		if err := c.Confirm(ctx, confirm.NavigateNewOrigin, url, q); err != nil {
			return nil, err
		}
	}
	var space *spaces.Space // a named agent's tabs open in its current space
	if !c.Person() {
		sp, err := b.SpaceFor(ctx, name)
		if err != nil {
			return nil, err
		}
		space = &sp
	}
	first := url
	if wait {
		// Navigated below with Page.navigate, which names the new
		// document: a tab created with the URL would first show an
		// about:blank that is already "loaded".
		first = "about:blank"
	}
	// A named agent's space whose tab shows nothing yet (the tab `space
	// new` made without a URL): open loads the URL there instead of
	// piling up another tab; the answer says so (reused).
	if space != nil && wait || space != nil && url == "about:blank" {
		if t, ok := emptySpaceTab(ctx, b, *space); ok {
			res := protocol.TabResult{Tab: t, Reused: true}
			if !wait {
				return res, nil
			}
			return openIn(ctx, c, b, res, url, p)
		}
	}
	op := extwire.TabsOpen{URL: first, Active: !p.Background}
	if space != nil {
		// In the space's own window (a new one for its first tab): there
		// its tab is active, so it renders and takes input, and the
		// person's window and focus stay as they are.
		op.Active, op.WindowID, op.NewWindow = true, space.Window, space.Window == 0
	}
	raw, err := b.Call(ctx, op)
	if err != nil && space != nil && !op.NewWindow && wireerr.CodeOf(err) != protocol.CodeBrowserGone {
		op.WindowID, op.NewWindow = 0, true // its window was closed
		raw, err = b.Call(ctx, op)
	}
	if err != nil {
		return nil, err
	}
	res, err := TabReply(raw, b.ID(), "tabs.open")
	if err != nil {
		return res, err
	}
	if space != nil {
		m.svc.Spaces().Update(space.ID, func(x *spaces.Space) { x.Window = res.Tab.WindowID })
		sp, err := b.AddTab(ctx, *space, res.Tab.ID)
		if err != nil {
			return nil, protocol.Errorf(wireerr.CodeOf(err), "tabs.open: tab %d opened but not put into space %s: %v", res.Tab.ID, space.ID, err).With("tab", res.Tab.ID)
		}
		res.Tab.GroupID, res.Tab.Space = sp.Group, sp.ID
	}
	if !wait {
		return res, nil
	}
	return openIn(ctx, c, b, res, url, p)
}

// emptySpaceTab returns a tab of the space that shows nothing (about:blank
// or the new tab page, loaded), the space's last tab first. A blank tab
// still loading (the one spaces.new just made, for a few ms; or one on its
// way to another page) is looked at again, a few times within
// blankSettle, before it is passed over.
func emptySpaceTab(ctx context.Context, b Browser, sp spaces.Space) (protocol.Tab, bool) {
	if sp.Group == 0 {
		return protocol.Tab{}, false
	}
	deadline := time.Now().Add(blankSettle)
	for {
		tabs, err := b.Tabs(ctx)
		if err != nil {
			return protocol.Tab{}, false
		}
		t, ok, loading := blankTab(tabs, sp)
		if ok || !loading || time.Now().After(deadline) {
			return t, ok
		}
		select {
		case <-ctx.Done():
			return protocol.Tab{}, false
		case <-time.After(blankSettle / 10):
		}
	}
}

// blankSettle bounds the wait for a space's blank tab that is loading.
const blankSettle = 200 * time.Millisecond

// blankTab is emptySpaceTab's pick among tabs; loading says a blank tab of
// the space was passed over because it is loading.
func blankTab(tabs []protocol.Tab, sp spaces.Space) (_ protocol.Tab, ok, loading bool) {
	var found []protocol.Tab
	for _, t := range tabs {
		if t.GroupID != sp.Group || t.Popup { // a popup window's tab is the page's, not a tab to reuse
			continue
		}
		switch t.URL {
		case "about:blank", "chrome://newtab/", "chrome://new-tab-page/":
			if t.Status == "loading" {
				loading = true
				continue
			}
			t.Space = sp.ID
			if t.ID == sp.LastTab {
				return t, true, false
			}
			found = append(found, t)
		}
	}
	if len(found) == 0 {
		return protocol.Tab{}, false, loading
	}
	return found[0], true, false
}

// openIn loads url in tabs.open's tab and waits as p says. An error
// names the tab: it is open.
func openIn(ctx context.Context, c Call, b Browser, res protocol.TabResult, url string, p protocol.TabsOpenParams) (any, error) {
	n, err := c.Load(ctx, protocol.Target{Browser: b.ID(), Tab: res.Tab.ID}, url, p.Until, actwire.Millis(p.TimeoutMs))
	if err != nil {
		err = wireerr.FromLink(err)
		var pe *protocol.Error
		if errors.As(err, &pe) {
			pe.With("tab", res.Tab.ID) // the tab is open: say which it is
		}
		return nil, err
	}
	if err := c.CheckLanded(res.Tab.ID, n.URL); err != nil {
		return nil, err
	}
	res.Tab.URL, res.Tab.Title, res.Tab.Status = n.URL, n.Title, ""
	res.Nav = &n
	return res, nil
}
