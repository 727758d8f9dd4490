package service

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/server/hub"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// A new document's preparation, which an agent's call starts and does not
// wait for, ends when the person takes the tab's space over, and an
// agent's call starts none on a tab the person holds (the person's own
// calls still prepare). Before, it ran on for up to 2 s in the person's
// tab.
func TestTakeOverEndsTheTabsBackgroundWork(t *testing.T) {
	held := false
	l := &link{Link: &hub.Link{Tabs: page.NewTabs(func(int) cdptab.Sessions { return nil }, nil), HeldAt: func(int, time.Time) bool { return held }}}
	l.Layout.SetGroup(7, 3)
	tc := &tabContext{link: l, tabID: 7, tab: l.Tabs.Tab(7)}

	started, ended := make(chan struct{}), make(chan error, 1)
	go func() {
		ended <- tc.background(true, func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		})(context.Background())
	}()
	<-started
	s := &Service{}
	s.stopAgentsIn(l, spaces.Space{ID: "s1", Agent: "bot", Group: 3})
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the preparation after the takeover: got %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the preparation ran on after the person took the space over")
	}

	held = true
	for _, tc2 := range []struct {
		name  string
		agent bool
		want  bool
	}{
		{"an agent's call", true, false},
		{"the person's call", false, true},
	} {
		ran := false
		if err := tc.background(tc2.agent, func(context.Context) error { ran = true; return nil })(context.Background()); err != nil {
			t.Errorf("%s: %v", tc2.name, err)
		}
		if ran != tc2.want {
			t.Errorf("%s on a held tab: prepared %t, want %t", tc2.name, ran, tc2.want)
		}
	}
}

// What an agent's call may leave on its tab: raw CDP, state on the
// debugger session and script in the page; eval and a wait for a
// function, script in the page; a wait for text and an action, nothing.
func TestLeaves(t *testing.T) {
	for _, tt := range []struct {
		method, params string
		session, page  bool
	}{
		{protocol.MethodCDPSend, `{"method":"Emulation.setUserAgentOverride","params":{"userAgent":"x"}}`, true, true},
		{protocol.MethodEval, `{"expression":"1"}`, false, true},
		{protocol.MethodWait, `{"function":"() => window.ready"}`, false, true},
		{protocol.MethodWait, `{"text":"Done"}`, false, false},
		{protocol.MethodWait, `{"function":""}`, false, false},
		{protocol.MethodWait, `{"function":null}`, false, false},
		{protocol.MethodClick, `{"target":"@1"}`, false, false},
		{protocol.MethodFill, `{"target":"@1","text":"<script>"}`, false, false},
		{protocol.MethodResize, `{"width":400,"height":300}`, true, false},
	} {
		c := &call{method: tt.method, params: rpcparams.Parse(json.RawMessage(tt.params))}
		if session, page := leaves(c); session != tt.session || page != tt.page {
			t.Errorf("%s %s: got session %v, page %v; want %v, %v", tt.method, tt.params, session, page, tt.session, tt.page)
		}
	}
}

// A detach between an agent's raw CDP call's start and its command (a
// confirmation's wait, the person's Cancel in the infobar) forgets the
// tab's session marks; the command then attaches again and runs: the
// call marks its tab again when it ends, so a take over still detaches.
func TestAgentCDPMarkedAgainWhenTheCallEnds(t *testing.T) {
	f := newFixture(t)
	ext, bot := f.cdpBot(t, 3, "https://example.com/a")
	errc := callAsync(context.Background(), bot, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: 3}, Method: "Emulation.setUserAgentOverride", Params: json.RawMessage(`{"userAgent":"x"}`)})
	req := ext.Read()
	for req["method"] != "Emulation.setUserAgentOverride" { // the checks' questions first
		ext.Send(map[string]any{"id": req["id"], "result": map[string]any{"groups": []any{}, "frameTree": oneFrame["frameTree"]}})
		req = ext.Read()
	}
	l := f.s.hub.Links()[0]
	if !l.AgentCDP(3) {
		t.Fatalf("tab 3 not marked while bot's call runs")
	}
	ext.Send(map[string]any{"event": "detached", "tabId": 3, "reason": "canceled_by_user"})
	for deadline := time.Now().Add(5 * time.Second); l.AgentCDP(3); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the detach did not forget tab 3's marks")
		}
	}
	ext.Send(map[string]any{"id": req["id"], "result": map[string]any{}})
	_ = awaitErr(t, errc, 5*time.Second, "bot's call hung")
	if !l.AgentCDP(3) {
		t.Error("after bot's call ended: tab 3 not marked, want it marked again")
	}
}

