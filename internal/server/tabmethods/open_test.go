package tabmethods

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// TestOpenRefuses: tabs.open's params and the caller's destination are
// checked before anything reaches a browser.
func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name     string
		p        protocol.TabsOpenParams
		destErr  error
		wantCode protocol.Code
		want     string
	}{
		{"an unknown load state", protocol.TabsOpenParams{URL: "example.com", Until: "soon"}, nil, protocol.CodeInvalidParams, `tabs.open: unknown load state "soon": want load, domcontentloaded, networkidle or commit`},
		{"noWait with until", protocol.TabsOpenParams{URL: "example.com", NoWait: true, Until: "load"}, nil, protocol.CodeInvalidParams, "tabs.open: noWait excludes until and timeoutMs"},
		{"noWait with a timeout", protocol.TabsOpenParams{URL: "example.com", NoWait: true, TimeoutMs: 5}, nil, protocol.CodeInvalidParams, "tabs.open: noWait excludes until and timeoutMs"},
		{"a negative timeout", protocol.TabsOpenParams{URL: "example.com", TimeoutMs: -1}, nil, protocol.CodeInvalidParams, "tabs.open: timeoutMs must not be negative"},
		{"a destination the caller may not load", protocol.TabsOpenParams{URL: "example.com"}, protocol.Errorf(protocol.CodeForbiddenOriginScope, "denied"), protocol.CodeForbiddenOriginScope, "denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, b, c := fixture("bot")
			c.destErr = tt.destErr
			_, err := m.Open(context.Background(), c, tt.p)
			if code := codeOf(err); code != tt.wantCode || protocol.AsError(err).Message != tt.want {
				t.Fatalf("got %v, want %q (%v)", err, tt.want, tt.wantCode)
			}
			if len(c.picked) != 0 || len(b.ops) != 0 {
				t.Errorf("got browsers picked %q and ops %q, want none", c.picked, opList(b.ops))
			}
		})
	}
}

