package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/protocol"
)

// toolsPage has what issue 25's tools read: a field, a checkbox, a
// password, storage, a POST with headers and a body, a second page.
const toolsPage = `<!doctype html><html><head><meta charset=utf-8><title>tools</title></head><body>
<script>window.appName = "shop"; localStorage.setItem("cart", "2 apples"); sessionStorage.setItem("step", "pay");</script>
<label>Name <input id=name></label>
<label><input type=checkbox id=terms> I accept the terms</label>
<label>Secret <input type=password id=pw value=hunter2></label>
<button id=place onclick="fetch('/api/echo', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Trace': 't1'}, body: JSON.stringify({order: 42})}).then(r => r.text()).then(t => { out.textContent = 'sent: ' + t; })">Place order</button>
<p id=out></p>
<a href="/b">next</a>
<a id=help href="/b" target=_blank>help</a>
</body></html>`

// serveTools serves toolsPage, /b and an echo API that answers what it
// got, with a header of its own.
func serveTools(t *testing.T) string {
	pages := browsertest.Pages(map[string]string{"/tools": toolsPage, "/b": `<!doctype html><title>b</title><p>page b</p>`})
	return serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/echo" {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("X-Echo", "yes")
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"got":` + strconv.Quote(string(body)) + `}`))
			return
		}
		pages.ServeHTTP(w, r)
	}))
}

// pageTab reads the tab ID from a page header: `page: URL "title" (tab 12)`.
func pageTab(t *testing.T, out string) int {
	t.Helper()
	m := regexp.MustCompile(`\(tab (\d+)\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no tab in:\n%s", out)
	}
	return atoi(t, m[1])
}

