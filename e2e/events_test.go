package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// The extension holds back the CDP events no part of the service reads
// (every response chunk, the raw headers, the paint milestones among the
// lifecycle events…), but never from an agent that subscribed to them:
// through the real chain, a subscription to such events gets them, and so
// does one to every event.
func TestQuietEventsReachTheirSubscribers(t *testing.T) {
	c := startChain(t)
	base := serve(t, map[string]string{
		"/":     `<title>first</title>`,
		"/next": `<title>next</title><p>the next page</p><script src="/s.js"></script>`,
		"/s.js": `document.title += " loaded"`,
	})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 60*time.Second)
	for _, m := range []string{"Network.enable", "Page.enable"} {
		if err := c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: m}, nil); err != nil {
			t.Fatal(err)
		}
	}
	lifecycleOn, _ := json.Marshal(map[string]bool{"enabled": true})
	if err := c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Page.setLifecycleEventsEnabled", Params: lifecycleOn}, nil); err != nil {
		t.Fatal(err)
	}

	// wants subscribes to methods (every event when none) and waits for the
	// events a load of /next causes that the extension holds back from
	// those who did not ask: each of want (a method, or the name of a
	// Page.lifecycleEvent).
	wants := func(methods []string, want ...string) {
		t.Helper()
		var res protocol.CDPSubscribeResult
		if err := c.agent.Call(ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: tab, Methods: methods}, &res); err != nil {
			t.Fatal(err)
		}
		sub := subscription{res, c}
		if _, err := c.eval(ctx, tab, "location.href = '/next?' + Math.random(); 1"); err != nil {
			t.Fatal(err)
		}
		missing := map[string]bool{}
		for _, w := range want {
			missing[w] = true
		}
		for len(missing) > 0 {
			var ev protocol.CDPEvent
			sub.next(ctx, t, protocol.NotifyCDPEvent, &ev)
			delete(missing, ev.Method)
			if ev.Method == "Page.lifecycleEvent" {
				var p struct {
					Name string `json:"name"`
				}
				if json.Unmarshal(ev.Params, &p) == nil {
					delete(missing, p.Name)
				}
			}
		}
		if err := c.agent.Call(ctx, protocol.MethodCDPUnsubscribe, protocol.CDPUnsubscribeParams{Subscription: res.Subscription}, nil); err != nil {
			t.Fatal(err)
		}
	}
	wants([]string{"Network.dataReceived", "Network.responseReceivedExtraInfo", "Page.lifecycleEvent", "Page.loadEventFired"},
		"Network.dataReceived", "Network.responseReceivedExtraInfo", "firstContentfulPaint", "networkAlmostIdle", "Page.loadEventFired")
	wants(nil, "Network.requestWillBeSentExtraInfo", "Network.dataReceived", "firstPaint", "Page.domContentEventFired")
}
