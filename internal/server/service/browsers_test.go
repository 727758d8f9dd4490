package service

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

const (
	keyA = "0123456789abcdef0123456789abcdef"
	keyB = "fedcba9876543210fedcba9876543210"
)

var testOrigin = "chrome-extension://" + testExt + "/"

// shortDir is a state dir with a short path (unix socket paths are short).
func shortDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "egs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// waitGone waits until the service has no link with id.
func waitGone(t *testing.T, f *fixture, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.s.mu.Lock()
		_, up := f.s.links[id]
		f.s.mu.Unlock()
		if !up {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("link %s still up 5 s after its relay left", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A browser profile keeps its ID across relay reconnects and service
// restarts; other profiles and key-less (older) extensions get new IDs that
// never collide with a remembered one.
func TestBrowserIDStableAcrossReconnectsAndRestarts(t *testing.T) {
	dir := shortDir(t)
	f := newFixtureIn(t, dir, nil)
	a := f.connectExt(t, testOrigin)
	if got := a.HelloAs(keyA); got != "b1" {
		t.Fatalf("first browser: got ID %q, want b1", got)
	}
	a.Conn.Close()
	waitGone(t, f, "b1")
	a = f.connectExt(t, testOrigin)
	if got := a.HelloAs(keyA); got != "b1" {
		t.Fatalf("same profile after a relay reconnect: got ID %q, want b1", got)
	}
	b := f.connectExt(t, testOrigin)
	if got := b.HelloAs(keyB); got != "b2" {
		t.Fatalf("second profile: got ID %q, want b2", got)
	}
	old := f.connectExt(t, testOrigin)
	if got := old.HelloAs(""); got != "b3" {
		t.Fatalf("an extension without a key: got ID %q, want b3", got)
	}
	f.cancel()
	<-f.done
	f.done <- nil // let the first fixture's cleanup return

	f2 := newFixtureIn(t, dir, nil)
	b2 := f2.connectExt(t, testOrigin)
	if got := b2.HelloAs(keyB); got != "b2" {
		t.Fatalf("second profile after a service restart: got ID %q, want b2", got)
	}
	a2 := f2.connectExt(t, testOrigin)
	if got := a2.HelloAs(keyA); got != "b1" {
		t.Fatalf("first profile after a service restart: got ID %q, want b1", got)
	}
	n := f2.connectExt(t, testOrigin)
	if got := n.HelloAs(""); got != "b4" {
		t.Fatalf("a key-less extension after a restart: got ID %q, want b4 (b3 was handed out before)", got)
	}
}

// While a known browser is reconnecting, a call that needs it waits for it
// within its own timeout: it succeeds when the browser is back in time, and
// fails with browser_reconnecting (not no_browser) when it is not. A
// browser never seen is no_browser at once, and so is a known one after
// timeouts.reconnect.
func TestCallsWaitForAReconnectingBrowser(t *testing.T) {
	f := newFixtureIn(t, shortDir(t), func(o *Options) {
		o.RequestTimeout = time.Second             // the call's own timeout
		o.ReconnectGrace = 2500 * time.Millisecond // ends halfway through the third call below
	})
	agent := f.agent(t)
	ext := f.connectExt(t, testOrigin)
	id := ext.HelloAs(keyA)
	ext.Conn.Close()
	waitGone(t, f, id)

	// Comes back within the call's timeout: the call succeeds.
	type result struct {
		echo protocol.DebugEchoResult
		err  error
	}
	resc := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var r result
		r.err = agent.Call(ctx, protocol.MethodDebugEcho, protocol.DebugEchoParams{Browser: id, Data: "hi"}, &r.echo)
		resc <- r
	}()
	time.Sleep(200 * time.Millisecond) // let the call reach the service and wait
	back := f.connectExt(t, testOrigin)
	back.Send(map[string]any{"event": "hello", "extensionId": testExt, "browserKey": keyA})
	var req map[string]any
	for req == nil { // the waiting call may reach the link before its welcome does
		switch m := back.Read(); {
		case m["event"] == "welcome" && m["browserId"] != id:
			t.Fatalf("reconnected as %v, want %s", m["browserId"], id)
		case m["op"] == "echo":
			req = m
		}
	}
	back.Send(map[string]any{"id": req["id"], "result": map[string]any{"data": "hi"}})
	r := <-resc
	if r.err != nil || r.echo.Length != 2 {
		t.Fatalf("debug.echo across the reconnect: got %+v, %v; want the echo", r.echo, r.err)
	}

	// Does not come back within the call's timeout: browser_reconnecting,
	// by name and unnamed alike.
	back.Conn.Close()
	waitGone(t, f, id)
	for _, name := range []string{id, ""} {
		err := agent.Call(context.Background(), protocol.MethodDebugEcho, protocol.DebugEchoParams{Browser: name}, nil)
		wantCode(t, err, protocol.CodeBrowserReconnecting)
		if !strings.Contains(err.Error(), "reconnecting") {
			t.Errorf("browser %q: got %v, want a message that says it is reconnecting", name, err)
		}
	}
	err := agent.Call(context.Background(), protocol.MethodDebugEcho, protocol.DebugEchoParams{Browser: "b99"}, nil)
	wantCode(t, err, protocol.CodeNoBrowser)

	// Past the grace, it is gone: a call that waits learns it when the grace
	// ends (no_browser), before its own timeout (browser_reconnecting).
	err = agent.Call(context.Background(), protocol.MethodDebugEcho, protocol.DebugEchoParams{}, nil)
	wantCode(t, err, protocol.CodeNoBrowser)
}

// A call that needs a reconnecting browser waits at most
// timeouts.reconnect_wait, not its whole timeout.
func TestReconnectWaitBoundsACall(t *testing.T) {
	f := newFixtureIn(t, shortDir(t), func(o *Options) {
		o.RequestTimeout = time.Minute
		o.ReconnectWait = 200 * time.Millisecond
	})
	agent := f.agent(t)
	ext := f.connectExt(t, testOrigin)
	id := ext.HelloAs(keyA)
	ext.Conn.Close()
	waitGone(t, f, id)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang bound
	defer cancel()
	err := agent.Call(ctx, protocol.MethodDebugEcho, protocol.DebugEchoParams{Browser: id}, nil)
	wantCode(t, err, protocol.CodeBrowserReconnecting)
}

// Calls that describe the present never wait for a reconnecting browser:
// they answer at once with what is connected now, and list the
// reconnecting browser as such, with when it went.
func TestDescribingCallsDoNotWait(t *testing.T) {
	f := newFixtureIn(t, shortDir(t), func(o *Options) {
		o.RequestTimeout = time.Minute
		o.ReconnectWait = time.Minute
	})
	agent := f.agent(t)
	ext := f.connectExt(t, testOrigin)
	id := ext.HelloAs(keyA)
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

// The same profile reconnecting while its previous link is still closing
// takes its ID back; a second live browser with the same key (a copied
// profile) gets a fresh ID rather than stealing it.
func TestSameBrowserKeyTwice(t *testing.T) {
	f := newFixtureIn(t, shortDir(t), nil)
	first := f.connectExt(t, testOrigin)
	id := first.HelloAs(keyA)

	second := f.connectExt(t, testOrigin)
	second.Send(map[string]any{"event": "hello", "extensionId": testExt, "browserKey": keyA})
	time.Sleep(100 * time.Millisecond) // the hello waits for the first link to go
	first.Conn.Close()
	if got := second.Read()["browserId"]; got != id {
		t.Fatalf("reconnect while the old link closes: got ID %q, want %q", got, id)
	}

	copied := f.connectExt(t, testOrigin)
	if got := copied.HelloAs(keyA); got == id || got == "" {
		t.Fatalf("a second live browser with the same key: got ID %q, want a fresh one", got)
	}
	f.s.mu.Lock()
	n := len(f.s.links)
	f.s.mu.Unlock()
	if n != 2 {
		t.Fatalf("got %d links, want both browsers connected", n)
	}
}

// A relay that has connected but whose extension has not said hello yet
// is a browser on its way: a call that needs it waits for its hello
// instead of failing.
func TestCallsWaitForABrowserThatHasNotSaidHello(t *testing.T) {
	f := newFixtureIn(t, shortDir(t), nil)
	agent := f.agent(t)
	ext := f.connectExt(t, testOrigin)
	deadline := time.Now().Add(5 * time.Second)
	for { // the service has taken the relay's handshake
		f.s.mu.Lock()
		waiting := f.s.waiting
		f.s.mu.Unlock()
		if waiting == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the relay's handshake was not taken within 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	errc := callAsync(context.Background(), agent, protocol.MethodDebugEcho, protocol.DebugEchoParams{})
	ext.Send(map[string]any{"event": "hello", "extensionId": testExt, "browserKey": keyA})
	for {
		m := ext.Read()
		if m["op"] == "echo" {
			ext.Send(map[string]any{"id": m["id"], "result": map[string]any{"data": ""}})
			break
		}
	}
	if err := <-errc; err != nil {
		t.Fatalf("debug.echo while the browser said hello: %v", err)
	}
}
