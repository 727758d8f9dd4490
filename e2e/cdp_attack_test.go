package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/protocol"
)

// Raw CDP in a paired agent's hands, as a prompt injection would use it
// (issue 22, item 6), and the navigation that crashed the person's whole
// browser (item 14): real Chromium, the real extension, relay and service.

var popupURL = "chrome-extension://" + extension.ID + "/popup.html"

// cdpSend is a raw CDP call through the chain as agent c.
func cdpSend(ctx context.Context, c *client.Client, tab int, method string, params, out any) error {
	raw, _ := json.Marshal(params)
	if params == nil {
		raw = nil
	}
	return c.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: tab}, Method: method, Params: raw}, out)
}

// openAs opens url in a tab of agent c's own space and returns the tab.
func openAs(t *testing.T, c *client.Client, url string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var r protocol.TabResult
	if err := c.Call(ctx, protocol.MethodTabsOpen, map[string]any{"url": url}, &r); err != nil {
		t.Fatalf("tabs.open %s: %v", url, err)
	}
	return r.Tab.ID
}

// pendingPairing starts a pairing request for name that waits for the
// person, and returns once the service lists it.
func pendingPairing(t *testing.T, c *chain, name string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		client.Pair(ctx, c.svc.addr, protocol.PairRequestParams{Name: name, WaitMs: 120000}, client.Options{})
	}()
	t.Cleanup(func() { cancel(); <-done })
	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer wcancel()
	for !isPending(wctx, t, c, name) {
		if wctx.Err() != nil {
			t.Fatalf("the pairing request of %s never showed", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func isPending(ctx context.Context, t *testing.T, c *chain, name string) bool {
	t.Helper()
	var l protocol.AgentsListResult
	if err := c.agent.Call(ctx, protocol.MethodAgentsList, nil, &l); err != nil {
		t.Fatal(err)
	}
	for _, r := range l.Pending {
		if r.Name == name {
			return true
		}
	}
	return false
}

// automationStopped reads the Stop-all switch as the service holds it.
func automationStopped(t *testing.T, c *chain) bool {
	t.Helper()
	var bl protocol.BrowsersListResult
	if err := c.agent.Call(context.Background(), protocol.MethodBrowsersList, nil, &bl); err != nil {
		t.Fatal(err)
	}
	return len(bl.Browsers) > 0 && bl.Browsers[0].AutomationStopped
}

// attachTarget attaches the test's own DevTools session to the page
// target at url (the oracle: it is not the extension's debugger).
func attachTarget(ctx context.Context, t *testing.T, c *chain, url string) *ui {
	t.Helper()
	for {
		if p := attachPage(ctx, t, c, url); p != nil {
			return p
		}
		if ctx.Err() != nil {
			t.Fatalf("no page target at %s", url)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The attack of issue 22: a paired agent with the cdp scope takes its own
// tab to the extension's popup page and runs chrome.runtime.sendMessage
// there, which the extension's worker takes as the person (approve a
// pairing, switch Stop all). Every wall is tried on its own: the service
// refuses the navigation and the tab, the extension refuses to debug the
// page whoever asks, and the worker refuses the popup page's messages when
// its tab is one egohost's debugger controlled.
func TestCDPPopupAttackRefused(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>agent page</title><p>hello`})
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space", "cdp"))
	tab := openAs(t, bot, base+"/")
	pendingPairing(t, c, "mallory")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// 1. The agent navigates its tab to the popup with raw CDP.
	err := cdpSend(ctx, bot, tab, "Page.navigate", map[string]any{"url": popupURL}, nil)
	if protocol.CodeOf(err) != protocol.CodeScopeDenied {
		t.Errorf("cdp Page.navigate to the popup: got %v, want scope_denied", err)
	}
	// 2. … and, had it got there (or were it there already), asks the
	// popup's channel to approve its accomplice and to stop nothing.
	approve := `chrome.runtime.sendMessage({type: "service.call", method: "popup.pairing.decide", params: {name: "mallory", approve: true}}).then(JSON.stringify)`
	var out json.RawMessage
	err = cdpSend(ctx, bot, tab, "Runtime.evaluate", map[string]any{"expression": approve, "awaitPromise": true, "returnByValue": true}, &out)
	t.Logf("the agent's sendMessage: %v %s", err, out)
	if !isPending(ctx, t, c, "mallory") {
		t.Fatal("the agent approved a pairing through the popup page")
	}

	// The page gets there anyway (here: the test's own DevTools connection
	// navigates it, as a person typing the address would).
	page := attachTarget(ctx, t, c, base+"/")
	if err := page.s.Call(ctx, "Page.navigate", map[string]any{"url": popupURL}, nil); err != nil {
		t.Fatal(err)
	}
	page.waitFor(ctx, "the popup page in the agent's tab", `location.href.startsWith("chrome-extension:") && document.readyState === "complete"`)
	// The service refuses the tab to the agent, for raw CDP and the rest.
	for _, call := range []struct {
		method string
		params any
	}{
		{protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: tab}, Method: "Runtime.evaluate", Params: json.RawMessage(`{"expression":"1"}`)}},
		{protocol.MethodEval, map[string]any{"tab": tab, "expression": approve}},
		{protocol.MethodSnapshot, map[string]any{"tab": tab}},
	} {
		if err := waitRefused(ctx, bot, call.method, call.params); protocol.CodeOf(err) != protocol.CodeForbiddenOriginScope {
			t.Errorf("%s on the popup page as the agent: got %v, want forbidden_origin_scope", call.method, err)
		}
	}
	// The extension refuses to debug the page even for the owner (whom
	// the service lets through): no egohost call runs code there.
	err = cdpSend(ctx, c.agent, tab, "Runtime.evaluate", map[string]any{"expression": approve, "awaitPromise": true}, nil)
	if pe := (*protocol.Error)(nil); !errors.As(err, &pe) || pe.Code != protocol.CodeForbiddenOriginScope || pe.Data["extensionCode"] != "forbidden_page" {
		t.Errorf("owner's Runtime.evaluate on the popup page: got %v, want forbidden_page from the extension", err)
	}
	// And code that got into the page anyway (the oracle runs it) is not
	// the person: the worker refuses the popup page of a tab egohost's
	// debugger controlled.
	var answer string
	page.eval(ctx, approve, &answer)
	if !strings.Contains(answer, "scope_denied") {
		t.Errorf("sendMessage from the popup page in the agent's tab: got %s, want scope_denied", answer)
	}
	page.eval(ctx, `chrome.runtime.sendMessage({type: "automation", stopped: true}).then(JSON.stringify)`, &answer)
	if !strings.Contains(answer, "scope_denied") {
		t.Errorf("Stop all from the popup page in the agent's tab: got %s, want scope_denied", answer)
	}
	if !isPending(ctx, t, c, "mallory") {
		t.Error("the pairing was approved from the agent's tab")
	}
	if automationStopped(t, c) {
		t.Error("Stop all was switched from the agent's tab")
	}

	// The popup in a tab nobody debugs (the person's, the tests') still works.
	popup := popupPage(t, c)
	a, err := serviceCall(ctx, popup, protocol.MethodPopupStatus, nil)
	for (err != nil || a.Error != nil && a.Error.Name == "service_down") && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond) // the page is still loading
		a, err = serviceCall(ctx, popup, protocol.MethodPopupStatus, nil)
	}
	if err != nil || a.Error != nil {
		t.Errorf("popup.status from the popup in its own tab: %v %+v", err, a.Error)
	}
}

// waitRefused calls method until it fails with something else than a
// refusal for a tab the service has not yet seen move (the tab's URL comes
// with the browser's tab events), and returns the error.
func waitRefused(ctx context.Context, c *client.Client, method string, params any) error {
	for {
		err := c.Call(ctx, method, params, nil)
		if protocol.CodeOf(err) == protocol.CodeForbiddenOriginScope || ctx.Err() != nil {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// DOM.setFileInputFiles reads a local file by its path: refused to a
// paired agent, and nothing reaches the input.
func TestCDPFileInputRefused(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>upload</title><input type=file id=f>`})
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space", "cdp"))
	tab := openAs(t, bot, base+"/")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	var obj struct {
		Result struct {
			ObjectID string `json:"objectId"`
		} `json:"result"`
	}
	if err := cdpSend(ctx, bot, tab, "Runtime.evaluate", map[string]any{"expression": `document.getElementById("f")`}, &obj); err != nil {
		t.Fatal(err)
	}
	err := cdpSend(ctx, bot, tab, "DOM.setFileInputFiles", map[string]any{"files": []string{secret}, "objectId": obj.Result.ObjectID}, nil)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeScopeDenied || pe.Data["method"] != "DOM.setFileInputFiles" {
		t.Errorf("DOM.setFileInputFiles with %s: got %v, want scope_denied naming the method", secret, err)
	}
	v, err := evalWith(ctx, c.agent, protocol.Target{Tab: tab}, `document.getElementById("f").files.length`)
	if err != nil || string(v) != "0" {
		t.Errorf("the input holds %s files (%v), want 0", v, err)
	}
	// The owner keeps raw CDP whole.
	if err := cdpSend(ctx, c.agent, tab, "DOM.setFileInputFiles", map[string]any{"files": []string{secret}, "objectId": obj.Result.ObjectID}, nil); err != nil {
		t.Errorf("the owner's DOM.setFileInputFiles: %v", err)
	}
}

// Cookies of another origin (here localhost, while the agent's tab is on
// 127.0.0.1) are out of a paired agent's reach through raw CDP; its own
// origin's are not.
func TestCDPCookiesRefused(t *testing.T) {
	c := useSharedChain(t)
	base := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cr3t-of-the-person", HttpOnly: true, Path: "/"})
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<title>t</title><p>hi`))
	}))
	other := strings.Replace(base, "127.0.0.1", "localhost", 1)
	c.openTab(t, other+"/login") // the person logs in on the other origin
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space", "cdp"))
	tab := openAs(t, bot, base+"/")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	for _, tt := range []struct {
		method string
		params any
	}{
		{"Network.getAllCookies", nil},
		{"Storage.getCookies", nil},
		{"Network.getCookies", map[string]any{"urls": []string{other + "/"}}},
		{"Network.getCookies", nil},
		{"Network.deleteCookies", map[string]any{"name": "session", "url": other + "/"}},
		{"Network.setCookie", map[string]any{"name": "session", "value": "fixed", "url": other + "/"}},
	} {
		var out json.RawMessage
		err := cdpSend(ctx, bot, tab, tt.method, tt.params, &out)
		if protocol.CodeOf(err) != protocol.CodeScopeDenied {
			t.Errorf("%s %v: got %v, want scope_denied", tt.method, tt.params, err)
		}
		if strings.Contains(string(out), "s3cr3t") {
			t.Errorf("%s gave the agent the person's session cookie: %s", tt.method, out)
		}
	}
	var own json.RawMessage
	if err := cdpSend(ctx, bot, tab, "Network.getCookies", map[string]any{"urls": []string{base + "/"}}, &own); err != nil {
		t.Errorf("cookies of the agent's own origin: %v", err)
	}
	var all struct {
		Cookies []struct{ Name, Value string } `json:"cookies"`
	}
	if err := cdpSend(ctx, c.agent, tab, "Network.getCookies", map[string]any{"urls": []string{other + "/"}}, &all); err != nil || !strings.Contains(fmt.Sprint(all.Cookies), "s3cr3t") {
		t.Errorf("the person's cookie, read by the owner: %v %v (it must be there for the test to mean anything)", err, all.Cookies)
	}
}

// A paired agent with raw CDP may make isolated worlds of its own, never
// one named as egohost's: egohost's engine takes a world of that name in a
// new document for its own (its token, its functions, the text a fill
// types), and the agent would hold its context. Params that Chrome and the
// checks could read two ways are refused: a name twice; a "URL" beside the
// "url" is checked as Chrome reads it (the "url"). egohost's own calls on
// the tab go on as before.
func TestCDPEgohostWorldRefused(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>w</title><label>Name <input id=name></label>`})
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space", "cdp"))
	tab := openAs(t, bot, base+"/")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var tree struct {
		FrameTree struct {
			Frame struct {
				ID string `json:"id"`
			} `json:"frame"`
		} `json:"frameTree"`
	}
	if err := cdpSend(ctx, bot, tab, "Page.getFrameTree", nil, &tree); err != nil {
		t.Fatal(err)
	}
	frame := tree.FrameTree.Frame.ID
	for _, name := range []string{"egohost", "egohost-overlay", "egohost2"} {
		err := cdpSend(ctx, bot, tab, "Page.createIsolatedWorld", map[string]any{"frameId": frame, "worldName": name}, nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeScopeDenied || pe.Data["method"] != "Page.createIsolatedWorld" {
			t.Errorf("a world named %q: got %v, want scope_denied", name, err)
		}
	}
	var mine struct {
		ContextID int64 `json:"executionContextId"`
	}
	if err := cdpSend(ctx, bot, tab, "Page.createIsolatedWorld", map[string]any{"frameId": frame, "worldName": "mine"}, &mine); err != nil || mine.ContextID == 0 {
		t.Errorf("a world of the agent's own: got %+v, %v, want its context", mine, err)
	}
	for _, tt := range []struct {
		params string
		want   protocol.Code
	}{
		{`{"url":"` + base + `/","url":"chrome://settings"}`, protocol.CodeInvalidParams},
		{`{"url":"chrome://settings","URL":"` + base + `/"}`, protocol.CodeScopeDenied},
		{`{"frameId":"` + frame + `","worldName":"mine","worldName":"egohost"}`, protocol.CodeInvalidParams},
	} {
		method := "Page.navigate"
		if strings.Contains(tt.params, "worldName") {
			method = "Page.createIsolatedWorld"
		}
		if err := cdpSend(ctx, bot, tab, method, json.RawMessage(tt.params), nil); protocol.CodeOf(err) != tt.want {
			t.Errorf("%s %s: got %v, want %s", method, tt.params, err, tt.want.Name())
		}
	}
	v, err := evalWith(ctx, c.agent, protocol.Target{Tab: tab}, "location.href")
	if err != nil || string(v) != `"`+base+`/"` {
		t.Errorf("the tab is at %s (%v), want it still at %s/", v, err, base)
	}
	if err := bot.Call(ctx, protocol.MethodFill, protocol.FillParams{Target: protocol.Target{Tab: tab}, Element: "label=Name", Text: "Ada"}, nil); err != nil {
		t.Fatalf("fill after the refusals: %v", err)
	}
	if v, err := evalWith(ctx, c.agent, protocol.Target{Tab: tab}, "document.getElementById('name').value"); err != nil || string(v) != `"Ada"` {
		t.Errorf("the field holds %s (%v), want Ada", v, err)
	}
}

// A paired agent with cdp is kept out of egohost's own worlds however it
// names them: every context ID of the tab's session and of an
// out-of-process frame's (egohost's worlds there made by a fill and a
// snapshot) probed one by one, the unique ID and the ID the agent's own
// subscription reports for the world Chrome makes in a new document, and
// a binding for worlds of egohost's name or for every world. resolve's
// object is in the page's own world, which the agent may use.
func TestCDPEgohostContextsRefused(t *testing.T) {
	c := useSharedChain(t)
	var base string
	base = browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/frame" {
			w.Write([]byte(`<title>frame</title><input aria-label=Inner>`))
			return
		}
		frame := strings.Replace(base, "127.0.0.1", "localhost", 1) + "/frame"
		w.Write([]byte(`<title>outer</title><script>window.mark = "page"</script><label>Name <input id=name></label><iframe src="` + frame + `"></iframe>`))
	}))
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space", "cdp"))
	tab := openAs(t, bot, base+"/")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// egohost's worlds in both sessions: a fill in each, and a snapshot.
	if err := bot.Call(ctx, protocol.MethodFill, protocol.FillParams{Target: protocol.Target{Tab: tab}, Element: "label=Name", Text: "Ada"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := bot.Call(ctx, protocol.MethodFill, protocol.FillParams{Target: protocol.Target{Tab: tab}, Element: "label=Inner", Text: "Bo"}, nil); err != nil {
		t.Fatal(err)
	}
	var snap protocol.SnapshotResult
	if err := bot.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: protocol.Target{Tab: tab}, Refs: true}, &snap); err != nil {
		t.Fatal(err)
	}
	child := ""
	for _, r := range snap.Refs {
		if r.SessionID != "" {
			child = string(r.SessionID)
		}
	}
	if child == "" {
		t.Fatalf("no out-of-process frame in the snapshot:\n%s", snap.Text)
	}
	const probe = `{"expression":"typeof globalThis.__egohostWorld1","returnByValue":true,"contextId":%d}`
	evalIn := func(who *client.Client, session, params string) (string, error) {
		var res struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		err := who.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: tab}, SessionID: session, Method: "Runtime.evaluate", Params: json.RawMessage(params)}, &res)
		return res.Result.Value, err
	}
	for _, session := range []string{"", child} {
		worlds := 0
		for id := 1; id <= 40; id++ {
			params := fmt.Sprintf(probe, id)
			owners, _ := evalIn(c.agent, session, params)
			got, err := evalIn(bot, session, params)
			if got == "string" {
				t.Errorf("session %q, context %d: the agent evaluated in egohost's world", session, id)
			}
			if owners != "string" {
				continue
			}
			worlds++
			if protocol.CodeOf(err) != protocol.CodeScopeDenied {
				t.Errorf("session %q, context %d (egohost's world): got %v, want scope_denied", session, id, err)
			}
			if worlds > 1 {
				continue
			}
			// An object of the first such world (the owner's), its ID
			// spelt as V8 also reads it.
			var obj struct {
				Result struct {
					ObjectID string `json:"objectId"`
				} `json:"result"`
			}
			if err := c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: tab}, SessionID: session, Method: "Runtime.evaluate", Params: json.RawMessage(fmt.Sprintf(`{"expression":"globalThis","contextId":%d}`, id))}, &obj); err != nil {
				t.Fatal(err)
			}
			iso, rest, _ := strings.Cut(obj.Result.ObjectID, ".")
			ctxID, n, _ := strings.Cut(rest, ".")
			for _, spelt := range []string{obj.Result.ObjectID, iso + ". " + ctxID + "." + n, iso + ".+0" + ctxID + "." + n} {
				p, _ := json.Marshal(map[string]any{"objectId": spelt, "functionDeclaration": "function() { return typeof this.__egohostWorld1 }", "returnByValue": true})
				err := bot.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: tab}, SessionID: session, Method: "Runtime.callFunctionOn", Params: p}, nil)
				if protocol.CodeOf(err) != protocol.CodeScopeDenied {
					t.Errorf("session %q: a call on egohost's global as %q: got %v, want scope_denied", session, spelt, err)
				}
			}
		}
		if worlds == 0 {
			t.Errorf("session %q: the owner's probe found no egohost world among contexts 1–40: the probe proves nothing", session)
		}
	}

	// A binding in every world of egohost's name.
	err := cdpSend(ctx, bot, tab, "Runtime.addBinding", map[string]any{"name": "leak", "executionContextName": "egohost"}, nil)
	if protocol.CodeOf(err) != protocol.CodeScopeDenied {
		t.Errorf("a binding for egohost's worlds: got %v, want scope_denied", err)
	}
	err = cdpSend(ctx, bot, tab, "Runtime.addBinding", map[string]any{"name": "String"}, nil)
	if protocol.CodeOf(err) != protocol.CodeScopeDenied {
		t.Errorf("a binding in every world: got %v, want scope_denied", err)
	}
	if err := cdpSend(ctx, bot, tab, "Runtime.addBinding", map[string]any{"name": "mine", "executionContextName": "mine"}, nil); err != nil {
		t.Errorf("a binding in the agent's own worlds: %v", err)
	}

	// The agent's own subscription tells it of the world Chrome makes
	// in the next document: its IDs are refused too.
	var sub protocol.CDPSubscribeResult
	if err := bot.Call(ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: protocol.Target{Tab: tab}, Methods: []string{"Runtime.executionContextCreated"}}, &sub); err != nil {
		t.Fatal(err)
	}
	if err := cdpSend(ctx, bot, tab, "Page.reload", nil, nil); err != nil {
		t.Fatal(err)
	}
	var made struct {
		Context struct {
			ID       int64  `json:"id"`
			Name     string `json:"name"`
			UniqueID string `json:"uniqueId"`
		} `json:"context"`
	}
	waitNotice(t, ctx, bot, "egohost's world in the new document", func(m protocol.Message) bool {
		var ev protocol.CDPEvent
		return m.Method == protocol.NotifyCDPEvent && json.Unmarshal(m.Params, &ev) == nil && ev.SessionID == "" &&
			json.Unmarshal(ev.Params, &made) == nil && made.Context.Name == "egohost"
	})
	if _, err := evalIn(bot, "", `{"expression":"1","uniqueContextId":"`+made.Context.UniqueID+`"}`); protocol.CodeOf(err) != protocol.CodeScopeDenied {
		t.Errorf("the new world by its unique ID: got %v, want scope_denied", err)
	}
	if _, err := evalIn(bot, "", fmt.Sprintf(probe, made.Context.ID)); protocol.CodeOf(err) != protocol.CodeScopeDenied {
		t.Errorf("the new world by its ID: got %v, want scope_denied", err)
	}

	// resolve's object: in the page's world, the agent's to use.
	var one protocol.ResolveResult
	if err := bot.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: protocol.Target{Tab: tab}, Element: "label=Name", Mode: protocol.ResolveObject, Wait: true}, &one); err != nil || one.Object == nil {
		t.Fatalf("resolve an object: %+v, %v", one.Object, err)
	}
	var called struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	if err := cdpSend(ctx, bot, tab, "Runtime.callFunctionOn", map[string]any{"objectId": one.Object.ObjectID, "functionDeclaration": "function() { return window.mark + ' ' + this.id }", "returnByValue": true}, &called); err != nil || called.Result.Value != "page name" {
		t.Errorf("a call on resolve's object: got %q, %v; want \"page name\" (the page's world)", called.Result.Value, err)
	}
}

