package service

import (
	"time"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/wireerr"
)

// The audit log's other lines: what the person (the popup) or the owner's
// CLI decided — pairing requests and their answers, revocations, taking a
// space over and handing it back, Stop all, cutting connections. The
// calls that reach a tab are written by auditCall (access.go). Every line
// goes through writeAudit, and every field is capped by the audit package
// (audit.Sanitise), whoever filled it.

// writeAudit appends e to the audit log and to the popup's recent calls.
func (s *Service) writeAudit(e audit.Entry) {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if s.audit != nil {
		if err := s.audit.Append(e); err != nil {
			s.log.Warn("audit log", "err", err)
		}
	}
	if s.recent != nil {
		s.recent.Add(e)
	}
}

// auditDecision writes the line of a decision: who made it, what (the
// method), on what (target: an agent's name, a space, a browser), and how
// it ended. fill (may be nil) adds fields.
func (s *Service) auditDecision(who, method, target string, err error, fill func(*audit.Entry)) {
	e := audit.Entry{Agent: who, Method: method, Target: target, Result: "ok"}
	if err != nil {
		e.Result = wireerr.Of(err).Code.Name()
	}
	if fill != nil {
		fill(&e)
	}
	s.writeAudit(e)
}

// auditName is how the audit log names a connection's agent: the paired
// name, the name an owner-token connection gave itself, "owner", or
// "person" (the popup).
func (a *agent) auditName() string {
	if a.grant.kind == grantOwner && a.grant.name == "" {
		if n := a.agentName(); n != "" {
			return n
		}
	}
	return a.grant.auditName()
}
