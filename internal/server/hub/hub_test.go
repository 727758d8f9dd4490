package hub

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/testkit/fakeext"
	"github.com/egohost/egohost/internal/testkit/sockdir"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

const (
	testExt = "aokapgkciafkaelljglcdibalbfomkdb"
	keyA    = "0123456789abcdef0123456789abcdef"
	keyB    = "fedcba9876543210fedcba9876543210"
)

var testOrigin = "chrome-extension://" + testExt + "/"

// fixture is a hub serving a relay socket, on a data dir of its own; the
// hub's user keeps nothing of its own for a browser (L is the *Link).
type fixture struct {
	h    *Hub[*Link]
	sock string
	stop func() // ends the hub's connections and waits for them
}

// newFixture runs a hub on data dir dir; modify (if not nil) changes its
// options first.
func newFixture(t *testing.T, dir string, modify func(*Options[*Link])) *fixture {
	t.Helper()
	opts := Options[*Link]{
		AllowedIDs:     []string{testExt},
		MaxFrame:       64 << 20,
		ReconnectGrace: 60 * time.Second,
		ReconnectWait:  5 * time.Second,
		DataDir:        dir,
		PeerUID:        func(int) (uint32, error) { return uint32(os.Getuid()), nil },
		Log:            slog.New(slog.NewTextHandler(io.Discard, nil)),
		New:            func(l *Link) *Link { return l },
		Call: func(ctx context.Context, l *Link, method string, params json.RawMessage) (any, error) {
			return nil, errors.New("no calls in this test")
		},
		ReplyError: protocol.AsError,
		Held:       func(*Link, int, time.Time) bool { return false },
	}
	if modify != nil {
		modify(&opts)
	}
	f := &fixture{h: New(opts), sock: filepath.Join(dir, "relay.sock")}
	ln, err := net.Listen("unix", f.sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				f.h.Serve(ctx, conn)
			}()
		}
	}()
	f.stop = sync.OnceFunc(func() {
		cancel()
		ln.Close()
		wg.Wait()
	})
	t.Cleanup(f.stop)
	return f
}

// connectExt connects a fake extension of origin and sends the relay's
// handshake.
func (f *fixture) connectExt(t *testing.T, origin string) *fakeext.Ext {
	t.Helper()
	return fakeext.Dial(t, f.sock, origin)
}

