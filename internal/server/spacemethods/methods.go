package spacemethods

import (
	"context"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// Hello names the caller's connection (once) and says its current space.
func (m *Methods) Hello(ctx context.Context, c Call, p protocol.HelloParams) (any, error) {
	if err := spaces.CheckName(p.Agent); err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "hello: %v", err)
	}
	if err := c.CheckAgentName(p.Agent); err != nil {
		return nil, err
	}
	if cur := c.Agent(); cur != "" && cur != p.Agent {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "hello: this connection is agent %s already: a connection has one name (open another connection for agent %s)", cur, p.Agent)
	}
	if c.Agent() == "" {
		c.SetAgent(p.Agent)
	}
	res := protocol.HelloResult{Agent: p.Agent, Version: egohost.Version}
	if sp, ok := m.svc.Spaces().Current(p.Agent); ok {
		w := m.wire(sp, c)
		res.Space = &w
	}
	return res, nil
}

// List lists the spaces: an agent's own (every agent's with all), the
// person's every agent's; a paired agent that sees only its own spaces
// gets its own whatever it asks.
func (m *Methods) List(ctx context.Context, c Call, p protocol.SpacesListParams) (any, error) {
	name := c.Agent()
	for _, b := range m.svc.Browsers() {
		b.Sync(ctx)
	}
	filter := p.Agent
	if filter == "" && !c.Person() && !p.All || c.OwnSpacesOnly() {
		filter = name
	}
	res := protocol.SpacesListResult{Spaces: []protocol.Space{}}
	for _, sp := range m.svc.Spaces().List(filter) {
		res.Spaces = append(res.Spaces, m.wire(sp, c))
	}
	return res, nil
}

// NewSpace makes the agent a new space with a first tab, its current
// one from now on.
func (m *Methods) NewSpace(ctx context.Context, c Call, p protocol.SpacesNewParams) (any, error) {
	name, err := needAgent(c, "spaces.new")
	if err != nil {
		return nil, err
	}
	if err := spaces.CheckTask(p.Task); err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "spaces.new: %v", err)
	}
	b, err := c.Pick(ctx, p.Browser)
	if err != nil {
		return nil, err
	}
	b.Sync(ctx)
	reg := m.svc.Spaces()
	prev, _ := reg.Current(name)
	sp := reg.Add(name, p.Task, b.ID())
	m.log.Info("space created", "space", sp.ID, "agent", name, "browser", b.ID(), "task", p.Task)
	m.svc.Save()
	tab, err := c.OpenTab(ctx, protocol.TabsOpenParams{Browser: b.ID(), URL: p.URL, Background: p.Background})
	if err != nil {
		// No tab (the person said no, nobody answered, the browser
		// refused): no space either, and the agent's current one is back.
		if reg.Abandon(sp.ID, prev.ID) {
			m.svc.Save()
			m.log.Info("space dropped: its tab did not open", "space", sp.ID, "agent", name, "err", err)
		}
		return nil, err
	}
	sp, _ = reg.Get(sp.ID)
	return protocol.SpaceResult{Space: m.wire(sp, c), Tab: &tab}, nil
}

// Use makes one of the agent's spaces its current one.
func (m *Methods) Use(ctx context.Context, c Call, p protocol.SpaceParams) (any, error) {
	name, err := needAgent(c, "spaces.use")
	if err != nil {
		return nil, err
	}
	if p.Space == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "spaces.use: name a space")
	}
	sp, err := m.spaceOf(c, p.Space)
	if err != nil {
		return nil, err
	}
	m.svc.Spaces().Use(name, sp.ID)
	m.svc.Save()
	return protocol.SpaceResult{Space: m.wire(sp, c)}, nil
}

// Claim moves a tab of the person's into one of the agent's spaces (its
// current one when it names none).
func (m *Methods) Claim(ctx context.Context, c Call, p protocol.SpacesClaimParams) (any, error) {
	name, err := needAgent(c, "spaces.claim")
	if err != nil {
		return nil, err
	}
	if c.OwnSpacesOnly() {
		// Its scope is its own spaces: taking the person's tab is the
		// person's call (dragging the tab into the agent's group does it).
		return nil, protocol.Errorf(protocol.CodeScopeDenied, "spaces.claim: agent %s was paired without all-tabs, so it cannot take the person's tabs: ask the person to drag the tab into your tab group, or pair again with --scope all-tabs", name).
			With("need", "all-tabs")
	}
	if p.Tab == 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "spaces.claim: name the tab to claim")
	}
	b, err := c.Pick(ctx, p.Browser)
	if err != nil {
		return nil, err
	}
	b.Sync(ctx)
	if other, ok := m.svc.Spaces().ByGroup(b.ID(), b.GroupOf(p.Tab)); ok {
		if other.Agent == name {
			return protocol.SpaceResult{Space: m.wire(other, c)}, nil
		}
		return nil, protocol.Errorf(protocol.CodeNotInSpace, "spaces.claim: tab %d is in agent %s's space %s: only the person can take it from there", p.Tab, other.Agent, other.ID).
			With("tab", p.Tab).With("space", other.ID).With("owner", other.Agent)
	}
	if paired, ok := c.Paired(); ok {
		// A tab on an origin its rules deny stays the person's: claiming
		// it would make it the agent's to reach.
		url, err := b.TabURL(ctx, p.Tab)
		if err != nil {
			return nil, err
		}
		if d := m.svc.Rules(paired).Decide(url, ""); !d.OK {
			return nil, protocol.Errorf(protocol.CodeForbiddenOriginScope, "spaces.claim: tab %d is on an origin agent %q may not reach: it stays the person's", p.Tab, paired).
				With("tab", p.Tab).With("reason", d.Reason)
		}
	}
	var sp spaces.Space
	if p.Space != "" {
		if sp, err = m.spaceOf(c, p.Space); err != nil {
			return nil, err
		}
		if sp.Browser != b.ID() {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "spaces.claim: space %s is in browser %s, tab %d in browser %s", sp.ID, sp.Browser, p.Tab, b.ID())
		}
		if sp.State == spaces.Person {
			return nil, UserInControl(sp)
		}
	} else if sp, err = b.SpaceFor(ctx, name); err != nil {
		return nil, err
	}
	if sp, err = b.AddTab(ctx, sp, p.Tab); err != nil {
		return nil, err
	}
	m.log.Info("tab claimed", "agent", name, "space", sp.ID, "tab", p.Tab)
	return protocol.SpaceResult{Space: m.wire(sp, c)}, nil
}
