package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func wantCode(t testing.TB, err error, want protocol.Code) *protocol.Error {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("got error %v, want a protocol error with code %s", err, want.Name())
	}
	if pe.Code != want {
		t.Fatalf("got code %s (%v), want %s", pe.Code.Name(), pe, want.Name())
	}
	return pe
}

// The chain, end to end: an agent's CDP commands reach a real tab through the
// service, the relay, native messaging and chrome.debugger, and come back.
func TestChainEvaluateDOMAndEvents(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>chain</title><h1 id="h">Hello, chain</h1><ul><li>a</li><li>b</li></ul>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 20*time.Second)

	v, err := c.eval(ctx, tab, "document.title + ' ' + document.getElementById('h').textContent")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(v), `"chain Hello, chain"`; got != want {
		t.Errorf("Runtime.evaluate: got %s, want %s", got, want)
	}

	var doc struct {
		Root struct {
			NodeName string            `json:"nodeName"`
			Children []json.RawMessage `json:"children"`
		} `json:"root"`
	}
	if err := c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "DOM.getDocument", Params: json.RawMessage(`{"depth":-1}`)}, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Root.NodeName != "#document" || len(doc.Root.Children) == 0 {
		t.Errorf("DOM.getDocument: got root %q with %d children, want #document with children", doc.Root.NodeName, len(doc.Root.Children))
	}
	var raw json.RawMessage
	c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "DOM.getDocument", Params: json.RawMessage(`{"depth":-1}`)}, &raw)
	if !strings.Contains(string(raw), "Hello, chain") {
		t.Errorf("DOM.getDocument: the tree does not hold the page's text")
	}

	sub := subscribeConsole(ctx, t, c, tab)
	if ev := sub.console(ctx, t, tab, "ping from page"); ev.Tab != tab.Tab || ev.Method != "Runtime.consoleAPICalled" {
		t.Errorf("event: got tab %d method %s, want tab %d Runtime.consoleAPICalled", ev.Tab, ev.Method, tab.Tab)
	}
	if err := c.agent.Call(ctx, protocol.MethodCDPUnsubscribe, protocol.CDPUnsubscribeParams{Subscription: sub.Subscription}, nil); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}
	err = c.agent.Call(ctx, protocol.MethodCDPUnsubscribe, protocol.CDPUnsubscribeParams{Subscription: sub.Subscription}, nil)
	wantCode(t, err, protocol.CodeInvalidParams)

	var tabs protocol.TabsListResult
	if err := c.agent.Call(ctx, protocol.MethodTabsList, nil, &tabs); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tb := range tabs.Tabs {
		if tb.ID == tab.Tab {
			found = true
			if !tb.Attached || tb.URL != base+"/" {
				t.Errorf("tabs.list: got %+v, want attached at %s", tb, base+"/")
			}
		}
	}
	if !found {
		t.Errorf("tabs.list: tab %d missing from %+v", tab.Tab, tabs.Tabs)
	}
}

// Chrome's own errors come back classified, and nothing breaks after them.
func TestChainErrors(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>errors</title>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 20*time.Second)

	err := c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Nope.nothing"}, nil)
	wantCode(t, err, protocol.CodeCDP)
	err = c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: 987654}, Method: "Runtime.evaluate", Params: json.RawMessage(`{"expression":"1"}`)}, nil)
	wantCode(t, err, protocol.CodeTabNotFound)
	err = c.agent.Call(ctx, "no.such.method", nil, nil)
	wantCode(t, err, protocol.CodeMethodNotFound)
	err = c.agent.Call(ctx, protocol.MethodCDPSend, map[string]any{"method": "Runtime.evaluate", "bogus": 1}, nil)
	wantCode(t, err, protocol.CodeInvalidParams)
	err = c.agent.Call(ctx, protocol.MethodTabsList, protocol.TabsListParams{Browser: "b99"}, nil)
	wantCode(t, err, protocol.CodeNoBrowser)

	if v, err := c.eval(ctx, tab, "6*7"); err != nil || string(v) != "42" {
		t.Errorf("after errors: got %s, %v; want 42", v, err)
	}
}

