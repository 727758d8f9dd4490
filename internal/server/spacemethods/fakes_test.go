package spacemethods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// fakeCall is a caller: the person when agent is "".
type fakeCall struct {
	agent    string
	ownOnly  bool   // a paired agent without all-tabs
	paired   string // the paired name, "" for the owner's token
	nameErr  error  // what CheckAgentName says
	svc      *fakeService
	openErr  error
	opened   []protocol.TabsOpenParams
	nextTab  int
	browser  string // the browser Pick finds for ""
	pickErrs error
}

func (c *fakeCall) Agent() string                    { return c.agent }
func (c *fakeCall) Person() bool                     { return c.agent == "" }
func (c *fakeCall) CheckAgentName(name string) error { return c.nameErr }
func (c *fakeCall) SetAgent(name string)             { c.agent = name }
func (c *fakeCall) OwnSpacesOnly() bool              { return c.ownOnly }
func (c *fakeCall) Paired() (string, bool)           { return c.paired, c.paired != "" }
func (c *fakeCall) AuditName() string                { return "audit:" + c.Who() }

func (c *fakeCall) Who() string {
	if c.agent == "" {
		return "person"
	}
	return c.agent
}

func (c *fakeCall) Pick(ctx context.Context, browser string) (Browser, error) {
	if c.pickErrs != nil {
		return nil, c.pickErrs
	}
	if browser == "" {
		browser = c.browser
	}
	if b, ok := c.svc.browser(browser); ok {
		return b, nil
	}
	return nil, protocol.Errorf(protocol.CodeNoBrowser, "no browser %q", browser)
}

// OpenTab opens a tab into the agent's current space, as tabs.open does.
func (c *fakeCall) OpenTab(ctx context.Context, p protocol.TabsOpenParams) (protocol.Tab, error) {
	c.opened = append(c.opened, p)
	if c.openErr != nil {
		return protocol.Tab{}, c.openErr
	}
	b, _ := c.svc.browser(p.Browser)
	sp, err := b.SpaceFor(ctx, c.agent)
	if err != nil {
		return protocol.Tab{}, err
	}
	c.nextTab++
	if _, err := b.AddTab(ctx, sp, c.nextTab); err != nil {
		return protocol.Tab{}, err
	}
	return protocol.Tab{ID: c.nextTab, URL: p.URL}, nil
}

// fakeBrowser is a browser whose tabs are in groups.
type fakeBrowser struct {
	id       string
	reg      *spaces.Registry
	groups   map[int]int      // tab → group
	urls     map[int]string   // tab → URL
	failOp   map[string]error // by "op {fields}": "tabs.close {TabID:50}"
	ops      []extwire.Op
	synced   int
	titles   []string // Retitle's titles, in order
	warns    []string
	nextGrp  int
	ended    [][]int // EndAgentSessions' tabs, call by call
	scripted map[int]bool
	// closeFirst is ScriptedAdvice's, whatever the tabs asked about.
	closeFirst []int
}

func (b *fakeBrowser) ScriptedAdvice(tabs []int) (reload, closeFirst []int) {
	for _, t := range tabs {
		if b.scripted[t] && !slices.Contains(b.closeFirst, t) {
			reload = append(reload, t)
		}
	}
	return reload, b.closeFirst
}

func (b *fakeBrowser) EndAgentSessions(_ context.Context, tabs []int) int {
	b.ended = append(b.ended, tabs)
	return len(tabs)
}

func (b *fakeBrowser) ID() string           { return b.id }
func (b *fakeBrowser) GroupOf(tab int) int  { return b.groups[tab] }
func (b *fakeBrowser) Sync(context.Context) { b.synced++ }

func (b *fakeBrowser) TabsInGroup(group int) []int {
	tabs := []int{}
	for t, g := range b.groups {
		if g == group {
			tabs = append(tabs, t)
		}
	}
	slices.Sort(tabs)
	return tabs
}

