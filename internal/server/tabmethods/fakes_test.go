package tabmethods

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// reply is what a fake browser answers an op.
type reply struct {
	raw string
	err error
	// hold: the browser answers nothing until the call gives up (a
	// close a beforeunload dialog holds); dialog opens when the op is sent.
	hold   bool
	dialog *protocol.Dialog
}

// fakeBrowser is a browser that answers ops from a queue per op name
// ({} when the queue is empty), and records them.
type fakeBrowser struct {
	id         string
	reg        *spaces.Registry
	tabs       []protocol.Tab
	tabsLater  []protocol.Tab // when set, what Tabs answers from its second call on
	tabsCalls  int
	tabsErr    error
	replies    map[string][]reply
	ops        []extwire.Op
	synced     int
	stopped    error        // CheckAutomation's error
	hidden     map[int]bool // the tabs the caller may not see
	scopeErr   map[int]error
	addErr     error
	nextGroup  int
	spaceState spaces.State                    // the state SpaceFor finds a space in
	dialog     atomic.Pointer[protocol.Dialog] // the one open (a reply's dialog)
}

func newFakeBrowser(id string, reg *spaces.Registry) *fakeBrowser {
	return &fakeBrowser{id: id, reg: reg, replies: map[string][]reply{}, hidden: map[int]bool{}, scopeErr: map[int]error{}}
}

func (b *fakeBrowser) ID() string             { return b.id }
func (b *fakeBrowser) Info() protocol.Browser { return protocol.Browser{ID: b.id, RelayPID: 42} }
func (b *fakeBrowser) CheckAutomation() error { return b.stopped }
func (b *fakeBrowser) Sync(context.Context)   { b.synced++ }