// The detaches of a take over go out together: a browser slow to answer
// the first holds the others no longer than it. Every detach is read
// before any is answered; sent one after the other, the second went out
// only once the first timed out, and the first two counted as failed.
func TestEndAgentSessionsDetachesTogether(t *testing.T) {
	f := newFixture(t)
	ext := f.linkedExt(t)
	for _, tab := range []int{3, 4, 5, 6} {
		ext.Send(map[string]any{"event": "tab.updated", "tab": map[string]any{"id": tab, "url": "https://example.com/", "windowId": 1}})
	}
	waitForRegistry(t, f, 6)
	l := f.s.hub.Links()[0]
	for _, tab := range []int{3, 4, 5} { // 6: no agent's raw CDP reached it
		l.MarkAgentCDP(tab, "bot")
	}
	done := make(chan int, 1)
	go func() { done <- endAgentSessions(context.Background(), l.Link, []int{3, 4, 5, 6}) }()
	var ids []any
	tabs := map[int]bool{}
	for len(ids) < 3 {
		m := ext.Read()
		if m["op"] != "detach" {
			t.Fatalf("got request %v, want a detach", m)
		}
		ids = append(ids, m["id"])
		tabs[int(m["tabId"].(float64))] = true
	}
	for _, id := range ids {
		ext.Send(map[string]any{"id": id, "result": map[string]any{}})
	}
	select {
	case n := <-done:
		if n != 3 {
			t.Errorf("detached %d tabs, want 3", n)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("endAgentSessions did not return")
	}
	// It returned, so any detach it sent has arrived: tab 6's would be
	// the one left.
	select {
	case m := <-ext.frames():
		t.Errorf("a request after the three detaches: %v", m)
	default:
	}
	if len(tabs) != 3 || !tabs[3] || !tabs[4] || !tabs[5] {
		t.Errorf("detached tabs %v, want 3, 4 and 5", tabs)
	}
}

// A space's popup window stays the space's when the person drags its
// opener out (that tab alone is theirs: its debugger session ends), and
// leaves it when it is shown as a tab in a window of its own: its session
// ends then.
func TestASpacesPopupLeavesItWithItsWindow(t *testing.T) {
	f := newFixture(t)
	ext := f.linkedExt(t)
	ext.Send(map[string]any{"event": "tab.updated", "tab": map[string]any{"id": 3, "url": "https://example.com/", "windowId": 1, "groupId": 50}})
	ext.Send(map[string]any{"event": "tab.created", "tab": map[string]any{"id": 4, "url": "https://id.example/", "windowId": 2, "openerTabId": 3, "popup": true}})
	waitForRegistry(t, f, 4)
	l := f.s.hub.Links()[0]
	f.s.spaces.reg.Adopt("bot", "", l.ID, 50, 1, "blue", spaces.Working)
	if got := l.Layout.TabsInGroup(50); !slices.Equal(got, []int{3, 4}) {
		t.Fatalf("the space's tabs: %v, want [3 4]", got)
	}
	l.MarkAgentCDP(3, "bot")
	l.MarkAgentCDP(4, "bot")
	detached := func() int {
		t.Helper()
		m := ext.Read()
		if m["op"] != "detach" {
			t.Fatalf("got request %v, want a detach", m)
		}
		ext.Send(map[string]any{"id": m["id"], "result": map[string]any{}})
		return int(m["tabId"].(float64))
	}
	ext.Send(map[string]any{"event": "tab.updated", "tab": map[string]any{"id": 3, "url": "https://example.com/", "windowId": 1}})
	if got := detached(); got != 3 {
		t.Errorf("the opener dragged out: detached tab %d, want 3", got)
	}
	if got := l.Layout.TabsInGroup(50); !slices.Equal(got, []int{4}) {
		t.Errorf("the space's tabs after: %v, want [4]", got)
	}
	ext.Send(map[string]any{"event": "tab.updated", "tab": map[string]any{"id": 4, "url": "https://id.example/", "windowId": 5}})
	if got := detached(); got != 4 {
		t.Errorf("the popup shown as a tab: detached tab %d, want 4", got)
	}
	if got := l.Layout.TabsInGroup(50); len(got) != 0 {
		t.Errorf("the space's tabs at the end: %v, want none", got)
	}
}