// TestOpen: where tabs.open puts the tab, what it sends the browser and
// what it loads there.
func TestOpen(t *testing.T) {
	const url = "https://example.com/"
	nav := func(tab int) *protocol.NavResult {
		return &protocol.NavResult{Tab: tab, URL: url, Title: "Title of " + url, Reached: "load"}
	}
	opened := reply{raw: `{"tab":{"id":5,"windowId":9,"url":"about:blank","status":"loading"}}`}
	// spaceWith gives bot a space in b1 in group 7, window 9, last tab 3,
	// and the browser those tabs.
	spaceWith := func(tabs ...protocol.Tab) func(*fakeBrowser) {
		return func(b *fakeBrowser) {
			sp, _ := b.reg.For("bot", "b1")
			b.reg.Update(sp.ID, func(x *spaces.Space) { x.Group, x.Window, x.LastTab = 7, 9, 3 })
			b.tabs = tabs
		}
	}
	tests := []struct {
		name      string
		agent     string
		p         protocol.TabsOpenParams
		setup     func(*fakeBrowser)
		wantOps   []string
		wantLoads []string // "tab url"
		want      protocol.TabResult
	}{
		{
			name: "the person's tab opens blank, then loads", p: protocol.TabsOpenParams{URL: url},
			setup:     func(b *fakeBrowser) { b.answer("tabs.open", opened) },
			wantOps:   []string{"tabs.open {URL:about:blank Active:true WindowID:0 NewWindow:false}"},
			wantLoads: []string{"5 " + url},
			want:      protocol.TabResult{Tab: protocol.Tab{ID: 5, Browser: "b1", WindowID: 9, URL: url, Title: "Title of " + url}, Nav: nav(5)},
		},
		{
			name: "noWait and background: the URL goes with the tab", p: protocol.TabsOpenParams{URL: url, NoWait: true, Background: true},
			setup:   func(b *fakeBrowser) { b.answer("tabs.open", opened) },
			wantOps: []string{"tabs.open {URL:" + url + " Active:false WindowID:0 NewWindow:false}"},
			want:    protocol.TabResult{Tab: protocol.Tab{ID: 5, Browser: "b1", WindowID: 9, URL: "about:blank", Status: "loading"}},
		},
		{
			name: "no URL: about:blank, nothing to wait for", p: protocol.TabsOpenParams{},
			setup:   func(b *fakeBrowser) { b.answer("tabs.open", opened) },
			wantOps: []string{"tabs.open {URL:about:blank Active:true WindowID:0 NewWindow:false}"},
			want:    protocol.TabResult{Tab: protocol.Tab{ID: 5, Browser: "b1", WindowID: 9, URL: "about:blank", Status: "loading"}},
		},
		{
			name: "an agent's first tab opens its space's window, active though background", agent: "bot", p: protocol.TabsOpenParams{URL: url, Background: true},
			setup:     func(b *fakeBrowser) { b.answer("tabs.open", opened) },
			wantOps:   []string{"tabs.open {URL:about:blank Active:true WindowID:0 NewWindow:true}"},
			wantLoads: []string{"5 " + url},
			want:      protocol.TabResult{Tab: protocol.Tab{ID: 5, Browser: "b1", WindowID: 9, URL: url, Title: "Title of " + url, GroupID: 101, Space: "s1"}, Nav: nav(5)},
		},
		{
			name: "an agent's space's empty tab is reused, its last tab first", agent: "bot", p: protocol.TabsOpenParams{URL: url},
			setup: spaceWith(
				protocol.Tab{ID: 2, GroupID: 7, URL: "chrome://newtab/"},
				protocol.Tab{ID: 3, GroupID: 7, URL: "about:blank"},
				protocol.Tab{ID: 4, GroupID: 8, URL: "about:blank"},
			),
			wantLoads: []string{"3 " + url},
			want:      protocol.TabResult{Tab: protocol.Tab{ID: 3, Browser: "b1", GroupID: 7, Space: "s1", URL: url, Title: "Title of " + url}, Nav: nav(3), Reused: true},
		},
		{
			name: "a blank tab for an agent with an empty one: that one, unloaded", agent: "bot", p: protocol.TabsOpenParams{},
			setup: spaceWith(protocol.Tab{ID: 2, GroupID: 7, URL: "chrome://new-tab-page/"}),
			want:  protocol.TabResult{Tab: protocol.Tab{ID: 2, Browser: "b1", GroupID: 7, Space: "s1", URL: "chrome://new-tab-page/"}, Reused: true},
		},
		{
			name: "noWait with a URL opens another tab beside the empty one", agent: "bot", p: protocol.TabsOpenParams{URL: url, NoWait: true},
			setup: func(b *fakeBrowser) {
				spaceWith(protocol.Tab{ID: 3, GroupID: 7, URL: "about:blank"})(b)
				b.answer("tabs.open", opened)
			},
			wantOps: []string{"tabs.open {URL:" + url + " Active:true WindowID:9 NewWindow:false}"},
			want:    protocol.TabResult{Tab: protocol.Tab{ID: 5, Browser: "b1", WindowID: 9, URL: "about:blank", Status: "loading", GroupID: 7, Space: "s1"}},
		},
		{
			name: "a loading tab is not empty: a new one in the space's window", agent: "bot", p: protocol.TabsOpenParams{URL: url},
			setup: func(b *fakeBrowser) {
				spaceWith(protocol.Tab{ID: 3, GroupID: 7, URL: "about:blank", Status: "loading"})(b)
				b.answer("tabs.open", opened)
			},
			wantOps:   []string{"tabs.open {URL:about:blank Active:true WindowID:9 NewWindow:false}"},
			wantLoads: []string{"5 " + url},
			want:      protocol.TabResult{Tab: protocol.Tab{ID: 5, Browser: "b1", WindowID: 9, URL: url, Title: "Title of " + url, GroupID: 7, Space: "s1"}, Nav: nav(5)},
		},
		{
			name: "the blank tab spaces.new just made, still loading: reused once loaded", agent: "bot", p: protocol.TabsOpenParams{URL: url},
			setup: func(b *fakeBrowser) {
				spaceWith(protocol.Tab{ID: 3, GroupID: 7, URL: "about:blank", Status: "loading"})(b)
				b.tabsLater = []protocol.Tab{{ID: 3, GroupID: 7, URL: "about:blank", Status: "complete"}}
			},
			wantLoads: []string{"3 " + url},
			want:      protocol.TabResult{Tab: protocol.Tab{ID: 3, Browser: "b1", GroupID: 7, Space: "s1", URL: url, Title: "Title of " + url}, Nav: nav(3), Reused: true},
		},
		{
			name: "the space's window was closed: a new one", agent: "bot", p: protocol.TabsOpenParams{URL: url},
			setup: func(b *fakeBrowser) {
				spaceWith()(b)
				b.answer("tabs.open", reply{err: protocol.Errorf(protocol.CodeExtension, "No window with id: 9.")}, opened)
			},
			wantOps: []string{
				"tabs.open {URL:about:blank Active:true WindowID:9 NewWindow:false}",
				"tabs.open {URL:about:blank Active:true WindowID:0 NewWindow:true}",
			},
			wantLoads: []string{"5 " + url},
			want:      protocol.TabResult{Tab: protocol.Tab{ID: 5, Browser: "b1", WindowID: 9, URL: url, Title: "Title of " + url, GroupID: 7, Space: "s1"}, Nav: nav(5)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, b, c := fixture(tt.agent)
			tt.setup(b)
			got, err := m.Open(context.Background(), c, tt.p)
			if err != nil {
				t.Fatalf("tabs.open: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantOps, opList(b.ops)); diff != "" && len(tt.wantOps)+len(b.ops) > 0 {
				t.Errorf("ops (-want +got):\n%s", diff)
			}
			var loads []string
			for _, l := range c.loads {
				if l.target.Browser != "b1" {
					t.Errorf("load in browser %q, want b1", l.target.Browser)
				}
				loads = append(loads, fmt.Sprintf("%d %s", l.target.Tab, l.url))
			}
			if diff := cmp.Diff(tt.wantLoads, loads); diff != "" {
				t.Errorf("loads (-want +got):\n%s", diff)
			}
			if tt.agent != "" {
				if sp, _ := b.reg.Current(tt.agent); sp.Window != 9 {
					t.Errorf("the space's window: got %d, want 9", sp.Window)
				}
			}
		})
	}
}

// TestOpenLoadWaits: the load waits as the params say.
func TestOpenLoadWaits(t *testing.T) {
	m, b, c := fixture("")
	b.answer("tabs.open", reply{raw: `{"tab":{"id":5}}`})
	if _, err := m.Open(context.Background(), c, protocol.TabsOpenParams{URL: "example.com", Until: "commit", TimeoutMs: 1500}); err != nil {
		t.Fatal(err)
	}
	want := []load{{target: protocol.Target{Browser: "b1", Tab: 5}, url: "https://example.com", until: "commit", timeout: 1500 * time.Millisecond}}
	if diff := cmp.Diff(want, c.loads, cmp.AllowUnexported(load{})); diff != "" {
		t.Errorf("loads (-want +got):\n%s", diff)
	}
}

// TestOpenAgentBrowser: a named agent that names no browser opens in
// its current space's; the person in the only one.
func TestOpenAgentBrowser(t *testing.T) {
	m, b, c := fixture("bot")
	b2 := newFakeBrowser("b2", b.reg)
	c.svc.browsers = append(c.svc.browsers, b2)
	b.reg.For("bot", "b2")
	if _, err := m.Open(context.Background(), c, protocol.TabsOpenParams{NoWait: true}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b2"}, c.picked); diff != "" {
		t.Errorf("picked (-want +got):\n%s", diff)
	}
	if len(b2.ops) != 1 || len(b.ops) != 0 {
		t.Errorf("got ops %q in b1 and %q in b2, want one in b2", opList(b.ops), opList(b2.ops))
	}
}

// TestOpenConfirm: a page in a new tab is on a new origin; the person is
// asked before the tab is made, when the caller's policy may ask.
func TestOpenConfirm(t *testing.T) {
	tests := []struct {
		name      string
		url       string
		mayAsk    bool
		refuse    error
		wantAsked []string
		wantOps   int
	}{
		{"a URL, a policy that asks", "https://bank.example/pay", true, nil, []string{"b1"}, 1},
		{"refused: no tab", "https://bank.example/pay", true, protocol.Errorf(protocol.CodeDeniedByPerson, "no"), []string{"b1"}, 0},
		{"a policy that does not ask", "https://bank.example/pay", false, nil, nil, 1},
		{"about:blank is no origin", "", true, nil, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, b, c := fixture("")
			c.mayAsk, c.confirmErr = tt.mayAsk, tt.refuse
			_, err := m.Open(context.Background(), c, protocol.TabsOpenParams{URL: tt.url})
			if !errors.Is(err, tt.refuse) {
				t.Fatalf("got %v, want %v", err, tt.refuse)
			}
			var asked []string
			for _, q := range c.asked {
				asked = append(asked, q.Browser)
				if !strings.Contains(q.Action, "bank.example") {
					t.Errorf("the question: got %q, want it to name bank.example", q.Action)
				}
			}
			if diff := cmp.Diff(tt.wantAsked, asked); diff != "" {
				t.Errorf("asked in (-want +got):\n%s", diff)
			}
			if len(b.ops) != tt.wantOps {
				t.Errorf("got ops %q, want %d", opList(b.ops), tt.wantOps)
			}
		})
	}
}

