package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/privfile"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
)

// spacesFile (in the data dir) holds the spaces, so a restarted service
// finds them (the groups' titles are the record when it is lost).
const spacesFile = "spaces.json"

// personName is the agent name of the person: the popup's calls, and the
// owner's own connections, which carry no name.
const personName = "person"

// idleGrace is how long an agent may have no connection before its
// spaces are marked idle (a CLI agent connects once per command).
const idleGrace = 3 * time.Second

// agentSpaces is the service's part of the agents and their spaces: the
// registry, and how many connections each named agent has.
type agentSpaces struct {
	reg      *spaces.Registry
	presence *spaces.Presence
	path     string
	saveMu   sync.Mutex
}

func newAgentSpaces(dataDir string, log interface{ Warn(string, ...any) }) *agentSpaces {
	path := filepath.Join(dataDir, spacesFile)
	var saved spaces.Saved
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &saved); err != nil {
			log.Warn("spaces file unreadable: spaces are rebuilt from the tab groups", "file", path, "err", err)
			saved = spaces.Saved{}
		}
	}
	return &agentSpaces{reg: spaces.New(saved), presence: spaces.NewPresence(), path: path}
}

// save writes the registry to the data dir.
func (as *agentSpaces) save() error {
	as.saveMu.Lock()
	defer as.saveMu.Unlock()
	b, err := json.Marshal(as.reg.Save())
	if err != nil {
		return err
	}
	return privfile.Write(as.path, b)
}

// agentName is the agent's name, "" for the person.
func (a *agent) agentName() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.name
}

// setName names the connection's agent and counts it as connected.
func (a *agent) setName(name string) {
	a.mu.Lock()
	a.name = name
	a.mu.Unlock()
	a.s.spaces.presence.Join(name)
	a.s.log.Info("agent connected", "agent", name)
}

// connected reports whether the named agent has a connection open.
func (s *Service) connected(name string) bool { return s.spaces.presence.Connected(name) }

// leave counts the connection's agent as gone.
func (a *agent) leave() {
	name := a.agentName()
	if name == "" {
		return
	}
	a.s.spaces.presence.Leave(name, time.Now())
	a.s.log.Info("agent left", "agent", name)
}

// isPerson reports whether the caller is the person (the owner's own
// connection without a name, or the popup): every tab is theirs, the
// active tab is their default, and they are never told user_in_control.
func isPerson(name string) bool { return name == "" || name == personName }

// allTabs reports whether the user granted the named agent every tab
// (config agents.all_tabs): it may act outside its spaces.
func (s *Service) allTabs(name string) bool { return slices.Contains(s.opts.AllTabs, name) }

// checkSpace refuses an agent's call on a tab that is not in its spaces
// (not_in_space, saying how to claim it) or whose space the person has
// taken over (user_in_control). The person passes. A paired agent that
// may see only its own spaces (ownSpacesOnly) is not told whose another
// space is, nor that the person took it over.
func (s *Service) checkSpace(ctx context.Context, c *call, l *link, tabID int) error {
	a := c.conn
	name := a.agentName()
	if isPerson(name) {
		return nil
	}
	s.syncSpaces(ctx, l)
	sp, inSpace := s.spaces.reg.ByGroup(l.ID, l.Layout.GroupOf(tabID))
	if inSpace {
		// Noted before the state is read again: a take over from now on
		// finds this call and ends it (takeover.go); one before, the
		// read sees.
		c.noteSpace(sp.ID)
		if cur, ok := s.spaces.reg.Get(sp.ID); ok {
			sp = cur
		}
	}
	caller := spaces.Caller{Name: name, OwnOnly: ownSpacesOnly(a), AllTabs: s.allTabs(name) || slices.Contains(a.grant.scopes, pairing.AllTabs)}
	switch spaces.Check(caller, sp, inSpace) {
	case spaces.TakenOver:
		return errUserInControl(sp)
	case spaces.Own:
		s.touch(ctx, l, sp, tabID)
		return nil
	case spaces.Granted:
		return nil
	case spaces.UnnamedSpace:
		return protocol.Errorf(protocol.CodeNotInSpace, "tab %d is in another agent's space, not in agent %s's spaces: use your own tabs (spaces.list), or open one (tabs.open)", tabID, name).
			With("tab", tabID)
	case spaces.OthersSpace:
		return protocol.Errorf(protocol.CodeNotInSpace, "tab %d is in agent %s's space %s, not in agent %s's spaces: use your own tabs (spaces.list), or open one (tabs.open)", tabID, sp.Agent, sp.ID, name).
			With("tab", tabID).With("space", sp.ID).With("owner", sp.Agent)
	}
	return protocol.Errorf(protocol.CodeNotInSpace, "tab %d is not in agent %s's spaces (it is the person's): claim it with spaces.claim {\"tab\": %d} (`egohost --agent %s space claim %d`), or open your own with tabs.open", tabID, name, tabID, name, tabID).
		With("tab", tabID).With("claim", fmt.Sprintf("egohost --agent %s space claim %d", name, tabID))
}

