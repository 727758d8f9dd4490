package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// These tests attack the origin rules as a paired agent with the default
// `space` scope would, steered by a page it reads: through the real
// chain (Chromium, the extension, native messaging, `egohost serve`).
// Two origins are served by one server: 127.0.0.1 (allowed) and
// localhost (denied by the agent's rules).

// originsConfig is the config of the shared chain the tests of origin
// rules take turns on. Each rule is for agent names that only those tests
// pair (the shared chain revokes them after each test); an agent of
// another name has no rules.
const originsConfig = `agents:
  origins:
    bot: {deny: [localhost], schemes: [view-source]}
    denied: {deny: [localhost]}
    wide: {deny: [localhost]}
    filer: {schemes: [file]}
`

// originsChain is the shared chain whose config is originsConfig.
func originsChain(t *testing.T) *chain {
	t.Helper()
	return useSharedChainWith(t, originsConfig)
}

// refusedOrigin checks that err is forbidden_origin_scope (with
// data.reason when reason is set), without failing the test at once: an
// attack test lists every hole it finds.
func refusedOrigin(t *testing.T, what string, err error, reason string) *protocol.Error {
	t.Helper()
	pe := refused(t, what, err, protocol.CodeForbiddenOriginScope)
	if pe != nil && reason != "" && pe.Data["reason"] != reason {
		t.Errorf("%s: data.reason %v, want %s (%v)", what, pe.Data["reason"], reason, pe.Data)
	}
	return pe
}

// ownerEval evaluates expr in tab as the owner (the test's oracle) and
// returns the string it gives.
func ownerEval(t *testing.T, c *chain, tab int, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	v, err := c.eval(ctx, protocol.Target{Tab: tab}, expr)
	if err != nil {
		t.Fatalf("owner eval %s: %v", expr, err)
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return string(v)
	}
	return s
}

// waitOwner polls the owner's view of tab until expr is "true".
func waitOwner(t *testing.T, c *chain, tab int, expr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		v, err := c.eval(ctx, protocol.Target{Tab: tab}, expr)
		cancel()
		if err == nil && string(v) == "true" {
			return
		}
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatalf("tab %d: %s never held", tab, expr)
}

