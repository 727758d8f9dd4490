package service

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

// pairRequest asks the person (popup, or `egohost agents approve`) to
// pair an agent, waits for the answer, and returns the new token. A
// request that reaches the person gets one audit line when it ends; one
// refused before (bad params, over the caps) is only counted, as every
// refusal of a connection without a token is (tokenless.go).
func (s *Service) pairRequest(ctx context.Context, c *call, p protocol.PairRequestParams) (any, error) {
	a := c.conn
	scopes, wait, err := pairing.CheckRequest(p)
	if err != nil {
		s.strike(a)
		return nil, err
	}
	start := time.Now()
	req := pairing.Request{Name: p.Name, Scopes: scopes}
	req, askErr := s.pending.Ask(ctx, req, wait, func() *pairing.Process { return pairing.LookupPeer(a.remote) })
	if errors.Is(askErr, pairing.ErrBusy) {
		s.strike(a)
		return nil, pairing.AskError(askErr)
	}
	res, err := s.pairAnswered(req, askErr)
	// The caller is nobody yet: the line names it as such, and the name it
	// asked for as the target (a request is no proof of being that agent).
	s.auditDecision(a.auditName(), protocol.MethodPairRequest, p.Name, err, func(e *audit.Entry) {
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
func (s *Service) pairAnswered(req pairing.Request, err error) (any, error) {
	if err != nil {
		return nil, pairing.AskError(err)
	}
	tok, ag, err := s.pairs.Add(req.Name, req.Scopes, req.Process)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "pair.request: %v", err)
	}
	s.cutRevoked() // an earlier pairing of the name (replaced with the person's approval) is revoked now
	s.log.Info("agent paired", "agent", ag.Name, "scopes", pairing.ScopeList(ag.Scopes))
	return protocol.PairRequestResult{Name: ag.Name, Token: tok, Scopes: pairing.ScopeNames(ag.Scopes)}, nil
}

func (s *Service) agentsList(ctx context.Context, _ *call, _ rpcparams.None) (any, error) {
	res := protocol.AgentsListResult{Agents: []protocol.PairedAgent{}, Pending: []protocol.PairingRequest{}}
	for _, ag := range s.pairs.List() {
		res.Agents = append(res.Agents, ag.Wire(s.connectedAs(ag.ID)))
	}
	res.Pending = s.pendingRequests()
	return res, nil
}

// agentsApprove approves a pairing request by its agent name or id.
func (s *Service) agentsApprove(ctx context.Context, c *call, p protocol.AgentsApproveParams) (any, error) {
	var scopes []pairing.Scope
	if p.Scopes != nil {
		var err error
		if scopes, err = pairing.ParseScopes(p.Scopes); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "agents.approve: %v", err)
		}
	}
	return s.decide(c.conn.auditName(), p.Name, pairing.Answer{Approve: true, Scopes: scopes}, p.Replace)
}

// agentsDeny denies a pairing request by its agent name or id.
func (s *Service) agentsDeny(ctx context.Context, c *call, p protocol.AgentNameParams) (any, error) {
	return s.decide(c.conn.auditName(), p.Name, pairing.Answer{}, false)
}

// decide answers a pairing request for who (the audit log's name of the
// person or the owner's CLI), and audits the answer; the popup's buttons
// come here too. An approval that would replace a live pairing of the
// same name needs replace (pairing.DecideRequest).
func (s *Service) decide(who, nameOrID string, ans pairing.Answer, replace bool) (any, error) {
	method := protocol.MethodAgentsDeny
	if ans.Approve {
		method = protocol.MethodAgentsApprove
	}
	req, err := pairing.DecideRequest(s.pending, s.pairs, nameOrID, ans, replace)
	s.auditDecision(who, method, orNone(req.Name), err, func(e *audit.Entry) {
		if ans.Approve && err == nil {
			e.Scopes = pairing.ScopeNames(req.Scopes)
		}
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("pairing answered", "agent", req.Name, "approved", ans.Approve, "by", who)
	return map[string]any{"name": req.Name, "approved": ans.Approve, "scopes": pairing.ScopeNames(req.Scopes)}, nil
}

func (s *Service) agentsRevoke(ctx context.Context, c *call, p protocol.AgentNameParams) (any, error) {
	ag, err := s.pairs.Revoke(p.Name)
	switch {
	case errors.Is(err, pairing.ErrNoAgent):
		err = protocol.Errorf(protocol.CodeInvalidParams, "%v (see `egohost agents list`)", err)
	case err != nil:
		err = protocol.Errorf(protocol.CodeInternal, "%v", err)
	}
	var n int
	if err == nil {
		n = s.cutRevoked()
		s.log.Info("agent revoked", "agent", ag.Name, "connectionsCut", n)
		s.endSpacesOf(ctx, c, ag.Name)
	}
	s.auditDecision(c.conn.auditName(), protocol.MethodAgentsRevoke, p.Name, err, nil)
	if err != nil {
		return nil, err
	}
	return protocol.AgentsRevokeResult{Name: ag.Name, Cut: n}, nil
}

// auditTail returns the last calls from the audit log.
func (s *Service) auditTail(ctx context.Context, _ *call, p protocol.AuditTailParams) (any, error) {
	f, err := audit.TailFilter(p)
	if err != nil {
		return nil, err
	}
	read, err := audit.Scan(s.auditPath(), f)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "audit.tail: %v", err)
	}
	if read.Entries == nil {
		read.Entries = []audit.Entry{}
	}
	return protocol.AuditTailResult{Entries: read.Entries, Skipped: read.Skipped}, nil
}

