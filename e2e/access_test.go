package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/protocol"
)

// approvePairing approves, as the person would, the pairing request of
// name when it comes (egohost mcp asks on first use), in the background
// until the test ends.
func approvePairing(t testing.TB, stateDir, name string) {
	t.Helper()
	approvePairingOf(t, stateDir, name, false)
}

// approvePairingOf is approvePairing; with replace, the approval replaces
// a pairing of the same name (one an earlier test on a shared chain made
// and that was revoked).
func approvePairingOf(t testing.TB, stateDir, name string, replace bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if approveOnce(ctx, stateDir, name, replace) {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
}

func approveOnce(ctx context.Context, stateDir, name string, replace bool) bool {
	st, ok := client.ReadState(stateDir)
	tok, err := client.ReadToken(filepath.Join(stateDir, "token"))
	if !ok || err != nil {
		return false
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := client.Dial(dctx, st.Addr, tok, client.Options{})
	if err != nil {
		return false
	}
	defer c.Close()
	for ctx.Err() == nil {
		var l protocol.AgentsListResult
		if err := c.Call(dctx, protocol.MethodAgentsList, nil, &l); err != nil {
			return false
		}
		for _, r := range l.Pending {
			if r.Name == name {
				return c.Call(dctx, protocol.MethodAgentsApprove, protocol.AgentsApproveParams{Name: name, Replace: replace}, nil) == nil
			}
		}
		select {
		case <-dctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false
}

// accessPage counts every effect an agent could have: clicks, input,
// keys, mouse, focus, scroll, changes (window.hits), loads of the page
// (sessionStorage), and what eval or cookies would leave.
const accessPage = `<!doctype html><title>counter</title>
<style>body{height:3000px}</style>
<button id=b>b</button> <input id=i> <input type=checkbox id=c> <select id=s><option>a<option value=b>b</select>
<input type=file id=f> <a id=go href="/away">away</a>
<script>
window.hits = 0;
for (const ev of ["click","input","keydown","mousedown","mousemove","mouseover","focusin","scroll","change","wheel","dragstart"]) addEventListener(ev, () => hits++, true);
sessionStorage.loads = String((+sessionStorage.loads || 0) + 1);
</script>`

// effects reads the page's counters through the owner.
func effects(t *testing.T, c *chain, tab protocol.Target) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := c.eval(ctx, tab, `JSON.stringify({hits: window.hits, loads: sessionStorage.loads, url: location.pathname, cookie: document.cookie, value: document.getElementById("i").value, scroll: scrollY, width: innerWidth})`)
	if err != nil {
		t.Fatalf("read the page's counters: %v", err)
	}
	var s string
	json.Unmarshal(v, &s)
	return s
}

// tabCount is how many tabs the browser has, and which is active.
func tabCount(t *testing.T, c *chain) string {
	t.Helper()
	var l protocol.TabsListResult
	if err := c.agent.Call(context.Background(), protocol.MethodTabsList, nil, &l); err != nil {
		t.Fatal(err)
	}
	active := 0
	for _, tb := range l.Tabs {
		if tb.Active && tb.Focused {
			active = tb.ID
		}
	}
	return strconv.Itoa(len(l.Tabs)) + " tabs, active " + strconv.Itoa(active)
}

// pairDirect pairs name with scopes the way an agent does (pair.request
// without a token) and has the owner approve it.
func pairDirect(t *testing.T, c *chain, name string, scopes ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	shared := !c.since.IsZero()
	approvePairingOf(t, c.svc.stateDir, name, shared)
	if shared {
		// A shared chain: its service limits the pairing requests of one
		// process (5 at once, then one per 10 s), and every test on it is
		// this process. `egohost pair` asks from a process of its own.
		args := []string{"pair", "--name", name}
		if len(scopes) > 0 {
			args = append(args, "--scope", strings.Join(scopes, ","))
		}
		if out, errOut, code := runCLI(chainEnv(c.svc.stateDir), args...); code != 0 {
			t.Fatalf("egohost pair %s: exit %d\n%s%s", name, code, out, errOut)
		}
		tok, err := client.ReadToken(filepath.Join(c.svc.stateDir, "agents", name+".token"))
		if err != nil {
			t.Fatalf("pair %s: %v", name, err)
		}
		return tok
	}
	res, err := client.Pair(ctx, c.svc.addr, protocol.PairRequestParams{Name: name, Scopes: scopes}, client.Options{})
	if err != nil {
		t.Fatalf("pair %s: %v", name, err)
	}
	return res.Token
}

func dialToken(t *testing.T, c *chain, tok string) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := client.Dial(ctx, c.svc.addr, tok, client.Options{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// methodParams are valid params of every method that reaches a tab, on
// tab (and the page's origin), so a refusal is for who asks, not for
// what. script.run clicks; tabs.open opens the denied origin.
func methodParams(tab int, origin string) map[string]any {
	tp := func(kv ...any) map[string]any {
		m := map[string]any{"tab": tab}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	return map[string]any{
		protocol.MethodSnapshot:     tp(),
		protocol.MethodResolve:      tp("target", "#b"),
		protocol.MethodScreenshot:   tp(),
		protocol.MethodConsoleList:  tp(),
		protocol.MethodNetworkList:  tp(),
		protocol.MethodWait:         tp("function", "window.hits = 1000"),
		protocol.MethodScriptRun:    tp("script", "await page.click('#b'); await page.fill('#i', 'hunter2')"),
		protocol.MethodClick:        tp("target", "#b"),
		protocol.MethodHover:        tp("target", "#b"),
		protocol.MethodCheck:        tp("target", "#c"),
		protocol.MethodUncheck:      tp("target", "#c"),
		protocol.MethodFocus:        tp("target", "#i"),
		protocol.MethodFill:         tp("target", "#i", "text", "hunter2"),
		protocol.MethodType:         tp("target", "#i", "text", "hunter2"),
		protocol.MethodPress:        tp("target", "#i", "key", "Enter"),
		protocol.MethodSelect:       tp("target", "#s", "values", []string{"b"}),
		protocol.MethodDrag:         tp("target", "#b", "to", "#i"),
		protocol.MethodUpload:       tp("target", "#f", "payloads", []map[string]any{{"name": "a.txt", "data": "aGk="}}),
		protocol.MethodScroll:       tp("dy", 500),
		protocol.MethodGoto:         tp("url", origin+"/away"),
		protocol.MethodBack:         tp(),
		protocol.MethodForward:      tp(),
		protocol.MethodReload:       tp(),
		protocol.MethodEval:         tp("expression", "window.hits = 99"),
		protocol.MethodDialog:       tp("accept", true, "timeoutMs", 500),
		protocol.MethodDownload:     tp("click", "#go", "timeoutMs", 500),
		protocol.MethodTabsOpen:     map[string]any{"url": origin + "/"},
		protocol.MethodTabsClose:    tp(),
		protocol.MethodTabsSelect:   tp(),
		protocol.MethodCookiesGet:   tp(),
		protocol.MethodCookiesSet:   tp("name", "a", "value", "hunter2"),
		protocol.MethodCookiesClear: tp(),
		protocol.MethodCDPSend:      tp("method", "Runtime.evaluate", "params", map[string]any{"expression": "window.hits = 77"}),
		protocol.MethodCDPSubscribe: tp(),

		protocol.MethodInspect:        tp("target", "#i"),
		protocol.MethodLocators:       tp("target", "#b"),
		protocol.MethodResize:         tp("width", 400, "height", 300),
		protocol.MethodNetworkRequest: tp("id", 1, "body", true),
		protocol.MethodStorageGet:     tp(),
	}
}

// needs is each method's need as PROTOCOL.md §3.7 lists it (methods
// that reach no tab are left out: none; owner methods: owner).
var needs = map[string]string{
	protocol.MethodSnapshot: "read", protocol.MethodResolve: "read", protocol.MethodScreenshot: "read",
	protocol.MethodConsoleList: "read", protocol.MethodNetworkList: "read", protocol.MethodScriptRun: "read",
	protocol.MethodWait:    "act", // with a function
	protocol.MethodCDPSend: "cdp", protocol.MethodCDPSubscribe: "cdp",
	protocol.MethodInspect: "read", protocol.MethodLocators: "read",
}

func needOf(method string) string {
	if n, ok := needs[method]; ok {
		return n
	}
	return "act"
}

// An unpaired, wrong-scope, origin-denied or revoked agent executes
// nothing in the page, for every method that reaches a tab; refused
// calls are in the audit log, one line each, without the typed text.
func TestAccessRefusalsChangeNothing(t *testing.T) {
	c := originsChain(t) // "denied" may not reach localhost
	stateDir := c.svc.stateDir
	base := serve(t, map[string]string{"/": accessPage, "/away": "<p>away</p>"})
	denied := strings.Replace(base, "127.0.0.1", "localhost", 1) // the same server, an origin "denied" may not reach
	tab := c.openTab(t, denied+"/")
	before, tabsBefore := effects(t, c, tab), tabCount(t, c)
	if !strings.Contains(before, `"hits":0`) {
		t.Fatalf("the page counted before any call: %s", before)
	}

	reader := dialToken(t, c, pairDirect(t, c, "reader", "read"))
	spacer := dialToken(t, c, pairDirect(t, c, "spacer", "space", "all-tabs"))
	deniedAgent := dialToken(t, c, pairDirect(t, c, "denied", "space", "all-tabs", "cdp"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A connection without a token is closed after a few refused calls:
	// a fresh one for each method.
	tokenless := func() *client.Client {
		none, err := client.Dial(ctx, c.svc.addr, "", client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { none.Close() })
		return none
	}
	revokedTok := pairDirect(t, c, "revoked", "space", "all-tabs", "cdp")
	if err := c.agent.Call(ctx, protocol.MethodAgentsRevoke, protocol.AgentNameParams{Name: "revoked"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Dial(ctx, c.svc.addr, revokedTok, client.Options{SkipProof: true}); protocol.CodeOf(err) != protocol.CodeRevoked {
		t.Fatalf("dial with a revoked token: got %v, want revoked", err)
	}

	params := methodParams(tab.Tab, denied)
	methods := make([]string, 0, len(params))
	for m := range params {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	deniedCalls := 0
	for _, m := range methods {
		type who struct {
			name string
			c    *client.Client
			want protocol.Code
		}
		cases := []who{{"unpaired", tokenless(), protocol.CodeUnauthorized}, {"denied", deniedAgent, protocol.CodeForbiddenOriginScope}}
		switch needOf(m) {
		case "act":
			cases = append(cases, who{"reader", reader, protocol.CodeScopeDenied})
		case "cdp":
			cases = append(cases, who{"reader", reader, protocol.CodeScopeDenied}, who{"spacer", spacer, protocol.CodeScopeDenied})
		}
		for _, w := range cases {
			cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			err := w.c.Call(cctx, m, params[m], nil)
			cancel()
			if got := protocol.CodeOf(err); got != w.want {
				t.Errorf("%s as %s: got %v, want %s", m, w.name, err, w.want.Name())
			}
			if w.name == "denied" {
				deniedCalls++
			}
		}
	}
	if after := effects(t, c, tab); after != before {
		t.Errorf("the page changed under refused calls:\nbefore %s\nafter  %s", before, after)
	}
	if got := tabCount(t, c); got != tabsBefore {
		t.Errorf("tabs changed under refused calls: before %s, after %s", tabsBefore, got)
	}

	// The audit log: one line per call of the denied agent (a script's
	// refused click is its own line too), never the typed text.
	lines, err := audit.Read(filepath.Join(stateDir, "audit.log"), audit.Filter{Agent: "denied", Since: c.since})
	if err != nil {
		t.Fatal(err)
	}
	if want := deniedCalls + 1; len(lines) != want {
		t.Errorf("audit lines of denied: got %d, want %d (one per call, plus the script's click)", len(lines), want)
	}
	for _, l := range lines {
		if l.Result != "forbidden_origin_scope" {
			t.Errorf("audit line %+v: want result forbidden_origin_scope", l)
		}
		if l.Method == protocol.MethodFill && (l.Length == nil || *l.Length != len("hunter2")) {
			t.Errorf("fill's audit line %+v: want length 7", l)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(stateDir, "audit.log"))
	if strings.Contains(string(raw), "hunter2") {
		t.Error("the audit log holds the typed text")
	}
}

// A denied origin is refused however the tab got there: goto is refused
// before it loads anything, and after the page itself takes the tab
// there (a link the agent clicked on an allowed page), every call on it
// is refused, checked against the tab's URL now.
func TestDeniedOriginAfterNavigation(t *testing.T) {
	c := originsChain(t) // "bot" may not reach localhost
	base := serve(t, map[string]string{"/": accessPage, "/away": accessPage})
	denied := strings.Replace(base, "127.0.0.1", "localhost", 1)
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space", "all-tabs"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var opened protocol.TabResult
	if err := bot.Call(ctx, protocol.MethodTabsOpen, map[string]any{"url": base + "/"}, &opened); err != nil {
		t.Fatalf("open an allowed page: %v", err)
	}
	tab := protocol.Target{Tab: opened.Tab.ID}
	err := bot.Call(ctx, protocol.MethodGoto, map[string]any{"tab": tab.Tab, "url": denied + "/"}, nil)
	if protocol.CodeOf(err) != protocol.CodeForbiddenOriginScope {
		t.Fatalf("goto the denied origin: got %v, want forbidden_origin_scope", err)
	}
	if got := effects(t, c, tab); !strings.Contains(got, `"loads":"1"`) {
		t.Errorf("the refused goto loaded something: %s", got)
	}

	// The page's own link takes the tab to the denied origin.
	if _, err := c.eval(ctx, tab, `document.getElementById("go").href = `+strconv.Quote(denied+"/away")+`; true`); err != nil {
		t.Fatal(err)
	}
	if err := bot.Call(ctx, protocol.MethodClick, map[string]any{"tab": tab.Tab, "target": "#go"}, nil); err != nil {
		t.Fatalf("click the link on the allowed page: %v", err)
	}
	for {
		v, err := c.eval(ctx, tab, "location.host + ' ' + document.readyState")
		if err == nil && strings.HasPrefix(string(v), `"localhost`) && strings.Contains(string(v), "complete") {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the link never took the tab to %s: %v %s", denied, err, v)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, m := range []string{protocol.MethodClick, protocol.MethodSnapshot, protocol.MethodFill, protocol.MethodEval} {
		p := map[string]any{"tab": tab.Tab, "target": "#b"}
		switch m {
		case protocol.MethodSnapshot:
			delete(p, "target")
		case protocol.MethodFill:
			p["target"], p["text"] = "#i", "hunter2"
		case protocol.MethodEval:
			delete(p, "target")
			p["expression"] = "window.hits = 99"
		}
		if err := bot.Call(ctx, m, p, nil); protocol.CodeOf(err) != protocol.CodeForbiddenOriginScope {
			t.Errorf("%s after the page went to the denied origin: got %v, want forbidden_origin_scope", m, err)
		}
	}
	if got := effects(t, c, tab); !strings.Contains(got, `"hits":0`) || !strings.Contains(got, `"value":""`) {
		t.Errorf("calls on the denied origin changed the page: %s", got)
	}
}

// The whole person-facing flow with the real binary: `egohost pair` asks,
// `egohost agents approve` says yes, the token file is owner-only and
// the CLI works as that agent within its scopes; the audit log has the
// agent's fill with its length and not its text; `egohost agents revoke`
// cuts the agent's live connection.
func TestPairCLIAndRevoke(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": accessPage})
	tab := c.openTab(t, base+"/")
	env := chainEnv(c.svc.stateDir)

	pair := exec.Command(theSuite.bin, "pair", "--name", "writer", "--scope", "space,all-tabs")
	pair.Env = env
	var pairOut, pairErr strings.Builder
	pair.Stdout, pair.Stderr = &pairOut, &pairErr
	if err := pair.Start(); err != nil {
		t.Fatal(err)
	}
	// The person approves with the CLI once the request is there.
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, _, code := runCLI(env, "agents", "list")
		if code == 0 && strings.Contains(out, "WAITING") && strings.Contains(out, "writer") {
			if !strings.Contains(out, "(pid "+strconv.Itoa(pair.Process.Pid)+")") {
				t.Errorf("agents list does not name the process that asked (pid %d):\n%s", pair.Process.Pid, out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pending request in agents list: %s\n%s", out, pairErr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// approve shows what it would grant, and grants it only with --yes.
	if out, errOut, code := runCLI(env, "agents", "approve", "writer"); code != 2 || !strings.Contains(out, "all-tabs") || !strings.Contains(out, "every tab") || !strings.Contains(errOut, "--yes") {
		t.Fatalf("agents approve without --yes: code %d, want 2 with the scopes shown\n%s%s", code, out, errOut)
	}
	if out, errOut, code := runCLI(env, "agents", "approve", "writer", "--yes"); code != 0 {
		t.Fatalf("agents approve --yes: %d %s %s", code, out, errOut)
	}
	if err := pair.Wait(); err != nil {
		t.Fatalf("egohost pair: %v\n%s", err, pairErr.String())
	}
	tokFile := filepath.Join(c.svc.stateDir, "agents", "writer.token")
	st, err := os.Stat(tokFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v; want 0600\n%s", err, st, pairOut.String())
	}

	agentEnv := append(append([]string{}, env...), "EGOHOST_AGENT_TOKEN_FILE="+tokFile)
	if out, errOut, code := runCLI(agentEnv, "fill", "#i", "hunter2", "--tab", strconv.Itoa(tab.Tab)); code != 0 {
		t.Fatalf("fill as writer: %d %s %s", code, out, errOut)
	}
	if got := effects(t, c, tab); !strings.Contains(got, `"value":"hunter2"`) {
		t.Errorf("writer's fill did not reach the page: %s", got)
	}
	lines, _ := audit.Read(filepath.Join(c.svc.stateDir, "audit.log"), audit.Filter{Agent: "writer", Since: c.since})
	if len(lines) != 1 || lines[0].Method != "fill" || lines[0].Length == nil || *lines[0].Length != 7 || lines[0].Target != "#i" || lines[0].Result != "ok" || !strings.HasPrefix(lines[0].Origin, "http://127.0.0.1:") {
		t.Errorf("writer's audit: got %+v, want one ok fill of #i, length 7, on the page's origin", lines)
	}
	out, _, code := runCLI(env, "audit", "--agent", "writer")
	if code != 0 || !strings.Contains(out, "fill") || strings.Contains(out, "hunter2") {
		t.Errorf("egohost audit: code %d\n%s", code, out)
	}

	// Revoke cuts a live connection at once, even one in a long wait.
	tok, _ := client.ReadToken(tokFile)
	live := dialToken(t, c, tok)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waitErr := make(chan error, 1)
	go func() {
		waitErr <- live.Call(ctx, protocol.MethodWait, map[string]any{"tab": tab.Tab, "text": "never shows up", "timeoutMs": 30000}, nil)
	}()
	revoke := exec.Command(theSuite.bin, "agents", "revoke", "writer")
	revoke.Env = env
	started := time.Now()
	outb, err := revoke.Output()
	if err != nil || !strings.Contains(string(outb), "1 live connections cut") {
		t.Fatalf("agents revoke: %v %s", err, outb)
	}
	revoked := time.Now()
	wantCut(t, waitErr, "the revoked agent's wait (timeoutMs 30000)", "`egohost agents revoke`")
	t.Logf("revoke: the agent's in-flight call ended %v after `egohost agents revoke` returned, %v after it started (process start included)", time.Since(revoked), time.Since(started))
	if _, errOut, code := runCLI(agentEnv, "snapshot", "--tab", strconv.Itoa(tab.Tab)); code == 0 || !strings.Contains(errOut, "revoked") {
		t.Errorf("snapshot with the revoked token: code %d, %s; want refused as revoked", code, errOut)
	}
}

func runCLI(env []string, args ...string) (stdout, stderr string, code int) {
	return runEgohost(env, nil, args...)
}

// `egohost mcp` pairs itself on first use (the person approves once),
// keeps its token owner-only, and reuses it the next time without asking.
func TestMCPPairsItselfOnce(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": accessPage})
	c.openTab(t, base+"/")
	cs, _ := startMCP(t, c.svc.stateDir) // approves "e2e", the MCP client's name, when it asks
	// A paired agent works in its own space: its first navigate opens it.
	if r := callTool(t, cs, "browser_navigate", map[string]any{"url": base + "/"}); r.isErr {
		t.Fatalf("navigate through the paired MCP: %+v", r)
	}
	if r := callTool(t, cs, "browser_snapshot", nil); r.isErr || !strings.Contains(r.text, "button") {
		t.Fatalf("snapshot through the paired MCP: %+v", r)
	}
	tokFile := filepath.Join(c.svc.stateDir, "agents", "e2e.token")
	if st, err := os.Stat(tokFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("e2e token file: %v %v", err, st)
	}
	if agents := pairedAgents(context.Background(), t, c.agent); len(agents) != 1 || agents[0].Name != "e2e" || strings.Join(agents[0].Scopes, ",") != "space" {
		t.Fatalf("paired agents: got %+v, want e2e with space", agents)
	}
	// A second MCP server reuses the token: no new request, calls work at once.
	cs2, logs2 := startMCP(t, c.svc.stateDir)
	if r := callTool(t, cs2, "browser_snapshot", nil); r.isErr {
		t.Fatalf("snapshot through the second MCP: %+v", r)
	}
	if logs2.contains("asking to pair") {
		t.Errorf("the second egohost mcp asked to pair again:\n%s", logs2)
	}
	if agents := pairedAgents(context.Background(), t, c.agent); len(agents) != 1 || agents[0].Name != "e2e" {
		t.Errorf("after the second start: %+v, want the one pairing, still valid", agents)
	}
}

// The person approves in the real popup: the request shows there with
// the agent's name, its scopes and the process that asked, the icon's
// badge counts it, and the Approve button pairs the agent.
func TestPairingPopupApprove(t *testing.T) {
	c := useSharedChain(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	type paired struct {
		res *protocol.PairRequestResult
		err error
	}
	got := make(chan paired, 1)
	go func() {
		res, err := client.Pair(ctx, c.svc.addr, protocol.PairRequestParams{Name: "popup-bot", Scopes: []string{"read"}}, client.Options{})
		got <- paired{res, err}
	}()
	page := popupPage(t, c)
	eval := func(expr string) string {
		var res struct {
			Result struct {
				Value json.RawMessage `json:"value"`
			} `json:"result"`
		}
		if err := page.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
			t.Fatalf("popup: %v", err)
		}
		return string(res.Result.Value)
	}
	for {
		text := eval(`(async () => { const r = document.querySelector("#pairing-requests .request"); return r ? r.textContent + " badge=" + await chrome.action.getBadgeText({}) : ""; })()`)
		if strings.Contains(text, "popup-bot") {
			for _, want := range []string{"read pages", "(pid " + strconv.Itoa(os.Getpid()) + ")", "badge=1"} {
				if !strings.Contains(text, want) {
					t.Errorf("the popup's request %s: want %q in it", text, want)
				}
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the pairing request never showed in the popup")
		}
		time.Sleep(50 * time.Millisecond)
	}
	eval(`document.querySelector("#pairing-requests button.approve").click(), true`)
	p := <-got
	if p.err != nil {
		t.Fatalf("pair after Approve in the popup: %v", p.err)
	}
	if cl := dialToken(t, c, p.res.Token); cl.Call(ctx, protocol.MethodPing, nil, nil) != nil {
		t.Error("the token from the popup's approval does not work")
	}
	for eval(`chrome.action.getBadgeText({})`) != `""` {
		if ctx.Err() != nil {
			t.Fatal("the badge never cleared after the approval")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
