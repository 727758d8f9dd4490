package ownermethods

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// PairRequest asks the person (popup, or `egohost agents approve`) to
// pair an agent, waits for the answer, and returns the new token. A
// request that reaches the person gets one audit line when it ends; one
// refused before (bad params, over the caps) is only counted, as every
// refusal of a connection without a token is (Call.Strike).
func (m *Methods) PairRequest(ctx context.Context, c Call, p protocol.PairRequestParams) (any, error) {
	scopes, wait, err := pairing.CheckRequest(p)
	if err != nil {
		c.Strike()
		return nil, err
	}
	start := time.Now()
	req := pairing.Request{Name: p.Name, Scopes: scopes}
	req, askErr := m.s.Pending().Ask(ctx, req, wait, c.Peer)
	if errors.Is(askErr, pairing.ErrBusy) {
		c.Strike()
		return nil, pairing.AskError(askErr)
	}
	res, err := m.pairAnswered(req, askErr)
	// The caller is nobody yet: the line names it as such, and the name it
	// asked for as the target (a request is no proof of being that agent).
	m.s.Audit(c.AuditName(), protocol.MethodPairRequest, p.Name, err, func(e *audit.Entry) {
		e.Time = start.UTC()
		e.Scopes = pairing.ScopeNames(req.Scopes) // those granted, when approved
		e.Process = procWords(req.Process.Wire())
		e.Duration = float64(time.Since(start).Microseconds()) / 1000
		switch {
		case err == nil:
			e.Result = "approved"
		case errors.Is(askErr, pairing.ErrDenied):
			e.Result = "denied"
		case errors.Is(askErr, pairing.ErrExpired):
			e.Result = "expired"
		case errors.Is(askErr, context.Canceled):
			e.Result = "canceled" // the agent went away before the answer
		}
	})
	return res, err
}

// pairAnswered turns the person's answer to req into pair.request's reply.
func (m *Methods) pairAnswered(req pairing.Request, err error) (any, error) {
	if err != nil {
		return nil, pairing.AskError(err)
	}
	tok, ag, err := m.s.Pairs().Add(req.Name, req.Scopes, req.Process)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "pair.request: %v", err)
	}
	m.s.CutRevoked() // an earlier pairing of the name (replaced with the person's approval) is revoked now
	m.log.Info("agent paired", "agent", ag.Name, "scopes", pairing.ScopeList(ag.Scopes))
	return protocol.PairRequestResult{Name: ag.Name, Token: tok, Scopes: pairing.ScopeNames(ag.Scopes)}, nil
}

// AgentsList lists the paired agents and the pairing requests waiting.
func (m *Methods) AgentsList(ctx context.Context, _ Call, _ rpcparams.None) (any, error) {
	return m.agentsList(), nil
}

func (m *Methods) agentsList() protocol.AgentsListResult {
	res := protocol.AgentsListResult{Agents: []protocol.PairedAgent{}, Pending: []protocol.PairingRequest{}}
	for _, ag := range m.s.Pairs().List() {
		res.Agents = append(res.Agents, ag.Wire(m.s.ConnectedAs(ag.ID)))
	}
	res.Pending = m.pendingRequests()
	return res
}

// AgentsApprove approves a pairing request by its agent name or id.
func (m *Methods) AgentsApprove(ctx context.Context, c Call, p protocol.AgentsApproveParams) (any, error) {
	var scopes []pairing.Scope
	if p.Scopes != nil {
		var err error
		if scopes, err = pairing.ParseScopes(p.Scopes); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "agents.approve: %v", err)
		}
	}
	return m.decide(c.AuditName(), p.Name, pairing.Answer{Approve: true, Scopes: scopes}, p.Replace)
}

// AgentsDeny denies a pairing request by its agent name or id.
func (m *Methods) AgentsDeny(ctx context.Context, c Call, p protocol.AgentNameParams) (any, error) {
	return m.decide(c.AuditName(), p.Name, pairing.Answer{}, false)
}

// decide answers a pairing request for who (the audit log's name of the
// person or the owner's CLI), and audits the answer; the popup's buttons
// come here too. An approval that would replace a live pairing of the
// same name needs replace (pairing.DecideRequest).
func (m *Methods) decide(who, nameOrID string, ans pairing.Answer, replace bool) (any, error) {
	method := protocol.MethodAgentsDeny
	if ans.Approve {
		method = protocol.MethodAgentsApprove
	}
	req, err := pairing.DecideRequest(m.s.Pending(), m.s.Pairs(), nameOrID, ans, replace)
	target := req.Name
	if target == "" {
		target = "none"
	}
	m.s.Audit(who, method, target, err, func(e *audit.Entry) {
		if ans.Approve && err == nil {
			e.Scopes = pairing.ScopeNames(req.Scopes)
		}
	})
	if err != nil {
		return nil, err
	}
	m.log.Info("pairing answered", "agent", req.Name, "approved", ans.Approve, "by", who)
	return map[string]any{"name": req.Name, "approved": ans.Approve, "scopes": pairing.ScopeNames(req.Scopes)}, nil
}

// AgentsRevoke revokes an agent's pairing: its connections are cut, its
// spaces end.
func (m *Methods) AgentsRevoke(ctx context.Context, c Call, p protocol.AgentNameParams) (any, error) {
	ag, err := m.s.Pairs().Revoke(p.Name)
	switch {
	case errors.Is(err, pairing.ErrNoAgent):
		err = protocol.Errorf(protocol.CodeInvalidParams, "%v (see `egohost agents list`)", err)
	case err != nil:
		err = protocol.Errorf(protocol.CodeInternal, "%v", err)
	}
	var n int
	if err == nil {
		n = m.s.CutRevoked()
		m.log.Info("agent revoked", "agent", ag.Name, "connectionsCut", n)
		c.EndSpaces(ctx, ag.Name)
	}
	m.s.Audit(c.AuditName(), protocol.MethodAgentsRevoke, p.Name, err, nil)
	if err != nil {
		return nil, err
	}
	res := protocol.AgentsRevokeResult{Name: ag.Name, Cut: n}
	// What the agent's script left in the person's own pages outlives
	// it: the person is told where (its spaces' kept tabs included).
	res.Scripted, res.CloseFirst = c.ScriptedOwnTabs()
	return res, nil
}

// PairingChanged tells every browser's extension that pairing requests
// came or went: the icon's badge counts them, the popup lists them. It is
// the pairing.Pending's changed.
func (m *Methods) PairingChanged() {
	n := pairing.Notice(m.pendingRequests())
	for _, r := range n.Pending {
		m.log.Info("pairing request waits: approve or deny it in the extension's popup, or with `egohost agents approve|deny "+r.Name+"`", "agent", r.Name, "scopes", strings.Join(r.Scopes, ","), "process", procSummary(r.Process))
	}
	m.s.NotifyPairing(n)
}

func (m *Methods) pendingRequests() []protocol.PairingRequest {
	out := []protocol.PairingRequest{}
	for _, r := range m.s.Pending().List() {
		var replaces *protocol.PairedAgent
		if ag, ok := m.s.Pairs().Live(r.Name); ok {
			w := ag.Wire(m.s.ConnectedAs(ag.ID))
			replaces = &w
		}
		out = append(out, r.Wire(replaces))
	}
	return out
}

func procSummary(p *protocol.PeerProcess) string {
	if p == nil {
		return "unknown"
	}
	return fmt.Sprintf("%s (pid %d, uid %d)", p.Exe, p.PID, p.UID)
}

// procWords names a process in an audit line.
func procWords(p *protocol.PeerProcess) string {
	if p == nil {
		return ""
	}
	return procSummary(p)
}
