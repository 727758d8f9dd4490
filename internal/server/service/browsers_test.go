package service

import (
	"context"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

const keyA = "0123456789abcdef0123456789abcdef"

var testOrigin = "chrome-extension://" + testExt + "/"

// waitGone waits until the service has no link with id.
func waitGone(t *testing.T, f *fixture, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if f.s.hub.Get(id) == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("link %s still up 5 s after its relay left", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Calls that describe the present never wait for a reconnecting browser:
// they answer at once with what is connected now, and list the
// reconnecting browser as such, with when it went.
func TestDescribingCallsDoNotWait(t *testing.T) {
	f := newFixtureWith(t, func(o *Options) {
		o.RequestTimeout = time.Minute
		o.ReconnectWait = time.Minute
	}, nil)
	agent := f.agent(t)
	ext, id := f.keyedExt(t)
	ext.Conn.Close()
	waitGone(t, f, id)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang bound
	defer cancel()

	wantReconnecting := func(what string, got []protocol.Browser) {
		t.Helper()
		if len(got) != 1 || got[0].ID != id || got[0].DisconnectedAt.IsZero() || got[0].GoneMs < 0 || got[0].ExtensionID != testExt || got[0].RelayPID != 0 {
			t.Errorf("%s: got reconnecting %+v, want %s with when it went and what it was", what, got, id)
		}
	}
	for _, name := range []string{"", id} {
		var tabs protocol.TabsListResult
		if err := agent.Call(ctx, protocol.MethodTabsList, protocol.TabsListParams{Browser: name}, &tabs); err != nil {
			t.Fatalf("tabs.list %q: %v", name, err)
		}
		if tabs.Tabs == nil || len(tabs.Tabs) != 0 {
			t.Errorf("tabs.list %q: got tabs %+v, want an empty list", name, tabs.Tabs)
		}
		wantReconnecting("tabs.list "+name, tabs.Reconnecting)
	}
	var bl protocol.BrowsersListResult
	if err := agent.Call(ctx, protocol.MethodBrowsersList, nil, &bl); err != nil {
		t.Fatal(err)
	}
	if len(bl.Browsers) != 0 {
		t.Errorf("browsers.list: got connected %+v, want none", bl.Browsers)
	}
	wantReconnecting("browsers.list", bl.Reconnecting)
	var ping protocol.PingResult
	if err := agent.Call(ctx, protocol.MethodPing, nil, &ping); err != nil || ping.Browsers != 0 || ping.Reconnecting != 1 {
		t.Errorf("ping: got %+v, %v; want 0 browsers, 1 reconnecting", ping, err)
	}
	var sl protocol.SpacesListResult
	if err := agent.Call(ctx, protocol.MethodSpacesList, nil, &sl); err != nil {
		t.Errorf("spaces.list: %v", err)
	}
	// A browser never seen is still no_browser.
	err := agent.Call(ctx, protocol.MethodTabsList, protocol.TabsListParams{Browser: "b99"}, nil)
	wantCode(t, err, protocol.CodeNoBrowser)
}
