package service

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/testkit/fakeext"
	"github.com/egohost/egohost/internal/testkit/sockdir"
	"github.com/egohost/egohost/protocol"
)

const testExt = "aokapgkciafkaelljglcdibalbfomkdb"

// fixture is a running service with a private state dir.
type fixture struct {
	s      *Service
	dir    string
	cancel context.CancelFunc
	done   chan error
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, nil, nil)
}

// newFixtureWith is newFixture with changed options and, before Serve
// starts, changes to the service (tests add methods of their own).
func newFixtureWith(t *testing.T, opts func(*Options), before func(*Service)) *fixture {
	t.Helper()
	return newFixtureAt(t, sockdir.New(t), opts, before)
}

// newFixtureAt runs a service on state dir dir; modify (if not nil)
// changes its options first, before (if not nil) the service before
// Serve starts.
func newFixtureAt(t *testing.T, dir string, modify func(*Options), before func(*Service)) *fixture {
	t.Helper()
	opts := Options{
		Listen:         "127.0.0.1:0",
		Socket:         filepath.Join(dir, "relay.sock"),
		StateDir:       dir,
		TokenFile:      filepath.Join(dir, "token"),
		AllowedIDs:     []string{testExt},
		RequestTimeout: 5 * time.Second,
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if modify != nil {
		modify(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &fixture{s: s, dir: dir, cancel: cancel, done: make(chan error, 1)}
	go func() { f.done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-f.done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return within 10 s of cancel")
		}
	})
	return f
}

func (f *fixture) agent(t *testing.T) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, f.s.Addr(), f.s.Token(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// linkedExt connects a fake extension of the test's origin and says hello
// (no browser key): the service has its browser.
func (f *fixture) linkedExt(t *testing.T) *fakeExt {
	t.Helper()
	e := f.connectExt(t, testOrigin)
	e.hello()
	return e
}

// cdpBot connects a fake extension with tab on url, pairs agent bot with
// the space, all-tabs and cdp scopes, and waits until the service knows
// the tab.
func (f *fixture) cdpBot(t *testing.T, tab int, url string) (*fakeExt, *client.Client) {
	t.Helper()
	ext := f.linkedExt(t)
	ext.Send(map[string]any{"event": "tab.updated", "tab": map[string]any{"id": tab, "url": url, "windowId": 1}})
	bot, _ := f.pairAgent(t, "bot", pairing.Space, pairing.AllTabs, pairing.CDP)
	waitForRegistry(t, f, tab)
	return ext, bot
}

// keyedExt connects a fake extension of the test's origin that says hello
// with browser key keyA: it returns the extension and its browser's ID.
func (f *fixture) keyedExt(t *testing.T) (*fakeExt, string) {
	t.Helper()
	e := f.connectExt(t, testOrigin)
	return e, e.HelloAs(keyA)
}

// callAsync makes the call in a goroutine: its error arrives on the
// channel.
func callAsync(ctx context.Context, c *client.Client, method string, params any) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, method, params, nil) }()
	return errc
}

// callResult is a call's raw result and its error, for a call made in a
// goroutine.
type callResult struct {
	raw json.RawMessage
	err error
}

// awaitErr is the error that arrives on errc; none within d fails the test,
// saying hung.
func awaitErr(t *testing.T, errc <-chan error, d time.Duration, hung string) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(d):
		t.Fatal(hung)
		return nil
	}
}

// fakeExt is a scripted extension speaking through the relay socket.
type fakeExt struct{ *fakeext.Ext }

func (f *fixture) connectExt(t *testing.T, origin string) *fakeExt {
	t.Helper()
	return &fakeExt{fakeext.Dial(t, f.s.opts.Socket, origin)}
}

func (e *fakeExt) hello() {
	e.HelloAs("")
}

func wantCode(t *testing.T, err error, want protocol.Code) {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != want {
		t.Fatalf("got error %v, want code %s", err, want.Name())
	}
}

