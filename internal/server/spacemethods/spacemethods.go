// Package spacemethods answers the agents' spaces methods (PROTOCOL.md
// §3.6): hello, spaces.list, spaces.new, spaces.use, spaces.claim,
// spaces.complete, spaces.close, spaces.takeOver, spaces.handBack and
// spaces.waitForControl. It decides who may call each and what each
// changes in the spaces registry (internal/server/spaces) and in the
// browser's tabs and groups, and words the agents' errors. The service
// gives it the caller (Call), the browsers (Browser) and the rest of what
// a handler reaches (Service); this package drives none of them itself.
package spacemethods

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// Call is what the handlers need of the call they answer.
type Call interface {
	// Agent is the connection's agent name, "" while it has none.
	Agent() string
	// Person reports whether the caller is the person (the owner's own
	// connection without a name, or the popup): every tab is theirs.
	Person() bool
	// Who names the caller in log lines: its agent name, or the person.
	Who() string
	// CheckAgentName refuses a name the caller's grant may not take (a
	// paired token is its paired name).
	CheckAgentName(name string) error
	// SetAgent names the connection's agent and counts it as connected.
	SetAgent(name string)
	// OwnSpacesOnly reports whether the caller is a paired agent that may
	// see only its own spaces (no all-tabs scope).
	OwnSpacesOnly() bool
	// Paired returns the name of a paired agent's grant; ok is false for
	// the owner's token and the person.
	Paired() (name string, ok bool)
	// AuditName is how the audit log names the caller.
	AuditName() string
	// Pick returns the browser the call goes to ("" for the only one, or
	// the popup's own), waiting while it is on its way back.
	Pick(ctx context.Context, browser string) (Browser, error)
	// OpenTab opens a tab as tabs.open does (its checks, its confirmation,
	// its space).
	OpenTab(ctx context.Context, p protocol.TabsOpenParams) (protocol.Tab, error)
}

// Browser is one connected browser.
type Browser interface {
	// ID is the browser's ID.
	ID() string
	// GroupOf returns the tab group of a tab, 0 for none.
	GroupOf(tab int) int
	// TabsInGroup returns the tabs of a group.
	TabsInGroup(group int) []int
	// Call sends an op to the browser's extension; its error is the
	// agents'.
	Call(ctx context.Context, op extwire.Op) (json.RawMessage, error)
	// Warn logs a warning with the browser's attributes.
	Warn(msg string, args ...any)
	// Sync reconciles the browser's spaces with its tab groups (once).
	Sync(ctx context.Context)
	// TabURL returns a tab's URL now.
	TabURL(ctx context.Context, tab int) (string, error)
	// SpaceFor returns the space the agent's new tab in the browser goes
	// to, making one when it has none there (spaces.Registry.For); it is
	// UserInControl when the person has that space.
	SpaceFor(ctx context.Context, agent string) (spaces.Space, error)
	// AddTab puts a tab into a space's group (a new group when it has
	// none left) and returns the space as it is now.
	AddTab(ctx context.Context, sp spaces.Space, tab int) (spaces.Space, error)
	// Retitle writes a space's title and colour to its group.
	Retitle(ctx context.Context, sp spaces.Space)
	// EndAgentSessions detaches the debugger from each of tabs that an
	// agent's raw CDP reached since it attached, so that nothing it set
	// on the tab's session (an emulated device, a user agent, blocked
	// URLs) lasts into the person's use of the tab; it returns
	// how many it detached.
	EndAgentSessions(ctx context.Context, tabs []int) int
	// ScriptedAdvice splits tabs into those an agent's own script may
	// run in and a reload makes the site's own again (reload), once the
	// tabs in closeFirst are closed: scripted tabs linked to them (one
	// opened the other), maybe not among tabs, that a reload would not
	// make safe.
	ScriptedAdvice(tabs []int) (reload, closeFirst []int)
}