func errUserInControl(sp spaces.Space) error {
	return protocol.Errorf(protocol.CodeUserInControl, "the person has taken over space %s (agent %s): stop and wait until they hand it back (spaces.waitForControl, `egohost space wait`); do not retry in a loop", sp.ID, sp.Agent).
		With("space", sp.ID).With("agent", sp.Agent)
}

// touch records the tab an agent used as its space's default tab, and
// wakes an idle space.
func (s *Service) touch(ctx context.Context, l *link, sp spaces.Space, tabID int) {
	if !l.Layout.IsActive(tabID) {
		// Make it the active tab of the space's own window (the person's
		// focus stays): actions work on a background tab too (internal/engine/actions/,
		// "A background tab"), but a shown tab draws its screenshots at
		// once and its hover is the browser's own (CSS :hover follows).
		raw, err := l.Call(ctx, extwire.TabsActivate{TabID: tabID, NoFocus: true})
		if err != nil {
			l.Log.Warn("activate a space's tab", "space", sp.ID, "tab", tabID, "err", err)
		} else if res, err := s.tabReply(raw, l, "tabs.activate"); err == nil {
			l.Layout.SetActive(tabID, res.Tab.WindowID)
		}
	}
	if sp, woke := s.spaces.reg.Touch(sp.ID, tabID); woke {
		s.retitle(ctx, l, sp)
		s.saveSpaces()
	}
}

// defaultTab is a named agent's tab when it names none: its current
// space's last active tab, never the person's focused tab.
func (s *Service) defaultTab(ctx context.Context, c *call, l *link) (int, error) {
	name := c.conn.agentName()
	s.syncSpaces(ctx, l)
	sp, ok := s.spaces.reg.Current(name)
	if !ok || sp.Browser != l.ID {
		return 0, protocol.Errorf(protocol.CodeNotInSpace, "agent %s has no space in browser %s yet, and names no tab: open one (tabs.open, `egohost --agent %s open URL`) or claim one (spaces.claim)", name, l.ID, name).
			With("agent", name)
	}
	tab, ok := sp.DefaultTab(l.Layout.TabsInGroup(sp.Group))
	if !ok {
		return 0, protocol.Errorf(protocol.CodeTabNotFound, "agent %s's space %s has no tab left: open one with tabs.open", name, sp.ID).With("space", sp.ID)
	}
	return tab, nil
}

// needsFirstTab reports whether a named agent has no tab of its own to go
// to in the browser (no current space there, or one with no tab left).
func (s *Service) needsFirstTab(ctx context.Context, c *call, browser string) bool {
	name := c.conn.agentName()
	if isPerson(name) {
		return false
	}
	sp, ok := s.spaces.reg.Current(name)
	if !ok {
		return true
	}
	if browser != "" && browser != sp.Browser {
		return false // another browser: the ordinary path says what is wrong
	}
	l := s.hub.Get(sp.Browser)
	if l == nil {
		return false
	}
	s.syncSpaces(ctx, l)
	sp, _ = s.spaces.reg.Get(sp.ID)
	return len(l.Layout.TabsInGroup(sp.Group)) == 0
}