func TestNoBrowser(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	err := a.Call(context.Background(), protocol.MethodTabsList, nil, nil)
	wantCode(t, err, protocol.CodeNoBrowser)
}

func TestCDPRoundTripAndChunking(t *testing.T) {
	// 2 MiB each way takes seconds under the race detector on a loaded machine.
	f := newFixtureWith(t, func(o *Options) { o.RequestTimeout = time.Minute }, nil)
	ext := f.linkedExt(t)
	a := f.agent(t)
	big := strings.Repeat("é", 1<<20) // 2 MiB of UTF-8: must be chunked
	resc := make(chan callResult, 1)
	go func() {
		var raw json.RawMessage
		params, _ := json.Marshal(map[string]string{"expression": big})
		err := a.Call(context.Background(), protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: 7}, Method: "Runtime.evaluate", Params: params}, &raw)
		resc <- callResult{raw, err}
	}()
	req := ext.Read()
	if req["op"] != "cdp" || req["tabId"].(float64) != 7 || req["method"] != "Runtime.evaluate" {
		t.Fatalf("request: got %v", req)
	}
	if got := req["params"].(map[string]any)["expression"].(string); got != big {
		t.Fatalf("reassembled expression: got %d bytes, want %d", len(got), len(big))
	}
	ext.Send(map[string]any{"id": req["id"], "result": map[string]any{"result": map[string]any{"value": 2}}})
	r := <-resc
	if r.err != nil || !strings.Contains(string(r.raw), `"value":2`) {
		t.Fatalf("cdp.send: got %s, %v", r.raw, r.err)
	}
}

func TestPendingCallsFailWhenLinkDrops(t *testing.T) {
	f := newFixture(t)
	ext := f.linkedExt(t)
	a := f.agent(t)
	errc := callAsync(context.Background(), a, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: 3}, Method: "Page.reload"})
	ext.Read()
	ext.Conn.Close()
	err := awaitErr(t, errc, 5*time.Second, "pending call hung after the link dropped")
	wantCode(t, err, protocol.CodeBrowserGone)
}

// The extension answers each command of a detached tab itself (PROTOCOL.md
// §2); one it never answers fails within a bound after the event, as one
// that may have run, naming the reason.
func TestDetachedEventFailsPendingCalls(t *testing.T) {
	f := newFixture(t)
	ext := f.linkedExt(t)
	a := f.agent(t)
	errc := callAsync(context.Background(), a, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: 3}, Method: "Page.reload"})
	ext.Read()
	ext.Send(map[string]any{"event": "detached", "tabId": 3, "reason": "canceled_by_user"})
	err := awaitErr(t, errc, 5*time.Second, "pending call hung after detach")
	wantCode(t, err, protocol.CodeDetached)
	if !strings.Contains(err.Error(), "canceled_by_user") {
		t.Errorf("error %q does not name the reason", err)
	}
}

func TestRequestTimeout(t *testing.T) {
	f := newFixture(t)
	ext := f.linkedExt(t)
	a := f.agent(t)
	start := time.Now()
	err := a.Call(context.Background(), protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: 1}, Method: "Page.reload", TimeoutMs: 200}, nil)
	wantCode(t, err, protocol.CodeTimeout)
	if time.Since(start) > 4*time.Second {
		t.Errorf("timeout took %v", time.Since(start))
	}
	// The late reply is dropped and the link still works.
	req := ext.Read()
	ext.Send(map[string]any{"id": req["id"], "result": map[string]any{}})
	go func() {
		req := ext.Read()
		ext.Send(map[string]any{"id": req["id"], "result": map[string]any{"tabs": []any{}}})
	}()
	if err := a.Call(context.Background(), protocol.MethodTabsList, nil, nil); err != nil {
		t.Fatalf("after a timeout: %v", err)
	}
}