// dialRaw connects to the hub's socket as a relay that has sent nothing
// yet (connectExt's relay sends its handshake first), for tests that send
// what a relay should not; the connection closes when t ends.
func (f *fixture) dialRaw(t *testing.T) net.Conn {
	t.Helper()
	conn, err := net.Dial("unix", f.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// waitGone waits until the hub has no link with id.
func waitGone(t *testing.T, f *fixture, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if f.h.Get(id) == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("link %s still up 5 s after its relay left", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pickAndEcho picks the browser name within timeout and sends it an echo
// of data.
func pickAndEcho(f *fixture, timeout time.Duration, name, data string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	l, err := f.h.Pick(ctx, name)
	if err != nil {
		return err
	}
	_, err = l.Call(ctx, extwire.Echo{Data: data})
	return err
}

// A browser profile keeps its ID across relay reconnects and service
// restarts; other profiles and key-less (older) extensions get new IDs that
// never collide with a remembered one.
func TestBrowserIDStableAcrossReconnectsAndRestarts(t *testing.T) {
	// hello connects an extension to f and wants the ID its hello with
	// key gets.
	hello := func(what string, f *fixture, key, want string) *fakeext.Ext {
		t.Helper()
		e := f.connectExt(t, testOrigin)
		if got := e.HelloAs(key); got != want {
			t.Fatalf("%s: got ID %q, want %s", what, got, want)
		}
		return e
	}
	dir := sockdir.New(t)
	f := newFixture(t, dir, nil)
	a := hello("first browser", f, keyA, "b1")
	a.Conn.Close()
	waitGone(t, f, "b1")
	hello("same profile after a relay reconnect", f, keyA, "b1")
	hello("second profile", f, keyB, "b2")
	hello("an extension without a key", f, "", "b3")
	f.stop()
	os.Remove(f.sock)

	f2 := newFixture(t, dir, nil)
	hello("second profile after a service restart", f2, keyB, "b2")
	hello("first profile after a service restart", f2, keyA, "b1")
	hello("a key-less extension after a restart (b3 was handed out before)", f2, "", "b4")
}

// A call whose wait for a browser ends (its time is up, its context is
// done) takes the browser there is then, but never one whose automation
// the person stopped: the end of a wait is no way around Stop all.
func TestAWaitsEndHonoursStopAll(t *testing.T) {
	f := newFixture(t, sockdir.New(t), nil)
	ext := f.connectExt(t, testOrigin)
	id := ext.HelloAs(keyA)
	f.h.Get(id).SetStopped(true)
	for _, name := range []string{id, ""} {
		if _, err := f.h.chooseNow(name); protocol.CodeOf(err) != protocol.CodeAutomationStopped {
			t.Errorf("chooseNow(%q) with its automation stopped: got %v, want %v", name, err, protocol.CodeAutomationStopped)
		}
	}
	f.h.Get(id).SetStopped(false)
	if l, err := f.h.chooseNow(id); err != nil || l == nil {
		t.Errorf("chooseNow(%q) with its automation on: got %v, %v; want the link", id, l, err)
	}
}

// While a known browser is reconnecting, a call that needs it waits for it
// within its own timeout: it succeeds when the browser is back in time, and
// fails with browser_reconnecting (not no_browser) when it is not. A
// browser never seen is no_browser at once, and so is a known one after
// the reconnect grace.
func TestCallsWaitForAReconnectingBrowser(t *testing.T) {
	const callTimeout = time.Second // the call's own timeout
	f := newFixture(t, sockdir.New(t), func(o *Options[*Link]) {
		o.ReconnectGrace = 2500 * time.Millisecond // ends halfway through the third call below
		o.ReconnectWait = o.ReconnectGrace
	})
	ext := f.connectExt(t, testOrigin)
	id := ext.HelloAs(keyA)
	ext.Conn.Close()
	waitGone(t, f, id)

	// Comes back within the call's timeout: the call succeeds.
	errc := make(chan error, 1)
	go func() { errc <- pickAndEcho(f, callTimeout, id, "hi") }()
	time.Sleep(200 * time.Millisecond) // let the call reach the hub and wait
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
	if err := <-errc; err != nil {
		t.Fatalf("echo across the reconnect: %v; want the echo", err)
	}

	// Does not come back within the call's timeout: browser_reconnecting,
	// by name and unnamed alike.
	back.Conn.Close()
	waitGone(t, f, id)
	for _, name := range []string{id, ""} {
		err := pickAndEcho(f, callTimeout, name, "")
		if got := protocol.CodeOf(err); got != protocol.CodeBrowserReconnecting {
			t.Fatalf("got error %v, want code %s", err, protocol.CodeBrowserReconnecting.Name())
		}
		if !strings.Contains(err.Error(), "reconnecting") {
			t.Errorf("browser %q: got %v, want a message that says it is reconnecting", name, err)
		}
	}
	err := pickAndEcho(f, callTimeout, "b99", "")
	if got := protocol.CodeOf(err); got != protocol.CodeNoBrowser {
		t.Fatalf("got error %v, want code %s", err, protocol.CodeNoBrowser.Name())
	}

	// Past the grace, it is gone: a call that waits learns it when the grace
	// ends (no_browser), before its own timeout (browser_reconnecting).
	err = pickAndEcho(f, callTimeout, "", "")
	if got := protocol.CodeOf(err); got != protocol.CodeNoBrowser {
		t.Fatalf("got error %v, want code %s", err, protocol.CodeNoBrowser.Name())
	}
}

// A call that needs a reconnecting browser waits at most ReconnectWait,
// not its whole timeout.
func TestReconnectWaitBoundsACall(t *testing.T) {
	f := newFixture(t, sockdir.New(t), func(o *Options[*Link]) { o.ReconnectWait = 200 * time.Millisecond })
	ext := f.connectExt(t, testOrigin)
	id := ext.HelloAs(keyA)
	ext.Conn.Close()
	waitGone(t, f, id)
	err := pickAndEcho(f, 20*time.Second, id, "") // a hang bound
	if got := protocol.CodeOf(err); got != protocol.CodeBrowserReconnecting {
		t.Fatalf("got error %v, want code %s", err, protocol.CodeBrowserReconnecting.Name())
	}
}

// The same profile reconnecting while its previous link is still closing
// takes its ID back; a second live browser with the same key (a copied
// profile) gets a fresh ID rather than stealing it.
func TestSameBrowserKeyTwice(t *testing.T) {
	f := newFixture(t, sockdir.New(t), nil)
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
	if n := len(f.h.Links()); n != 2 {
		t.Fatalf("got %d links, want both browsers connected", n)
	}
}

// A relay that has connected but whose extension has not said hello yet
// is a browser on its way: a call that needs it waits for its hello
// instead of failing.
func TestCallsWaitForABrowserThatHasNotSaidHello(t *testing.T) {
	f := newFixture(t, sockdir.New(t), nil)
	ext := f.connectExt(t, testOrigin)
	deadline := time.Now().Add(5 * time.Second)
	for { // the hub has taken the relay's handshake
		f.h.mu.Lock()
		waiting := f.h.waiting
		f.h.mu.Unlock()
		if waiting == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the relay's handshake was not taken within 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	errc := make(chan error, 1)
	go func() { errc <- pickAndEcho(f, 5*time.Second, "", "") }()
	ext.Send(map[string]any{"event": "hello", "extensionId": testExt, "browserKey": keyA})
	for {
		if m := ext.Read(); m["op"] == "echo" {
			ext.Send(map[string]any{"id": m["id"], "result": map[string]any{"data": ""}})
			break
		}
	}
	if err := <-errc; err != nil {
		t.Fatalf("echo while the browser said hello: %v", err)
	}
}

func TestRelayRefusals(t *testing.T) {
	f := newFixture(t, sockdir.New(t), nil)
	t.Run("foreign extension", func(t *testing.T) {
		ext := f.connectExt(t, "chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/")
		m := ext.Read()
		if m["code"] != "forbidden_origin" {
			t.Fatalf("got %v, want forbidden_origin", m)
		}
	})
	t.Run("not a hello", func(t *testing.T) {
		conn := f.dialRaw(t)
		nativemsg.NewWriter(conn, 1<<20).Write([]byte(`{"event":"hello"}`))
		e := fakeext.On(t, conn, 1<<20)
		if m := e.Read(); m["code"] != "bad_frame" {
			t.Fatalf("got %v, want bad_frame", m)
		}
	})
	t.Run("malformed JSON frame", func(t *testing.T) {
		ext := f.connectExt(t, testOrigin)
		ext.HelloAs("")
		ext.W.Write([]byte(`{not json`))
		if m := ext.Read(); m["code"] != "bad_frame" {
			t.Fatalf("got %v, want bad_frame", m)
		}
	})
	t.Run("oversized frame", func(t *testing.T) {
		conn := f.dialRaw(t)
		w := nativemsg.NewWriter(conn, 1<<20)
		w.Write([]byte(`{"relay":"hello","origin":"chrome-extension://` + testExt + `/"}`))
		conn.Write([]byte{0xff, 0xff, 0xff, 0x7f}) // a 2 GiB length
		e := fakeext.On(t, conn, 1<<20)
		for {
			m := e.Read()
			if m["event"] == "error" {
				if m["code"] != "bad_frame" {
					t.Fatalf("got %v, want bad_frame", m)
				}
				return
			}
		}
	})
	if id := f.connectExt(t, testOrigin).HelloAs(""); id == "" {
		t.Fatal("hub broke: a browser after the refusals got no ID")
	}
}

// The peer check is the one the hub makes of every relay: a relay of
// another user is refused before its handshake is read, and no browser
// link comes of it.
func TestRelayOfAnotherUserRefused(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("peer uids are checked on Linux and macOS")
	}
	me := uint32(os.Getuid())
	f := newFixture(t, sockdir.New(t), func(o *Options[*Link]) {
		o.PeerUID = func(int) (uint32, error) { return me + 1, nil }
	})
	conn := f.dialRaw(t)
	// The handshake and a hello, as a real relay sends them (the hub may
	// have closed the socket already: errors do not matter).
	w := nativemsg.NewWriter(conn, 1<<20)
	w.Write([]byte(`{"relay":"hello","origin":"chrome-extension://` + testExt + `/","pid":1}`))
	w.Write([]byte(`{"event":"hello","extensionId":"` + testExt + `","version":"0.1.0","userAgent":"fake"}`))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := conn.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read from the hub: %d bytes, %v; want the connection closed", n, err)
	}
	if got := f.h.Links(); len(got) != 0 {
		t.Errorf("links after another user's relay: got %d, want none", len(got))
	}
}
