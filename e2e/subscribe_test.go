package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// A relay that dies under a cdp.subscribe subscription ends it with a
// cdp.subscriptionEnded notice naming it (never silence), and once the
// browser is back a new subscription gets events again.
func TestSubscriptionEndsWhenTheRelayDies(t *testing.T) {
	c := startChain(t)
	base := serve(t, map[string]string{"/": `<title>sub</title>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 90*time.Second)

	subscribe := func() protocol.CDPSubscribeResult {
		t.Helper()
		var sub protocol.CDPSubscribeResult
		if err := c.agent.Call(ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: tab, Methods: []string{"Runtime.consoleAPICalled"}}, &sub); err != nil {
			t.Fatal(err)
		}
		if err := c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Runtime.enable"}, nil); err != nil {
			t.Fatal(err)
		}
		return sub
	}
	// waitNote waits for the first notification that match accepts.
	waitNote := func(what string, match func(protocol.Message) bool) {
		t.Helper()
		for {
			select {
			case <-ctx.Done():
				t.Fatalf("no %s before the deadline\nservice log:\n%s", what, c.svc.logs)
			case m, ok := <-c.agent.Notifications():
				if !ok {
					t.Fatalf("agent connection closed while waiting for %s", what)
				}
				if match(m) {
					return
				}
			}
		}
	}
	consoleOn := func(sub string, text string) func(protocol.Message) bool {
		return func(m protocol.Message) bool {
			var ev protocol.CDPEvent
			return m.Method == protocol.NotifyCDPEvent && json.Unmarshal(m.Params, &ev) == nil &&
				ev.Subscription == sub && strings.Contains(string(ev.Params), text)
		}
	}

	sub := subscribe()
	if _, err := c.eval(ctx, tab, `console.log("before the relay died")`); err != nil {
		t.Fatal(err)
	}
	waitNote("the console event before the kill", consoleOn(sub.Subscription, "before the relay died"))

	var bl protocol.BrowsersListResult
	if err := c.agent.Call(ctx, protocol.MethodBrowsersList, nil, &bl); err != nil || len(bl.Browsers) != 1 {
		t.Fatalf("browsers.list: %+v, %v", bl, err)
	}
	if err := killPID(bl.Browsers[0].RelayPID); err != nil {
		t.Fatalf("kill the relay (pid %d): %v", bl.Browsers[0].RelayPID, err)
	}
	var ended protocol.SubscriptionEnded
	waitNote("a cdp.subscriptionEnded notice", func(m protocol.Message) bool {
		return m.Method == protocol.NotifySubscriptionEnded && json.Unmarshal(m.Params, &ended) == nil && ended.Subscription == sub.Subscription
	})
	if ended.Reason != "browser_disconnected" || ended.Tab != tab.Tab || ended.Browser != sub.Browser {
		t.Errorf("notice: got %+v, want reason browser_disconnected for tab %d of %s", ended, tab.Tab, sub.Browser)
	}
	err := c.agent.Call(ctx, protocol.MethodCDPUnsubscribe, protocol.CDPUnsubscribeParams{Subscription: sub.Subscription}, nil)
	wantCode(t, err, protocol.CodeInvalidParams) // it is gone, as the notice said

	// The extension starts a new relay; a new subscription works.
	c.waitLink(t)
	again := subscribe()
	if _, err := c.eval(ctx, tab, `console.log("after the relay came back")`); err != nil {
		t.Fatal(err)
	}
	waitNote("the console event after the relay came back", consoleOn(again.Subscription, "after the relay came back"))
}

// killPID kills process pid at once (SIGKILL on Unix).
func killPID(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