func (b *fakeBrowser) Call(ctx context.Context, op extwire.Op) (json.RawMessage, error) {
	b.ops = append(b.ops, op)
	q := b.replies[op.OpName()]
	if len(q) == 0 {
		return json.RawMessage(`{}`), nil
	}
	b.replies[op.OpName()] = q[1:]
	if q[0].dialog != nil {
		b.dialog.Store(q[0].dialog)
	}
	if q[0].hold {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return json.RawMessage(q[0].raw), q[0].err
}

// answer queues the browser's replies to the op named.
func (b *fakeBrowser) answer(op string, rs ...reply) { b.replies[op] = append(b.replies[op], rs...) }

func (b *fakeBrowser) Tabs(ctx context.Context) ([]protocol.Tab, error) {
	if b.tabsErr != nil {
		return nil, b.tabsErr
	}
	b.tabsCalls++
	out := append([]protocol.Tab(nil), b.tabs...)
	if b.tabsLater != nil && b.tabsCalls > 1 {
		out = append([]protocol.Tab(nil), b.tabsLater...)
	}
	for i := range out {
		out[i].Browser = b.id
	}
	return out, nil
}

func (b *fakeBrowser) SpaceFor(ctx context.Context, agent string) (spaces.Space, error) {
	sp, _ := b.reg.For(agent, b.id)
	if b.spaceState == spaces.Person {
		return sp, protocol.Errorf(protocol.CodeUserInControl, "the person has taken over space %s", sp.ID)
	}
	return sp, nil
}

func (b *fakeBrowser) AddTab(ctx context.Context, sp spaces.Space, tab int) (spaces.Space, error) {
	if b.addErr != nil {
		return sp, b.addErr
	}
	group := sp.Group
	if group == 0 {
		b.nextGroup++
		group = 100 + b.nextGroup
	}
	sp, _ = b.reg.Grouped(sp.ID, group, tab)
	return sp, nil
}

func (b *fakeBrowser) Visible(tabs []protocol.Tab) []protocol.Tab {
	out := []protocol.Tab{}
	for _, t := range tabs {
		if !b.hidden[t.ID] {
			out = append(out, t)
		}
	}
	return out
}

func (b *fakeBrowser) CheckScope(ctx context.Context, tab int) error { return b.scopeErr[tab] }

func (b *fakeBrowser) Dialog(tab int) *protocol.Dialog { return b.dialog.Load() }

// fakeService has browsers; those in reconnecting are on their way back.
type fakeService struct {
	reg          *spaces.Registry
	browsers     []*fakeBrowser
	reconnecting []protocol.Browser
}

func (s *fakeService) Spaces() *spaces.Registry { return s.reg }
func (s *fakeService) Dirs() (state, data string) {
	return "/state", "/data"
}

func (s *fakeService) Tokenless() *protocol.TokenlessStats {
	return &protocol.TokenlessStats{}
}

func (s *fakeService) Browsers() (connected, reconnecting []protocol.Browser) {
	for _, b := range s.browsers {
		connected = append(connected, b.Info())
	}
	return connected, s.reconnecting
}

func (s *fakeService) browser(id string) (*fakeBrowser, bool) {
	for _, b := range s.browsers {
		if id == "" || b.id == id {
			return b, true
		}
	}
	return nil, false
}

// load is one Load a fake call was asked for.
type load struct {
	target  protocol.Target
	url     string
	until   string
	timeout time.Duration
}

// fakeCall is a caller: the person when agent is "".
type fakeCall struct {
	svc        *fakeService
	agent      string
	owner      bool
	home       string
	picked     []string
	targetErr  error
	destErr    error
	landedErr  error
	mayAsk     bool
	confirmErr error
	asked      []protocol.Confirm
	loads      []load
	loadErr    error
	landed     string // the URL a load ends on ("" for the one asked)
}

func (c *fakeCall) Agent() string { return c.agent }
func (c *fakeCall) Person() bool  { return c.agent == "" }
func (c *fakeCall) Owner() bool   { return c.owner }
func (c *fakeCall) Home() string  { return c.home }

func (c *fakeCall) Pick(ctx context.Context, browser string) (Browser, error) {
	c.picked = append(c.picked, browser)
	if b, ok := c.svc.browser(browser); ok {
		return b, nil
	}
	return nil, protocol.Errorf(protocol.CodeNoBrowser, "no browser %q", browser)
}

func (c *fakeCall) Now(browser string) (Browser, []protocol.Browser, error) {
	for _, r := range c.svc.reconnecting {
		if r.ID == browser {
			return nil, c.svc.reconnecting, nil
		}
	}
	if b, ok := c.svc.browser(browser); ok {
		return b, nil, nil
	}
	return nil, nil, protocol.Errorf(protocol.CodeNoBrowser, "no browser %q", browser)
}

func (c *fakeCall) Target(ctx context.Context, t protocol.Target) (Browser, int, error) {
	if c.targetErr != nil {
		return nil, 0, c.targetErr
	}
	b, ok := c.svc.browser(t.Browser)
	if !ok {
		return nil, 0, protocol.Errorf(protocol.CodeNoBrowser, "no browser %q", t.Browser)
	}
	return b, t.Tab, nil
}

func (c *fakeCall) CheckDestination(dest string) error       { return c.destErr }
func (c *fakeCall) CheckLanded(tab int, landed string) error { return c.landedErr }
func (c *fakeCall) MayAsk(kind confirm.Kind) bool            { return c.mayAsk }

func (c *fakeCall) Confirm(ctx context.Context, kind confirm.Kind, actURL string, q protocol.Confirm) error {
	c.asked = append(c.asked, q)
	return c.confirmErr
}

func (c *fakeCall) Load(ctx context.Context, t protocol.Target, url, until string, timeout time.Duration) (protocol.NavResult, error) {
	c.loads = append(c.loads, load{target: t, url: url, until: until, timeout: timeout})
	if c.loadErr != nil {
		return protocol.NavResult{}, c.loadErr
	}
	landed := url
	if c.landed != "" {
		landed = c.landed
	}
	return protocol.NavResult{Tab: t.Tab, URL: landed, Title: "Title of " + landed, Reached: "load"}, nil
}

// fixture is the handlers over a fake service with browser b1, and a
// call of agent ("" for the person) to it.
func fixture(agent string) (*Methods, *fakeBrowser, *fakeCall) {
	reg := spaces.New(spaces.Saved{})
	b := newFakeBrowser("b1", reg)
	svc := &fakeService{reg: reg, browsers: []*fakeBrowser{b}}
	return New(svc, "1.2.3"), b, &fakeCall{svc: svc, agent: agent}
}

// codeOf is the wire code of a handler's error, 0 for none (internal
// for an error that is not the wire's).
func codeOf(err error) protocol.Code {
	if err == nil {
		return 0
	}
	return protocol.AsError(err).Code
}

// opList names ops as "name {fields}", to compare them.
func opList(ops []extwire.Op) []string {
	out := []string{}
	for _, op := range ops {
		out = append(out, fmt.Sprintf("%s %+v", op.OpName(), op))
	}
	return out
}
