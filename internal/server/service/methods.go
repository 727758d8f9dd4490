package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sort"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

func (s *Service) ping(ctx context.Context, c *call, _ rpcparams.None) (any, error) {
	connected, reconnecting := s.hub.Browsers()
	res := protocol.PingResult{Version: Version, PID: os.Getpid(), Browsers: len(connected), Reconnecting: len(reconnecting)}
	if c.conn.grant.kind == grantOwner { // the owner's `egohost status`; not an agent's business
		res.Tokenless, res.StateDir, res.DataDir = s.tokenless.stats(), s.opts.StateDir, s.opts.DataDir
	}
	return res, nil
}

func (s *Service) browsersList(ctx context.Context, _ *call, _ rpcparams.None) (any, error) {
	connected, reconnecting := s.hub.Browsers()
	return protocol.BrowsersListResult{Browsers: connected, Reconnecting: reconnecting}, nil
}

// pickLink returns the named browser link, or the only one (the popup's
// own for its calls), waiting for it while it is on its way back
// (hub.Pick).
func (s *Service) pickLink(ctx context.Context, c *call, name string) (*link, error) {
	if name == "" && c.home != nil {
		name = c.home.ID // the popup's calls go to its own browser
	}
	return s.hub.Pick(ctx, name)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (s *Service) listTabs(ctx context.Context, l *link) ([]protocol.Tab, error) {
	raw, err := l.Call(ctx, extwire.TabsList{})
	if err != nil {
		return nil, err
	}
	var res protocol.TabsListResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, protocol.Errorf(protocol.CodeExtension, "tabs.list: bad reply: %v", err)
	}
	for i := range res.Tabs {
		res.Tabs[i].Browser = l.ID
	}
	if res.Tabs == nil {
		res.Tabs = []protocol.Tab{}
	}
	return res.Tabs, nil
}

// pickTab returns the tab ID: the given one; else, for the person, the
// active tab of the last focused window; for a named agent, its space's
// last active tab (never the person's focused tab).
func (s *Service) pickTab(ctx context.Context, c *call, l *link, tab int) (int, error) {
	if tab != 0 {
		return tab, nil
	}
	if !isPerson(c.conn.agentName()) {
		return s.defaultTab(ctx, c, l)
	}
	tabs, err := s.listTabs(ctx, l)
	if err != nil {
		return 0, err
	}
	sort.SliceStable(tabs, func(i, j int) bool { return tabs[i].Focused && !tabs[j].Focused })
	for _, t := range tabs {
		if t.Active {
			return t.ID, nil
		}
	}
	return 0, protocol.Errorf(protocol.CodeTabNotFound, "browser %s has no active tab", l.ID)
}

// target resolves the tab a call is for, and checks that the calling
// agent may act on it (checkSpace). A named agent that names no browser
// gets its current space's.
func (s *Service) target(ctx context.Context, c *call, t protocol.Target) (*link, int, error) {
	if t.Browser == "" && !isPerson(c.conn.agentName()) {
		if sp, ok := s.spaces.reg.Current(c.conn.agentName()); ok && t.Tab == 0 {
			t.Browser = sp.Browser
		}
	}
	l, err := s.pickLink(ctx, c, t.Browser)
	if err != nil {
		return nil, 0, err
	}
	id, err := s.pickTab(ctx, c, l, t.Tab)
	if err != nil {
		return nil, 0, err
	}
	if err := s.checkScope(ctx, c, l, id); err != nil {
		return nil, 0, err
	}
	if err := s.checkSpace(ctx, c, l, id); err != nil {
		return nil, 0, err
	}
	if err := s.checkBrowserPage(ctx, c, l, id); err != nil {
		return nil, 0, err
	}
	return l, id, nil
}