// A tab closed while a command waits on it gives an error at once, not a hang.
func TestChainClosedTabMidCall(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>slow</title>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 30*time.Second)

	errc := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := c.eval(ctx, tab, "window.inCall = true, new Promise(r => setTimeout(r, 60000))")
		errc <- err
	}()
	// Close it once the call runs in the page.
	waitFor(t, ctx, func() bool {
		v, err := c.eval(ctx, tab, "window.inCall === true")
		return err == nil && string(v) == "true"
	})
	if err := c.agent.Call(ctx, protocol.MethodTabsClose, protocol.TabParams{Target: tab}, nil); err != nil {
		t.Fatalf("tabs.close: %v", err)
	}
	select {
	case err := <-errc:
		var pe *protocol.Error
		if !errors.As(err, &pe) || (pe.Code != protocol.CodeDetached && pe.Code != protocol.CodeTabNotFound) {
			t.Fatalf("pending call after tab close: got %v, want detached or tab_not_found", err)
		}
		t.Logf("pending call failed after %v with %v", time.Since(start).Round(time.Millisecond), err)
	case <-ctx.Done():
		t.Fatal("pending call never returned after its tab closed")
	}
	_, err := c.eval(ctx, tab, "1")
	wantCode(t, err, protocol.CodeTabNotFound)
}

