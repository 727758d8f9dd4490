package ownermethods

import (
	"context"
	"fmt"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// PopupAgents is the popup's agents panel: who is paired, who waits, and
// the last calls.
func (m *Methods) PopupAgents(ctx context.Context, _ Popup, p protocol.PopupAgentsParams) (any, error) {
	if p.Limit < 0 || p.Limit > 200 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.agents: limit must be between 1 and 200")
	}
	if p.Limit == 0 {
		p.Limit = 20
	}
	recent := m.s.Recent()
	if p.PerAgent < 0 || p.PerAgent > recent.PerAgent() {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.agents: perAgent must be between 0 and %d", recent.PerAgent())
	}
	l := m.agentsList()
	var calls []audit.Entry
	var err error
	if p.Agent == "" {
		calls = recent.Tail(p.Limit) // the popup asks every second: from memory
	} else if calls, err = audit.Read(m.s.AuditPath(), audit.Filter{Agent: p.Agent, Limit: p.Limit}); err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "popup.agents: %v", err)
	}
	if calls == nil {
		calls = []audit.Entry{}
	}
	res := protocol.PopupAgentsResult{AgentsListResult: l, Calls: calls, Connections: m.s.Connections()}
	if p.PerAgent > 0 {
		res.Recent = recent.Last(p.PerAgent)
	}
	return res, nil
}

// PopupPairingDecide is the popup's approve and deny buttons.
func (m *Methods) PopupPairingDecide(ctx context.Context, pp Popup, p protocol.PopupPairingDecideParams) (any, error) {
	key := p.ID
	if key == "" {
		key = p.Name
	}
	if key == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.pairing.decide: give the request's id (or name)")
	}
	m.log.Info("pairing answered at the popup", "browser", pp.Browser(), "request", key, "approved", p.Approve)
	return m.decide(pp.AuditName(), key, pairing.Answer{Approve: p.Approve}, p.Replace)
}

// PopupDisconnect is the popup's Disconnect button: it cuts the named
// agent's live connections (or the numbered ones) at once. Their calls in
// flight end; nothing is revoked, so the agent may connect again.
func (m *Methods) PopupDisconnect(ctx context.Context, pp Popup, p protocol.PopupDisconnectParams) (any, error) {
	if (p.Agent == "") == (len(p.Connections) == 0) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.disconnect: give either agent (a name) or connections (ids from popup.agents)")
	}
	n := m.s.Disconnect(p.Agent, p.Connections)
	m.log.Info("agent disconnected at the popup", "browser", pp.Browser(), "agent", p.Agent, "connections", p.Connections, "cut", n)
	target := p.Agent
	if target == "" {
		target = fmt.Sprintf("connections %v", p.Connections)
	}
	m.s.Audit(pp.AuditName(), protocol.MethodPopupDisconnect, target, nil, func(e *audit.Entry) { e.Browser = pp.Browser() })
	return protocol.PopupDisconnectResult{Cut: n}, nil
}
