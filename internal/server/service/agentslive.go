package service

import (
	"slices"

	"github.com/egohost/egohost/internal/server/agentlive"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// The live agent connections (s.conns, internal/server/agentlive) as the
// service reads them: who is connected with which token, cutting the
// revoked ones, and what the popup's Agents panel shows live (PROTOCOL.md
// §2.6): each connection's calls in flight, each agent's last calls, and
// a way to cut an agent's connections.

// recentPerAgent is how many calls per agent the service keeps in memory.
const recentPerAgent = 20

// liveConn is a live agent connection as the registry lists it.
type liveConn = agentlive.Live[*agent]

// live describes the live connection lc for popup.agents.
func (s *Service) live(lc liveConn) protocol.AgentConnection {
	a := lc.Conn
	a.procOnce.Do(func() { a.proc = pairing.LookupPeer(a.remote) })
	calls := s.conns.Calls(a)
	a.mu.Lock()
	conn := protocol.AgentConnection{
		ID: lc.ID, Agent: a.name, Paired: a.grant.kind == grantPaired, Since: lc.Since.UTC(),
		Process: a.proc.Wire(), Calls: make([]protocol.CallInFlight, 0, len(calls)),
	}
	a.mu.Unlock()
	for _, r := range calls {
		c := r.Call
		c.mu.Lock()
		tab := c.tab
		c.mu.Unlock()
		target := audit.Sanitise(audit.CallEntry(c.method, c.params.Members())).Target // capped as in the log
		conn.Calls = append(conn.Calls, protocol.CallInFlight{Method: c.method, Target: target, Tab: tab, Since: r.Since.UTC()})
	}
	return conn
}

// liveConnections lists the live agent connections, oldest first.
func (s *Service) liveConnections() []protocol.AgentConnection {
	out := []protocol.AgentConnection{}
	for _, lc := range s.conns.List() {
		if lc.Conn.grant.kind != grantUnpaired { // one asking to pair is a pairing request (pending), not an agent
			out = append(out, s.live(lc))
		}
	}
	return out
}

// connectedAs counts the live connections with a paired token's id.
func (s *Service) connectedAs(tokenID string) int {
	n := 0
	for _, lc := range s.conns.List() {
		if lc.Conn.grant.kind == grantPaired && lc.Conn.grant.tokenID == tokenID {
			n++
		}
	}
	return n
}

// cutRevoked closes at once every connection whose paired token is no
// longer valid, and returns how many it closed. Their calls in flight end
// with their context.
func (s *Service) cutRevoked() int {
	return s.conns.Cut(func(lc liveConn) bool {
		if lc.Conn.grant.kind != grantPaired {
			return false
		}
		_, ok := s.pairs.ByID(lc.Conn.grant.tokenID)
		return !ok
	})
}

// disconnect cuts at once the live connections of the named agent ("":
// none) and those numbered ids (the popup's Disconnect button), and
// returns how many it cut. Nothing is revoked: the agent may connect
// again.
func (s *Service) disconnect(agent string, ids []uint64) int {
	return s.conns.Cut(func(lc liveConn) bool {
		return (agent != "" && lc.Conn.agentName() == agent) || slices.Contains(ids, lc.ID)
	})
}
