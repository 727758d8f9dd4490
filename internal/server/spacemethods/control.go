package spacemethods

import (
	"context"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// TakeOver gives a space to the person: what agents have running in it
// ends, and its tab comes to the front.
func (m *Methods) TakeOver(ctx context.Context, c Call, p protocol.SpaceParams) (any, error) {
	return m.control(ctx, c, "spaces.takeOver", p.Space, true)
}

// HandBack gives a space the person took over back to its agent.
func (m *Methods) HandBack(ctx context.Context, c Call, p protocol.SpaceParams) (any, error) {
	return m.control(ctx, c, "spaces.handBack", p.Space, false)
}

// control moves a space between the agent and the person: takeOver
// gives it to the person, else it is handed back.
func (m *Methods) control(ctx context.Context, c Call, op, id string, takeOver bool) (any, error) {
	if !c.Person() {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "%s is the person's (the popup, or the CLI without --agent): an agent cannot take a space over or hand it back", op)
	}
	if id == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "%s: name a space (see spaces.list)", op)
	}
	cur, err := m.spaceOf(c, id)
	if err != nil {
		return nil, err
	}
	reg := m.svc.Spaces()
	var sp spaces.Space
	if takeOver {
		sp, _ = reg.SetState(id, spaces.Person)
	} else {
		sp, _ = reg.HandBack(id, m.svc.Connected(cur.Agent))
	}
	var calls, subs, ended int
	if takeOver {
		calls, subs = m.svc.StopAgentsIn(sp)
	}
	m.svc.Audit(c.AuditName(), op, sp.ID+" (agent "+sp.Agent+")", sp.Browser)
	if b, ok := m.svc.Browser(sp.Browser); ok {
		if takeOver && sp.Group != 0 {
			// What the agents' raw CDP left on the tabs' debugger
			// sessions goes with them: the person gets the tabs as a
			// browser without egohost would show them.
			ended = b.EndAgentSessions(ctx, b.TabsInGroup(sp.Group))
		}
		b.Retitle(ctx, sp)
		if takeOver && sp.LastTab != 0 {
			// Bring the space's tab to the person: its window comes to the front.
			if _, err := b.Call(ctx, extwire.TabsActivate{TabID: sp.LastTab}); err != nil {
				b.Warn("show the taken-over space's tab", "space", sp.ID, "tab", sp.LastTab, "err", err)
			}
		}
	}
	m.svc.Save()
	m.log.Info("space control", "space", sp.ID, "agent", sp.Agent, "state", sp.State, "callsEnded", calls, "subscriptionsEnded", subs, "sessionsEnded", ended)
	return protocol.SpaceResult{Space: m.wire(sp, c)}, nil
}

// WaitForControl waits until the agent is in control of a space (at once
// when it is), within timeoutMs or the call's deadline less a second.
func (m *Methods) WaitForControl(ctx context.Context, c Call, p protocol.SpacesWaitParams) (any, error) {
	sp, err := m.spaceOf(c, p.Space)
	if err != nil {
		return nil, err
	}
	if p.TimeoutMs < 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "spaces.waitForControl: timeoutMs must not be negative")
	}
	d := actwire.Millis(p.TimeoutMs)
	if dl, ok := ctx.Deadline(); ok && (d == 0 || time.Until(dl)-time.Second < d) {
		d = max(time.Until(dl)-time.Second, 0)
	}
	reg := m.svc.Spaces()
	resumed := reg.Resumed(sp.ID)
	if resumed != nil {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-resumed:
		case <-t.C:
			return nil, protocol.Errorf(protocol.CodeTimeout, "spaces.waitForControl: the person still has space %s after %v", sp.ID, d).With("space", sp.ID)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	sp, ok := reg.Get(sp.ID)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "space %s was ended while you waited", p.Space)
	}
	if sp.Agent == c.Agent() { // its agent is back
		if now, woke := reg.Wake(sp.ID); woke {
			sp = now
			if b, ok := m.svc.Browser(sp.Browser); ok {
				b.Retitle(ctx, sp)
			}
			m.svc.Save()
		}
	}
	return protocol.SpaceResult{Space: m.wire(sp, c)}, nil
}