// tabsList describes the present: it never waits for a browser. The tabs
// are those of the browser connected now; a browser that is reconnecting
// is listed as such (Reconnecting), with no tabs.
func (s *Service) tabsList(ctx context.Context, c *call, p protocol.TabsListParams) (any, error) {
	name := p.Browser
	if name == "" && c.home != nil {
		name = c.home.ID
	}
	l, reconnecting, err := s.hub.Now(name)
	if err != nil {
		return nil, err
	}
	res := protocol.TabsListResult{Tabs: []protocol.Tab{}, Reconnecting: reconnecting}
	if l == nil {
		return res, nil // on its way back: nothing of it is connected now
	}
	if err := l.CheckAutomation(); err != nil {
		return nil, err
	}
	tabs, err := s.listTabs(ctx, l)
	if wireerr.CodeOf(err) == protocol.CodeBrowserGone {
		// It dropped under the call: it is reconnecting now.
		if !slices.ContainsFunc(res.Reconnecting, func(b protocol.Browser) bool { return b.ID == l.ID }) {
			b := l.Info()
			b.RelayPID, b.DisconnectedAt = 0, time.Now()
			res.Reconnecting = append(res.Reconnecting, b)
		}
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	s.syncSpaces(ctx, l)
	for i := range tabs {
		if sp, ok := s.spaces.reg.ByGroup(l.ID, tabs[i].GroupID); ok {
			tabs[i].Space = sp.ID
		}
	}
	res.Tabs = s.visibleTabs(c.conn, l, tabs)
	return res, nil
}

func (s *Service) tabReply(raw json.RawMessage, l *link, op string) (protocol.TabResult, error) {
	var res protocol.TabResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return res, protocol.Errorf(protocol.CodeExtension, "%s: bad reply: %v", op, err)
	}
	res.Tab.Browser = l.ID
	return res, nil
}

// tabsOpen opens a tab and, unless noWait, loads the URL in it the way
// goto does and waits for its load state: an agent's next call finds the
// page there.
func (s *Service) tabsOpen(ctx context.Context, c *call, p protocol.TabsOpenParams) (any, error) {
	a := c.conn
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
	if err := s.checkDestination(c, url); err != nil {
		return nil, err
	}
	wait := !p.NoWait && url != "about:blank"
	name := a.agentName()
	browser := p.Browser
	if browser == "" && !isPerson(name) {
		if sp, ok := s.spaces.reg.Current(name); ok {
			browser = sp.Browser
		}
	}
	l, err := s.pickLink(ctx, c, browser)
	if err != nil {
		return nil, err
	}
	// A new tab shows no origin yet: a page in it is on a new origin
	// (pairing.NewOrigin), asked before the tab is made.
	if url != "about:blank" && s.mayAsk(c, confirm.NavigateNewOrigin) && pairing.NewOrigin("", url) {
		q := protocol.Confirm{Action: confirm.DescribeNavigation("", pairing.Host(url), ""), Browser: l.ID}
		if err := s.confirmCall(ctx, c, confirm.NavigateNewOrigin, url, q); err != nil {
			return nil, err
		}
	}
	var space *spaces.Space // a named agent's tabs open in its current space
	if !isPerson(name) {
		sp, err := s.spaceFor(ctx, name, l)
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
		if t, ok := s.emptySpaceTab(ctx, l, *space); ok {
			res := protocol.TabResult{Tab: t, Reused: true}
			if !wait {
				return res, nil
			}
			return s.openIn(ctx, c, l, res, url, p)
		}
	}
	op := extwire.TabsOpen{URL: first, Active: !p.Background}
	if space != nil {
		// In the space's own window (a new one for its first tab): there
		// its tab is active, so it renders and takes input, and the
		// person's window and focus stay as they are.
		op.Active, op.WindowID, op.NewWindow = true, space.Window, space.Window == 0
	}
	raw, err := l.Call(ctx, op)
	if err != nil && space != nil && !op.NewWindow && wireerr.CodeOf(err) != protocol.CodeBrowserGone {
		op.WindowID, op.NewWindow = 0, true // its window was closed
		raw, err = l.Call(ctx, op)
	}
	if err != nil {
		return nil, err
	}
	res, err := s.tabReply(raw, l, "tabs.open")
	if err != nil {
		return res, err
	}
	if space != nil {
		s.spaces.reg.Update(space.ID, func(x *spaces.Space) { x.Window = res.Tab.WindowID })
		sp, err := s.addToSpace(ctx, l, *space, res.Tab.ID)
		if err != nil {
			return nil, protocol.Errorf(wireerr.CodeOf(err), "tabs.open: tab %d opened but not put into space %s: %v", res.Tab.ID, space.ID, err).With("tab", res.Tab.ID)
		}
		res.Tab.GroupID, res.Tab.Space = sp.Group, sp.ID
	}
	if !wait {
		return res, nil
	}
	return s.openIn(ctx, c, l, res, url, p)
}