func TestAgentRefusals(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := client.Dial(ctx, f.s.Addr(), "wrong", client.Options{SkipProof: true})
	wantCode(t, err, protocol.CodeUnauthorized)
	// A client with the wrong token cannot get the service's proof either,
	// and so does not send its token.
	if _, err := client.Dial(ctx, f.s.Addr(), "wrong", client.Options{}); !errors.Is(err, client.ErrNotService) {
		t.Errorf("dial with a wrong token: got %v, want ErrNotService", err)
	}
	_, err = client.Dial(ctx, f.s.Addr(), f.s.Token(), client.Options{Header: http.Header{"Origin": {"https://example.com"}}})
	wantCode(t, err, protocol.CodeForbiddenOrigin)
}

func TestMalformedRPC(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	err := a.Call(context.Background(), protocol.MethodCDPSend, map[string]any{"method": "nodot"}, nil)
	wantCode(t, err, protocol.CodeInvalidParams)
	err = a.Call(context.Background(), protocol.MethodCDPSend, map[string]any{"method": "A.b", "params": []int{1}}, nil)
	wantCode(t, err, protocol.CodeInvalidParams)
}

// A late reply to a request of a dropped link arrives through the relay's
// next connection: it must never answer a request of the new link.
func TestLateReplyFromOldLinkIsDropped(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	old := f.connectExt(t, "chrome-extension://"+testExt+"/")
	old.hello()
	go a.Call(context.Background(), protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: 1}, Method: "Runtime.evaluate", Params: json.RawMessage(`{"expression":"document.cookie"}`)}, nil)
	first := old.Read()
	old.Conn.Close()

	fresh := f.connectExt(t, "chrome-extension://"+testExt+"/")
	fresh.hello()
	resc := make(chan callResult, 1)
	go func() {
		var raw json.RawMessage
		// The old link may still be registered for a moment: name none and
		// retry until the only browser is the new one.
		for {
			err := a.Call(context.Background(), protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: 1}, Method: "Runtime.evaluate", Params: json.RawMessage(`{"expression":"2+2"}`)}, &raw)
			if protocol.CodeOf(err) == protocol.CodeAmbiguousBrowser {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			resc <- callResult{raw, err}
			return
		}
	}()
	second := fresh.Read()
	if second["id"] == first["id"] {
		t.Fatalf("the new link reused request id %v", first["id"])
	}
	fresh.Send(map[string]any{"id": first["id"], "result": map[string]any{"result": map[string]any{"value": "SECRET"}}})
	fresh.Send(map[string]any{"id": second["id"], "result": map[string]any{"result": map[string]any{"value": 4}}})
	r := <-resc
	if r.err != nil || strings.Contains(string(r.raw), "SECRET") || !strings.Contains(string(r.raw), `"value":4`) {
		t.Fatalf("got %s, %v; want the new request's own answer", r.raw, r.err)
	}
}

// A dialog event that arrives while a tab's page is being opened must not
// stall the link's reader (it used to wait for the tab's lock).
func TestDialogEventDuringPageOpen(t *testing.T) {
	f := newFixture(t)
	ext := f.linkedExt(t)
	a := f.agent(t)
	errc := callAsync(context.Background(), a, protocol.MethodSnapshot, protocol.SnapshotParams{Target: protocol.Target{Tab: 5}})
	probe := ext.Read() // Page.enable: the tab's first answer since the attach
	if probe["method"] != "Page.enable" {
		t.Fatalf("first request: got %v, want Page.enable", probe["method"])
	}
	ext.Send(map[string]any{"id": probe["id"], "result": map[string]any{}})
	// Then, together and in any order: the page's auto-attach
	// (cdptab.Open), its console and network record's two domains
	// (page.Record) and the world Chrome is to make in each new document
	// (resolver.FollowNewDocuments). The dialog opens while the
	// auto-attach is unanswered.
	want := map[string]bool{"Target.setAutoAttach": true, "Network.enable": true, "Runtime.enable": true, "Page.addScriptToEvaluateOnNewDocument": true}
	for range len(want) {
		r := ext.Read()
		m, _ := r["method"].(string)
		if !want[m] {
			t.Fatalf("got %v, want one of %v", r["method"], want)
		}
		delete(want, m)
		if m == "Target.setAutoAttach" {
			ext.Send(map[string]any{"event": "cdp", "tabId": 5, "method": "Page.javascriptDialogOpening", "params": map[string]any{"type": "alert", "message": "hi", "url": "http://x/"}})
		}
		ext.Send(map[string]any{"id": r["id"], "result": map[string]any{}})
	}
	err := awaitErr(t, errc, 4*time.Second, "snapshot hung: the dialog event stalled the link")
	wantCode(t, err, protocol.CodeDialogOpen)
}