// browserAlive fails the test when the browser is gone or the person's
// tab at url no longer exists.
func browserAlive(t *testing.T, c *chain, url, after string) {
	t.Helper()
	select {
	case <-c.proc.Done():
		t.Fatalf("the browser died after %s", after)
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cdp.Call(ctx, c.direct.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatalf("the browser does not answer after %s: %v", after, err)
	}
	for _, ti := range res.TargetInfos {
		if ti.Type == "page" && ti.URL == url {
			return
		}
	}
	t.Fatalf("the person's tab at %s is gone after %s", url, after)
}

// No command may crash the browser (issue 22, item 14): Page.navigate to a
// fragment of a tab's initial about:blank, through chrome.debugger, took
// Chromium 156 down with every tab of the person's profile. open, goto
// and raw CDP, for the owner and a paired agent.
func TestAboutBlankFragmentDoesNotCrash(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>person</title><p>the person's page`})
	c.openTab(t, base+"/")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var opened protocol.TabResult
	err := c.agent.Call(ctx, protocol.MethodTabsOpen, map[string]any{"url": "about:blank#x"}, &opened)
	browserAlive(t, c, base+"/", "open about:blank#x")
	if err != nil {
		t.Fatalf("open about:blank#x: %v", err)
	}
	if opened.Nav == nil || !strings.HasSuffix(opened.Nav.URL, "#x") || !opened.Nav.SameDocument {
		t.Errorf("open about:blank#x: got %+v, want a same-document navigation to about:blank#x", opened.Nav)
	}

	var fresh protocol.TabResult
	if err := c.agent.Call(ctx, protocol.MethodTabsOpen, map[string]any{"url": "about:blank", "noWait": true}, &fresh); err != nil {
		t.Fatal(err)
	}
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, map[string]any{"tab": fresh.Tab.ID}, nil); err != nil {
		t.Fatal(err) // the tab is followed: its initial document has committed
	}
	var nav protocol.NavResult
	err = c.agent.Call(ctx, protocol.MethodGoto, map[string]any{"tab": fresh.Tab.ID, "url": "about:blank#y"}, &nav)
	browserAlive(t, c, base+"/", "goto about:blank#y on a tab never navigated")
	if err != nil || !strings.HasSuffix(nav.URL, "#y") {
		t.Errorf("goto about:blank#y: %+v %v, want the tab at about:blank#y", nav, err)
	}

	// Raw CDP: refused to everyone, the owner too.
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space", "cdp"))
	botTab := openAs(t, bot, "about:blank")
	if err := bot.Call(ctx, protocol.MethodSnapshot, map[string]any{"tab": botTab}, nil); err != nil {
		t.Fatal(err) // followed: its initial document has committed
	}
	for _, who := range []struct {
		name string
		c    *client.Client
		tab  int
	}{{"owner", c.agent, fresh.Tab.ID}, {"bot", bot, botTab}} {
		for _, u := range []string{"about:blank#z", "about:blank#", " ABOUT:blank#z"} {
			err := cdpSend(ctx, who.c, who.tab, "Page.navigate", map[string]any{"url": u}, nil)
			browserAlive(t, c, base+"/", who.name+"'s cdp Page.navigate "+u)
			if protocol.CodeOf(err) != protocol.CodeUnsupported {
				t.Errorf("%s's cdp Page.navigate %q: got %v, want unsupported", who.name, u, err)
			}
		}
	}
}

