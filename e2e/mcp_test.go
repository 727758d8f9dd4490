package e2e

import (
	"bufio"
	"bytes"
	"context"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/protocol"
)

// mcpPages are the fixture pages of the MCP tests.
func mcpPages() map[string]string {
	page := func(title, body string) string {
		return `<!doctype html><html><head><meta charset=utf-8><title>` + title + `</title><style>body{margin:0;font:16px sans-serif}</style></head><body>` + body + `</body></html>`
	}
	return map[string]string{
		"/checkout": page("checkout", `<form action="/thanks" method=get>
<label>Full name <input name=name></label>
<label>Email <input name=email type=email></label>
<label>Country <select name=country><option value=fr>France</option><option value=de>Germany</option></select></label>
<label><input type=radio name=ship value=std checked> Standard</label><label><input type=radio name=ship value=express> Express</label>
<label>Tip <input name=tip type=range min=0 max=10 value=0></label>
<label><input type=checkbox name=terms value=yes> I accept the terms</label>
<button>Place order</button></form>`),
		"/thanks": page("thanks", `<h1>Thank you</h1><a href="/checkout">Back to the shop</a>`),
		"/play": page("play", `<input id=q aria-label=Search onkeydown="if (event.key === 'Enter') out.innerHTML = '<button>got ' + this.value + '</button>'">
<div id=out></div>
<div id=hov style="margin:10px;width:80px;height:30px;background:#ccc" onmouseover="tip.innerHTML = '<button>Tooltip</button>'">Hover me</div><div id=tip></div>
<div id=src draggable=true style="width:60px;height:40px;background:#acf" ondragstart="event.dataTransfer.setData('text/plain', 'x')">Drag</div>
<div id=dst style="width:100px;height:60px;background:#fca;margin-top:20px" ondragover="event.preventDefault()" ondrop="event.preventDefault(); this.dataset.dropped = 'yes'">Drop here</div>
<input id=file type=file aria-label=Attachment>
<button id=alert onclick="alert('Saved!')">Alert</button>
<button id=later onclick="setTimeout(() => { late.hidden = false; gone.remove(); }, 200)">Later</button>
<button id=late hidden>Arrived</button><p id=gone>Loading…</p>`),
		"/console": page("console", `<p id=st>working</p><img src="/pixel.png" alt=""><script>
console.log('hello', 42);
console.warn('careful');
console.error('bad thing');
setTimeout(() => { throw new Error('boom'); }, 0);
fetch('/api/data').then(r => r.json()).then(d => { st.textContent = 'data loaded: ' + d.n; });
</script>`),
	}
}

func serveMCP(t *testing.T) string {
	pages := browsertest.Pages(mcpPages())
	return browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/data":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"n": 7}`))
		case "/pixel.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(nil)
		default:
			pages.ServeHTTP(w, r)
		}
	}))
}

// startMCP runs `egohost mcp` (the real binary, stdio) against the state
// dir's service and connects the SDK's client, named e2e, to it.
func startMCP(t testing.TB, stateDir string, args ...string) (*mcp.ClientSession, *logBuffer) {
	t.Helper()
	return startMCPAs(t, stateDir, "e2e", args...)
}

// startMCPAs is startMCP with a client of that name: egohost mcp pairs as
// the agent the client's name makes (or --name), and the person approves.
func startMCPAs(t testing.TB, stateDir, client string, args ...string) (*mcp.ClientSession, *logBuffer) {
	t.Helper()
	return startMCPWith(t, stateDir, client, nil, args...)
}

// startMCPWith is startMCPAs with the MCP client's options.
func startMCPWith(t testing.TB, stateDir, client string, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, *logBuffer) {
	t.Helper()
	cmd := exec.Command(theSuite.bin, append([]string{"mcp"}, args...)...)
	cmd.Env = chainEnv(stateDir)
	logs := &logBuffer{}
	cmd.Stderr = logs
	agent := spaces.NameFrom(client, "mcp") // as egohost mcp names it
	if i := slices.Index(args, "--name"); i >= 0 && i+1 < len(args) {
		agent = args[i+1]
	}
	if !slices.Contains(args, "--owner") {
		approvePairing(t, stateDir, agent) // egohost mcp pairs itself on first use: the person says yes
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to egohost mcp: %v\nstderr:\n%s", err, logs)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, logs
}

// toolResult is a tool call's text, its images and whether it failed.
type toolResult struct {
	text   string
	images [][]byte
	isErr  bool
}

func callTool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) toolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	if args == nil {
		args = map[string]any{} // Playwright MCP refuses null arguments
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var r toolResult
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			r.images = append(r.images, c.Data)
		}
	}
	r.text, r.isErr = strings.Join(parts, "\n"), res.IsError
	return r
}