// The tools issue 25 adds, through `egohost mcp` (paired as the client's
// name, with --caps testing), the real service, extension and Chromium.
func TestMCPToolsThroughChain(t *testing.T) {
	c := quietChain(t) // not about confirmations: its clicks go unasked
	base := serveTools(t)
	cs, logs := startMCP(t, c.svc.stateDir, "--caps", "testing")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("egohost mcp stderr:\n%s\nservice log:\n%s", logs, c.svc.logs)
		}
	})
	ctx := ctxT(t, 240*time.Second)
	out := ok(t, cs, "browser_navigate", map[string]any{"url": base + "/tools"}, `textbox "Name"`)
	tab := pageTab(t, out)
	page := func(expr string) string { t.Helper(); return pageText(t, ctx, c, tab, expr) }

	t.Run("history", func(t *testing.T) {
		ok(t, cs, "browser_navigate", map[string]any{"url": base + "/b"})
		ok(t, cs, "browser_navigate_back", nil, "went back to "+base+"/tools", `textbox "Name"`)
		ok(t, cs, "browser_navigate_forward", nil, "went forward to "+base+"/b", `page: `+base+`/b "b"`)
		ok(t, cs, "browser_reload", nil, "reloaded "+base+"/b", `page: `+base+`/b "b"`)
		fails(t, cs, "browser_navigate_forward", nil, "navigation_failed")
		ok(t, cs, "browser_navigate_back", nil, "went back to "+base+"/tools")
	})
	t.Run("evaluate on an element, in the page's world", func(t *testing.T) {
		ok(t, cs, "browser_evaluate", map[string]any{"function": "(el) => window.appName + ':' + el.id", "target": "#name"}, `"shop:name"`)
		ref := refOf(t, ok(t, cs, "browser_snapshot", nil), `textbox "Name"`)
		ok(t, cs, "browser_evaluate", map[string]any{"function": "async (el) => { el.value = 'typed'; return el.value; }", "ref": ref}, `"typed"`)
		fails(t, cs, "browser_evaluate", map[string]any{"function": "(el) => el.id", "target": "#nowhere"}, "timeout")
		fails(t, cs, "browser_evaluate", map[string]any{"function": "(el) => { throw new Error('nope') }", "target": "#name"}, "js_exception", "nope")
	})
	t.Run("verify", func(t *testing.T) {
		ok(t, cs, "browser_type", map[string]any{"target": "#name", "text": "Ada"}, "filled")
		ok(t, cs, "browser_verify_value", map[string]any{"type": "textbox", "element": "Name", "target": "#name", "value": "Ada"}, `verified: <input id="name"> is "Ada"`)
		fails(t, cs, "browser_verify_value", map[string]any{"type": "textbox", "target": "#name", "value": "Bob"}, "verify_failed", `the value is "Ada", want "Bob"`)
		// A password field reads as dots: the tool never learns it.
		fails(t, cs, "browser_verify_value", map[string]any{"type": "textbox", "target": "#pw", "value": "hunter2"}, "verify_failed", `the value is "•••••••"`)
		ok(t, cs, "browser_click", map[string]any{"target": "#terms"}, "clicked")
		ok(t, cs, "browser_verify_value", map[string]any{"type": "checkbox", "target": "label=I accept the terms", "value": "true"}, "verified")
		ok(t, cs, "browser_verify_element_visible", map[string]any{"role": "button", "accessibleName": "Place order"}, `verified: button "Place order" is visible`)
		fails(t, cs, "browser_verify_element_visible", map[string]any{"role": "button", "accessibleName": "Cancel order"}, "verify_failed", `no visible button "Cancel order"`)
		ok(t, cs, "browser_verify_text_visible", map[string]any{"text": "I accept the terms"}, "verified")
		fails(t, cs, "browser_verify_text_visible", map[string]any{"text": "hunter2"}, "verify_failed")
	})
	t.Run("generate a locator", func(t *testing.T) {
		ok(t, cs, "browser_generate_locator", map[string]any{"target": "#place"}, `role=button[name="Place order"]`, "also: ")
		ok(t, cs, "browser_generate_locator", map[string]any{"target": "#name"}, `role=textbox[name="Name"]`)
		fails(t, cs, "browser_generate_locator", map[string]any{"target": "css=input"}, "ambiguous", "3 elements")
	})
	t.Run("one request's details", func(t *testing.T) {
		ok(t, cs, "browser_click", map[string]any{"target": "#place"})
		ok(t, cs, "browser_wait_for", map[string]any{"text": "sent:"})
		list := ok(t, cs, "browser_network_requests", nil, "[POST] "+base+"/api/echo => [200] OK")
		m := regexp.MustCompile(`#(\d+) \[POST\] ` + regexp.QuoteMeta(base+"/api/echo")).FindStringSubmatch(list)
		if m == nil {
			t.Fatalf("no numbered POST in:\n%s", list)
		}
		n := atoi(t, m[1])
		all := ok(t, cs, "browser_network_request", map[string]any{"index": n},
			"#"+m[1]+" [POST] "+base+"/api/echo => [200] OK (application/json)",
			"request headers:", "X-Trace: t1", "request body:\n{\"order\":42}",
			"response headers:", "X-Echo: yes", `response body:`+"\n"+`{"got":"{\"order\":42}"}`)
		if strings.Contains(all, "[cut") {
			t.Errorf("a small body was cut:\n%s", all)
		}
		body := ok(t, cs, "browser_network_request", map[string]any{"index": n, "part": "response-body"}, `{"got":`)
		if strings.Contains(body, "headers") {
			t.Errorf("part response-body answered more:\n%s", body)
		}
		fails(t, cs, "browser_network_request", map[string]any{"index": 99999}, "invalid_params", "has no request 99999")
	})
	t.Run("storage", func(t *testing.T) {
		ok(t, cs, "browser_storage", nil, "localStorage item(s) of "+base, "cart = 2 apples")
		ok(t, cs, "browser_storage", map[string]any{"type": "session"}, "step = pay")
		if out := ok(t, cs, "browser_storage", map[string]any{"key": "cart"}, "1 localStorage item(s)"); !strings.Contains(out, "cart = 2 apples") {
			t.Errorf("key cart: %s", out)
		}
	})
	t.Run("resize", func(t *testing.T) {
		before := page("String(innerWidth)")
		ok(t, cs, "browser_resize", map[string]any{"width": 500, "height": 400}, "the viewport of tab "+itoa(tab)+" is 500 × 400")
		if got := page("innerWidth + 'x' + innerHeight"); got != "500x400" {
			t.Errorf("the page's viewport: got %s, want 500x400", got)
		}
		ok(t, cs, "browser_resize", map[string]any{"width": 0, "height": 0}, "(its window's own size)")
		if got := page("String(innerWidth)"); got != before {
			t.Errorf("after 0 × 0 the viewport is %s wide, want %s again", got, before)
		}
		fails(t, cs, "browser_resize", map[string]any{"width": 100000, "height": 100000}, "invalid_params")
		fails(t, cs, "browser_resize", map[string]any{"width": 0, "height": 5}, "invalid_params")
	})
	t.Run("a click that opens a tab", func(t *testing.T) {
		out := ok(t, cs, "browser_click", map[string]any{"target": "#help"}, "; opened tab ", " on "+base+"/b (browser_tabs select acts there; this tab stays current)")
		m := regexp.MustCompile(`opened tab (\d+) on`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no tab ID in:\n%s", out)
		}
		opened := atoi(t, m[1])
		t.Cleanup(func() {
			_ = c.agent.Call(ctxT(t, 10*time.Second), protocol.MethodTabsClose, protocol.TabParams{Target: protocol.Target{Tab: opened}}, nil)
		})
		ok(t, cs, "browser_tabs", map[string]any{"action": "list"}, base+"/b")
		ok(t, cs, "browser_evaluate", map[string]any{"function": "() => location.pathname"}, `"/tools"`)
	})
	t.Run("close", func(t *testing.T) {
		ok(t, cs, "browser_close", nil, "closed tab "+itoa(tab))
		if tabOpen(ctx, t, c, tab) {
			t.Errorf("tab %d is still open", tab)
		}
	})
}

