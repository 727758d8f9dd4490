package e2e

// Tests of what README.md and PROTOCOL.md promise about the chain and had
// no test (issue 23 item 8a). Each test quotes the promise it checks.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/egohost/egohost/internal/testkit/sockbuf"
	"github.com/egohost/egohost/protocol"
)

// README "Refs": "Numbers are shared by every tab and continue across relay
// reconnects and service restarts (the service reserves them in blocks in
// <data_dir>/refs-next), so an old ref can never name a new element."
func TestRefNumbersContinueAcrossServiceRestart(t *testing.T) {
	c := startChain(t)
	ctx := ctxT(t, 90*time.Second)
	page := `<title>refs</title><script>window.clicked = [];</script>
<button onclick="clicked.push('one')">One</button>
<button onclick="clicked.push('two')">Two</button>
<a href="#x" onclick="clicked.push('link')">Link</a>`
	tab := c.openTab(t, serve(t, map[string]string{"/": page})+"/")
	refsOf := func(who string) map[uint64]bool {
		t.Helper()
		var s protocol.SnapshotResult
		if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Refs: true}, &s); err != nil {
			t.Fatalf("snapshot %s: %v\nservice log:\n%s", who, err, c.svc.logs)
		}
		refs := map[uint64]bool{}
		for _, r := range s.Refs {
			n, err := strconv.ParseUint(r.Ref, 10, 64)
			if err != nil {
				t.Fatalf("snapshot %s: ref %q is not a number", who, r.Ref)
			}
			refs[n] = true
		}
		if len(refs) < 3 {
			t.Fatalf("snapshot %s: got refs %v, want one per button and link\n%s", who, refs, s.Text)
		}
		return refs
	}
	before := refsOf("before the restart")
	var highest uint64
	for n := range before {
		highest = max(highest, n)
	}
	b, err := os.ReadFile(filepath.Join(c.svc.stateDir, "refs-next"))
	reserved, perr := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || perr != nil || reserved <= highest {
		t.Fatalf("refs-next after refs up to @%d: %q (%v, %v), want a number above %d", highest, b, err, perr, highest)
	}

	c.svc.stop()
	c.svc = startService(t, c.svc.stateDir)
	c.agent = c.svc.dial(t)
	c.waitLink(t)
	after := refsOf("after the restart")
	for n := range after {
		if n < reserved {
			t.Errorf("after the restart: ref @%d, want every ref at or above %d (refs-next): numbers below it were the last service's", n, reserved)
		}
	}
	// The old refs name nothing on the new service: never the element
	// that now has that number.
	for n := range before {
		err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "@" + strconv.FormatUint(n, 10)}, nil)
		wantCode(t, err, protocol.CodeUnknownRef)
	}
	if got := pageText(t, ctx, c, tab.Tab, "JSON.stringify(clicked)"); got != "[]" {
		t.Errorf("clicked after the old refs were used: %s, want nothing", got)
	}
}