// ok calls a tool that must succeed and checks its text contains each of want.
func ok(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, want ...string) string {
	t.Helper()
	r := callTool(t, cs, name, args)
	if r.isErr {
		t.Fatalf("%s %v failed: %s", name, args, r.text)
	}
	for _, w := range want {
		if !strings.Contains(r.text, w) {
			t.Errorf("%s %v: got\n%s\nwant it to contain %q", name, args, r.text, w)
		}
	}
	return r.text
}

// fails calls a tool that must fail with one line starting with code.
func fails(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, code string, want ...string) {
	t.Helper()
	r := callTool(t, cs, name, args)
	if !r.isErr || !strings.HasPrefix(r.text, code+": ") || strings.Contains(r.text, "\n") {
		t.Errorf("%s %v: got %q (error %t), want one line starting %q", name, args, r.text, r.isErr, code+": ")
	}
	for _, w := range want {
		if !strings.Contains(r.text, w) {
			t.Errorf("%s %v: got %q, want it to contain %q", name, args, r.text, w)
		}
	}
}

// refOf finds the ref of a snapshot line such as `textbox "Email" @12`:
// the first ref after the first place line stands, on the same line.
func refOf(tb testing.TB, snapshot, line string) string {
	tb.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(line) + `[^\n]*?(@\d+)`).FindStringSubmatch(snapshot)
	if m == nil {
		tb.Fatalf("no %q with a ref in:\n%s", line, snapshot)
	}
	return m[1]
}