// A space-scoped agent reads no local file: goto and tabs.open to file:,
// data: and view-source: are refused unless the person granted the
// scheme, and a tab of its own that the person took to a file is refused
// like a denied origin (snapshot used to print the file). An agent the
// person granted file: reads it.
func TestAgentCannotReadLocalFiles(t *testing.T) {
	c := originsChain(t)
	secret := filepath.Join(t.TempDir(), "secret.html")
	if err := os.WriteFile(secret, []byte("<p>TOP-SECRET-FILE-CONTENT</p>"), 0o600); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + secret
	base := serve(t, map[string]string{"/": `<title>fine</title><p>fine page</p>`})
	bot := dialToken(t, c, pairDirect(t, c, "plain")) // no origin rules of its own
	filer := dialToken(t, c, pairDirect(t, c, "filer"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The person takes the agent's own tab to the file.
	tab := openAs(t, bot, base+"/")
	if err := c.agent.Call(ctx, protocol.MethodGoto, map[string]any{"tab": tab, "url": fileURL}, nil); err != nil {
		t.Fatalf("the owner's goto to the file: %v", err)
	}
	var snap protocol.SnapshotResult
	err := bot.Call(ctx, protocol.MethodSnapshot, map[string]any{"tab": tab}, &snap)
	refusedOrigin(t, "snapshot of a tab on a file", err, "url_kind")
	if strings.Contains(snap.Text, "TOP-SECRET") {
		t.Errorf("the agent read the file: %q", snap.Text)
	}
	var ev protocol.EvalResult
	refusedOrigin(t, "eval on a tab on a file", bot.Call(ctx, protocol.MethodEval, map[string]any{"tab": tab, "expression": "document.body.innerText"}, &ev), "url_kind")
	if strings.Contains(fmt.Sprint(ev.Value), "TOP-SECRET") {
		t.Errorf("the agent read the file with eval: %v", ev.Value)
	}

	// Nor may it go there itself.
	for _, dest := range []string{fileURL, "file:///etc/passwd", "FILE:///etc/passwd", "data:text/html,<p>x</p>", "view-source:" + base + "/", "chrome://settings"} {
		tab := openAs(t, bot, base+"/")
		refusedOrigin(t, "goto "+dest, bot.Call(ctx, protocol.MethodGoto, map[string]any{"tab": tab, "url": dest}, nil), "url_kind")
		refusedOrigin(t, "tabs.open "+dest, bot.Call(ctx, protocol.MethodTabsOpen, map[string]any{"url": dest}, nil), "url_kind")
		if v, err := c.eval(ctx, protocol.Target{Tab: tab}, "location.href"); err != nil || string(v) != `"`+base+`/"` {
			t.Errorf("the refused goto %s moved the tab: %s %v", dest, v, err)
		}
	}

	// Granted: the person said this agent may read files.
	ftab := openAs(t, filer, base+"/")
	if err := filer.Call(ctx, protocol.MethodGoto, map[string]any{"tab": ftab, "url": fileURL}, nil); err != nil {
		t.Fatalf("goto a file with the file scheme granted: %v", err)
	}
	if err := filer.Call(ctx, protocol.MethodSnapshot, map[string]any{"tab": ftab}, &snap); err != nil || !strings.Contains(snap.Text, "TOP-SECRET-FILE-CONTENT") {
		t.Errorf("snapshot of a file with the file scheme granted: %v %q", err, snap.Text)
	}
}

// view-source:, blob: and a trailing-dot host are the origin they wrap: a
// deny rule on localhost refuses them all before they load (a load is a
// request with the person's cookies). (A view-source: page itself is
// out of chrome.debugger's reach: nothing more can be read there.)
func TestOriginRulesSeeThroughWrappers(t *testing.T) {
	c := originsChain(t)
	base := serve(t, map[string]string{"/": `<title>page</title><p>a page</p>`})
	denied := strings.Replace(base, "127.0.0.1", "localhost", 1)
	bot := dialToken(t, c, pairDirect(t, c, "bot"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	port := strings.TrimPrefix(denied, "http://localhost")
	blob := ownerBlob(t, c, denied)
	for _, dest := range []string{
		"view-source:" + denied + "/",
		"VIEW-SOURCE:" + strings.ToUpper(denied) + "/",
		"http://localhost." + port + "/",
		"http://LOCALHOST.." + port + "/",
		blob,
		"view-source:" + blob,
	} {
		tab := openAs(t, bot, base+"/")
		refusedOrigin(t, "goto "+dest, bot.Call(ctx, protocol.MethodGoto, map[string]any{"tab": tab, "url": dest}, nil), "deny")
		if v, err := c.eval(ctx, protocol.Target{Tab: tab}, "location.href"); err != nil || string(v) != `"`+base+`/"` {
			t.Errorf("the refused goto %s moved the tab: %s %v", dest, v, err)
		}
	}
	// The allowed origin's source is the agent's to load (view-source granted).
	tab := openAs(t, bot, base+"/")
	if err := bot.Call(ctx, protocol.MethodGoto, map[string]any{"tab": tab, "url": "view-source:" + base + "/"}, nil); err != nil {
		t.Errorf("view-source of the allowed origin, granted: %v", err)
	}
}

// ownerBlob makes, as the owner, a blob: URL of origin (in a tab of its
// own on that origin) and returns it.
func ownerBlob(t *testing.T, c *chain, origin string) string {
	t.Helper()
	tab := c.openTab(t, origin+"/")
	return ownerEval(t, c, tab.Tab, `URL.createObjectURL(new Blob(["<p>blob content</p>"], {type: "text/html"}))`)
}

// The rules hold at the moment of acting: a page that moves itself to a
// denied origin while a call waits for its element is not acted on
// there (click, fill, wait for a function), and a goto redirected to a
// denied origin does not return what it shows.
func TestOriginRulesAtTheMomentOfActing(t *testing.T) {
	c := originsChain(t)
	mux := http.NewServeMux()
	var denied string
	mux.HandleFunc("/moves", func(w http.ResponseWriter, r *http.Request) {
		// No #late here: the call waits for it, and meanwhile the page
		// moves to the denied origin, which has one.
		fmt.Fprintf(w, `<title>moves</title><p>moving</p><script>setTimeout(() => { location.href = %q; }, 400);</script>`, denied+"/trap")
	})
	mux.HandleFunc("/trap", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "TRAP-COOKIE", Path: "/"})
		fmt.Fprint(w, `<title>SECRET-TRAP-TITLE</title><button id=late onclick="sessionStorage.clicks = (+sessionStorage.clicks || 0) + 1">late</button><input id=field>`)
	})
	mux.HandleFunc("/stays", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>stays</title><p>a page that stays</p>`)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, denied+"/trap", http.StatusFound)
	})
	base := serveHandler(t, mux)
	denied = strings.Replace(base, "127.0.0.1", "localhost", 1)
	bot := dialToken(t, c, pairDirect(t, c, "bot"))

	moved := func(what string, call func(ctx context.Context, tab int) error) int {
		t.Helper()
		tab := openAs(t, bot, base+"/moves")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		refusedOrigin(t, what+" after the page moved to the denied origin", call(ctx, tab), "")
		waitOwner(t, c, tab, `location.host.startsWith("localhost") && document.readyState === "complete"`)
		return tab
	}
	tab := moved("click #late", func(ctx context.Context, tab int) error {
		return bot.Call(ctx, protocol.MethodClick, map[string]any{"tab": tab, "target": "#late", "timeoutMs": 8000}, nil)
	})
	if got := ownerEval(t, c, tab, `String(sessionStorage.clicks || 0)`); got != "0" {
		t.Errorf("the click landed on the denied page: %s clicks", got)
	}
	tab = moved("fill #field", func(ctx context.Context, tab int) error {
		return bot.Call(ctx, protocol.MethodFill, map[string]any{"tab": tab, "target": "#field", "text": "hunter2", "timeoutMs": 8000}, nil)
	})
	if got := ownerEval(t, c, tab, `document.getElementById("field").value`); got != "" {
		t.Errorf("the text went into the denied page: %q", got)
	}
	var wr protocol.WaitResult
	moved("wait for a function", func(ctx context.Context, tab int) error {
		return bot.Call(ctx, protocol.MethodWait, map[string]any{"tab": tab, "function": `location.host.startsWith("localhost") && document.cookie`, "timeoutMs": 8000}, &wr)
	})
	if strings.Contains(fmt.Sprint(wr.Value), "TRAP-COOKIE") {
		t.Errorf("the wait returned the denied page's cookie: %s", wr.Value)
	}

	// A goto the rules allow, redirected to the denied origin.
	tab = openAs(t, bot, base+"/stays")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var nav protocol.NavResult
	pe := refusedOrigin(t, "goto redirected to the denied origin", bot.Call(ctx, protocol.MethodGoto, map[string]any{"tab": tab, "url": base + "/redirect"}, &nav), "deny")
	if strings.Contains(nav.Title, "SECRET") || pe != nil && strings.Contains(pe.Message, "SECRET") {
		t.Errorf("the redirected goto returned the denied page's title: %q %v", nav.Title, pe)
	}
	var opened protocol.TabResult
	refusedOrigin(t, "tabs.open redirected to the denied origin", bot.Call(ctx, protocol.MethodTabsOpen, map[string]any{"url": base + "/redirect"}, &opened), "deny")
	if strings.Contains(opened.Tab.Title, "SECRET") {
		t.Errorf("the redirected tabs.open returned the denied page's title: %q", opened.Tab.Title)
	}
	// back to the allowed page, then forward: the history entry of the
	// denied origin is refused before it loads.
	if err := c.agent.Call(ctx, protocol.MethodBack, map[string]any{"tab": tab}, nil); err != nil {
		t.Fatalf("the owner's back: %v", err)
	}
	refusedOrigin(t, "forward to the denied origin", bot.Call(ctx, protocol.MethodForward, map[string]any{"tab": tab}, nil), "deny")
}

// A frame from a denied origin is withheld: the snapshot shows its iframe
// marked, with nothing of it; a locator that matches only inside it finds
// nothing; a ref into it (from the owner's snapshot) is refused; a
// screenshot of the tab is refused. And a space-scoped agent is not told
// whose another agent's tab is.
func TestDeniedFramesAreWithheld(t *testing.T) {
	c := originsChain(t)
	mux := http.NewServeMux()
	var denied string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>top</title><button id=top>top button</button><iframe title="bank frame" src="%s/inner"></iframe>`, denied)
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<p>SECRET-IN-FRAME</p><button id=inner onclick="parent.postMessage('inner-clicked', '*'); sessionStorage.clicks = (+sessionStorage.clicks || 0) + 1">inner button</button><input id=pin>`)
	})
	base := serveHandler(t, mux)
	denied = strings.Replace(base, "127.0.0.1", "localhost", 1)
	bot := dialToken(t, c, pairDirect(t, c, "bot"))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tab := openAs(t, bot, base+"/")
	ownerEval(t, c, tab, `addEventListener("message", (e) => { if (e.data === "inner-clicked") window.innerClicks = (window.innerClicks || 0) + 1; }); "ok"`)

	// The owner sees the frame (and its refs) once it has loaded.
	var owner protocol.SnapshotResult
	for ctx.Err() == nil {
		if err := c.agent.Call(ctx, protocol.MethodSnapshot, map[string]any{"tab": tab}, &owner); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(owner.Text, "inner button") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	innerRef := func() string {
		t.Helper()
		for _, line := range strings.Split(owner.Text, "\n") {
			if strings.Contains(line, `button "inner button"`) {
				return line[strings.LastIndex(line, "@"):]
			}
		}
		t.Fatalf("the owner's snapshot has no ref for the inner button:\n%s", owner.Text)
		return ""
	}

	var snap protocol.SnapshotResult
	if err := bot.Call(ctx, protocol.MethodSnapshot, map[string]any{"tab": tab}, &snap); err != nil {
		t.Fatalf("the agent's snapshot: %v", err)
	}
	t.Logf("the agent's snapshot:\n%s", snap.Text)
	if strings.Contains(snap.Text, "SECRET-IN-FRAME") || strings.Contains(snap.Text, "inner button") {
		t.Errorf("the agent's snapshot shows the denied frame's content:\n%s", snap.Text)
	}
	if !strings.Contains(snap.Text, "content withheld: "+denied) {
		t.Errorf("the agent's snapshot does not mark the withheld frame:\n%s", snap.Text)
	}
	if !strings.Contains(snap.Text, `button "top button"`) {
		t.Errorf("the agent's snapshot lost the allowed page:\n%s", snap.Text)
	}

	e := bot.Call(ctx, protocol.MethodClick, map[string]any{"tab": tab, "target": "#inner", "timeoutMs": 1500}, nil)
	if protocol.CodeOf(e) != protocol.CodeNotFound && protocol.CodeOf(e) != protocol.CodeTimeout {
		t.Errorf("click a locator only the denied frame has: got %v, want not_found", e)
	}
	e = bot.Call(ctx, protocol.MethodFill, map[string]any{"tab": tab, "target": "#pin", "text": "1234", "timeoutMs": 1500}, nil)
	if protocol.CodeOf(e) != protocol.CodeNotFound && protocol.CodeOf(e) != protocol.CodeTimeout {
		t.Errorf("fill a locator only the denied frame has: got %v, want not_found", e)
	}
	var res protocol.ResolveResult
	if err := bot.Call(ctx, protocol.MethodResolve, map[string]any{"tab": tab, "target": "button"}, &res); err != nil || res.Count != 1 {
		t.Errorf("resolve button: got %d matches, %v; want the top button only", res.Count, err)
	}
	// The owner's snapshot handed out a ref into the frame; the agent's
	// own snapshot since replaced the tab's refs, so take the owner's again.
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, map[string]any{"tab": tab}, &owner); err != nil {
		t.Fatal(err)
	}
	refusedOrigin(t, "click a ref into the denied frame", bot.Call(ctx, protocol.MethodClick, map[string]any{"tab": tab, "target": innerRef(), "timeoutMs": 3000}, nil), "frame")
	// eval with an element runs in the element's frame (egohost eval JS
	// TARGET): not in a denied one, by ref or by a locator only it has.
	var ev protocol.EvalResult
	refusedOrigin(t, "eval on a ref into the denied frame", bot.Call(ctx, protocol.MethodEval, map[string]any{"tab": tab, "target": innerRef(), "expression": "(el) => el.ownerDocument.body.innerText", "timeoutMs": 3000}, &ev), "frame")
	e = bot.Call(ctx, protocol.MethodEval, map[string]any{"tab": tab, "target": "#inner", "expression": "(el) => el.ownerDocument.body.innerText", "timeoutMs": 1500}, &ev)
	if protocol.CodeOf(e) != protocol.CodeNotFound && protocol.CodeOf(e) != protocol.CodeTimeout || strings.Contains(fmt.Sprint(ev.Value), "SECRET") {
		t.Errorf("eval on a locator only the denied frame has: got %v (%s), want not_found", e, ev.Value)
	}
	refusedOrigin(t, "screenshot of a tab showing the denied frame", bot.Call(ctx, protocol.MethodScreenshot, map[string]any{"tab": tab}, nil), "frame")
	if got := ownerEval(t, c, tab, `String(window.innerClicks || 0)`); got != "0" {
		t.Errorf("the denied frame was clicked %s times", got)
	}

	// Another space-scoped agent's tab: not_in_space, without its name.
	alice := dialToken(t, c, pairDirect(t, c, "alice"))
	var pe *protocol.Error
	if err := alice.Call(ctx, protocol.MethodClick, map[string]any{"tab": tab, "target": "#top"}, nil); !errors.As(err, &pe) || pe.Code != protocol.CodeNotInSpace {
		t.Errorf("alice clicking bot's tab: got %v, want not_in_space", err)
	} else if strings.Contains(pe.Message, "bot") || pe.Data["owner"] != nil || pe.Data["space"] != nil {
		t.Errorf("alice is told whose tab it is: %s %v", pe.Message, pe.Data)
	}
}

// BenchmarkOriginChecks: what the origin rules' checks at the moment of
// acting cost a call through the whole chain: the same calls on the same
// tab as the owner (no rules) and as a paired agent with rules,
// interleaved, medians of each.
// Run: go test ./e2e -run '^$' -bench OriginChecks -benchtime 40x -timeout 20m
func BenchmarkOriginChecks(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	stateDir := b.TempDir()
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte("agents:\n  origins:\n    bot: {deny: [localhost, \"*.bank.example\", mail.example]}\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	c := startChainIn(b, stateDir)
	srv := serve(b, map[string]string{"/page": `<!doctype html><title>bench</title>
<button id=b onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Click me</button>
<input id=name aria-label="Name"><p>Some text.</p><iframe srcdoc="<p>inner</p>"></iframe>`})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	approvePairing(b, stateDir, "bot")
	res, err := client.Pair(ctx, c.svc.addr, protocol.PairRequestParams{Name: "bot"}, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	bot, err := client.Dial(ctx, c.svc.addr, res.Token, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer bot.Close()
	var opened protocol.TabResult
	if err := bot.Call(ctx, protocol.MethodTabsOpen, map[string]any{"url": srv + "/page"}, &opened); err != nil {
		b.Fatal(err)
	}
	tab := opened.Tab.ID
	runs := min(b.N, 100)
	calls := []struct {
		op     string
		method string
		params map[string]any
	}{
		{"click, no settle", protocol.MethodClick, map[string]any{"tab": tab, "target": "#b", "noSettle": true}},
		{"fill, no settle", protocol.MethodFill, map[string]any{"tab": tab, "target": "#name", "text": "x", "noSettle": true}},
		{"eval", protocol.MethodEval, map[string]any{"tab": tab, "expression": "document.title"}},
		{"resolve", protocol.MethodResolve, map[string]any{"tab": tab, "target": "#b"}},
		{"snapshot", protocol.MethodSnapshot, map[string]any{"tab": tab}},
		{"cookies.get", protocol.MethodCookiesGet, map[string]any{"tab": tab}},
	}
	fmt.Fprintf(os.Stderr, "\n%-18s %12s %12s %10s\n", "call", "owner ms", "paired ms", "extra ms")
	for _, cl := range calls {
		var owner, paired []float64
		for i := -1; i < runs; i++ { // -1 is a warm-up
			for who, agent := range []*client.Client{c.agent, bot} {
				start := time.Now()
				if err := agent.Call(ctx, cl.method, cl.params, nil); err != nil {
					b.Fatalf("%s as %d: %v", cl.op, who, err)
				}
				ms := float64(time.Since(start).Microseconds()) / 1000
				if i >= 0 && who == 0 {
					owner = append(owner, ms)
				} else if i >= 0 {
					paired = append(paired, ms)
				}
			}
		}
		slices.Sort(owner)
		slices.Sort(paired)
		om, pm := owner[len(owner)/2], paired[len(paired)/2]
		fmt.Fprintf(os.Stderr, "%-18s %12.2f %12.2f %10.2f\n", cl.op, om, pm, pm-om)
		b.ReportMetric(pm-om, strings.ReplaceAll(cl.op, " ", "")+"-extra-ms")
	}
}