// spaceOf returns the space a call names (the agent's current one when
// empty). An agent reaches only its own; the person reaches any.
func (s *Service) spaceOf(a *agent, id string) (spaces.Space, error) {
	name := a.agentName()
	if id == "" {
		if isPerson(name) {
			return spaces.Space{}, protocol.Errorf(protocol.CodeInvalidParams, "name a space (the person has no current space; see spaces.list)")
		}
		sp, ok := s.spaces.reg.Current(name)
		if !ok {
			return spaces.Space{}, protocol.Errorf(protocol.CodeNotInSpace, "agent %s has no space: spaces.new or tabs.open makes one", name).With("agent", name)
		}
		return sp, nil
	}
	sp, ok := s.spaces.reg.Get(id)
	if !ok || sp.Agent != name && ownSpacesOnly(a) {
		// Another agent's space is, to an agent that sees only its own,
		// a space it does not know.
		return spaces.Space{}, protocol.Errorf(protocol.CodeInvalidParams, "no space %q (see spaces.list)", id)
	}
	if !isPerson(name) && sp.Agent != name {
		return spaces.Space{}, protocol.Errorf(protocol.CodeNotInSpace, "space %s is agent %s's, not agent %s's", sp.ID, sp.Agent, name).With("space", sp.ID).With("owner", sp.Agent)
	}
	return sp, nil
}

// syncSpaces reconciles the spaces of a browser with its tab groups, once
// per link (after a relay or service restart): a known space whose group
// is gone has no tab; a group titled by egohost that no space knows (the
// state file was lost) becomes a space again.
func (s *Service) syncSpaces(ctx context.Context, l *link) {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if l.synced {
		return
	}
	raw, err := l.Call(ctx, extwire.GroupsList{})
	if err != nil {
		l.Log.Warn("list tab groups: spaces not reconciled yet", "err", err)
		return
	}
	var res struct {
		Groups []extwire.Group `json:"groups"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		l.Log.Warn("list tab groups: bad reply", "err", err)
		return
	}
	groups := make([]spaces.Group, len(res.Groups))
	for i, g := range res.Groups {
		groups[i] = spaces.Group{ID: g.ID, Window: g.WindowID, Title: g.Title, Color: g.Color}
	}
	for _, sp := range s.spaces.reg.Reconcile(l.ID, groups) {
		l.Log.Info("space rebuilt from its tab group", "space", sp.ID, "agent", sp.Agent, "group", sp.Group)
	}
	l.synced = true
	s.saveSpaces()
}

// saveSpaces persists the registry; a failure is logged (the groups'
// titles still hold the record).
func (s *Service) saveSpaces() {
	if err := s.spaces.save(); err != nil {
		s.log.Warn("save spaces", "err", err)
	}
}

// retitle writes a space's title and colour to its group.
func (s *Service) retitle(ctx context.Context, l *link, sp spaces.Space) {
	if sp.Group == 0 || l == nil {
		return
	}
	if _, err := l.Call(ctx, extwire.GroupsUpdate{GroupID: sp.Group, Title: sp.Title(), Color: sp.Color}); err != nil {
		l.Log.Warn("retitle space group", "space", sp.ID, "group", sp.Group, "err", err)
	}
}

// addToSpace puts tabs into a space's group (a new group when it has
// none left) and returns the space as it is now.
func (s *Service) addToSpace(ctx context.Context, l *link, sp spaces.Space, tabs ...int) (spaces.Space, error) {
	op := extwire.GroupsAdd{TabIDs: tabs}
	if sp.Group != 0 && len(l.Layout.TabsInGroup(sp.Group)) > 0 {
		op.GroupID = sp.Group
	} else {
		op.Title, op.Color = sp.Title(), sp.Color
	}
	raw, err := l.Call(ctx, op)
	if err != nil {
		return sp, err
	}
	var res struct {
		GroupID int `json:"groupId"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.GroupID <= 0 {
		return sp, protocol.Errorf(protocol.CodeExtension, "groups.add: bad reply %s", raw)
	}
	for _, t := range tabs {
		l.Layout.SetGroup(t, res.GroupID)
	}
	sp, _ = s.spaces.reg.Grouped(sp.ID, res.GroupID, tabs[len(tabs)-1])
	s.saveSpaces()
	return sp, nil
}

// spaceFor returns the space the named agent's new tab in browser l goes
// to (spaces.Registry.For), making one when it has none there.
func (s *Service) spaceFor(ctx context.Context, c *call, l *link) (spaces.Space, error) {
	name := c.conn.agentName()
	s.syncSpaces(ctx, l)
	sp, created := s.spaces.reg.For(name, l.ID)
	if created {
		s.log.Info("space created", "space", sp.ID, "agent", name, "browser", l.ID)
	}
	if sp.State == spaces.Person {
		return sp, errUserInControl(sp)
	}
	return sp, nil
}

// wire converts a space for agents, with its tabs as the link sees them.
func (s *Service) wire(sp spaces.Space, caller string) protocol.Space {
	out := protocol.Space{ID: sp.ID, Agent: sp.Agent, Task: sp.Task, Browser: sp.Browser, Group: sp.Group, Title: sp.Title(), Color: sp.Color, State: string(sp.State), LastTab: sp.LastTab, Tabs: []int{}}
	l := s.hub.Get(sp.Browser)
	if l != nil && sp.Group != 0 {
		out.Tabs = l.Layout.TabsInGroup(sp.Group)
	}
	if cur, ok := s.spaces.reg.Current(caller); ok && cur.ID == sp.ID && !isPerson(caller) {
		out.Current = true
	}
	return out
}

func (s *Service) hello(ctx context.Context, c *call, p protocol.HelloParams) (any, error) {
	a := c.conn
	if err := spaces.CheckName(p.Agent); err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "hello: %v", err)
	}
	if err := a.grant.checkAgentName(p.Agent); err != nil {
		return nil, err
	}
	if cur := a.agentName(); cur != "" && cur != p.Agent {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "hello: this connection is agent %s already: a connection has one name (open another connection for agent %s)", cur, p.Agent)
	}
	if a.agentName() == "" {
		a.setName(p.Agent)
	}
	res := protocol.HelloResult{Agent: p.Agent, Version: Version}
	if sp, ok := s.spaces.reg.Current(p.Agent); ok {
		w := s.wire(sp, p.Agent)
		res.Space = &w
	}
	return res, nil
}

