package hub

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/egohost/egohost/protocol"
)

// Pick returns the named browser, or the only one ("" names none). While
// the browser it needs is on its way (a known browser that dropped less
// than ReconnectGrace ago, or a relay that has not said hello yet), it
// waits for it, at most ReconnectWait and within ctx: a call made while
// the extension reconnects succeeds if the browser is back in time, and
// fails with browser_reconnecting if not. A browser whose automation the
// person stopped is refused (CheckAutomation).
func (h *Hub[L]) Pick(ctx context.Context, name string) (L, error) {
	giveUp := time.Now().Add(h.opts.ReconnectWait)
	for {
		h.mu.Lock()
		m, until, err := h.choose(name)
		changed := h.changed
		h.mu.Unlock()
		if m.link != nil {
			select {
			case <-m.link.Closed(): // dropped, not yet taken out: wait for that
				until = time.Now().Add(h.opts.ReconnectGrace)
			default:
				if err := m.link.CheckAutomation(); err != nil {
					var none L
					return none, err
				}
				return m.v, nil
			}
		}
		if until.IsZero() {
			return m.v, err
		}
		if !time.Now().Before(giveUp) {
			break // ReconnectWait is over
		}
		if until.After(giveUp) {
			until = giveUp
		}
		wait := time.NewTimer(time.Until(until))
		select {
		case <-changed:
		case <-wait.C: // its grace or this call's wait ended: look again
		case <-ctx.Done():
			wait.Stop()
			return h.chooseNow(name)
		}
		wait.Stop()
	}
	return h.chooseNow(name)
}

// chooseNow is choose's browser and error now: a wait for the browser
// ended; the error says how long it has been gone by now. A browser that
// came in the meantime is refused, as Pick refuses it, while the person
// has stopped its automation.
func (h *Hub[L]) chooseNow(name string) (L, error) {
	h.mu.Lock()
	m, _, err := h.choose(name)
	h.mu.Unlock()
	if m.link != nil {
		if err := m.link.CheckAutomation(); err != nil {
			var none L
			return none, err
		}
	}
	return m.v, err
}

// Now is Pick without the wait, for the calls that describe the present:
// the browser for name if it is up now, and the browsers that are
// reconnecting (only name's when name is not ""). When none is up but one
// may come, it returns no browser and no error.
func (h *Hub[L]) Now(name string) (l L, reconnecting []protocol.Browser, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m, until, err := h.choose(name)
	if m.link == nil && !until.IsZero() {
		err = nil // on its way back: nothing of it is connected now
	}
	return m.v, h.reconnecting(name), err
}

// choose picks the link for name ("" = the only one) among the links up
// now. When there is none yet but one may come, it returns when to stop
// waiting for it and the error to give if the wait ends
// (browser_reconnecting); a zero time means do not wait. h.mu is held.
func (h *Hub[L]) choose(name string) (member[L], time.Time, error) {
	if name != "" {
		if m, ok := h.links[name]; ok {
			return m, time.Time{}, nil
		}
		if end, ok := h.known.Reconnecting(h.opts.ReconnectGrace)[name]; ok {
			return member[L]{}, end, protocol.Errorf(protocol.CodeBrowserReconnecting, "browser %s is reconnecting (its extension went away %s ago) and did not come back in time: try again; the extension's popup shows why it is down", name, h.awayFor(name)).With("browser", name)
		}
		if h.waiting > 0 {
			return member[L]{}, time.Now().Add(h.opts.ReconnectGrace), protocol.Errorf(protocol.CodeBrowserReconnecting, "no browser %q yet: a browser is connecting but did not say hello in time", name).With("browser", name)
		}
		connected := strings.Join(h.order, ", ")
		if connected == "" {
			connected = "none"
		}
		return member[L]{}, time.Time{}, protocol.Errorf(protocol.CodeNoBrowser, "no browser %q (connected: %s)", name, connected)
	}
	switch len(h.order) {
	case 1:
		return h.links[h.order[0]], time.Time{}, nil
	case 0:
	default:
		ids := strings.Join(h.order, ", ")
		return member[L]{}, time.Time{}, protocol.Errorf(protocol.CodeAmbiguousBrowser, "%d browsers are connected (%s): name one with \"browser\"", len(h.order), ids)
	}
	var ids []string
	var until time.Time
	for id, end := range h.known.Reconnecting(h.opts.ReconnectGrace) {
		ids = append(ids, id)
		if end.After(until) {
			until = end
		}
	}
	slices.Sort(ids)
	switch {
	case len(ids) > 0:
		return member[L]{}, until, protocol.Errorf(protocol.CodeBrowserReconnecting, "browser %s is reconnecting (its extension went away %s ago) and did not come back in time: try again; the extension's popup shows why it is down", strings.Join(ids, ", "), h.awayFor(ids[0])).With("browser", ids[0])
	case h.waiting > 0:
		return member[L]{}, time.Now().Add(h.opts.ReconnectGrace), protocol.Errorf(protocol.CodeBrowserReconnecting, "a browser is connecting but did not say hello in time")
	}
	return member[L]{}, time.Time{}, protocol.Errorf(protocol.CodeNoBrowser, "no browser is connected: start one with `egohost launch`, or check the extension's popup")
}

// reconnecting describes the browsers that are reconnecting (only name's
// when name is not ""), in ID order. h.mu is held.
func (h *Hub[L]) reconnecting(name string) []protocol.Browser {
	var out []protocol.Browser
	for id := range h.known.Reconnecting(h.opts.ReconnectGrace) {
		if name != "" && id != name {
			continue
		}
		b := h.lastInfo[id] // empty after a service restart: the ID is all it knows
		b.ID, b.RelayPID = id, 0
		if k := h.known.Known[h.known.KeyOf(id)]; k != nil {
			b.DisconnectedAt = k.LastSeen
			b.GoneMs = time.Since(k.LastSeen).Milliseconds()
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b protocol.Browser) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// awayFor says how long ago the browser with id dropped. h.mu is held.
func (h *Hub[L]) awayFor(id string) string {
	if k := h.known.Known[h.known.KeyOf(id)]; k != nil {
		return time.Since(k.LastSeen).Round(100 * time.Millisecond).String()
	}
	return "a moment"
}