// PROTOCOL.md §3.2: "A subscriber that reads too slowly loses events (4,096
// are buffered per subscription); it never slows the browser link."
//
// An agent subscribes to a tab and reads its WebSocket at 2 messages a
// second while that tab sends 16,000 console events. Were the link held to
// that agent's pace, they would take about an hour to pass; they pass in
// seconds, calls through the same link are answered, and another agent's
// subscription to another tab gets an event sent after them. The slow
// agent ends up with fewer events than were sent: it fell behind.
func TestSlowSubscriberNeverStallsTheLink(t *testing.T) {
	c := useSharedChain(t)
	ctx := ctxT(t, 4*time.Minute)
	base := serve(t, map[string]string{"/flood": `<title>flood</title>`, "/other": `<title>other</title>`})
	flood := c.openTab(t, base+"/flood")
	other := c.openTab(t, base+"/other")

	slow := dialRaw(t, ctx, c)
	var subReply protocol.Response
	slow.call(t, ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: flood, Methods: []string{"Runtime.consoleAPICalled"}}, &subReply)
	if subReply.Error != nil {
		t.Fatalf("the slow agent's cdp.subscribe: %v", subReply.Error)
	}
	var slowSub protocol.CDPSubscribeResult
	if err := json.Unmarshal(subReply.Result, &slowSub); err != nil {
		t.Fatal(err)
	}
	speedUp, slowDone := slow.readSlowly(ctx, slowSub.Subscription, "slow agent's marker", 500*time.Millisecond)

	var sub protocol.CDPSubscribeResult
	if err := c.agent.Call(ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: other, Methods: []string{"Runtime.consoleAPICalled"}}, &sub); err != nil {
		t.Fatal(err)
	}
	for _, tab := range []protocol.Target{flood, other} {
		if err := c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Runtime.enable"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The page sends the events after the eval answers; a call answered
	// once it has sent them all comes behind all of them on the link.
	// 16,000 events of about 400 bytes: more than the subscription's 4,096
	// and what the sockets can hold (the service's send buffer grows to
	// net.ipv4.tcp_wmem's 4 MiB at most: 10,000 such events).
	const events = 16000
	flooded := time.Now()
	if _, err := c.eval(ctx, flood, fmt.Sprintf(`setTimeout(() => { for (let i = 0; i < %d; i++) console.log('flood', i); window.flooded = true; }), true`, events)); err != nil {
		t.Fatalf("flood: %v", err)
	}
	for {
		v, err := c.eval(ctx, flood, "window.flooded === true")
		if err == nil && string(v) == "true" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the events did not pass the link in %v: it went at the slow agent's pace (the page's answer: %s, %v)", time.Since(flooded).Round(time.Second), v, err)
		}
		if err != nil && protocol.CodeOf(err) != protocol.CodeTimeout {
			t.Fatalf("are the events sent: %v", err)
		}
	}
	t.Logf("the page sent %d events and the link carried them in %v", events, time.Since(flooded).Round(time.Millisecond))
	for i := range 3 {
		if v, err := c.eval(ctx, other, strconv.Itoa(i)); err != nil || string(v) != strconv.Itoa(i) {
			t.Fatalf("eval %d on another tab of the same browser: %s, %v", i, v, err)
		}
	}
	if _, err := c.eval(ctx, other, `console.log('after the flood'), true`); err != nil {
		t.Fatal(err)
	}
	waitNotice(t, ctx, c.agent, "the other subscription's event sent after the flood", consoleEvent(sub.Subscription, "after the flood"))
	t.Logf("the other agent's event arrived %v after the flood began", time.Since(flooded).Round(time.Millisecond))

	// The slow agent reads the rest at full speed, until an event logged
	// after it sped up: once its subscription has room again, that event
	// is kept and the agent has read everything.
	drained := time.Now()
	speedUp()
	var got int
	for got = -1; got < 0; {
		if _, err := c.eval(ctx, flood, `console.log("slow agent's marker"), true`); err != nil {
			t.Fatal(err)
		}
		select {
		case r := <-slowDone:
			if r.err != nil {
				t.Fatalf("the slow agent's connection, after %d events: %v", r.n, r.err)
			}
			got = r.n
		case <-time.After(2 * time.Second):
		}
	}
	t.Logf("the slow agent got %d of the %d events (the rest read in %v)", got, events, time.Since(drained).Round(time.Millisecond))
	if got >= events {
		t.Errorf("the slow agent got %d of %d events: it never fell behind, so the test proves nothing", got, events)
	}
}

// rawAgent is an owner agent on a bare WebSocket whose reading the test
// controls, with a small receive buffer so that it falls behind soon.
type rawAgent struct {
	ws  *websocket.Conn
	tcp *net.TCPConn
	id  int
}

