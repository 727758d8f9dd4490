package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// Every method in the registry declares what it needs: a method added
// without one is refused to everyone, and this test names it.
func TestEveryMethodDeclaresANeed(t *testing.T) {
	f := newFixture(t)
	for name, m := range f.s.methods {
		if m.need == 0 {
			t.Errorf("method %q declares no need: give its row in registry.go one", name)
		}
		if m.name != name {
			t.Errorf("the row of %q is named %q", name, m.name)
		}
	}
}

// A method without a declared need is refused, even to the owner.
func TestUndeclaredMethodFailsClosed(t *testing.T) {
	ran := false
	f := newFixtureWith(t, nil, func(s *Service) {
		s.methods["test.undeclared"] = method{name: "test.undeclared", handler: typed(func(context.Context, *call, rpcparams.None) (any, error) { ran = true; return nil, nil })}
	})
	err := f.agent(t).Call(context.Background(), "test.undeclared", nil, nil)
	wantCode(t, err, protocol.CodeInternal)
	if ran {
		t.Error("the undeclared method ran")
	}
}

// pairAgent pairs name with scopes straight in the store and dials with
// the token.
func (f *fixture) pairAgent(t *testing.T, name string, scopes ...pairing.Scope) (*client.Client, string) {
	t.Helper()
	tok, _, err := f.s.pairs.Add(name, scopes, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, f.s.Addr(), tok, client.Options{})
	if err != nil {
		t.Fatalf("dial as %s: %v", name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c, tok
}

func (f *fixture) unpaired(t *testing.T) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, f.s.Addr(), "", client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sampleParams are valid params of every method on tab 7, so a refused
// call is refused for who calls it, not for its params.
var sampleParams = map[string]any{
	protocol.MethodSnapshot:     map[string]any{"tab": 7},
	protocol.MethodResolve:      map[string]any{"tab": 7, "target": "#b"},
	protocol.MethodScreenshot:   map[string]any{"tab": 7},
	protocol.MethodConsoleList:  map[string]any{"tab": 7},
	protocol.MethodNetworkList:  map[string]any{"tab": 7},
	protocol.MethodWait:         map[string]any{"tab": 7, "target": "#b"},
	protocol.MethodScriptRun:    map[string]any{"tab": 7, "script": "await page.click('#b')"},
	protocol.MethodClick:        map[string]any{"tab": 7, "target": "#b"},
	protocol.MethodHover:        map[string]any{"tab": 7, "target": "#b"},
	protocol.MethodCheck:        map[string]any{"tab": 7, "target": "#c"},
	protocol.MethodUncheck:      map[string]any{"tab": 7, "target": "#c"},
	protocol.MethodFocus:        map[string]any{"tab": 7, "target": "#i"},
	protocol.MethodFill:         map[string]any{"tab": 7, "target": "#i", "text": "hunter2"},
	protocol.MethodFormFill:     map[string]any{"tab": 7, "fields": []any{map[string]any{"target": "#i", "action": "fill", "text": "hunter2"}, map[string]any{"target": "#s", "action": "select", "values": []string{"hunter2"}}}},
	protocol.MethodType:         map[string]any{"tab": 7, "target": "#i", "text": "hunter2"},
	protocol.MethodPress:        map[string]any{"tab": 7, "target": "#i", "key": "Enter"},
	protocol.MethodSelect:       map[string]any{"tab": 7, "target": "#s", "values": []string{"b"}},
	protocol.MethodDrag:         map[string]any{"tab": 7, "target": "#b", "to": "#i"},
	protocol.MethodUpload:       map[string]any{"tab": 7, "target": "#f", "payloads": []map[string]any{{"name": "a.txt", "data": "aGk="}}},
	protocol.MethodScroll:       map[string]any{"tab": 7, "dy": 100},
	protocol.MethodGoto:         map[string]any{"tab": 7, "url": "https://example.com/"},
	protocol.MethodBack:         map[string]any{"tab": 7},
	protocol.MethodForward:      map[string]any{"tab": 7},
	protocol.MethodReload:       map[string]any{"tab": 7},
	protocol.MethodEval:         map[string]any{"tab": 7, "expression": "window.clicks = 99"},
	protocol.MethodDialog:       map[string]any{"tab": 7, "accept": true},
	protocol.MethodDownload:     map[string]any{"tab": 7, "click": "#b"},
	protocol.MethodTabsOpen:     map[string]any{"url": "https://www.bank.example/"},
	protocol.MethodTabsClose:    map[string]any{"tab": 7},
	protocol.MethodTabsSelect:   map[string]any{"tab": 7},
	protocol.MethodCookiesGet:   map[string]any{"tab": 7},
	protocol.MethodCookiesSet:   map[string]any{"tab": 7, "name": "a", "value": "b"},
	protocol.MethodCookiesClear: map[string]any{"tab": 7},
	protocol.MethodCDPSend:      map[string]any{"tab": 7, "method": "Runtime.evaluate", "params": map[string]any{"expression": "1"}},
	protocol.MethodCDPSubscribe: map[string]any{"tab": 7},

	protocol.MethodInspect:        map[string]any{"tab": 7, "target": "#i"},
	protocol.MethodLocators:       map[string]any{"tab": 7, "target": "#b"},
	protocol.MethodResize:         map[string]any{"tab": 7, "width": 400, "height": 300},
	protocol.MethodNetworkRequest: map[string]any{"tab": 7, "id": 1, "body": true},
	protocol.MethodStorageGet:     map[string]any{"tab": 7},

	protocol.MethodAgentsList:    nil,
	protocol.MethodAgentsApprove: map[string]any{"name": "x"},
	protocol.MethodAgentsDeny:    map[string]any{"name": "x"},
	protocol.MethodConfirmList:   map[string]any{},
	protocol.MethodConfirmAnswer: map[string]any{"id": "c1", "allow": true},
	protocol.MethodAgentsRevoke:  map[string]any{"name": "x"},
	protocol.MethodAuditTail:     nil,
	protocol.MethodTraceStart:    map[string]any{"out": "t"},
	protocol.MethodTraceStop:     nil,
	protocol.MethodTraceList:     nil,
	protocol.MethodDebugEcho:     map[string]any{"data": "x"},

	protocol.MethodSpacesNew:      map[string]any{"url": "https://example.com/"},
	protocol.MethodSpacesUse:      map[string]any{"space": "s1"},
	protocol.MethodSpacesClaim:    map[string]any{"tab": 7},
	protocol.MethodSpacesComplete: map[string]any{"space": "s1"},
	protocol.MethodSpacesClose:    map[string]any{"space": "s1"},
	protocol.MethodSpacesTakeOver: map[string]any{"space": "s1"},
	protocol.MethodSpacesHandBack: map[string]any{"space": "s1"},
}

// onNoTab are the methods that act on the agent's own spaces, not on a
// tab the origin rules could deny.
var onNoTab = map[string]bool{
	protocol.MethodSpacesNew:      true,
	protocol.MethodSpacesUse:      true,
	protocol.MethodSpacesClaim:    true,
	protocol.MethodSpacesComplete: true,
	protocol.MethodSpacesClose:    true,
}

// Every method an agent is not granted, or on a tab its origin rules
// deny, is refused before anything reaches the browser: the fake
// extension's first frame after all of them is the owner's echo.
func TestRefusedCallsReachNothing(t *testing.T) {
	f := newFixtureWith(t, func(o *Options) {
		o.OriginRules = map[string]pairing.Rules{"denied": {Deny: []string{"*.bank.example"}}}
	}, nil)
	ext := f.linkedExt(t)
	// The browser says where tab 7 is: the registry knows, no lookup.
	ext.Send(map[string]any{"event": "tab.updated", "tab": map[string]any{"id": 7, "url": "https://www.bank.example/login", "windowId": 1}})
	owner := f.agent(t)
	reader, _ := f.pairAgent(t, "reader", pairing.Read)
	spacer, _ := f.pairAgent(t, "spacer", pairing.Space)
	denied, _ := f.pairAgent(t, "denied", pairing.Space, pairing.AllTabs, pairing.CDP)
	waitForRegistry(t, f, 7)

	ctx := context.Background()
	calls := 0
	for method, m := range f.s.methods {
		need := m.needFor(rpcparams.Parse(nil))
		if method == protocol.MethodPairRequest || need == pairing.NeedNone {
			continue
		}
		params, ok := sampleParams[method]
		if !ok {
			t.Errorf("%s: no sample params: add it to sampleParams", method)
			continue
		}
		type refusal struct {
			who  string
			c    *client.Client
			want protocol.Code
		}
		// A fresh connection each: one without a token is closed after a
		// few refusals (tokenless.go).
		cases := []refusal{{"unpaired", f.unpaired(t), protocol.CodeUnauthorized}}
		if need >= pairing.NeedAct {
			cases = append(cases, refusal{"read-only", reader, protocol.CodeScopeDenied})
		}
		if need >= pairing.NeedCDP {
			cases = append(cases, refusal{"space", spacer, protocol.CodeScopeDenied})
		}
		switch {
		case need == pairing.NeedOwner:
			cases = append(cases, refusal{"denied", denied, protocol.CodeScopeDenied})
		case onNoTab[method]:
		default:
			// script.run: the script's click is refused, and the script
			// ends with that call's error.
			cases = append(cases, refusal{"denied", denied, protocol.CodeForbiddenOriginScope})
		}
		for _, c := range cases {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := c.c.Call(cctx, method, params, nil)
			cancel()
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != c.want {
				t.Errorf("%s as %s: got %v, want %s", method, c.who, err, c.want.Name())
			}
			// Tab 7 is not in its spaces (it holds all-tabs): tabs.list
			// hides it, and so does the refusal (tabs.open names its own
			// destination).
			if c.who == "denied" && pe != nil && pe.Code == protocol.CodeForbiddenOriginScope && method != protocol.MethodTabsOpen &&
				(strings.Contains(pe.Message, "bank") || pe.Data["origin"] != nil || pe.Data["rule"] != nil) {
				t.Errorf("%s as %s: the refusal names the person's tab's origin: %s %v", method, c.who, pe.Message, pe.Data)
			}
			calls++
		}
	}
	// Nothing reached the extension: its next frame is this echo.
	done := make(chan error, 1)
	go func() { done <- owner.Call(ctx, protocol.MethodDebugEcho, map[string]any{"data": "after"}, nil) }()
	req := ext.Read()
	if req["op"] != "echo" {
		t.Fatalf("after %d refused calls the extension got %v, want the echo first", calls, req)
	}
	ext.Send(map[string]any{"id": req["id"], "result": map[string]any{"data": "after"}})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d refused calls, none reached the browser", calls)
}

// waitForRegistry waits until the service's tab registry knows tab id.
func waitForRegistry(t *testing.T, f *fixture, id int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var known bool
		for _, l := range f.s.hub.Links() {
			_, known = l.URLs.Get(id)
		}
		if known {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tab %d never reached the registry", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The whole pairing: a request without a token, the person (here the
// owner's agents.approve) sees who asked, approves, the agent gets a
// token that works; revoke cuts its live connection at once and the
// token is refused from then on.
func TestPairApproveRevoke(t *testing.T) {
	f := newFixture(t)
	owner := f.agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, errc, resc := askPair(t, ctx, f, owner, protocol.PairRequestParams{Name: "bot", Scopes: []string{"read"}})
	if diff := strings.Join(req.Scopes, ","); diff != "read" {
		t.Errorf("pending scopes: got %q, want read", diff)
	}
	if runtime.GOOS == "linux" {
		exe, _ := os.Executable()
		if req.Process == nil || req.Process.PID != os.Getpid() || req.Process.Exe != exe {
			t.Errorf("pending process: got %+v, want pid %d exe %s (this test asked)", req.Process, os.Getpid(), exe)
		}
	}
	if err := owner.Call(ctx, protocol.MethodAgentsApprove, protocol.AgentNameParams{Name: "bot"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("pair: %v", err)
	}
	res := <-resc
	if !strings.HasPrefix(res.Token, protocol.AgentTokenPrefix) {
		t.Fatalf("token %q does not look like an agent token", res.Token)
	}
	// The store keeps only the hash.
	b, err := os.ReadFile(f.s.pairs.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), res.Token) || strings.Contains(string(b), res.Token[len(protocol.AgentTokenPrefix)+17:]) {
		t.Error("the agents file holds the token itself")
	}
	if st, err := os.Stat(f.s.pairs.Path()); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("agents file mode: got %v (%v), want 0600", st.Mode().Perm(), err)
	}

	bot, err := client.Dial(ctx, f.s.Addr(), res.Token, client.Options{})
	if err != nil {
		t.Fatalf("dial with the paired token: %v", err)
	}
	defer bot.Close()
	if err := bot.Call(ctx, protocol.MethodPing, nil, nil); err != nil {
		t.Fatalf("ping as bot: %v", err)
	}
	err = bot.Call(ctx, protocol.MethodClick, map[string]any{"tab": 1, "target": "#b"}, nil)
	wantCode(t, err, protocol.CodeScopeDenied)

	start := time.Now()
	var rr protocol.AgentsRevokeResult
	if err := owner.Call(ctx, protocol.MethodAgentsRevoke, protocol.AgentNameParams{Name: "bot"}, &rr); err != nil {
		t.Fatal(err)
	}
	if rr.Cut != 1 {
		t.Errorf("revoke cut %d connections, want 1", rr.Cut)
	}
	select {
	case _, open := <-bot.Notifications():
		for open {
			_, open = <-bot.Notifications()
		}
	case <-ctx.Done():
		t.Fatal("the revoked agent's connection stayed open")
	}
	t.Logf("revoke to connection closed at the agent: %v", time.Since(start))
	if err := bot.Call(ctx, protocol.MethodPing, nil, nil); err == nil {
		t.Error("a call on the cut connection succeeded")
	}
	_, err = client.Dial(ctx, f.s.Addr(), res.Token, client.Options{SkipProof: true})
	wantCode(t, err, protocol.CodeRevoked)
}

func waitPending(t *testing.T, owner *client.Client, name string) protocol.PairingRequest {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var l protocol.AgentsListResult
		if err := owner.Call(context.Background(), protocol.MethodAgentsList, nil, &l); err != nil {
			t.Fatal(err)
		}
		for _, r := range l.Pending {
			if r.Name == name {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pending request for %s within 10 s", name)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPairDeniedAndBusy(t *testing.T) {
	f := newFixtureWith(t, func(o *Options) { o.PairLimits = pairing.Limits{MaxPending: 1, Burst: 3, Every: time.Hour} }, nil)
	owner := f.agent(t)
	// A bound for a hang: each request reads /proc to name its process
	// (every process's fd table), which took "three" past a bound of 20 s
	// in a run of every package's race-built tests at once.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := client.Pair(ctx, f.s.Addr(), protocol.PairRequestParams{Name: "one"}, client.Options{})
		errc <- err
	}()
	waitPending(t, owner, "one")
	// A second request while one waits: over the cap.
	_, err := client.Pair(ctx, f.s.Addr(), protocol.PairRequestParams{Name: "two"}, client.Options{})
	wantCode(t, err, protocol.CodePairingBusy)
	if err := owner.Call(ctx, protocol.MethodAgentsDeny, protocol.AgentNameParams{Name: "one"}, nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, <-errc, protocol.CodePairingDenied)
	// The burst of 3 is spent (one, two, and this one); the next is refused.
	_, err = client.Pair(ctx, f.s.Addr(), protocol.PairRequestParams{Name: "three", WaitMs: 1}, client.Options{})
	wantCode(t, err, protocol.CodePairingDenied) // expired: nobody answered within 1 ms
	_, err = client.Pair(ctx, f.s.Addr(), protocol.PairRequestParams{Name: "four"}, client.Options{})
	wantCode(t, err, protocol.CodePairingBusy)
	// Bad requests are refused before they count.
	_, err = client.Pair(ctx, f.s.Addr(), protocol.PairRequestParams{Name: "bad name"}, client.Options{})
	wantCode(t, err, protocol.CodeInvalidParams)
	_, err = client.Pair(ctx, f.s.Addr(), protocol.PairRequestParams{Name: "x", Scopes: []string{"root"}}, client.Options{})
	wantCode(t, err, protocol.CodeInvalidParams)
}

// The audit log gets one line per tab call, with the target and lengths
// but never the typed text or the CDP params.
func TestAuditLogsCallsWithoutValues(t *testing.T) {
	f := newFixture(t)
	ext, bot := f.cdpBot(t, 7, "https://example.com/a?x=1")
	ctx := context.Background()
	// The spaces check asks the browser for its tab groups first, and the
	// frames check opens the tab's page.
	if _, err := cdpThrough(t, ext, ext.frames(), func() error {
		return bot.Call(ctx, protocol.MethodCDPSend, map[string]any{"tab": 7, "method": "Runtime.evaluate", "params": map[string]any{"expression": "'hunter2'"}}, nil)
	}); err != nil {
		t.Fatal(err)
	}
	err := bot.Call(ctx, protocol.MethodEval, map[string]any{"tab": 7, "expression": "'hunter2'", "timeoutMs": 1}, nil)
	if err == nil {
		t.Fatal("eval on a fake tab succeeded")
	}
	_ = bot.Call(ctx, protocol.MethodPing, nil, nil) // reaches no tab: not logged

	entries, err := audit.Read(f.s.auditPath(), audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("got %d audit lines, want 2 (cdp.send, eval): %+v", len(entries), entries)
	}
	e := entries[0]
	if e.Agent != "bot" || e.Method != "cdp.send" || e.Tab != 7 || e.Origin != "https://example.com" || e.Target != "Runtime.evaluate" || e.Result != "ok" {
		t.Errorf("cdp.send line: got %+v", e)
	}
	if e2 := entries[1]; e2.Method != "eval" || e2.Length == nil || *e2.Length != len("'hunter2'") || e2.SHA256 == "" || e2.Result == "ok" {
		t.Errorf("eval line: got %+v, want its length, hash and error", e2)
	}
	raw, _ := os.ReadFile(f.s.auditPath())
	if strings.Contains(string(raw), "hunter2") {
		t.Errorf("the audit log holds the agent's text:\n%s", raw)
	}
	if st, _ := os.Stat(f.s.auditPath()); st.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode %v, want 0600", st.Mode().Perm())
	}
	var tail protocol.AuditTailResult
	if err := f.agent(t).Call(ctx, protocol.MethodAuditTail, map[string]any{"agent": "bot", "limit": 1}, &tail); err != nil {
		t.Fatal(err)
	}
	if len(tail.Entries) != 1 || tail.Entries[0].Method != "eval" {
		t.Errorf("audit.tail limit 1: got %+v, want the eval line", tail.Entries)
	}
	var _ json.RawMessage
}

// FuzzPairRequest: any pair.request params on the wire are decoded and
// checked without a panic, and what passes is a valid name and scopes.
func FuzzPairRequest(f *testing.F) {
	f.Add([]byte(`{"name":"bot","scopes":["read","cdp"],"waitMs":1000}`))
	f.Add([]byte(`{"name":"bot","scopes":"read"}`))
	f.Add([]byte(`{"name":"","waitMs":-1}`))
	f.Add([]byte(`{"Name":"x"}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`null`))
	// The params decoded as pair.request's are (rpcparams.Strict), then
	// checked; a request that passes both must be a valid one.
	request := rpcparams.Strict(func(_ context.Context, _ struct{}, p protocol.PairRequestParams) (any, error) {
		scopes, wait, err := pairing.CheckRequest(p)
		if err != nil {
			return nil, err
		}
		if pairing.CheckName(p.Name) != nil || len(scopes) == 0 || wait <= 0 || wait > pairing.MaxWait {
			return nil, fmt.Errorf("accepted name %q scopes %v wait %v", p.Name, scopes, wait)
		}
		return nil, nil
	})
	f.Fuzz(func(t *testing.T, raw []byte) {
		if _, err := request(context.Background(), struct{}{}, rpcparams.Parse(raw)); err != nil && protocol.CodeOf(err) != protocol.CodeInvalidParams {
			t.Errorf("%s: got %v, want invalid_params", raw, err)
		}
	})
}

// The person answers at the popup: the pairing request reaches the
// extension as a notice with a badge, the popup's agents panel lists it
// with the process that asked, and popup.pairing.decide approves it.
func TestPairingAtThePopup(t *testing.T) {
	f := newFixture(t)
	ext := f.linkedExt(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got := make(chan error, 1)
	go func() {
		_, err := client.Pair(ctx, f.s.Addr(), protocol.PairRequestParams{Name: "claude", Scopes: []string{"space", "cdp"}}, client.Options{})
		got <- err
	}()
	n := ext.Read()
	params, _ := n["params"].(map[string]any)
	if n["event"] != "notice" || n["topic"] != protocol.NoticePairing || params["badge"] != "1" {
		t.Fatalf("got %v, want the pairing notice with badge 1", n)
	}
	ext.Send(map[string]any{"call": 1, "method": protocol.MethodPopupAgents})
	reply := ext.Read()
	b, _ := json.Marshal(reply["result"])
	var panel protocol.PopupAgentsResult
	if err := json.Unmarshal(b, &panel); err != nil || len(panel.Pending) != 1 {
		t.Fatalf("popup.agents: got %v (%v), want one pending request", reply, err)
	}
	req := panel.Pending[0]
	if req.Name != "claude" || strings.Join(req.Scopes, ",") != "cdp,space" {
		t.Errorf("pending: got %+v", req)
	}
	if runtime.GOOS == "linux" && (req.Process == nil || req.Process.PID != os.Getpid()) {
		t.Errorf("pending process: got %+v, want this test's pid %d", req.Process, os.Getpid())
	}
	ext.Send(map[string]any{"call": 2, "method": protocol.MethodPopupPairingDecide, "params": map[string]any{"id": req.ID, "approve": true}})
	// The call's reply, and the notice that clears the badge, in either order.
	for replied, cleared := false, false; !replied || !cleared; {
		m := ext.Read()
		switch p, _ := m["params"].(map[string]any); {
		case m["event"] == "callReply":
			if m["error"] != nil {
				t.Fatalf("popup.pairing.decide: %v", m["error"])
			}
			replied = true
		case m["topic"] == protocol.NoticePairing && p["badge"] == "":
			cleared = true
		}
	}
	if err := <-got; err != nil {
		t.Fatalf("pair after the popup approved: %v", err)
	}
}

// BenchmarkCallOverhead: what the grant check and the audit line add to
// a call (need read: audited; need none: not), measured in process
// without a browser or the WebSocket.
func BenchmarkCallOverhead(b *testing.B) {
	s := benchService(b, nil)
	noop := typed(func(context.Context, *call, protocol.ElementParams) (any, error) { return nil, nil })
	s.methods["bench.audited"] = method{name: "bench.audited", need: pairing.NeedRead, handler: noop}
	s.methods["bench.plain"] = method{name: "bench.plain", need: pairing.NeedNone, handler: noop}
	params := json.RawMessage(`{"tab":7,"target":"role=button[name=\"Save\"]"}`)
	// A target far over the audit's cap: what cutting it costs.
	long, _ := json.Marshal(map[string]any{"tab": 7, "target": strings.Repeat("é", 32<<10)})
	a := &agent{s: s, grant: grant{kind: grantPaired, name: "bot", scopes: []pairing.Scope{pairing.Space}}}
	for _, bc := range []struct {
		name, method string
		params       json.RawMessage
	}{{"bench.plain", "bench.plain", params}, {"bench.audited", "bench.audited", params}, {"bench.audited-64KiB-target", "bench.audited", long}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.call(context.Background(), a, nil, bc.method, bc.params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestCheckAgentName(t *testing.T) {
	paired := grant{kind: grantPaired, name: "claude"}
	tests := []struct {
		name    string
		g       grant
		as      string
		wantErr bool
	}{
		{"paired, its own name", paired, "claude", false},
		{"paired, no name", paired, "", false},
		{"paired, another name", paired, "codex", true},
		{"owner, any name", ownerGrant, "codex", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.g.checkAgentName(tt.as); (err != nil) != tt.wantErr {
				t.Errorf("got %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

// A wait for a function runs page JavaScript (act); any other wait, or a
// function that is no string or empty, reads.
func TestWaitNeed(t *testing.T) {
	for raw, want := range map[string]pairing.Need{
		`{"function":"() => true"}`: pairing.NeedAct,
		`{"function":"\u0041"}`:     pairing.NeedAct,
		`{"function":""}`:           pairing.NeedRead,
		`{"function":null}`:         pairing.NeedRead,
		`{"function":3}`:            pairing.NeedRead,
		`{"text":"x"}`:              pairing.NeedRead,
		`null`:                      pairing.NeedRead,
	} {
		if got := waitNeed(rpcparams.Parse(json.RawMessage(raw))); got != want {
			t.Errorf("%s: got %v, want %v", raw, got, want)
		}
	}
}