// Every tool through `egohost mcp` (stdio), the real service, the real
// extension and real Chromium.
func TestMCPThroughChain(t *testing.T) {
	// Not about confirmations: the paired MCP agent clicks "Place order"
	// unasked. Screenshots' plain file names go to out/ in its files.
	c := quietChain(t)
	outDir := filepath.Join(c.files, "out")
	base := serveMCP(t)
	cs, logs := startMCP(t, c.svc.stateDir)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("egohost mcp stderr:\n%s\nservice log:\n%s", logs, c.svc.logs)
		}
	})
	ctx := ctxT(t, 180*time.Second)
	var tabID int
	evalTab := func(expr string) string {
		t.Helper()
		v, err := c.eval(ctx, protocol.Target{Tab: tabID}, expr)
		if err != nil {
			t.Fatalf("eval %s: %v", expr, err)
		}
		return string(v)
	}

	// The checkout task as an agent does it: three calls.
	snap := ok(t, cs, "browser_tabs", map[string]any{"action": "new", "url": base + "/checkout"}, "opened tab", `textbox "Full name"`, `button "Place order"`)
	m := regexp.MustCompile(`opened tab (\d+)`).FindStringSubmatch(snap)
	tabID = atoi(t, m[1])
	snap = ok(t, cs, "browser_navigate", map[string]any{"url": base + "/checkout"}, "navigated to "+base+"/checkout", `textbox "Email"`)
	out := ok(t, cs, "browser_fill_form", map[string]any{"fields": []map[string]any{
		{"name": "Full name", "type": "textbox", "ref": refOf(t, snap, `textbox "Full name"`), "value": "Ada Lovelace"},
		{"name": "Email", "type": "textbox", "target": refOf(t, snap, `textbox "Email"`), "value": "ada@example.com"},
		{"name": "Country", "type": "combobox", "target": "label=Country", "value": "Germany"},
		{"name": "Express", "type": "radio", "target": refOf(t, snap, `radio "Express"`), "value": "true"},
		{"name": "Tip", "type": "slider", "target": "label=Tip", "value": "7"},
		{"name": "Terms", "type": "checkbox", "target": refOf(t, snap, `checkbox "I accept the terms"`), "value": "true"},
	}}, "filled 6 fields", "[diff against the previous snapshot")
	if strings.Contains(out, `button "Place order"`) {
		t.Errorf("fill_form answered the whole page, want only what changed:\n%s", out)
	}
	ok(t, cs, "browser_click", map[string]any{"element": "Place order button", "ref": refOf(t, snap, `button "Place order"`)},
		"clicked", "navigated to "+base+"/thanks?name=Ada+Lovelace&email=ada%40example.com&country=de&ship=express&tip=7&terms=yes", `link "Back to the shop"`)

	t.Run("navigate back and snapshots", func(t *testing.T) {
		ok(t, cs, "browser_navigate_back", nil, "went back to "+base+"/checkout", `textbox "Full name"`)
		full := ok(t, cs, "browser_snapshot", map[string]any{"interactive": false}, `page: `+base+`/checkout "checkout"`, `textbox "Full name"`)
		inter := ok(t, cs, "browser_snapshot", nil, `textbox "Full name"`)
		if len(inter) >= len(full) {
			t.Errorf("interactive snapshot (%d chars) is not smaller than the full one (%d)", len(inter), len(full))
		}
		ok(t, cs, "browser_snapshot", map[string]any{"diff": true}, "[no changes since the previous snapshot")
		ok(t, cs, "browser_snapshot", map[string]any{"maxChars": 60}, "start=")
		ok(t, cs, "browser_snapshot", map[string]any{"scope": "role=combobox"}, `combobox "Country"`)
		if out := ok(t, cs, "browser_navigate", map[string]any{"url": base + "/thanks", "snapshot": "none"}, "navigated to "+base+"/thanks"); strings.Contains(out, "link") {
			t.Errorf("snapshot none answered a snapshot:\n%s", out)
		}
		ok(t, cs, "browser_navigate", map[string]any{"url": base + "/thanks", "snapshot": "full"}, `heading "Thank you" [level=1]`, `link "Back to the shop"`)
		fails(t, cs, "browser_navigate", map[string]any{"url": base + "/thanks", "snapshot": "some"}, "invalid_params")
		ok(t, cs, "browser_navigate", map[string]any{"url": base + "/checkout"})
	})

	t.Run("stale ref after navigating", func(t *testing.T) {
		old := refOf(t, ok(t, cs, "browser_snapshot", nil), `button "Place order"`)
		ok(t, cs, "browser_navigate", map[string]any{"url": base + "/checkout"})
		fails(t, cs, "browser_click", map[string]any{"target": old}, "stale_ref", "call browser_snapshot")
	})

	ok(t, cs, "browser_navigate", map[string]any{"url": base + "/play"}, `textbox "Search"`)

	t.Run("type and submit", func(t *testing.T) {
		ok(t, cs, "browser_type", map[string]any{"target": "#q", "text": "tea", "submit": true}, "filled and submitted", `+ `, `button "got tea"`)
	})
	t.Run("select option", func(t *testing.T) {
		ok(t, cs, "browser_navigate", map[string]any{"url": base + "/checkout"})
		ok(t, cs, "browser_select_option", map[string]any{"target": "label=Country", "values": []string{"Germany"}}, `selected: "Germany" (de)`)
		ok(t, cs, "browser_press_key", map[string]any{"key": "Tab", "target": "label=Country"}, "pressed Tab")
		if got := evalTab("document.activeElement.type"); got != `"radio"` {
			t.Errorf("focus after Tab: got %s, want the first radio button", got)
		}
		ok(t, cs, "browser_navigate", map[string]any{"url": base + "/play"})
	})
	t.Run("hover", func(t *testing.T) {
		ok(t, cs, "browser_hover", map[string]any{"target": "#hov"}, "hovered", `+ `, `button "Tooltip"`)
	})
	t.Run("drag", func(t *testing.T) {
		ok(t, cs, "browser_drag", map[string]any{"startElement": "Drag", "startTarget": "#src", "endElement": "Drop", "endTarget": "#dst"}, "dragged")
		if got := evalTab("document.getElementById('dst').dataset.dropped"); got != `"yes"` {
			t.Errorf("drop: got %s, want yes", got)
		}
	})
	t.Run("file upload", func(t *testing.T) {
		// The agent gives the file's content (paths: files_attack_test.go).
		ok(t, cs, "browser_file_upload", map[string]any{"files": []map[string]any{{"name": "notes.txt", "text": "hello"}}}, "set 1 file(s)")
		if got := evalTab("document.getElementById('file').files[0].name"); got != `"notes.txt"` {
			t.Errorf("file: got %s, want notes.txt", got)
		}
	})
	t.Run("dialog", func(t *testing.T) {
		ok(t, cs, "browser_click", map[string]any{"target": "#alert"}, `a alert dialog is open: "Saved!"`, "browser_handle_dialog")
		fails(t, cs, "browser_snapshot", nil, "dialog_open", "browser_handle_dialog")
		ok(t, cs, "browser_handle_dialog", map[string]any{"accept": true}, `accepted the alert dialog "Saved!"`)
	})
	t.Run("wait for", func(t *testing.T) {
		ok(t, cs, "browser_click", map[string]any{"target": "#later"})
		ok(t, cs, "browser_wait_for", map[string]any{"target": "#late", "state": "visible"}, "waited for #late visible")
		ok(t, cs, "browser_wait_for", map[string]any{"textGone": "Loading…", "time": 0.05}, `waited for 0.05s, "Loading…" to go`)
		ok(t, cs, "browser_wait_for", map[string]any{"text": "Arrived", "url": "**/play"}, `waited for "Arrived", URL **/play`)
		fails(t, cs, "browser_wait_for", map[string]any{"text": "never there", "timeout": 0.3}, "timeout")
		fails(t, cs, "browser_wait_for", nil, "invalid_params")
	})
	t.Run("evaluate", func(t *testing.T) {
		ok(t, cs, "browser_evaluate", map[string]any{"function": "() => ({title: document.title, n: 1 + 1})"}, `{"n":2,"title":"play"}`)
		fails(t, cs, "browser_evaluate", map[string]any{"function": "() => { throw new TypeError('nope') }"}, "js_exception", "nope")
	})
	t.Run("run_script", func(t *testing.T) {
		ok(t, cs, "browser_run_script", map[string]any{"script": "console.log('title:', await page.title()); await page.locator('#dst').count()"}, "title: play", "=> 1")
		fails(t, cs, "browser_run_script", map[string]any{"script": "throw new Error('boom')"}, "script_error", "boom")
		fails(t, cs, "browser_run_script", map[string]any{"script": " "}, "invalid_params")
		r := callTool(t, cs, "browser_run_script", map[string]any{"script": "console.log('first step done'); await page.locator('#nowhere').click({timeout: 300})", "timeoutMs": 10000})
		if !r.isErr || !strings.HasPrefix(r.text, "not_found: line 1, ") || !strings.HasSuffix(r.text, "\nlogged before it failed:\nfirst step done") {
			t.Errorf("a failing script: got %q (error %t), want the failing call's line (not_found, with the script's line), then what it logged", r.text, r.isErr)
		}
		shot := callTool(t, cs, "browser_run_script", map[string]any{"script": "await page.screenshot()"})
		if shot.isErr || len(shot.images) != 1 {
			t.Errorf("a script's screenshot: got %q, %d images, want 1 image", shot.text, len(shot.images))
		}
	})
	t.Run("screenshot", func(t *testing.T) {
		r := callTool(t, cs, "browser_take_screenshot", map[string]any{"ref": "#dst"})
		if r.isErr || len(r.images) != 1 {
			t.Fatalf("screenshot: %q, %d images", r.text, len(r.images))
		}
		img, err := png.Decode(bytes.NewReader(r.images[0]))
		if err != nil {
			t.Fatalf("screenshot is not a PNG: %v", err)
		}
		if b := img.Bounds(); b.Dx() < 90 || b.Dx() > 110 {
			t.Errorf("element screenshot is %v wide, want about 100 px", b.Dx())
		}
		path := filepath.Join(outDir, "page.png")
		t.Cleanup(func() { os.Remove(path) }) // the shared chain's folder: the next run writes it anew
		ok(t, cs, "browser_take_screenshot", map[string]any{"fullPage": true, "filename": "page.png"}, "saved to "+path)
		if _, err := os.Stat(path); err != nil {
			t.Error(err)
		}
	})
	t.Run("resolve", func(t *testing.T) {
		ok(t, cs, "browser_resolve", map[string]any{"target": "role=button"}, "role=button matches 5 element(s)", `button "Alert"`)
		fails(t, cs, "browser_resolve", map[string]any{"target": "role=button[name="}, "syntax_error")
		fails(t, cs, "browser_click", map[string]any{"target": "@987654321"}, "unknown_ref", "call browser_snapshot")
		fails(t, cs, "browser_click", map[string]any{}, "invalid_params", "no target")
	})
	t.Run("console and network", func(t *testing.T) {
		ok(t, cs, "browser_navigate", map[string]any{"url": base + "/console"})
		ok(t, cs, "browser_wait_for", map[string]any{"text": "data loaded: 7"})
		ok(t, cs, "browser_console_messages", nil, "[info] hello 42", "[warning] careful", "[error] bad thing", "[error] Uncaught Error: boom")
		errs := ok(t, cs, "browser_console_messages", map[string]any{"onlyErrors": true, "clear": true}, "[error] bad thing")
		if strings.Contains(errs, "hello") {
			t.Errorf("onlyErrors kept an info message:\n%s", errs)
		}
		ok(t, cs, "browser_console_messages", nil, "0 console messages")
		net := ok(t, cs, "browser_network_requests", nil, "[GET] "+base+"/console => [200] OK", "[GET] "+base+"/api/data => [200] OK")
		if strings.Contains(net, "pixel.png") {
			t.Errorf("static resources listed without includeStatic:\n%s", net)
		}
		ok(t, cs, "browser_network_requests", map[string]any{"static": true}, base+"/pixel.png")
		ok(t, cs, "browser_network_requests", map[string]any{"includeStatic": true}, base+"/pixel.png")
		fails(t, cs, "browser_console_messages", map[string]any{"level": "loud"}, "invalid_params")
	})
	t.Run("cookies", func(t *testing.T) {
		ok(t, cs, "browser_cookies", nil, "0 cookie(s) of "+base+"/console")
		ok(t, cs, "browser_cookies", map[string]any{"action": "set", "name": "flavour", "value": "oat"}, "flavour=oat (domain 127.0.0.1, path /")
		if got := evalTab("document.cookie"); got != `"flavour=oat"` {
			t.Errorf("document.cookie: got %s, want flavour=oat", got)
		}
		ok(t, cs, "browser_cookies", map[string]any{"action": "clear"}, "deleted 1 cookie(s)")
		if got := evalTab("document.cookie"); got != `""` {
			t.Errorf("document.cookie after clear: got %s, want none", got)
		}
		fails(t, cs, "browser_cookies", map[string]any{"action": "eat"}, "invalid_params")
	})
	t.Run("tabs", func(t *testing.T) {
		list := ok(t, cs, "browser_tabs", map[string]any{"action": "list"}, "[tab "+itoa(tabID)+"] (current)")
		idx := regexp.MustCompile(`(?m)^(\d+): .*\[tab ` + itoa(tabID) + `\]`).FindStringSubmatch(list)
		if idx == nil {
			t.Fatalf("tab %d not in the list:\n%s", tabID, list)
		}
		ok(t, cs, "browser_tabs", map[string]any{"action": "new"}, "opened tab")
		ok(t, cs, "browser_tabs", map[string]any{"action": "select", "index": atoi(t, idx[1])}, "selected tab "+itoa(tabID), "page: "+base+"/console")
		ok(t, cs, "browser_tabs", map[string]any{"action": "close"}, "closed tab "+itoa(tabID))
		fails(t, cs, "browser_tabs", map[string]any{"action": "select", "index": 99}, "invalid_params")
		fails(t, cs, "browser_tabs", map[string]any{"action": "shuffle"}, "invalid_params")
	})
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("%q is not a number", s)
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// Without a service, or without a browser, `egohost mcp` still starts and
// every tool says what is missing and how to fix it.
func TestMCPWithoutServiceOrBrowser(t *testing.T) {
	stateDir := t.TempDir()
	cs, logs := startMCP(t, stateDir)
	fails(t, cs, "browser_snapshot", nil, "service_down", "egohost launch")
	// stderr reaches the test through its own pipe and goroutine, so it
	// may lag the tool's answer on stdout: wait for it (a hang bound).
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), "egohost serve"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("stderr: got %q, want the fix named", logs)
			break
		}
	}

	s := startService(t, stateDir)
	_ = s
	fails(t, cs, "browser_navigate", map[string]any{"url": "http://127.0.0.1:9/"}, "no_browser", "egohost launch")
}