func dialRaw(t *testing.T, ctx context.Context, c *chain) *rawAgent {
	t.Helper()
	a := &rawAgent{}
	dialer := &net.Dialer{Control: sockbuf.Small} // a 4 KiB window: the service's writes back up
	transport := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		if tc, ok := conn.(*net.TCPConn); ok {
			a.tcp = tc
		}
		return conn, err
	}}
	ws, _, err := websocket.Dial(ctx, "ws://"+c.svc.addr+protocol.Path, &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: transport},
		HTTPHeader: http.Header{"Authorization": {"Bearer " + c.svc.token}},
	})
	if err != nil {
		t.Fatalf("dial a raw agent: %v", err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	ws.SetReadLimit(-1)
	a.ws = ws
	return a
}

// call sends one request and reads until its reply.
func (a *rawAgent) call(t *testing.T, ctx context.Context, method string, params any, reply *protocol.Response) {
	t.Helper()
	a.id++
	p, _ := json.Marshal(params)
	req, _ := json.Marshal(protocol.Message{JSONRPC: protocol.Version, ID: json.RawMessage(strconv.Itoa(a.id)), Method: method, Params: p})
	if err := a.ws.Write(ctx, websocket.MessageText, req); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	for {
		_, data, err := a.ws.Read(ctx)
		if err != nil {
			t.Fatalf("%s: read the reply: %v", method, err)
		}
		var m protocol.Message
		if json.Unmarshal(data, &m) == nil && string(m.ID) == strconv.Itoa(a.id) {
			if err := json.Unmarshal(data, reply); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
}

// readSlowly reads one message per pause, counting subscription sub's
// cdp.event notifications of the flood, until speedUp is called; then it
// reads at full speed until an event with marker in it, and sends the
// count on done.
func (a *rawAgent) readSlowly(ctx context.Context, sub, marker string, pause time.Duration) (speedUp func(), done <-chan slowRead) {
	var fast atomic.Bool
	ended := make(chan slowRead, 1)
	go func() {
		n := 0
		for {
			_, data, err := a.ws.Read(ctx)
			if err != nil {
				ended <- slowRead{n, err}
				return
			}
			var m protocol.Message
			var ev protocol.CDPEvent
			if json.Unmarshal(data, &m) == nil && m.Method == protocol.NotifyCDPEvent && json.Unmarshal(m.Params, &ev) == nil && ev.Subscription == sub {
				if strings.Contains(string(ev.Params), marker) {
					ended <- slowRead{n, nil}
					return
				}
				n++
			}
			if !fast.Load() {
				time.Sleep(pause)
			}
		}
	}()
	return func() {
		if a.tcp != nil {
			a.tcp.SetReadBuffer(4 << 20) // a 4 KiB window reads slowly however fast the reader
		}
		fast.Store(true)
	}, ended
}

// slowRead is what readSlowly read: n events, until err.
type slowRead struct {
	n   int
	err error
}

// PROTOCOL.md §2.4: "Chunks of different messages are never interleaved on
// one link." Several agents send large messages (chunked) to the same
// browser at the same moment: each arrives whole, as sent (the frames'
// order is checked in browserlink's TestChunksOfConcurrentMessagesNeverInterleave).
func TestConcurrentLargeMessagesArriveWhole(t *testing.T) {
	c := useSharedChain(t)
	ctx := ctxT(t, 2*time.Minute)
	const senders = 3
	var wg sync.WaitGroup
	errs := make([]error, senders)
	for i := range senders {
		agent := c.svc.dial(t)
		// 1 MiB each (two chunks), each message its own text, so a piece
		// of another message would change the hash.
		data := strings.Repeat(fmt.Sprintf("message %d ✓ ", i), (1<<20)/14)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res protocol.DebugEchoResult
			if err := agent.Call(ctx, protocol.MethodDebugEcho, protocol.DebugEchoParams{Data: data}, &res); err != nil {
				errs[i] = fmt.Errorf("debug.echo of message %d: %w", i, err)
				return
			}
			sum := sha256.Sum256([]byte(data))
			if res.Length != len(data) || res.SHA256 != hex.EncodeToString(sum[:]) {
				errs[i] = fmt.Errorf("message %d: the extension got %d bytes, sha %s; want %d bytes, sha %x", i, res.Length, res.SHA256, len(data), sum)
			}
		}()
	}
	wg.Wait()
	failed := false
	for _, err := range errs {
		if err != nil {
			t.Error(err)
			failed = true
		}
	}
	if failed {
		t.Logf("service log:\n%s\nbrowser stderr:\n%s", c.svc.logs, c.stderr)
	}
}

// refusedURL is an http URL on a loopback port nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/"
}

// PROTOCOL.md §3.4: 1107 navigation_failed "Chrome could not navigate
// (net::ERR_CONNECTION_REFUSED), or there is no page to go back or forward
// to", with data.errorText; tabs.open "A failed load answers goto's error
// with data.tab (the tab stays open)".
func TestNavigationFailedThroughTheChain(t *testing.T) {
	c := useSharedChain(t)
	ctx := ctxT(t, 90*time.Second)
	tab := c.openTab(t, serve(t, map[string]string{"/": `<title>start</title>`})+"/")
	refused := refusedURL(t)

	t.Run("goto a refused URL", func(t *testing.T) {
		e := wantCode(t, c.agent.Call(ctx, protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: refused}, nil), protocol.CodeNavigation)
		if e.Data["errorText"] != "net::ERR_CONNECTION_REFUSED" {
			t.Errorf("goto %s: data %v, want errorText net::ERR_CONNECTION_REFUSED", refused, e.Data)
		}
	})
	t.Run("forward with no page to go to", func(t *testing.T) {
		e := wantCode(t, c.agent.Call(ctx, protocol.MethodForward, protocol.NavParams{Target: tab}, nil), protocol.CodeNavigation)
		if s, _ := e.Data["errorText"].(string); s == "" {
			t.Errorf("forward: data %v, want an errorText", e.Data)
		}
	})
	t.Run("tabs.open of a refused URL keeps the tab and names it", func(t *testing.T) {
		err := c.agent.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: refused}, nil)
		e := wantCode(t, err, protocol.CodeNavigation)
		id, ok := e.Data["tab"].(float64)
		if !ok || id <= 0 {
			t.Fatalf("tabs.open %s: data %v, want the tab's id in data.tab", refused, e.Data)
		}
		if e.Data["errorText"] != "net::ERR_CONNECTION_REFUSED" {
			t.Errorf("tabs.open %s: data %v, want errorText net::ERR_CONNECTION_REFUSED", refused, e.Data)
		}
		var tabs protocol.TabsListResult
		if err := c.agent.Call(ctx, protocol.MethodTabsList, nil, &tabs); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tb := range tabs.Tabs {
			found = found || tb.ID == int(id)
		}
		if !found {
			t.Errorf("tabs.list after the failed tabs.open: tab %d is not open (%+v)", int(id), tabs.Tabs)
		}
		// It is a tab like any other: the agent can go on with it.
		v, err := c.eval(ctx, protocol.Target{Tab: int(id)}, "1 + 1")
		if err != nil || string(v) != "2" {
			t.Errorf("eval in the kept tab %d: %s, %v", int(id), v, err)
		}
	})
}