func (s *Service) spacesList(ctx context.Context, c *call, p protocol.SpacesListParams) (any, error) {
	name := c.conn.agentName()
	links := s.hub.Links()
	for _, l := range links {
		s.syncSpaces(ctx, l)
	}
	filter := p.Agent
	if filter == "" && !isPerson(name) && !p.All || ownSpacesOnly(c.conn) {
		filter = name
	}
	res := protocol.SpacesListResult{Spaces: []protocol.Space{}}
	for _, sp := range s.spaces.reg.List(filter) {
		res.Spaces = append(res.Spaces, s.wire(sp, name))
	}
	return res, nil
}

// needAgent refuses a spaces method the person cannot call.
func needAgent(a *agent, op string) (string, error) {
	name := a.agentName()
	if isPerson(name) {
		return "", protocol.Errorf(protocol.CodeInvalidRequest, "%s is for a named agent: connect with --agent NAME (EGOHOST_AGENT, the %s header, or hello)", op, protocol.AgentHeader)
	}
	return name, nil
}

func (s *Service) spacesNew(ctx context.Context, c *call, p protocol.SpacesNewParams) (any, error) {
	name, err := needAgent(c.conn, "spaces.new")
	if err != nil {
		return nil, err
	}
	if err := spaces.CheckTask(p.Task); err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "spaces.new: %v", err)
	}
	l, err := s.pickLink(ctx, c, p.Browser)
	if err != nil {
		return nil, err
	}
	s.syncSpaces(ctx, l)
	prev, _ := s.spaces.reg.Current(name)
	sp := s.spaces.reg.Add(name, p.Task, l.ID)
	s.log.Info("space created", "space", sp.ID, "agent", name, "browser", l.ID, "task", p.Task)
	s.saveSpaces()
	opened, err := s.tabsOpen(ctx, c, protocol.TabsOpenParams{Browser: l.ID, URL: p.URL, Background: p.Background})
	if err != nil {
		// No tab (the person said no, nobody answered, the browser
		// refused): no space either, and the agent's current one is back.
		if s.spaces.reg.Abandon(sp.ID, prev.ID) {
			s.saveSpaces()
			s.log.Info("space dropped: its tab did not open", "space", sp.ID, "agent", name, "err", err)
		}
		return nil, err
	}
	tab := opened.(protocol.TabResult).Tab
	sp, _ = s.spaces.reg.Get(sp.ID)
	return protocol.SpaceResult{Space: s.wire(sp, name), Tab: &tab}, nil
}