// pairingChanged tells every browser's extension that pairing requests
// came or went: the icon's badge counts them, the popup lists them.
func (s *Service) pairingChanged() {
	n := pairing.Notice(s.pendingRequests())
	for _, r := range n.Pending {
		s.log.Info("pairing request waits: approve or deny it in the extension's popup, or with `egohost agents approve|deny "+r.Name+"`", "agent", r.Name, "scopes", strings.Join(r.Scopes, ","), "process", procSummary(r.Process))
	}
	links := s.hub.Links()
	for _, l := range links {
		if err := l.Notify(protocol.NoticePairing, n); err != nil {
			s.log.Debug("pairing notice", "browser", l.ID, "err", err)
		}
	}
}

func procSummary(p *protocol.PeerProcess) string {
	if p == nil {
		return "unknown"
	}
	return fmt.Sprintf("%s (pid %d, uid %d)", p.Exe, p.PID, p.UID)
}

func (s *Service) pendingRequests() []protocol.PairingRequest {
	out := []protocol.PairingRequest{}
	for _, r := range s.pending.List() {
		var replaces *protocol.PairedAgent
		if ag, ok := s.pairs.Live(r.Name); ok {
			w := ag.Wire(s.connectedAs(ag.ID))
			replaces = &w
		}
		out = append(out, r.Wire(replaces))
	}
	return out
}

// popupAgents is the popup's agents panel: who is paired, who waits, and
// the last calls.
func (s *Service) popupAgents(ctx context.Context, _ *link, p protocol.PopupAgentsParams) (any, error) {
	if p.Limit < 0 || p.Limit > 200 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.agents: limit must be between 1 and 200")
	}
	if p.Limit == 0 {
		p.Limit = 20
	}
	if p.PerAgent < 0 || p.PerAgent > recentPerAgent {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.agents: perAgent must be between 0 and %d", recentPerAgent)
	}
	l, err := s.agentsList(ctx, nil, rpcparams.None{})
	if err != nil {
		return nil, err
	}
	var calls []audit.Entry
	if p.Agent == "" {
		calls = s.recent.Tail(p.Limit) // the popup asks every second: from memory
	} else if calls, err = audit.Read(s.auditPath(), audit.Filter{Agent: p.Agent, Limit: p.Limit}); err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "popup.agents: %v", err)
	}
	if calls == nil {
		calls = []audit.Entry{}
	}
	res := protocol.PopupAgentsResult{AgentsListResult: l.(protocol.AgentsListResult), Calls: calls, Connections: s.liveConnections()}
	if p.PerAgent > 0 {
		res.Recent = s.recent.Last(p.PerAgent)
	}
	return res, nil
}

// popupPairingDecide is the popup's approve and deny buttons.
func (s *Service) popupPairingDecide(ctx context.Context, l *link, p protocol.PopupPairingDecideParams) (any, error) {
	key := p.ID
	if key == "" {
		key = p.Name
	}
	if key == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.pairing.decide: give the request's id (or name)")
	}
	s.log.Info("pairing answered at the popup", "browser", l.ID, "request", key, "approved", p.Approve)
	return s.decide(personName, key, pairing.Answer{Approve: p.Approve}, p.Replace)
}