// PROTOCOL.md §3.3: 1110 download_failed "the download was interrupted
// (data.download, with Chrome's error, e.g. NETWORK_FAILED)". The server
// below cuts its answer short, which Chrome reports as
// SERVER_CONTENT_LENGTH_MISMATCH.
func TestDownloadFailedThroughTheChain(t *testing.T) {
	c := useSharedChain(t)
	ctx := ctxT(t, 90*time.Second)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>download</title><a id=dl href="/cut.bin">get</a>`)
	})
	// A download whose server promises 1 MiB, sends some of it and drops
	// the connection: Chrome interrupts it.
	mux.HandleFunc("/cut.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="cut.bin"`)
		w.Header().Set("Content-Length", strconv.Itoa(1<<20))
		w.WriteHeader(http.StatusOK)
		w.Write(make([]byte, 64<<10))
		w.(http.Flusher).Flush()
		time.Sleep(200 * time.Millisecond)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	tab := c.openTab(t, serveHandler(t, mux)+"/")
	err := c.agent.Call(ctx, protocol.MethodDownload, protocol.DownloadParams{Target: tab, Click: "#dl", TimeoutMs: 60000}, nil)
	e := wantCode(t, err, protocol.CodeDownloadFailed)
	b, _ := json.Marshal(e.Data["download"])
	var dl protocol.DownloadResult
	if err := json.Unmarshal(b, &dl); err != nil {
		t.Fatalf("data.download: %s: %v", b, err)
	}
	if dl.Filename != "" {
		t.Cleanup(func() { os.Remove(dl.Filename); os.Remove(dl.Filename + ".crdownload") })
	}
	if dl.State != "interrupted" || dl.Error != "SERVER_CONTENT_LENGTH_MISMATCH" || !strings.HasSuffix(dl.URL, "/cut.bin") || dl.ID == 0 {
		t.Errorf("data.download: got %+v, want the interrupted download of /cut.bin with Chrome's error SERVER_CONTENT_LENGTH_MISMATCH", dl)
	}
}
