package service

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// What the popup's Agents panel shows live (PROTOCOL.md §2.6): each
// connection's calls in flight, each agent's last calls, and a way to cut
// an agent's connections.

// recentPerAgent is how many calls per agent the service keeps in memory.
const recentPerAgent = 20

// inflight is one call an agent connection is waiting on.
type inflight struct {
	params params // its target is read from them only when the popup asks
	since  time.Time
}

// track notes c as running on a's connection until the returned func is
// called. The person's popup calls are not an agent's: not tracked.
func (a *agent) track(c *call, in params) func() {
	if a.person || a.conn == nil {
		return func() {}
	}
	fl := inflight{params: in, since: time.Now()}
	a.mu.Lock()
	if a.inflight == nil {
		a.inflight = make(map[*call]inflight)
	}
	a.inflight[c] = fl
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		delete(a.inflight, c)
		a.mu.Unlock()
	}
}

// live describes a's connection for popup.agents.
func (a *agent) live() protocol.AgentConnection {
	a.procOnce.Do(func() { a.proc = pairing.LookupPeer(a.remote) })
	a.mu.Lock()
	conn := protocol.AgentConnection{
		ID: a.id, Agent: a.name, Paired: a.grant.kind == grantPaired, Since: a.since.UTC(),
		Process: a.proc.Wire(), Calls: make([]protocol.CallInFlight, 0, len(a.inflight)),
	}
	type running struct {
		c  *call
		in inflight
	}
	calls := make([]running, 0, len(a.inflight))
	for c, in := range a.inflight {
		calls = append(calls, running{c, in})
	}
	a.mu.Unlock()
	slices.SortFunc(calls, func(x, y running) int { return x.in.since.Compare(y.in.since) })
	for _, r := range calls {
		r.c.mu.Lock()
		tab := r.c.tab
		r.c.mu.Unlock()
		target := audit.Sanitise(audit.CallEntry(r.c.method, r.in.params.members)).Target // capped as in the log
		conn.Calls = append(conn.Calls, protocol.CallInFlight{Method: r.c.method, Target: target, Tab: tab, Since: r.in.since.UTC()})
	}
	return conn
}

// liveConnections lists the live agent connections, oldest first.
func (s *Service) liveConnections() []protocol.AgentConnection {
	s.connMu.Lock()
	conns := make([]*agent, 0, len(s.conns))
	for a := range s.conns {
		if a.grant.kind != grantUnpaired { // one asking to pair is a pairing request (pending), not an agent
			conns = append(conns, a)
		}
	}
	s.connMu.Unlock()
	slices.SortFunc(conns, func(x, y *agent) int { return compareIDs(x.id, y.id) })
	out := make([]protocol.AgentConnection, 0, len(conns))
	for _, a := range conns {
		out = append(out, a.live())
	}
	return out
}

func compareIDs(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// popupDisconnect is the popup's Disconnect button: it cuts the named
// agent's live connections (or the numbered ones) at once. Their calls in
// flight end; nothing is revoked, so the agent may connect again.
func (s *Service) popupDisconnect(ctx context.Context, l *link, p protocol.PopupDisconnectParams) (any, error) {
	if (p.Agent == "") == (len(p.Connections) == 0) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.disconnect: give either agent (a name) or connections (ids from popup.agents)")
	}
	s.connMu.Lock()
	var cut []*agent
	for a := range s.conns {
		if (p.Agent != "" && a.agentName() == p.Agent) || slices.Contains(p.Connections, a.id) {
			cut = append(cut, a)
		}
	}
	s.connMu.Unlock()
	for _, a := range cut {
		a.cut()
	}
	s.log.Info("agent disconnected at the popup", "browser", l.ID, "agent", p.Agent, "connections", p.Connections, "cut", len(cut))
	target := p.Agent
	if target == "" {
		target = fmt.Sprintf("connections %v", p.Connections)
	}
	s.auditDecision(personName, protocol.MethodPopupDisconnect, target, nil, func(e *audit.Entry) { e.Browser = l.ID })
	return protocol.PopupDisconnectResult{Cut: len(cut)}, nil
}