// The agent's side of its spaces over MCP: the person takes the space
// over, the agent's next call says to wait with browser_space_wait, the
// wait returns once the person hands it back (with the page as the
// person left it), and browser_space_complete ends the space.
func TestMCPSpacesFlow(t *testing.T) {
	c := useSharedChain(t)
	base := serveTools(t)
	cs, logs := startMCPAs(t, c.svc.stateDir, "spaces-e2e")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("egohost mcp stderr:\n%s\nservice log:\n%s", logs, c.svc.logs)
		}
	})
	ctx := ctxT(t, 180*time.Second)
	out := ok(t, cs, "browser_space_new", map[string]any{"task": "buy milk", "url": base + "/tools"}, "started space ", `"🤖 spaces-e2e: buy milk"`, `textbox "Name"`)
	tab := pageTab(t, out)
	var sl protocol.SpacesListResult
	if err := c.agent.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{Agent: "spaces-e2e"}, &sl); err != nil || len(sl.Spaces) != 1 {
		t.Fatalf("the agent's spaces: %+v, %v", sl, err)
	}
	space := sl.Spaces[0].ID
	ok(t, cs, "browser_spaces", nil, space+` "🤖 spaces-e2e: buy milk": yours`, "[tab "+itoa(tab)+"] (current)")

	if err := c.agent.Call(ctx, protocol.MethodSpacesTakeOver, protocol.SpaceParams{Space: space}, nil); err != nil {
		t.Fatal(err)
	}
	fails(t, cs, "browser_click", map[string]any{"target": "#terms"}, "user_in_control", "browser_space_wait")
	ok(t, cs, "browser_spaces", nil, "the user has it (wait with browser_space_wait)")
	fails(t, cs, "browser_space_wait", map[string]any{"timeout": 0.3}, "timeout", "the user still has space "+space, "call browser_space_wait again")

	var wg sync.WaitGroup
	var waited toolResult
	wg.Add(1)
	go func() {
		defer wg.Done()
		waited = callTool(t, cs, "browser_space_wait", nil)
	}()
	// The person does something in the page, then hands it back.
	if _, err := c.eval(ctx, protocol.Target{Tab: tab}, `document.title = "edited by the person"`); err != nil {
		t.Fatal(err)
	}
	if err := c.agent.Call(ctx, protocol.MethodSpacesHandBack, protocol.SpaceParams{Space: space}, nil); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if waited.isErr || !strings.Contains(waited.text, "you are in control of space "+space+" again") || !strings.Contains(waited.text, `"edited by the person"`) {
		t.Errorf("browser_space_wait: got %q (error %t), want control back and the page as the person left it", waited.text, waited.isErr)
	}
	ok(t, cs, "browser_click", map[string]any{"target": "#terms"}, "clicked")
	if got := pageText(t, ctx, c, tab, "String(document.getElementById('terms').checked)"); got != "true" {
		t.Errorf("the click after the hand back: checked %s", got)
	}

	ok(t, cs, "browser_space_complete", nil, "completed space "+space, "closed tab "+itoa(tab))
	if tabOpen(ctx, t, c, tab) {
		t.Errorf("tab %d of the completed space is still open", tab)
	}
	if err := c.agent.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{Agent: "spaces-e2e"}, &sl); err != nil || len(sl.Spaces) != 0 {
		t.Errorf("spaces after complete: %+v, %v; want none", sl, err)
	}
	ok(t, cs, "browser_spaces", nil, "no spaces yet")
}