// Service is what the handlers need of the service beside the call.
type Service interface {
	// Spaces is the registry of the agents' spaces.
	Spaces() *spaces.Registry
	// Save persists the registry (a failure is logged).
	Save()
	// Browser returns a connected browser by ID; ok is false when it is
	// not connected.
	Browser(id string) (b Browser, ok bool)
	// Browsers returns the connected browsers.
	Browsers() []Browser
	// Connected reports whether the named agent has a connection open.
	Connected(agent string) bool
	// Rules returns the origin rules of a paired agent.
	Rules(agent string) pairing.Rules
	// StopAgentsIn ends what agents have running in space sp, which the
	// person just took over, and returns how many calls and
	// subscriptions it ended.
	StopAgentsIn(sp spaces.Space) (calls, subs int)
	// Audit writes the audit line of the person's decision on a target.
	Audit(who, method, target, browser string)
}

// Methods are the handlers of the spaces methods.
type Methods struct {
	svc Service
	log *slog.Logger
}

// New returns the handlers of the spaces methods over svc.
func New(svc Service, log *slog.Logger) *Methods {
	return &Methods{svc: svc, log: log}
}

// UserInControl is the error of an agent's call on a space the person
// has taken over.
func UserInControl(sp spaces.Space) error {
	return protocol.Errorf(protocol.CodeUserInControl, "the person has taken over space %s (agent %s): stop and wait until they hand it back (spaces.waitForControl, `egohost space wait`); do not retry in a loop", sp.ID, sp.Agent).
		With("space", sp.ID).With("agent", sp.Agent)
}

// spaceOf returns the space a call names (the agent's current one when
// empty). An agent reaches only its own; the person reaches any.
func (m *Methods) spaceOf(c Call, id string) (spaces.Space, error) {
	name := c.Agent()
	reg := m.svc.Spaces()
	if id == "" {
		if c.Person() {
			return spaces.Space{}, protocol.Errorf(protocol.CodeInvalidParams, "name a space (the person has no current space; see spaces.list)")
		}
		sp, ok := reg.Current(name)
		if !ok {
			return spaces.Space{}, protocol.Errorf(protocol.CodeNotInSpace, "agent %s has no space: spaces.new or tabs.open makes one", name).With("agent", name)
		}
		return sp, nil
	}
	sp, ok := reg.Get(id)
	if !ok || sp.Agent != name && c.OwnSpacesOnly() {
		// Another agent's space is, to an agent that sees only its own,
		// a space it does not know.
		return spaces.Space{}, protocol.Errorf(protocol.CodeInvalidParams, "no space %q (see spaces.list)", id)
	}
	if !c.Person() && sp.Agent != name {
		return spaces.Space{}, protocol.Errorf(protocol.CodeNotInSpace, "space %s is agent %s's, not agent %s's", sp.ID, sp.Agent, name).With("space", sp.ID).With("owner", sp.Agent)
	}
	return sp, nil
}

// wire converts a space for the caller, with its tabs as its browser's
// link sees them.
func (m *Methods) wire(sp spaces.Space, c Call) protocol.Space {
	out := protocol.Space{ID: sp.ID, Agent: sp.Agent, Task: sp.Task, Browser: sp.Browser, Group: sp.Group, Title: sp.Title(), Color: sp.Color, State: string(sp.State), LastTab: sp.LastTab, Tabs: []int{}}
	if b, ok := m.svc.Browser(sp.Browser); ok && sp.Group != 0 {
		out.Tabs = b.TabsInGroup(sp.Group)
		if c.Person() {
			out.Scripted, out.CloseFirst = b.ScriptedAdvice(out.Tabs)
		}
	}
	if cur, ok := m.svc.Spaces().Current(c.Agent()); ok && cur.ID == sp.ID && !c.Person() {
		out.Current = true
	}
	return out
}

// needAgent refuses a spaces method the person cannot call.
func needAgent(c Call, op string) (string, error) {
	if c.Person() {
		return "", protocol.Errorf(protocol.CodeInvalidRequest, "%s is for a named agent: connect with --agent NAME (EGOHOST_AGENT, the %s header, or hello)", op, protocol.AgentHeader)
	}
	return c.Agent(), nil
}