// TestOpenFails: what tabs.open answers when a step fails, and that an
// open tab is named.
func TestOpenFails(t *testing.T) {
	gone := protocol.Errorf(protocol.CodeBrowserGone, "browser b1 is gone")
	tests := []struct {
		name     string
		agent    string
		setup    func(*fakeBrowser, *fakeCall)
		wantCode protocol.Code
		wantMsg  string
		wantTab  any // the error's "tab", nil for none
		wantOps  int
	}{
		{
			name: "the person has the agent's space", agent: "bot",
			setup:    func(b *fakeBrowser, c *fakeCall) { b.spaceState = spaces.Person },
			wantCode: protocol.CodeUserInControl, wantMsg: "the person has taken over space s1",
		},
		{
			name: "the browser went: not tried again in a new window", agent: "bot",
			setup: func(b *fakeBrowser, c *fakeCall) {
				sp, _ := b.reg.For("bot", "b1")
				b.reg.Update(sp.ID, func(x *spaces.Space) { x.Window = 9 })
				b.answer("tabs.open", reply{err: gone})
			},
			wantCode: protocol.CodeBrowserGone, wantMsg: "browser b1 is gone", wantOps: 1,
		},
		{
			name:     "a reply that is not a tab",
			setup:    func(b *fakeBrowser, c *fakeCall) { b.answer("tabs.open", reply{raw: `[]`}) },
			wantCode: protocol.CodeExtension, wantMsg: "tabs.open: bad reply: json: cannot unmarshal array into Go value of type protocol.TabResult", wantOps: 1,
		},
		{
			name: "the tab is not put into the space", agent: "bot",
			setup: func(b *fakeBrowser, c *fakeCall) {
				b.answer("tabs.open", reply{raw: `{"tab":{"id":5}}`})
				b.addErr = protocol.Errorf(protocol.CodeTabNotFound, "no tab 5")
			},
			wantCode: protocol.CodeTabNotFound, wantMsg: "tabs.open: tab 5 opened but not put into space s1: no tab 5 (tab_not_found 1002)", wantTab: 5, wantOps: 1,
		},
		{
			name: "its load fails: the tab is named",
			setup: func(b *fakeBrowser, c *fakeCall) {
				b.answer("tabs.open", reply{raw: `{"tab":{"id":5}}`})
				c.loadErr = protocol.Errorf(protocol.CodeTimeout, "goto: load not reached")
			},
			wantCode: protocol.CodeTimeout, wantMsg: "goto: load not reached", wantTab: 5, wantOps: 1,
		},
		{
			name: "it lands where the caller may not reach",
			setup: func(b *fakeBrowser, c *fakeCall) {
				b.answer("tabs.open", reply{raw: `{"tab":{"id":5}}`})
				c.landedErr = protocol.Errorf(protocol.CodeForbiddenOriginScope, "tabs.open: tab 5 ended on https://evil.example")
			},
			wantCode: protocol.CodeForbiddenOriginScope, wantMsg: "tabs.open: tab 5 ended on https://evil.example", wantOps: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, b, c := fixture(tt.agent)
			tt.setup(b, c)
			_, err := m.Open(context.Background(), c, protocol.TabsOpenParams{URL: "https://example.com/"})
			if got := codeOf(err); got != tt.wantCode {
				t.Fatalf("got code %v (%v), want %v", got, err, tt.wantCode)
			}
			pe := protocol.AsError(err)
			if pe.Message != tt.wantMsg {
				t.Errorf("got message %q, want %q", pe.Message, tt.wantMsg)
			}
			if got := pe.Data["tab"]; got != tt.wantTab {
				t.Errorf("got tab %v, want %v", got, tt.wantTab)
			}
			if len(b.ops) != tt.wantOps {
				t.Errorf("got ops %q, want %d", opList(b.ops), tt.wantOps)
			}
		})
	}
}