// Each MCP client pairs as its own agent, named after its clientInfo
// (or --name): two clients are two identities, with their own token
// files, spaces and audit names, not one shared "mcp".
func TestMCPNamesItsAgentAfterTheClient(t *testing.T) {
	c := useSharedChain(t)
	base := serveTools(t)
	ctx := ctxT(t, 120*time.Second)
	type run struct {
		client, agent string
		args          []string
	}
	for _, r := range []run{{"claude-code", "claude-code", nil}, {"Gemini CLI", "Gemini-CLI", nil}, {"claude-code", "ci-bot", []string{"--name", "ci-bot"}}} {
		cs, logs := startMCPAs(t, c.svc.stateDir, r.client, r.args...)
		if res := callTool(t, cs, "browser_navigate", map[string]any{"url": base + "/tools?who=" + r.agent}); res.isErr {
			t.Fatalf("%s: navigate: %s\n%s", r.agent, res.text, logs)
		}
		if !logs.contains(`paired as "` + r.agent + `"`) {
			t.Errorf("%s's stderr: %s; want it paired as %q", r.client, logs, r.agent)
		}
		tok := filepath.Join(c.svc.stateDir, "agents", r.agent+".token")
		if st, err := os.Stat(tok); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: token file %s: %v %v", r.agent, tok, err, st)
		}
	}
	var names []string
	for _, a := range pairedAgents(ctx, t, c.agent) {
		names = append(names, a.Name)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "Gemini-CLI,ci-bot,claude-code" {
		t.Errorf("paired agents %v, want claude-code, Gemini-CLI and ci-bot", names)
	}
	var sl protocol.SpacesListResult
	if err := c.agent.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{All: true}, &sl); err != nil {
		t.Fatal(err)
	}
	owners := map[string]bool{}
	for _, sp := range sl.Spaces {
		owners[sp.Agent] = true
	}
	for _, want := range []string{"claude-code", "Gemini-CLI", "ci-bot"} {
		if !owners[want] {
			t.Errorf("no space of %s among %+v", want, sl.Spaces)
		}
	}
}