func (s *Service) spacesUse(ctx context.Context, c *call, p protocol.SpaceParams) (any, error) {
	name, err := needAgent(c.conn, "spaces.use")
	if err != nil {
		return nil, err
	}
	if p.Space == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "spaces.use: name a space")
	}
	sp, err := s.spaceOf(c.conn, p.Space)
	if err != nil {
		return nil, err
	}
	s.spaces.reg.Use(name, sp.ID)
	s.saveSpaces()
	return protocol.SpaceResult{Space: s.wire(sp, name)}, nil
}

func (s *Service) spacesClaim(ctx context.Context, c *call, p protocol.SpacesClaimParams) (any, error) {
	a := c.conn
	name, err := needAgent(a, "spaces.claim")
	if err != nil {
		return nil, err
	}
	if a.grant.kind == grantPaired && !slices.Contains(a.grant.scopes, pairing.AllTabs) {
		// Its scope is its own spaces: taking the person's tab is the
		// person's call (dragging the tab into the agent's group does it).
		return nil, protocol.Errorf(protocol.CodeScopeDenied, "spaces.claim: agent %s was paired without all-tabs, so it cannot take the person's tabs: ask the person to drag the tab into your tab group, or pair again with --scope all-tabs", name).
			With("need", "all-tabs")
	}
	if p.Tab == 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "spaces.claim: name the tab to claim")
	}
	l, err := s.pickLink(ctx, c, p.Browser)
	if err != nil {
		return nil, err
	}
	s.syncSpaces(ctx, l)
	if other, ok := s.spaces.reg.ByGroup(l.ID, l.Layout.GroupOf(p.Tab)); ok {
		if other.Agent == name {
			return protocol.SpaceResult{Space: s.wire(other, name)}, nil
		}
		return nil, protocol.Errorf(protocol.CodeNotInSpace, "spaces.claim: tab %d is in agent %s's space %s: only the person can take it from there", p.Tab, other.Agent, other.ID).
			With("tab", p.Tab).With("space", other.ID).With("owner", other.Agent)
	}
	if a.grant.kind == grantPaired {
		// A tab on an origin its rules deny stays the person's: claiming
		// it would make it the agent's to reach.
		url, err := s.tabURL(ctx, l, p.Tab)
		if err != nil {
			return nil, err
		}
		if d := s.rulesFor(a.grant.name).Decide(url, ""); !d.OK {
			return nil, protocol.Errorf(protocol.CodeForbiddenOriginScope, "spaces.claim: tab %d is on an origin agent %q may not reach: it stays the person's", p.Tab, a.grant.name).
				With("tab", p.Tab).With("reason", d.Reason)
		}
	}
	var sp spaces.Space
	if p.Space != "" {
		if sp, err = s.spaceOf(c.conn, p.Space); err != nil {
			return nil, err
		}
		if sp.Browser != l.ID {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "spaces.claim: space %s is in browser %s, tab %d in browser %s", sp.ID, sp.Browser, p.Tab, l.ID)
		}
		if sp.State == spaces.Person {
			return nil, errUserInControl(sp)
		}
	} else if sp, err = s.spaceFor(ctx, c, l); err != nil {
		return nil, err
	}
	if sp, err = s.addToSpace(ctx, l, sp, p.Tab); err != nil {
		return nil, err
	}
	s.log.Info("tab claimed", "agent", name, "space", sp.ID, "tab", p.Tab)
	return protocol.SpaceResult{Space: s.wire(sp, name)}, nil
}