func (b *fakeBrowser) Call(ctx context.Context, op extwire.Op) (json.RawMessage, error) {
	b.ops = append(b.ops, op)
	if err := b.failOp[fmt.Sprintf("%s %+v", op.OpName(), op)]; err != nil {
		return nil, err
	}
	return json.RawMessage(`{}`), nil
}

func (b *fakeBrowser) Warn(msg string, args ...any) { b.warns = append(b.warns, msg) }

func (b *fakeBrowser) TabURL(ctx context.Context, tab int) (string, error) {
	url, ok := b.urls[tab]
	if !ok {
		return "", protocol.Errorf(protocol.CodeTabNotFound, "no tab %d", tab)
	}
	return url, nil
}

func (b *fakeBrowser) SpaceFor(ctx context.Context, agent string) (spaces.Space, error) {
	sp, _ := b.reg.For(agent, b.id)
	if sp.State == spaces.Person {
		return sp, UserInControl(sp)
	}
	return sp, nil
}

func (b *fakeBrowser) AddTab(ctx context.Context, sp spaces.Space, tab int) (spaces.Space, error) {
	group := sp.Group
	if group == 0 {
		b.nextGrp++
		group = 100 + b.nextGrp
	}
	b.groups[tab] = group
	sp, _ = b.reg.Grouped(sp.ID, group, tab)
	return sp, nil
}

func (b *fakeBrowser) Retitle(ctx context.Context, sp spaces.Space) {
	b.titles = append(b.titles, sp.Title())
}

// fakeService has the browsers in order, and records what it was asked.
type fakeService struct {
	reg       *spaces.Registry
	browsers  []*fakeBrowser
	connected map[string]bool
	rules     map[string]pairing.Rules
	saves     int
	stopped   []string // the spaces StopAgentsIn was asked for
	audits    []string
}

func newFakeService(browsers ...string) *fakeService {
	s := &fakeService{reg: spaces.New(spaces.Saved{}), connected: map[string]bool{}, rules: map[string]pairing.Rules{}}
	for _, id := range browsers {
		s.browsers = append(s.browsers, &fakeBrowser{id: id, reg: s.reg, groups: map[int]int{}, urls: map[int]string{}, failOp: map[string]error{}})
	}
	return s
}

func (s *fakeService) browser(id string) (*fakeBrowser, bool) {
	for _, b := range s.browsers {
		if b.id == id {
			return b, true
		}
	}
	return nil, false
}

func (s *fakeService) Spaces() *spaces.Registry         { return s.reg }
func (s *fakeService) Save()                            { s.saves++ }
func (s *fakeService) Connected(agent string) bool      { return s.connected[agent] }
func (s *fakeService) Rules(agent string) pairing.Rules { return s.rules[agent] }

func (s *fakeService) Browser(id string) (Browser, bool) {
	if b, ok := s.browser(id); ok {
		return b, true
	}
	return nil, false
}

func (s *fakeService) Browsers() []Browser {
	var out []Browser
	for _, b := range s.browsers {
		out = append(out, b)
	}
	return out
}

func (s *fakeService) StopAgentsIn(sp spaces.Space) (calls, subs int) {
	s.stopped = append(s.stopped, sp.ID)
	return 2, 1
}

func (s *fakeService) Audit(who, method, target, browser string) {
	s.audits = append(s.audits, fmt.Sprintf("%s %s %s in %s", who, method, target, browser))
}

// fixture is the handlers over a fake service with browser b1, and a
// caller of it.
func fixture(agent string) (*Methods, *fakeService, *fakeCall) {
	svc := newFakeService("b1")
	return New(svc, slog.New(slog.DiscardHandler)), svc, &fakeCall{agent: agent, svc: svc, browser: "b1"}
}

// codeOf is the wire code of a handler's error, 0 for none.
func codeOf(t *testing.T, err error) protocol.Code {
	t.Helper()
	if err == nil {
		return 0
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a wire error", err)
	}
	return pe.Code
}