// The methods behind the new tools, as a hostile default-scope agent
// would try them: nothing reaches the person's tab (its viewport, its
// requests, its storage, its fields), a request to an origin the agent's
// rules deny is not read even from its own tab, and huge or bad params
// are refused before anything happens.
func TestNewMethodsAsHostileAgent(t *testing.T) {
	c := originsChain(t) // "bot" may not reach localhost
	base := serveTools(t)
	denied := strings.Replace(base, "127.0.0.1", "localhost", 1)
	ctx := ctxT(t, 120*time.Second)
	person := c.openTab(t, base+"/tools")
	// The person's own request, recorded on their tab.
	if _, err := c.eval(ctx, person, `fetch("/api/echo", {method: "POST", body: "card=4242"}).then(r => r.text())`); err != nil {
		t.Fatal(err)
	}
	widthBefore := pageText(t, ctx, c, person.Tab, "String(innerWidth)")

	bot, own := botSpace(t, c, "bot", base+"/tools")
	call := func(method string, params map[string]any, out any) error {
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		return bot.Call(cctx, method, params, out)
	}
	onPerson := map[string]map[string]any{
		protocol.MethodResize:         {"tab": person.Tab, "width": 200, "height": 200},
		protocol.MethodNetworkRequest: {"tab": person.Tab, "id": 1, "body": true},
		protocol.MethodStorageGet:     {"tab": person.Tab},
		protocol.MethodInspect:        {"tab": person.Tab, "target": "#pw"},
		protocol.MethodLocators:       {"tab": person.Tab, "target": "#place"},
		protocol.MethodEval:           {"tab": person.Tab, "expression": "(el) => el.value", "target": "#pw"},
	}
	for method, params := range onPerson {
		refused(t, method+" on the person's tab", call(method, params, nil), protocol.CodeNotInSpace)
	}
	if got := pageText(t, ctx, c, person.Tab, "String(innerWidth)"); got != widthBefore {
		t.Errorf("the person's viewport is %s wide after the refused resize, want %s", got, widthBefore)
	}

	// On its own tab: a request to an origin its rules deny is not read,
	// one to its own origin is.
	if err := call(protocol.MethodEval, map[string]any{"tab": own.Tab, "expression": `Promise.all([fetch("` + denied + `/api/echo", {method: "POST", body: "secret=1"}).then(r => r.text()), fetch("/api/echo", {method: "POST", body: "mine=1"}).then(r => r.text())])`}, nil); err != nil {
		t.Fatalf("the bot's fetches: %v", err)
	}
	var nl protocol.NetworkListResult
	if err := call(protocol.MethodNetworkList, map[string]any{"tab": own.Tab}, &nl); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, q := range nl.Requests {
		if q.Method == "POST" {
			ids[strings.SplitN(q.URL, "/api", 2)[0]] = q.ID
		}
	}
	if ids[denied] == 0 || ids[base] == 0 {
		t.Fatalf("the bot's POSTs: %+v", nl.Requests)
	}
	refused(t, "the denied origin's request", call(protocol.MethodNetworkRequest, map[string]any{"tab": own.Tab, "id": ids[denied], "body": true}, nil), protocol.CodeForbiddenOriginScope)
	var nr protocol.NetworkRequestResult
	if err := call(protocol.MethodNetworkRequest, map[string]any{"tab": own.Tab, "id": ids[base], "body": true}, &nr); err != nil {
		t.Fatalf("its own origin's request: %v", err)
	}
	if nr.RequestBody == nil || nr.RequestBody.Text != "mine=1" || nr.ResponseBody == nil || !strings.Contains(nr.ResponseBody.Text, "mine=1") {
		b, _ := json.Marshal(nr)
		t.Errorf("its own request: %s", b)
	}

	bad := []struct {
		method string
		params map[string]any
	}{
		{protocol.MethodResize, map[string]any{"tab": own.Tab, "width": 100000, "height": 100000}},
		{protocol.MethodResize, map[string]any{"tab": own.Tab, "width": -1, "height": 10}},
		{protocol.MethodNetworkRequest, map[string]any{"tab": own.Tab, "id": ids[base], "body": true, "maxBytes": 1 << 30}},
		{protocol.MethodNetworkRequest, map[string]any{"tab": own.Tab, "id": -3}},
		{protocol.MethodStorageGet, map[string]any{"tab": own.Tab, "kind": "cookies"}},
		{protocol.MethodInspect, map[string]any{"tab": own.Tab}},
	}
	for _, b := range bad {
		refused(t, b.method+" with bad params", call(b.method, b.params, nil), protocol.CodeInvalidParams)
	}
	// The browser is still there and answers.
	if got := pageText(t, ctx, c, person.Tab, "document.title"); got != "tools" {
		t.Errorf("the person's tab after it all: %q", got)
	}
}