// endSpace ends a space: its tabs are closed, or kept for the person in
// a group marked done.
func (s *Service) endSpace(ctx context.Context, c *call, id string, keep bool) (any, error) {
	sp, err := s.spaceOf(c.conn, id)
	if err != nil {
		return nil, err
	}
	if sp.State == spaces.Person && !isPerson(c.conn.agentName()) {
		return nil, errUserInControl(sp)
	}
	res := protocol.SpacesCompleteResult{Space: sp.ID, Closed: []int{}, Kept: []int{}}
	l := s.hub.Get(sp.Browser)
	if l != nil && sp.Group != 0 {
		tabs := l.Layout.TabsInGroup(sp.Group)
		if keep {
			if _, err := l.Call(ctx, extwire.GroupsUpdate{GroupID: sp.Group, Title: sp.DoneTitle()}); err != nil {
				return nil, err
			}
			res.Kept = tabs
		} else {
			for _, t := range tabs {
				if _, err := l.Call(ctx, extwire.TabsClose{TabID: t}); err != nil && wireerr.CodeOf(err) != protocol.CodeTabNotFound {
					return nil, err
				}
				res.Closed = append(res.Closed, t)
			}
		}
	}
	s.spaces.reg.Remove(sp.ID)
	s.saveSpaces()
	s.log.Info("space ended", "space", sp.ID, "agent", sp.Agent, "keep", keep, "by", orPerson(c.conn.agentName()))
	return res, nil
}

// endSpacesOf ends the spaces of a revoked agent: their tabs stay, the
// person's, in groups marked done. Spaces belong to an agent's name, so
// without this an agent paired later under the same name would take
// them, and their tabs, over. A space whose group cannot be retitled
// (its browser is away) ends all the same.
func (s *Service) endSpacesOf(ctx context.Context, c *call, agent string) {
	if agent == "" {
		return // List("") is every space
	}
	for _, sp := range s.spaces.reg.List(agent) {
		if _, err := s.endSpace(ctx, c, sp.ID, true); err != nil {
			s.log.Warn("a revoked agent's space: its group was not marked done", "space", sp.ID, "agent", agent, "err", err)
			s.spaces.reg.Remove(sp.ID)
			s.saveSpaces()
		}
	}
}

func orPerson(name string) string {
	if name == "" {
		return personName
	}
	return name
}

func (s *Service) spacesComplete(ctx context.Context, c *call, p protocol.SpacesCompleteParams) (any, error) {
	return s.endSpace(ctx, c, p.Space, p.Keep)
}

func (s *Service) spacesClose(ctx context.Context, c *call, p protocol.SpaceParams) (any, error) {
	return s.endSpace(ctx, c, p.Space, false)
}

// control moves a space between the agent and the person: takeOver
// gives it to the person, else it is handed back.
func (s *Service) control(ctx context.Context, c *call, op, id string, takeOver bool) (any, error) {
	a := c.conn
	if !isPerson(a.agentName()) {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "%s is the person's (the popup, or the CLI without --agent): an agent cannot take a space over or hand it back", op)
	}
	if id == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "%s: name a space (see spaces.list)", op)
	}
	cur, err := s.spaceOf(c.conn, id)
	if err != nil {
		return nil, err
	}
	var sp spaces.Space
	if takeOver {
		sp, _ = s.spaces.reg.SetState(id, spaces.Person)
	} else {
		sp, _ = s.spaces.reg.HandBack(id, s.connected(cur.Agent))
	}
	l := s.hub.Get(sp.Browser)
	var calls, subs int
	if takeOver {
		calls, subs = s.stopAgentsIn(l, sp)
	}
	s.auditDecision(a.auditName(), op, sp.ID+" (agent "+sp.Agent+")", nil, func(e *audit.Entry) { e.Browser = sp.Browser })
	s.retitle(ctx, l, sp)
	if takeOver && l != nil && sp.LastTab != 0 {
		// Bring the space's tab to the person: its window comes to the front.
		if _, err := l.Call(ctx, extwire.TabsActivate{TabID: sp.LastTab}); err != nil {
			l.Log.Warn("show the taken-over space's tab", "space", sp.ID, "tab", sp.LastTab, "err", err)
		}
	}
	s.saveSpaces()
	s.log.Info("space control", "space", sp.ID, "agent", sp.Agent, "state", sp.State, "callsEnded", calls, "subscriptionsEnded", subs)
	return protocol.SpaceResult{Space: s.wire(sp, "")}, nil
}

