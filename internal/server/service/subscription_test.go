package service

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// expectOp reads the service's frames until a request with op, answers it
// with result, and returns it.
func (e *fakeExt) expectOp(op string, result any) map[string]any {
	e.T.Helper()
	for {
		m := e.Read()
		if m["op"] == op {
			e.Send(map[string]any{"id": m["id"], "result": result})
			return m
		}
		if m["op"] != nil {
			e.T.Fatalf("got request %v, want op %s", m, op)
		}
	}
}

// waitNote waits for the first notification with method.
func waitNote(t *testing.T, agent *client.Client, method string, params any) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-agent.Notifications():
			if m.Method != method {
				continue
			}
			if err := json.Unmarshal(m.Params, params); err != nil {
				t.Fatalf("%s params %s: %v", method, m.Params, err)
			}
			return
		case <-timeout:
			t.Fatalf("no %s within 10 s", method)
		}
	}
}

// A cdp.subscribe subscription outlives its browser link: on the
// browser's next link it finds its tab, attaches it again when its session
// was lost, enables again the domains the agent enabled (with their
// params), says so (cdp.subscriptionResumed), and delivers the tab's
// events; it ends (cdp.subscriptionEnded, tab_closed) when the browser
// comes back without the tab.
func TestSubscriptionResumesOnTheBrowsersNextLink(t *testing.T) {
	f := newFixture(t)
	agent := f.agent(t)
	ext, id := f.keyedExt(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	sub := subscribeTab(t, ctx, agent, ext, protocol.Target{Browser: id, Tab: 7})
	sendc := make(chan error, 1)
	go func() {
		sendc <- agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Browser: id, Tab: 7}, Method: "Network.enable", Params: json.RawMessage(`{"maxTotalBufferSize":1000}`)}, nil)
	}()
	ext.expectOp("cdp", map[string]any{})
	if err := <-sendc; err != nil {
		t.Fatalf("cdp.send Network.enable: %v", err)
	}

	// The relay restarts; the worker was stopped meanwhile: the tab is no
	// longer attached.
	ext.Conn.Close()
	back := f.connectExt(t, testOrigin)
	back.Send(map[string]any{"event": "hello", "extensionId": testExt, "browserKey": keyA})
	back.expectOp("tabs.list", map[string]any{"tabs": []any{map[string]any{"id": 7, "url": "about:blank", "attached": false}}})
	back.expectOp("attach", map[string]any{"attached": true})
	enable := back.expectOp("cdp", map[string]any{})
	if enable["method"] != "Network.enable" || enable["tabId"] != float64(7) {
		t.Errorf("enabled again: got %v, want Network.enable on tab 7", enable)
	}
	if p, _ := json.Marshal(enable["params"]); string(p) != `{"maxTotalBufferSize":1000}` {
		t.Errorf("enabled again with params %s, want the agent's", p)
	}
	var resumed protocol.SubscriptionResumed
	waitNote(t, agent, protocol.NotifySubscriptionResumed, &resumed)
	if resumed.Subscription != sub.Subscription || resumed.Tab != 7 || !resumed.Reattached || len(resumed.Reenabled) != 1 || resumed.MissedMs < 0 {
		t.Errorf("cdp.subscriptionResumed: got %+v, want %s of tab 7 reattached, Network.enable again", resumed, sub.Subscription)
	}
	back.Send(map[string]any{"event": "cdp", "tabId": 7, "method": "Network.dataReceived", "params": map[string]any{"n": 1}})
	var ev protocol.CDPEvent
	waitNote(t, agent, protocol.NotifyCDPEvent, &ev)
	if ev.Subscription != sub.Subscription || ev.Method != "Network.dataReceived" {
		t.Errorf("event after the resume: got %+v, want Network.dataReceived on %s", ev, sub.Subscription)
	}

	// Back once more, still attached (only the relay restarted): nothing
	// to attach or enable.
	back.Conn.Close()
	again := f.connectExt(t, testOrigin)
	again.Send(map[string]any{"event": "hello", "extensionId": testExt, "browserKey": keyA})
	again.expectOp("tabs.list", map[string]any{"tabs": []any{map[string]any{"id": 7, "url": "about:blank", "attached": true}}})
	resumed = protocol.SubscriptionResumed{}
	waitNote(t, agent, protocol.NotifySubscriptionResumed, &resumed)
	if resumed.Reattached || len(resumed.Reenabled) != 0 {
		t.Errorf("cdp.subscriptionResumed with the session kept: got %+v, want nothing attached or enabled", resumed)
	}

	// Back without the tab: the subscription ends.
	again.Conn.Close()
	last := f.connectExt(t, testOrigin)
	last.Send(map[string]any{"event": "hello", "extensionId": testExt, "browserKey": keyA})
	last.expectOp("tabs.list", map[string]any{"tabs": []any{}})
	var ended protocol.SubscriptionEnded
	waitNote(t, agent, protocol.NotifySubscriptionEnded, &ended)
	if ended.Subscription != sub.Subscription || ended.Reason != "tab_closed" {
		t.Errorf("cdp.subscriptionEnded: got %+v, want %s ended, tab_closed", ended, sub.Subscription)
	}
	err := agent.Call(ctx, protocol.MethodCDPUnsubscribe, protocol.CDPUnsubscribeParams{Subscription: sub.Subscription}, nil)
	wantCode(t, err, protocol.CodeInvalidParams)
}

// A subscription whose browser is not back within timeouts.reconnect ends
// (browser_disconnected); one the agent ended does not resume.
func TestSubscriptionEndsWhenTheBrowserStaysAway(t *testing.T) {
	f := newFixtureWith(t, func(o *Options) { o.ReconnectGrace = 300 * time.Millisecond }, nil)
	agent := f.agent(t)
	ext, id := f.keyedExt(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	subscribe := func() protocol.CDPSubscribeResult {
		t.Helper()
		return subscribeTab(t, ctx, agent, ext, protocol.Target{Browser: id, Tab: 7})
	}
	first, second := subscribe(), subscribe()
	if err := agent.Call(ctx, protocol.MethodCDPUnsubscribe, protocol.CDPUnsubscribeParams{Subscription: first.Subscription}, nil); err != nil {
		t.Fatal(err)
	}
	ext.Conn.Close()
	var ended protocol.SubscriptionEnded
	waitNote(t, agent, protocol.NotifySubscriptionEnded, &ended)
	if ended.Subscription != second.Subscription || ended.Reason != "browser_disconnected" {
		t.Errorf("cdp.subscriptionEnded: got %+v, want %s ended, browser_disconnected", ended, second.Subscription)
	}
}

// subscribeTab subscribes to the tab's events, the fake extension
// answering the attach it makes.
func subscribeTab(t *testing.T, ctx context.Context, agent *client.Client, ext *fakeExt, tab protocol.Target) protocol.CDPSubscribeResult {
	t.Helper()
	subc := make(chan protocol.CDPSubscribeResult, 1)
	go func() {
		var sub protocol.CDPSubscribeResult
		if err := agent.Call(ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: tab}, &sub); err != nil {
			t.Errorf("cdp.subscribe: %v", err)
		}
		subc <- sub
	}()
	ext.expectOp("attach", map[string]any{"attached": true})
	return <-subc
}