// emptySpaceTab returns a tab of the space that shows nothing (about:blank
// or the new tab page, loaded), the space's last tab first.
func (s *Service) emptySpaceTab(ctx context.Context, l *link, sp spaces.Space) (protocol.Tab, bool) {
	if sp.Group == 0 {
		return protocol.Tab{}, false
	}
	tabs, err := s.listTabs(ctx, l)
	if err != nil {
		return protocol.Tab{}, false
	}
	var found []protocol.Tab
	for _, t := range tabs {
		if t.GroupID != sp.Group || t.Status == "loading" {
			continue
		}
		switch t.URL {
		case "about:blank", "chrome://newtab/", "chrome://new-tab-page/":
			t.Space = sp.ID
			if t.ID == sp.LastTab {
				return t, true
			}
			found = append(found, t)
		}
	}
	if len(found) == 0 {
		return protocol.Tab{}, false
	}
	return found[0], true
}

// openIn loads url in tabs.open's tab and waits as p says.
func (s *Service) openIn(ctx context.Context, c *call, l *link, res protocol.TabResult, url string, p protocol.TabsOpenParams) (any, error) {
	nav, err := s.withRunner(ctx, c, protocol.Target{Browser: l.ID, Tab: res.Tab.ID}, "open", actwire.Millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		n, err := r.Goto(ctx, url, actions.NavOptions{Until: p.Until, Timeout: actwire.Millis(p.TimeoutMs)})
		if err != nil {
			return nil, err
		}
		return actwire.NavResult(tc.tabID, n), nil
	})
	if err != nil {
		err = wireerr.FromLink(err)
		var pe *protocol.Error
		if errors.As(err, &pe) {
			pe.With("tab", res.Tab.ID) // the tab is open: say which it is
		}
		return nil, err
	}
	n := nav.(protocol.NavResult)
	if err := s.checkLanded(c, res.Tab.ID, n.URL); err != nil {
		return nil, err
	}
	res.Tab.URL, res.Tab.Title, res.Tab.Status = n.URL, n.Title, ""
	res.Nav = &n
	return res, nil
}

func (s *Service) tabsClose(ctx context.Context, c *call, p protocol.TabParams) (any, error) {
	l, id, err := s.target(ctx, c, p.Target)
	if err != nil {
		return nil, err
	}
	if _, err := l.Call(ctx, extwire.TabsClose{TabID: id}); err != nil {
		return nil, err
	}
	return map[string]any{"closed": true, "tab": id}, nil
}

func (s *Service) tabsSelect(ctx context.Context, c *call, p protocol.TabParams) (any, error) {
	if p.Tab == 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "tabs.select needs a tab")
	}
	l, _, err := s.target(ctx, c, p.Target)
	if err != nil {
		return nil, err
	}
	if err := s.checkScope(ctx, c, l, p.Tab); err != nil {
		return nil, err
	}
	raw, err := l.Call(ctx, extwire.TabsActivate{TabID: p.Tab})
	if err != nil {
		return nil, err
	}
	return s.tabReply(raw, l, "tabs.select")
}

// maxEcho caps debug.echo's data: enough for the tests of chunking (a few
// MiB), far from native messaging's 64 MiB.
const maxEcho = 16 << 20

// debugEcho sends data to the extension and back (the owner's, for tests
// of the chain: access.go).
func (s *Service) debugEcho(ctx context.Context, c *call, p protocol.DebugEchoParams) (any, error) {
	if len(p.Data) > maxEcho {
		return nil, protocol.Errorf(protocol.CodeTooLarge, "debug.echo: %d bytes of data exceed %d", len(p.Data), maxEcho).With("limit", maxEcho)
	}
	l, err := s.pickLink(ctx, c, p.Browser)
	if err != nil {
		return nil, err
	}
	raw, err := l.Call(ctx, extwire.Echo{Data: p.Data})
	if err != nil {
		return nil, err
	}
	var res struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, protocol.Errorf(protocol.CodeExtension, "echo: bad reply: %v", err)
	}
	sum := sha256.Sum256([]byte(res.Data))
	return protocol.DebugEchoResult{Length: len(res.Data), SHA256: hex.EncodeToString(sum[:])}, nil
}
