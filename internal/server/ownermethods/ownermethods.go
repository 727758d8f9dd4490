// Package ownermethods runs the person's own methods: pairing agents
// (pair.request and its answer, agents.list, approve, deny, revoke), the
// audit log's last calls (audit.tail), traces (trace.start, stop, list),
// and the popup's views of them (popup.agents, popup.pairing.decide,
// popup.disconnect, popup.trace). It decides, words the answers and
// writes the decisions' audit lines; the service it runs in keeps the
// stores, the live connections and the browsers (its Service).
package ownermethods

import (
	"context"
	"log/slog"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/protocol"
)

// Call is the call of one of the methods, as they need it.
type Call interface {
	// AuditName is the caller as the audit log names it: an agent's
	// name, "owner", "person" or "(unpaired)".
	AuditName() string
	// Strike counts a refused call of a connection without a token, which
	// closes after too many; it does nothing for other connections.
	Strike()
	// Peer looks up the process at the other end of the connection (nil
	// when the OS does not tell).
	Peer() *pairing.Process
	// EndSpaces ends the spaces of the revoked agent, as this call.
	EndSpaces(ctx context.Context, agent string)
	// ScriptedOwnTabs are the person's tabs (in no agent's space) whose
	// page an agent's own script may run in, to reload, and the tabs
	// linked to them to close first (hub.Link.ScriptedAdvice).
	ScriptedOwnTabs() (reload, closeFirst []protocol.Target)
}

// Popup is the browser whose popup made a popup.* call.
type Popup interface {
	// Browser is the browser's ID.
	Browser() string
	// AuditName is the person at that browser, as the audit log names them.
	AuditName() string
}

// Service is what the methods need of the service they run in.
type Service interface {
	// Pairs is the store of the paired agents, Pending the pairing
	// requests waiting for the person.
	Pairs() *pairing.Store
	Pending() *pairing.Pending
	// ConnectedAs counts the live connections with a paired token's ID.
	ConnectedAs(tokenID string) int
	// Connections lists the live agent connections, oldest first.
	Connections() []protocol.AgentConnection
	// CutRevoked closes every connection whose paired token is no longer
	// valid, and returns how many it closed.
	CutRevoked() int
	// Disconnect closes the live connections of the named agent ("":
	// none) and those numbered ids, and returns how many it closed.
	Disconnect(agent string, ids []uint64) int
	// NotifyPairing tells every browser's extension which pairing
	// requests wait.
	NotifyPairing(n protocol.PairingNotice)
	// Audit writes the line of a decision: who made it, what (method), on
	// what (target) and how it ended; fill (may be nil) adds fields.
	Audit(who, method, target string, err error, fill func(*audit.Entry))
	// AuditPath is the audit log's file; Recent keeps each agent's last
	// calls in memory.
	AuditPath() string
	Recent() *audit.Recent
	// Traces records the traces.
	Traces() *trace.Recorder
}

// Methods runs the person's methods for a service.
type Methods struct {
	s   Service
	log *slog.Logger
}

// New returns the methods of s, logging to log.
func New(s Service, log *slog.Logger) *Methods {
	return &Methods{s: s, log: log}
}
