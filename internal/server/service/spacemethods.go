package service

import (
	"context"
	"encoding/json"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/spacemethods"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// spaceMethods are the handlers of the spaces methods
// (internal/server/spacemethods) over this service.
func (s *Service) spaceMethods() *spacemethods.Methods {
	return spacemethods.New(spaceService{s}, s.log)
}

// spaceCall gives a call to the spaces methods.
func spaceCall(c *call) spacemethods.Call { return c }

// endSpacesOf ends the spaces of a revoked agent, c being the revoking
// call (spacemethods.Methods.EndSpacesOf), and what its raw CDP left on
// any tab's debugger session (those of the person's own tabs too, which
// an agent with all-tabs may reach): each such tab is detached.
func (s *Service) endSpacesOf(ctx context.Context, c *call, agent string) {
	s.spaceMethods().EndSpacesOf(ctx, c, agent)
	if agent == "" {
		return
	}
	for _, l := range s.hub.Links() {
		if tabs := l.AgentCDPTabs(agent); len(tabs) > 0 {
			endAgentSessions(ctx, l.Link, tabs)
		}
	}
}

// What the spaces methods need of a call (spacemethods.Call).

func (c *call) Agent() string                    { return c.conn.agentName() }
func (c *call) Person() bool                     { return isPerson(c.conn.agentName()) }
func (c *call) CheckAgentName(name string) error { return c.conn.grant.checkAgentName(name) }
func (c *call) SetAgent(name string)             { c.conn.setName(name) }
func (c *call) OwnSpacesOnly() bool              { return ownSpacesOnly(c.conn) }

func (c *call) Who() string {
	if name := c.conn.agentName(); name != "" {
		return name
	}
	return personName
}

func (c *call) Paired() (string, bool) {
	return c.conn.grant.name, c.conn.grant.kind == grantPaired
}

func (c *call) Pick(ctx context.Context, browser string) (spacemethods.Browser, error) {
	l, err := c.conn.s.pickLink(ctx, c, browser)
	if err != nil {
		return nil, err
	}
	return spaceBrowser{c.conn.s, l}, nil
}

func (c *call) OpenTab(ctx context.Context, p protocol.TabsOpenParams) (protocol.Tab, error) {
	opened, err := c.conn.s.tabsOpen(ctx, c, p)
	if err != nil {
		return protocol.Tab{}, err
	}
	return opened.(protocol.TabResult).Tab, nil
}

// spaceBrowser is a browser link as the spaces methods see it
// (spacemethods.Browser).
type spaceBrowser struct {
	s *Service
	l *link
}

func (b spaceBrowser) ID() string                   { return b.l.ID }
func (b spaceBrowser) GroupOf(tab int) int          { return b.l.Layout.GroupOf(tab) }
func (b spaceBrowser) TabsInGroup(group int) []int  { return b.l.Layout.TabsInGroup(group) }
func (b spaceBrowser) Warn(msg string, args ...any) { b.l.Log.Warn(msg, args...) }
func (b spaceBrowser) Sync(ctx context.Context)     { b.s.syncSpaces(ctx, b.l) }

func (b spaceBrowser) Call(ctx context.Context, op extwire.Op) (json.RawMessage, error) {
	return b.l.Call(ctx, op)
}

func (b spaceBrowser) TabURL(ctx context.Context, tab int) (string, error) {
	return b.l.tabURL(ctx, tab)
}

func (b spaceBrowser) SpaceFor(ctx context.Context, agent string) (spaces.Space, error) {
	return b.s.spaceFor(ctx, agent, b.l)
}

func (b spaceBrowser) AddTab(ctx context.Context, sp spaces.Space, tab int) (spaces.Space, error) {
	return b.s.addToSpace(ctx, b.l, sp, tab)
}

func (b spaceBrowser) Retitle(ctx context.Context, sp spaces.Space) { b.s.retitle(ctx, b.l, sp) }
func (b spaceBrowser) ScriptedAdvice(tabs []int) ([]int, []int)     { return b.l.ScriptedAdvice(tabs) }
func (b spaceBrowser) EndAgentSessions(ctx context.Context, tabs []int) int {
	return endAgentSessions(ctx, b.l.Link, tabs)
}

// spaceService is the service as the spaces methods see it
// (spacemethods.Service).
type spaceService struct{ s *Service }

func (v spaceService) Spaces() *spaces.Registry         { return v.s.spaces.reg }
func (v spaceService) Save()                            { v.s.saveSpaces() }
func (v spaceService) Connected(agent string) bool      { return v.s.connected(agent) }
func (v spaceService) Rules(agent string) pairing.Rules { return v.s.rulesFor(agent) }

func (v spaceService) Browser(id string) (spacemethods.Browser, bool) {
	l := v.s.hub.Get(id)
	if l == nil {
		return nil, false
	}
	return spaceBrowser{v.s, l}, true
}

func (v spaceService) Browsers() []spacemethods.Browser {
	var out []spacemethods.Browser
	for _, l := range v.s.hub.Links() {
		out = append(out, spaceBrowser{v.s, l})
	}
	return out
}

func (v spaceService) StopAgentsIn(sp spaces.Space) (calls, subs int) {
	return v.s.stopAgentsIn(v.s.hub.Get(sp.Browser), sp)
}

func (v spaceService) Audit(who, method, target, browser string) {
	v.s.auditDecision(who, method, target, nil, func(e *audit.Entry) { e.Browser = browser })
}