// A sessionId reaches only a child session of the agent's own tab, on an
// origin its rules permit: here an out-of-process frame from localhost,
// which bot's rules deny, inside a page of 127.0.0.1. And while the tab
// shows that frame, bot's raw CDP reaches nothing of the tab, its own
// session included (a screenshot would show the frame, a click could land
// in it); once the frame is gone it does. An agent with origin rules
// subscribes to no events.
func TestCDPChildSessions(t *testing.T) {
	c := originsChain(t) // "bot" may not reach localhost
	var base string
	base = browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/frame" {
			w.Write([]byte(`<title>frame</title><button>inside the frame</button>`))
			return
		}
		frame := strings.Replace(base, "127.0.0.1", "localhost", 1) + "/frame"
		w.Write([]byte(`<title>outer</title><button>outside</button><iframe src="` + frame + `"></iframe>`))
	}))
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space", "cdp"))
	free := dialToken(t, c, pairDirect(t, c, "free", "space", "all-tabs", "cdp"))
	tab := openAs(t, bot, base+"/")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The frame's session, as the owner's snapshot names it.
	var child string
	for child == "" {
		var snap protocol.SnapshotResult
		if err := c.agent.Call(ctx, protocol.MethodSnapshot, map[string]any{"tab": tab, "refs": true}, &snap); err != nil {
			t.Fatal(err)
		}
		for _, r := range snap.Refs {
			if r.Name == "inside the frame" && r.SessionID != "" {
				child = string(r.SessionID)
			}
		}
		if child == "" && ctx.Err() != nil {
			t.Fatalf("no out-of-process frame in the snapshot:\n%s", snap.Text)
		}
	}
	eval := func(who *client.Client, session string) error {
		return who.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{
			Target: protocol.Target{Tab: tab}, SessionID: session, Method: "Runtime.evaluate",
			Params: json.RawMessage(`{"expression":"document.title","returnByValue":true}`),
		}, nil)
	}
	if err := eval(free, child); err != nil {
		t.Fatalf("an agent without rules, in the frame's session: %v", err)
	}
	refusedOrigin(t, "bot in the frame's session (localhost, denied)", eval(bot, child), "frame")
	refusedOrigin(t, "bot in its tab's own session, the frame shown", eval(bot, ""), "frame")
	shot := bot.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: tab}, Method: "Page.captureScreenshot"}, nil)
	refusedOrigin(t, "bot's screenshot of the tab, the frame shown", shot, "frame")
	sub := bot.Call(ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: protocol.Target{Tab: tab}}, nil)
	refusedOrigin(t, "bot subscribing to the tab's events", sub, "cdp_events")
	if err := free.Call(ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: protocol.Target{Tab: tab}, Methods: []string{"Page.frameDetached"}}, nil); err != nil {
		t.Errorf("an agent without rules subscribing: %v", err)
	}

	// The frame goes: bot's calls on its tab reach it again.
	ownerEval(t, c, tab, `document.querySelector("iframe").remove(), "gone"`)
	for {
		err := eval(bot, "")
		if err == nil {
			break
		}
		if protocol.CodeOf(err) != protocol.CodeForbiddenOriginScope || ctx.Err() != nil {
			t.Fatalf("bot in its tab's own session, the frame gone: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := eval(bot, "0123456789ABCDEF0123456789ABCDEF"); protocol.CodeOf(err) != protocol.CodeScopeDenied {
		t.Errorf("bot in a session that is no child of its tab: got %v, want scope_denied", err)
	}
}
