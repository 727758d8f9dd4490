package service

import (
	"context"
	"encoding/json"

	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
)

// How every method reaches its browser and tab: pickLink, pickTab,
// target. The browsers and tabs methods themselves run in
// internal/server/tabmethods (tabmethods.go).

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

// pickTab returns the tab ID: the given one; else, for a named agent, its
// space's last active tab (never the person's focused tab); for the
// person, the tab whose latest snapshot handed out the ref the call's
// element names (refTab), else the active tab of the last focused window.
func (s *Service) pickTab(ctx context.Context, c *call, l *link, tab int) (int, error) {
	if tab != 0 {
		return tab, nil
	}
	if !isPerson(c.conn.agentName()) {
		return s.defaultTab(ctx, c, l)
	}
	if id, ok := refTab(c, l); ok {
		return id, nil
	}
	id, ok, err := l.focusedTab(ctx)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, protocol.Errorf(protocol.CodeTabNotFound, "browser %s has no active tab", l.ID)
	}
	return id, nil
}

// refTab returns the tab of l whose latest snapshot handed out the ref
// the call's element names (its "target" param, as every element action
// has it, or a snapshot's "scope"): a ref names one element of one tab,
// so the person's call acts there, whichever tab has the focus now, and
// costs no question to the browser. ok is false when the call names no
// ref, or one no tab of l's latest snapshots has.
func refTab(c *call, l *link) (int, bool) {
	members := c.params.Members()
	for _, key := range []string{"target", "scope"} {
		raw, ok := members[key]
		if !ok {
			continue
		}
		var element string
		if json.Unmarshal(raw, &element) != nil {
			return 0, false
		}
		ref, ok := refmap.ParseRef(element)
		if !ok {
			return 0, false
		}
		return l.Tabs.WithRef(ref)
	}
	return 0, false
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
	if name := c.conn.agentName(); !isPerson(name) {
		// Marked before the call runs: a take over that begins meanwhile
		// must find it (takeover.go); and again when it ends (access.go),
		// for a detach (which forgets a tab's session marks) or a new
		// document between the two (a confirmation's wait, a navigation).
		if session, page := leaves(c); session || page {
			mark := func() {
				if session {
					l.MarkAgentCDP(id, name)
				}
				if page {
					l.MarkScripted(id)
				}
			}
			mark()
			c.mu.Lock()
			c.marks = append(c.marks, mark)
			c.mu.Unlock()
		}
	}
	return l, id, nil
}

// leaves reports what an agent's call c may leave on its tab for whoever
// holds the tab next: state on the tab's debugger session (raw CDP: an
// emulated device, blocked URLs, …), which ends when the session is
// detached; and its own script in the page (eval, a wait for a function,
// raw CDP: a DOM write can add a handler as well as Runtime.evaluate can
// run one), which lasts as long as the document.
func leaves(c *call) (session, page bool) {
	switch c.method {
	case protocol.MethodCDPSend:
		return true, true
	case protocol.MethodResize:
		// Emulation's device metrics, which last as long as the session.
		return true, false
	case protocol.MethodEval:
		return false, true
	case protocol.MethodWait:
		fn, ok := c.params.Members()["function"]
		return false, ok && string(fn) != `""` && string(fn) != "null"
	}
	return false, false
}
