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
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/privfile"
	"github.com/egohost/egohost/internal/server/spacemethods"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/server/tabmethods"
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
		return spacemethods.UserInControl(sp)
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
		} else if res, err := tabmethods.TabReply(raw, l.ID, "tabs.activate"); err == nil {
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
func (s *Service) spaceFor(ctx context.Context, name string, l *link) (spaces.Space, error) {
	s.syncSpaces(ctx, l)
	sp, created := s.spaces.reg.For(name, l.ID)
	if created {
		s.log.Info("space created", "space", sp.ID, "agent", name, "browser", l.ID)
	}
	if sp.State == spaces.Person {
		return sp, spacemethods.UserInControl(sp)
	}
	return sp, nil
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