func (s *Service) spacesTakeOver(ctx context.Context, c *call, p protocol.SpaceParams) (any, error) {
	return s.control(ctx, c, "spaces.takeOver", p.Space, true)
}

func (s *Service) spacesHandBack(ctx context.Context, c *call, p protocol.SpaceParams) (any, error) {
	return s.control(ctx, c, "spaces.handBack", p.Space, false)
}

func (s *Service) spacesWaitForControl(ctx context.Context, c *call, p protocol.SpacesWaitParams) (any, error) {
	sp, err := s.spaceOf(c.conn, p.Space)
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
	resumed := s.spaces.reg.Resumed(sp.ID)
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
	sp, ok := s.spaces.reg.Get(sp.ID)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "space %s was ended while you waited", p.Space)
	}
	if sp.Agent == c.conn.agentName() { // its agent is back
		if now, woke := s.spaces.reg.Wake(sp.ID); woke {
			sp = now
			s.retitle(ctx, s.hub.Get(sp.Browser), sp)
			s.saveSpaces()
		}
	}
	return protocol.SpaceResult{Space: s.wire(sp, c.conn.agentName())}, nil
}

// markIdle marks idle the working spaces whose agent has had no
// connection for idleGrace. Serve runs it every second.
func (s *Service) markIdle(ctx context.Context, now time.Time) {
	gone := s.spaces.presence.Gone(now, idleGrace)
	if len(gone) == 0 {
		return
	}
	for _, sp := range s.spaces.reg.MarkIdle(gone) {
		l := s.hub.Get(sp.Browser)
		s.retitle(ctx, l, sp)
		s.log.Info("space idle: its agent left", "space", sp.ID, "agent", sp.Agent)
	}
	s.saveSpaces()
}

// idleLoop runs markIdle until ctx ends.
func (s *Service) idleLoop(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			s.markIdle(cctx, now)
			cancel()
			s.tokenless.flush(now, s.log)
		}
	}
}

// checkRef refuses a ref that another tab handed out when the agent may
// not use that tab: not_in_space, not a click on whatever this tab has.
func (s *Service) checkRef(ctx context.Context, c *call, tc *tabContext, target string) error {
	a := c.conn
	if isPerson(a.agentName()) {
		return nil
	}
	ref, ok := refmap.ParseRef(target)
	if !ok {
		return nil
	}
	if _, ok := tc.snap.Refs().Get(ref); ok {
		return nil
	}
	l, tab, found := s.refTab(ref)
	if !found {
		return nil
	}
	if err := s.checkSpace(ctx, c, l, tab); err != nil {
		var pe *protocol.Error
		if errors.As(err, &pe) && pe.Code == protocol.CodeNotInSpace {
			return protocol.Errorf(protocol.CodeNotInSpace, "ref @%s belongs to tab %d, which is not in agent %s's spaces: take a snapshot of your own tab and use its refs", ref, tab, a.agentName()).
				With("tab", tab).With("ref", "@"+ref)
		}
		return err
	}
	return nil
}

// refTab finds the tab whose latest snapshot handed out ref.
func (s *Service) refTab(ref string) (*link, int, bool) {
	for _, l := range s.hub.Links() {
		if tab, ok := l.Tabs.WithRef(ref); ok {
			return l, tab, true
		}
	}
	return nil, 0, false
}