// `egohost mcp --http` serves streamable HTTP behind the service's own
// Origin, Host and token checks.
func TestMCPHTTP(t *testing.T) {
	c := useSharedChain(t)
	cmd := exec.Command(theSuite.bin, "mcp", "--http", "127.0.0.1:0")
	cmd.Env = chainEnv(c.svc.stateDir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`streamable HTTP on (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				addrc <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-addrc:
	case <-time.After(20 * time.Second):
		t.Fatal("egohost mcp --http did not say where it listens")
	}

	post := func(mod func(*http.Request)) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		mod(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	bearer := func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+c.svc.token) }
	refusals := []struct {
		name string
		mod  func(*http.Request)
		want int
	}{
		{"no token", func(r *http.Request) {}, http.StatusUnauthorized},
		{"wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") }, http.StatusUnauthorized},
		{"a web page's Origin", func(r *http.Request) { bearer(r); r.Header.Set("Origin", "https://evil.example") }, http.StatusForbidden},
		{"DNS rebinding Host", func(r *http.Request) { bearer(r); r.Host = "evil.example" }, http.StatusForbidden},
	}
	for _, tt := range refusals {
		if got := post(tt.mod); got != tt.want {
			t.Errorf("%s: got HTTP %d, want %d", tt.name, got, tt.want)
		}
	}

	hc := &http.Client{Transport: headerTransport{"Authorization": "Bearer " + c.svc.token}}
	ctx := ctxT(t, 60*time.Second)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-http"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	defer cs.Close()
	ok(t, cs, "browser_tabs", map[string]any{"action": "list"}, "(current)")
}

// headerTransport adds headers to every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
