package service

import (
	"context"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/ownermethods"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/protocol"
)

// The person's methods (pairing, agents.*, audit.tail, trace.* and the
// popup's views of them) run in internal/server/ownermethods: a call is
// its Call, a popup's browser its Popup, and ownerSide its Service.

// owner is the person's methods on s.
func (s *Service) owner() *ownermethods.Methods { return ownermethods.New(ownerSide{s}, s.log) }

// ownerCall is c as the person's methods see a call.
func ownerCall(c *call) ownermethods.Call { return c }

// ownerPopup is l as the person's methods see a popup's browser.
func ownerPopup(l *link) ownermethods.Popup { return l }

// AuditName is the caller as the audit log names it.
func (c *call) AuditName() string { return c.conn.auditName() }

// Strike counts a refused call of a connection without a token (strike).
func (c *call) Strike() { c.conn.s.strike(c.conn) }

// Peer is the process at the other end of the call's connection.
func (c *call) Peer() *pairing.Process { return pairing.LookupPeer(c.conn.remote) }

// EndSpaces ends the spaces of the revoked agent (endSpacesOf).
func (c *call) EndSpaces(ctx context.Context, agent string) { c.conn.s.endSpacesOf(ctx, c, agent) }

// ScriptedOwnTabs are the tabs of every connected browser, in no
// space, whose page an agent's own script may run in, and those to close
// first (hub.Link.ScriptedAdvice).
func (c *call) ScriptedOwnTabs() (reload, closeFirst []protocol.Target) {
	s := c.conn.s
	for _, l := range s.hub.Links() {
		var own []int
		for _, tab := range l.ScriptedTabs() {
			if _, inSpace := s.spaces.reg.ByGroup(l.ID, l.Layout.GroupOf(tab)); !inSpace {
				own = append(own, tab)
			}
		}
		r, cf := l.ScriptedAdvice(own)
		for _, tab := range r {
			reload = append(reload, protocol.Target{Browser: l.ID, Tab: tab})
		}
		for _, tab := range cf {
			closeFirst = append(closeFirst, protocol.Target{Browser: l.ID, Tab: tab})
		}
	}
	return reload, closeFirst
}

// Browser is the link's browser ID.
func (l *link) Browser() string { return l.ID }

// AuditName is the person at the link's browser, as the audit log names them.
func (l *link) AuditName() string { return l.person.auditName() }

// ownerSide is the service as the person's methods need it.
type ownerSide struct{ s *Service }

func (o ownerSide) Pairs() *pairing.Store                     { return o.s.pairs }
func (o ownerSide) Pending() *pairing.Pending                 { return o.s.pending }
func (o ownerSide) ConnectedAs(tokenID string) int            { return o.s.connectedAs(tokenID) }
func (o ownerSide) Connections() []protocol.AgentConnection   { return o.s.liveConnections() }
func (o ownerSide) CutRevoked() int                           { return o.s.cutRevoked() }
func (o ownerSide) Disconnect(agent string, ids []uint64) int { return o.s.disconnect(agent, ids) }
func (o ownerSide) AuditPath() string                         { return o.s.auditPath() }
func (o ownerSide) Recent() *audit.Recent                     { return o.s.recent }
func (o ownerSide) Traces() *trace.Recorder                   { return o.s.traces }

func (o ownerSide) Audit(who, method, target string, err error, fill func(*audit.Entry)) {
	o.s.auditDecision(who, method, target, err, fill)
}

func (o ownerSide) NotifyPairing(n protocol.PairingNotice) {
	for _, l := range o.s.hub.Links() {
		if err := l.Notify(protocol.NoticePairing, n); err != nil {
			o.s.log.Debug("pairing notice", "browser", l.ID, "err", err)
		}
	}
}