// The service restarts: the relay notices, reconnects, and the next call works.
func TestChainServiceRestart(t *testing.T) {
	c := startChain(t)
	base := serve(t, map[string]string{"/": `<title>restart</title>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 60*time.Second)

	c.svc.stop()
	if _, err := c.eval(ctx, tab, "1"); err == nil {
		t.Fatal("call through a stopped service succeeded")
	}
	c.svc = startService(t, c.svc.stateDir)
	c.agent = c.svc.dial(t)
	b := c.waitLink(t)
	t.Logf("relay reconnected as browser %s", b.ID)
	v, err := c.eval(ctx, tab, "document.title")
	if err != nil || string(v) != `"restart"` {
		t.Fatalf("after restart: got %s, %v; want \"restart\"", v, err)
	}
}

// A host→browser payload far over Chrome's 1 MiB frame cap arrives intact
// (the service chunks it, the extension reassembles it).
func TestChainLargePayload(t *testing.T) {
	c := useSharedChain(t)
	// A bound for a hang, not a speed: the 2 MiB evaluation passed 60 s
	// once at a load average of 26 here (seconds when quiet).
	ctx := ctxT(t, 180*time.Second)
	// 3 MiB of mixed ASCII and multibyte text, so chunks split runes.
	var sb strings.Builder
	for sb.Len() < 3<<20 {
		sb.WriteString("egohost ✓ ünïcødé 漢字 <tag> \"quote\" \\ ")
	}
	data := sb.String()
	var res protocol.DebugEchoResult
	if err := c.agent.Call(ctx, protocol.MethodDebugEcho, protocol.DebugEchoParams{Data: data}, &res); err != nil {
		t.Fatalf("debug.echo of %d bytes: %v\nservice log:\n%s", len(data), err, c.svc.logs)
	}
	sum := sha256.Sum256([]byte(data))
	if res.Length != len(data) || res.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("echo: got %d bytes sha %s, want %d bytes sha %x", res.Length, res.SHA256, len(data), sum)
	}
	// A large CDP command too: evaluate a 2 MiB expression.
	tab := c.openTab(t, serve(t, map[string]string{"/": "<title>big</title>"})+"/")
	expr := "'" + strings.Repeat("x", 2<<20) + "'.length"
	v, err := c.eval(ctx, tab, expr)
	if err != nil || string(v) != "2097152" {
		t.Errorf("2 MiB expression: got %s, %v; want 2097152", v, err)
	}
}

// What must be refused is refused, with its code.
func TestChainRefusals(t *testing.T) {
	c := useSharedChain(t)
	logs := c.svc.logs.mark()
	ctx := ctxT(t, 20*time.Second)

	_, err := client.Dial(ctx, c.svc.addr, strings.Repeat("0", 64), client.Options{SkipProof: true})
	wantCode(t, err, protocol.CodeUnauthorized)
	// Without a token the connection opens, but may only ask to pair
	// (PROTOCOL.md §3.7): everything else is unauthorized.
	none, err := client.Dial(ctx, c.svc.addr, "", client.Options{SkipProof: true})
	if err != nil {
		t.Fatalf("dial without a token: %v", err)
	}
	wantCode(t, none.Call(ctx, protocol.MethodTabsList, nil, nil), protocol.CodeUnauthorized)
	none.Close()
	if _, err = client.Dial(ctx, c.svc.addr, strings.Repeat("0", 64), client.Options{}); !errors.Is(err, client.ErrNotService) {
		t.Errorf("a client with a wrong token: got %v, want ErrNotService (it must not send its token)", err)
	}
	_, err = client.Dial(ctx, c.svc.addr, c.svc.token, client.Options{Header: http.Header{"Origin": {"http://evil.example"}}})
	wantCode(t, err, protocol.CodeForbiddenOrigin)

	// A real web page in the real browser tries to reach the service.
	base := serve(t, map[string]string{"/": `<title>evil</title>`})
	tab := c.openTab(t, base+"/")
	v, err := c.eval(ctx, tab, `new Promise(res => {
		const ws = new WebSocket("ws://`+c.svc.addr+`/rpc");
		ws.onopen = () => res("open");
		ws.onerror = () => res("refused");
		setTimeout(() => res("timeout"), 5000);
	})`)
	if err != nil || string(v) != `"refused"` {
		t.Errorf("web page WebSocket to the service: got %s, %v; want \"refused\"", v, err)
	}
	if !c.svc.logs.containsAfter(logs, "forbidden_origin") {
		t.Errorf("service log does not record the refused origin:\n%s", c.svc.logs)
	}

	// DNS rebinding: a Host header that is not loopback.
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+c.svc.addr+protocol.Path, nil)
	req.Host = "attacker.example:80"
	req.Header.Set("Authorization", "Bearer "+c.svc.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Error *protocol.Error }
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || body.Error == nil || body.Error.Code != protocol.CodeForbiddenHost {
		t.Errorf("foreign Host: got %d %+v, want 403 forbidden_host", resp.StatusCode, body.Error)
	}

	// The service still works for the real agent.
	if err := c.agent.Call(ctx, protocol.MethodPing, nil, nil); err != nil {
		t.Errorf("ping after refusals: %v", err)
	}
}

// The service dies mid-call: the CLI says so in words, with its own exit
// code, instead of the WebSocket library's error.
func TestCLIServiceDiesMidCall(t *testing.T) {
	c := startChain(t)
	base := serve(t, map[string]string{"/": `<title>mid-call</title>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 60*time.Second)

	type result struct {
		stdout, stderr string
		code           int
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := c.cli(tab, "eval", "document.title = 'in flight', new Promise(() => {})", "--timeout", "40s")
		done <- result{out, errOut, code}
	}()
	// The eval is in flight once the page's title changed.
	for {
		v, err := c.eval(ctx, tab, "document.title")
		if err == nil && string(v) == `"in flight"` {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the CLI's eval never reached the page: %s, %v", v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.svc.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		want := "egohost: the egohost service stopped while `egohost eval` was waiting for its answer (it may or may not have been done); is it restarting?"
		if r.code != 3 || !strings.HasPrefix(r.stderr, want) {
			t.Errorf("CLI when the service died: exit %d, stderr %q; want exit 3 and %q", r.code, r.stderr, want)
		}
		if strings.Contains(r.stderr, "frame") || strings.Contains(r.stderr, "EOF") {
			t.Errorf("CLI stderr shows the library's error: %q", r.stderr)
		}
	case <-ctx.Done():
		t.Fatal("the CLI did not return after the service died")
	}
}

// 8 agents × 500 pipelined requests through the whole chain: every one is
// answered, with its own result. Each agent has far more requests in
// flight than limits.max_in_flight (64), so the cap's backpressure is in
// play: the excess waits in the agents' sockets, nothing is refused or lost.
func TestChainPipelinedLoad(t *testing.T) {
	const agents, perAgent = 8, 500
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>load</title>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 120*time.Second)

	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, agents*perAgent)
	for a := range agents {
		agent := c.svc.dial(t)
		for i := range perAgent {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := a*perAgent + i
				v, err := evalWith(ctx, agent, tab, strconv.Itoa(n)+" * 2")
				if err != nil {
					errs <- fmt.Errorf("agent %d request %d: %w", a, i, err)
					return
				}
				if string(v) != strconv.Itoa(2*n) {
					errs <- fmt.Errorf("agent %d request %d: got %s, want %d", a, i, v, 2*n)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed++; failed <= 10 {
			t.Error(err)
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d requests failed", failed, agents*perAgent)
	}
	took := time.Since(start)
	t.Logf("%d agents × %d pipelined requests, all answered in %v (%.0f requests/s)", agents, perAgent, took.Round(time.Millisecond), float64(agents*perAgent)/took.Seconds())
}

// cutBound is how soon a call in flight must end once the person cut it
// (Disconnect, revoke, take over): far more than the cut takes on a loaded
// machine, far less than the 30 s request deadline at which the call would
// end anyway, so a call that merely timed out fails the test.
const cutBound = 5 * time.Second

// wantCut waits for the end of call, which what cut, and returns its error:
// it must fail within cutBound, and not with a timeout.
func wantCut(t testing.TB, ended <-chan error, call, what string) error {
	t.Helper()
	select {
	case err := <-ended:
		if err == nil {
			t.Fatalf("%s succeeded after %s, want it cut", call, what)
		}
		if protocol.CodeOf(err) == protocol.CodeTimeout {
			t.Fatalf("%s timed out after %s (%v), want it cut", call, what, err)
		}
		return err
	case <-time.After(cutBound):
		t.Fatalf("%s was still running %v after %s: not cut", call, cutBound, what)
	}
	return nil
}