// A process that took the port while the service was down never receives
// the token: it cannot answer the hello challenge.
func TestClientRefusesImpostor(t *testing.T) {
	var sawToken bool
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			sawToken = true
		}
		w.Write([]byte(`{"service":"egohost","proof":"00"}`))
	})}
	go srv.Serve(ln)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = client.Dial(ctx, ln.Addr().String(), strings.Repeat("a", 64), client.Options{})
	if !errors.Is(err, client.ErrNotService) || sawToken {
		t.Errorf("got %v (token seen by the impostor: %v), want ErrNotService and no token sent", err, sawToken)
	}
}

// A tab that answers nothing since the attach (a dialog Chrome never
// reported) fails a click within the click's own timeout with dialog_open,
// and the dialog method dismisses it with a same-document navigation.
func TestUnreportedDialog(t *testing.T) {
	f := newFixture(t)
	ext := f.linkedExt(t)
	a := f.agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errc := callAsync(ctx, a, protocol.MethodClick, protocol.ClickParams{Target: protocol.Target{Tab: 5}, Element: "#x", ActionOptions: protocol.ActionOptions{TimeoutMs: 500}})
	probe := ext.Read()
	if probe["method"] != "Page.enable" {
		t.Fatalf("first request: got %v, want Page.enable", probe["method"])
	}
	// No answer: the page is blocked.
	select {
	case err := <-errc:
		wantCode(t, err, protocol.CodeDialogOpen)
		var pe *protocol.Error
		if errors.As(err, &pe); pe.Data["unreported"] != true {
			t.Errorf("data: got %v, want unreported: true", pe.Data)
		}
	case <-ctx.Done():
		t.Fatal("the click outlived its timeout on a blocked tab")
	}

	type result struct {
		res protocol.DialogResult
		err error
	}
	resc := make(chan result, 1)
	go func() {
		var r protocol.DialogResult
		err := a.Call(ctx, protocol.MethodDialog, protocol.DialogParams{Target: protocol.Target{Tab: 5}, Accept: true, TimeoutMs: 3000}, &r)
		resc <- result{r, err}
	}()
	var navigated string
	for navigated == "" {
		req := ext.Read()
		switch req["method"] {
		case "Page.enable":
			// stays unanswered, like the blocked page's
		case "Page.getNavigationHistory":
			ext.Send(map[string]any{"id": req["id"], "result": map[string]any{"currentIndex": 0, "entries": []any{map[string]any{"id": 1, "url": "http://x/page", "title": "", "userTypedURL": "", "transitionType": "link"}}}})
		case "Page.navigate":
			navigated, _ = req["params"].(map[string]any)["url"].(string)
			ext.Send(map[string]any{"id": req["id"], "result": map[string]any{"frameId": "F"}})
			ext.Send(map[string]any{"event": "cdp", "tabId": 5, "method": "Page.javascriptDialogClosed", "params": map[string]any{"result": false, "userInput": ""}})
		default:
			t.Fatalf("unexpected request %v", req)
		}
	}
	if navigated != "http://x/page#" {
		t.Errorf("navigated to %q, want the page's own URL with an empty fragment", navigated)
	}
	r := <-resc
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !r.res.Unreported || r.res.Accepted || r.res.Dialog == nil || r.res.Dialog.Type != "unknown" {
		t.Errorf("dialog: got %+v, want unreported, not accepted, type unknown", r.res)
	}
}
