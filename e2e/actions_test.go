package e2e

import (
	"bytes"
	"encoding/json"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/protocol"
)

// cli runs the egohost binary against the chain's service, on one tab.
func (c *chain) cli(tab protocol.Target, args ...string) (stdout, stderr string, code int) {
	return runEgohost(chainEnv(c.svc.stateDir), nil, append(args, "--tab", itoa(tab.Tab))...)
}

// cliOK runs cli and returns its stdout; an exit other than 0 ends the
// test.
func (c *chain) cliOK(t testing.TB, tab protocol.Target, args ...string) string {
	t.Helper()
	out, errOut, code := c.cli(tab, args...)
	if code != 0 {
		t.Fatalf("egohost %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// actionPages are the fixture pages of the action tests.
func actionPages() map[string]string {
	page := func(body string) string {
		return `<!doctype html><html><head><meta charset=utf-8><style>body{margin:0;font:16px sans-serif}</style>
<script>window.events = []; function log(s) { window.events.push(s); }</script></head><body>` + body + `</body></html>`
	}
	return map[string]string{
		"/overlay": page(`<button id=b style="margin:50px" onclick="log('button')">Go</button>
<div id=overlay onclick="log('overlay')" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>`),
		"/banner": page(`<button id=b style="margin:50px" onclick="log('button')">Go</button>
<div id=cookie-banner style="position:fixed;inset:0;background:#eee">We use cookies</div>`),
		"/keys": page(`<input id=k aria-label=Keys><script>
for (const t of ["keydown", "keypress", "keyup"]) k.addEventListener(t, (e) =>
  log(t + " " + e.key + (e.shiftKey ? " +shift" : "") + (e.ctrlKey ? " +ctrl" : "")));
</script>`),
		"/disabled": page(`<button id=pay disabled style="margin:20px" onclick="log('paid')">Pay</button>`),
		"/late":     page(`<div id=box></div>`),
		"/nav":      page(`<a id=next href="/second" style="display:inline-block;margin:20px">Next page</a><button id=alert onclick="alert('Saved!')">Alert</button>`),
		"/second":   page(`<title>second</title><h1>Second</h1><button id=again>Again</button>`),
		"/form": page(`<title>form</title><form action="/done" method=get>
<label>Name <input id=name name=name></label>
<label>Colour <select id=colour name=colour><option value=r>Red</option><option value=g>Green</option></select></label>
<label><input id=agree type=checkbox name=agree value=yes> I agree</label>
<button id=send>Send</button></form>`),
		"/done":     page(`<title>done</title><p id=result></p><script>result.textContent = location.search</script>`),
		"/download": page(`<a id=dl href="/report.csv">Get the report</a>`),
	}
}

// serveActions serves the pages and /report.csv as an attachment.
func serveActions(t *testing.T) string {
	pages := browsertest.Pages(actionPages())
	return browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/report.csv" {
			w.Header().Set("Content-Type", "text/csv")
			w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
			w.Write([]byte("name,colour\nAda,green\n"))
			return
		}
		pages.ServeHTTP(w, r)
	}))
}

// Actions through the whole chain: every CDP command crosses the
// extension, and the auto-waits are driven by the classified errors.
func TestActionsThroughChain(t *testing.T) {
	c := useSharedChain(t)
	base := serveActions(t)
	ctx := ctxT(t, 120*time.Second)
	call := func(method string, params, result any) error {
		return c.agent.Call(ctx, method, params, result)
	}
	// The subtests take turns on one tab, each loading its page afresh
	// (a tab costs a renderer; see docs/testing.md); the last one closes
	// a tab of its own.
	var shared protocol.Target
	load := func(t *testing.T, path string) protocol.Target {
		t.Helper()
		if shared.Tab == 0 {
			shared = c.openTab(t, base+path)
			return shared
		}
		if err := call(protocol.MethodGoto, protocol.GotoParams{Target: shared, URL: base + path}, nil); err != nil {
			t.Fatalf("goto %s: %v", path, err)
		}
		return shared
	}

	t.Run("overlay that goes away", func(t *testing.T) {
		tab := load(t, "/overlay")
		if _, err := c.eval(ctx, tab, "setTimeout(() => document.getElementById('overlay').remove(), 300)"); err != nil {
			t.Fatal(err)
		}
		var r protocol.ActionResult
		if err := call(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#b"}, &r); err != nil {
			t.Fatal(err)
		}
		if v, _ := c.eval(ctx, tab, "window.events"); string(v) != `["button"]` {
			t.Errorf("events: got %s, want the button's click only", v)
		}
		if r.Waited.Attempts > 1 && (len(r.Waited.Reasons) == 0 || !strings.Contains(r.Waited.Reasons[0], `covered by <div id="overlay">`)) {
			t.Errorf("waited %+v, want the overlay named", r.Waited)
		}
	})

	t.Run("a release that lands elsewhere", func(t *testing.T) {
		// The press shifts the button down (a banner inserted above it),
		// so the release lands on the banner: no click of the button, and
		// the result says where the release went.
		tab := load(t, "/overlay")
		shift := `document.getElementById('overlay').remove();
document.getElementById('b').addEventListener('mousedown', () => {
  const d = document.createElement('div');
  d.id = 'banner';
  d.style.height = '300px';
  document.body.prepend(d);
}, {once: true})`
		if _, err := c.eval(ctx, tab, shift); err != nil {
			t.Fatal(err)
		}
		var r protocol.ActionResult
		if err := call(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#b"}, &r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.ReleasedOn, `id="banner"`) {
			t.Errorf("releasedOn: got %q, want the banner", r.ReleasedOn)
		}
		if v, _ := c.eval(ctx, tab, "JSON.stringify(window.events)"); string(v) != `"[]"` {
			t.Errorf("events: got %s, want no click", v)
		}
	})

	t.Run("covered for good", func(t *testing.T) {
		tab := load(t, "/banner")
		err := call(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#b", ActionOptions: protocol.ActionOptions{TimeoutMs: 2000}}, nil)
		pe := wantCode(t, err, protocol.CodeNotActionable)
		if cover, _ := pe.Data["cover"].(string); !strings.Contains(cover, `<div id="cookie-banner">`) {
			t.Errorf("cover: got %v, want the banner", pe.Data)
		}
		if !strings.Contains(pe.Message, `covered by <div id="cookie-banner">`) || pe.Data["reason"] != "covered" {
			t.Errorf("error: %v %v", pe, pe.Data)
		}
		_, errOut, code := c.cli(tab, "click", "#b", "--timeout", "2s")
		if code != 1 || !strings.Contains(errOut, `covered by <div id="cookie-banner">`) || !strings.Contains(errOut, "not_actionable") {
			t.Errorf("egohost click: exit %d, stderr %q", code, errOut)
		}
	})

	// A combo's key events cross the relay in one sequence (one round
	// trip): the page sees them in order all the same.
	t.Run("keys in order", func(t *testing.T) {
		tab := load(t, "/keys")
		for _, k := range []struct{ combo, want string }{
			{"Enter", `["keydown Enter","keypress Enter","keyup Enter"]`},
			{"Control+Shift+ArrowLeft", `["keydown Control +ctrl","keydown Shift +shift +ctrl","keydown ArrowLeft +shift +ctrl","keyup ArrowLeft +shift +ctrl","keyup Shift +ctrl","keyup Control"]`},
		} {
			if _, err := c.eval(ctx, tab, "window.events = []"); err != nil {
				t.Fatal(err)
			}
			var r protocol.ActionResult
			if err := call(protocol.MethodPress, protocol.PressParams{Target: tab, Element: "#k", Key: k.combo, ActionOptions: protocol.ActionOptions{NoSettle: true}}, &r); err != nil {
				t.Fatalf("press %s: %v", k.combo, err)
			}
			if v, _ := c.eval(ctx, tab, "window.events"); string(v) != k.want {
				t.Errorf("press %s: got %s, want %s", k.combo, v, k.want)
			}
		}
	})

	t.Run("disabled then enabled", func(t *testing.T) {
		tab := load(t, "/disabled")
		if _, err := c.eval(ctx, tab, "setTimeout(() => document.getElementById('pay').disabled = false, 300)"); err != nil {
			t.Fatal(err)
		}
		if err := call(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "role=button[name=Pay]"}, nil); err != nil {
			t.Fatal(err)
		}
		if v, _ := c.eval(ctx, tab, "window.events"); string(v) != `["paid"]` {
			t.Errorf("events: got %s", v)
		}
	})

	t.Run("appears after 500 ms", func(t *testing.T) {
		tab := load(t, "/late")
		if _, err := c.eval(ctx, tab, `setTimeout(() => { box.innerHTML = '<button onclick="log(1)">Late</button>'; }, 500)`); err != nil {
			t.Fatal(err)
		}
		var r protocol.ActionResult
		if err := call(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "text=Late"}, &r); err != nil {
			t.Fatal(err)
		}
		if v, _ := c.eval(ctx, tab, "window.events"); string(v) != `[1]` {
			t.Errorf("events: got %s", v)
		}
		var w protocol.WaitResult
		if _, err := c.eval(ctx, tab, `setTimeout(() => box.remove(), 200)`); err != nil {
			t.Fatal(err)
		}
		if err := call(protocol.MethodWait, protocol.WaitParams{Target: tab, Element: "#box", State: "detached"}, &w); err != nil {
			t.Fatalf("wait detached: %v", err)
		}
	})

	t.Run("click that navigates, then a stale ref", func(t *testing.T) {
		tab := load(t, "/nav")
		var snap protocol.SnapshotResult
		if err := call(protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Interactive: true, Refs: true}, &snap); err != nil {
			t.Fatal(err)
		}
		ref := ""
		for _, r := range snap.Refs {
			if r.Name == "Next page" {
				ref = "@" + r.Ref
			}
		}
		if ref == "" {
			t.Fatalf("no ref for the link in\n%s", snap.Text)
		}
		var r protocol.ActionResult
		if err := call(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: ref}, &r); err != nil {
			t.Fatal(err)
		}
		if !r.Settled.Navigated || r.Settled.URL != base+"/second" {
			t.Errorf("settled: got %+v, want a navigation to /second", r.Settled)
		}
		err := call(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: ref}, nil)
		pe := wantCode(t, err, protocol.CodeStaleRef)
		if !strings.Contains(pe.Message, "snapshot") {
			t.Errorf("stale ref: %v, want a hint to take a new snapshot", pe)
		}
		var nav protocol.NavResult
		if err := call(protocol.MethodBack, protocol.NavParams{Target: tab}, &nav); err != nil || nav.URL != base+"/nav" {
			t.Fatalf("back: got %+v, %v", nav, err)
		}
	})

	t.Run("dialogs", func(t *testing.T) {
		tab := load(t, "/nav")
		var r protocol.ActionResult
		if err := call(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#alert"}, &r); err != nil {
			t.Fatal(err)
		}
		if r.Dialog == nil || r.Dialog.Message != "Saved!" {
			t.Fatalf("dialog: got %+v, want the alert", r.Dialog)
		}
		// While the alert is open, calls fail at once naming it, not at their timeout.
		start := time.Now()
		err := call(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#alert"}, nil)
		if pe := wantCode(t, err, protocol.CodeDialogOpen); !strings.Contains(pe.Message, "Saved!") {
			t.Errorf("click under an open dialog: %v, want the dialog named", pe)
		}
		err = call(protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab}, nil)
		wantCode(t, err, protocol.CodeDialogOpen)
		t.Logf("calls under an open dialog failed after %v", time.Since(start).Round(time.Millisecond))
		// The reply names the dialog the earlier click opened.
		out, errOut, code := c.cli(tab, "dialog", "accept")
		if code != 0 || !strings.Contains(out, "accepted") || !strings.Contains(out, "Saved!") {
			t.Errorf("egohost dialog accept: exit %d\n%s%s; want the alert \"Saved!\" named", code, out, errOut)
		}
		var ev protocol.EvalResult
		if err := call(protocol.MethodEval, protocol.EvalParams{Target: tab, Expression: "document.title.length + 1"}, &ev); err != nil {
			t.Fatalf("eval after the dialog: %v", err)
		}
		err = call(protocol.MethodEval, protocol.EvalParams{Target: tab, Expression: "null.x"}, nil)
		pe := wantCode(t, err, protocol.CodeJSException)
		if ex, _ := pe.Data["exception"].(string); !strings.Contains(ex, "TypeError") {
			t.Errorf("exception: %v", pe.Data)
		}
	})

	t.Run("a tab closed during a wait", func(t *testing.T) {
		tab := c.openTab(t, base+"/late")
		done := make(chan error, 1)
		go func() {
			done <- call(protocol.MethodWait, protocol.WaitParams{Target: tab, Function: "() => { window.polled = true; return false }", TimeoutMs: 25000}, nil)
		}()
		// Close it once the wait has begun polling the page.
		waitFor(t, ctx, func() bool {
			var ev protocol.EvalResult
			err := call(protocol.MethodEval, protocol.EvalParams{Target: tab, Expression: "window.polled === true"}, &ev)
			return err == nil && ev.Value == true
		})
		if err := call(protocol.MethodTabsClose, protocol.TabParams{Target: tab}, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			pe := wantCode(t, err, protocol.CodeTabNotFound)
			if !strings.Contains(pe.Message, "closed") {
				t.Errorf("error: %v", pe)
			}
		case <-ctx.Done():
			t.Fatal("the wait hung after its tab was closed")
		}
	})
}

// A person's form, end to end through the CLI: goto, fill, select, check,
// click, wait for the URL, read the result; screenshots and a download.
func TestActionsCLI(t *testing.T) {
	c := useSharedChain(t)
	base := serveActions(t)
	tab := c.openTab(t, base+"/nav")
	run := func(args ...string) string { t.Helper(); return c.cliOK(t, tab, args...) }
	out := run("goto", base+"/form")
	if !strings.Contains(out, `"form": load`) {
		t.Errorf("goto: %q", out)
	}
	out = run("fill", "label=Name", "Ada Lovelace")
	if !strings.HasPrefix(out, `filled <input id="name" name="name"> → "Ada Lovelace"`) {
		t.Errorf("fill: %q", out)
	}
	if out = run("select", "label=Colour", "Green"); !strings.Contains(out, `→ "Green" (g)`) {
		t.Errorf("select: %q", out)
	}
	if out = run("check", "#agree"); !strings.Contains(out, "→ checked") {
		t.Errorf("check: %q", out)
	}
	out = run("click", "role=button[name=Send]")
	if !strings.Contains(out, "navigated to "+base+"/done?") {
		t.Errorf("click: %q", out)
	}
	run("wait", "--url", "**/done?*")
	out = run("eval", "document.getElementById('result').textContent")
	if got, want := strings.TrimSpace(out), "?name=Ada+Lovelace&colour=g&agree=yes"; got != want {
		t.Errorf("submitted: got %q, want %q", got, want)
	}
	out = run("back", "--json")
	var nav protocol.NavResult
	if err := json.Unmarshal([]byte(out), &nav); err != nil || nav.URL != base+"/form" {
		t.Errorf("back --json: %q", out)
	}
	run("focus", "label=Name")
	run("press", "ControlOrMeta+a")
	run("type", "Grace")
	if out = run("eval", "document.activeElement.value"); strings.TrimSpace(out) != "Grace" {
		t.Errorf("focus, select all, type: the focused field holds %q", out)
	}
	run("press", "Tab")
	if out = run("eval", "document.activeElement.id"); strings.TrimSpace(out) != "colour" {
		t.Errorf("press Tab: the focus is on %q, want colour", out)
	}
	// eval JS TARGET calls JS with the element.
	if out = run("eval", "(el) => el.id + ' ' + el.value", "label=Name"); strings.TrimSpace(out) != "name Grace" {
		t.Errorf("eval on an element: got %q, want its id and value", out)
	}
	run("reload")

	dir := t.TempDir()
	shot := filepath.Join(dir, "page.png")
	if out = run("screenshot", shot, "--target", "#send"); !strings.Contains(out, "wrote "+shot) {
		t.Errorf("screenshot: %q", out)
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("screenshot: not a PNG: %v", err)
	}
	run("screenshot", filepath.Join(dir, "full.png"), "--full")

	_, errOut, code := c.cli(tab, "fill", "#send", "x", "--timeout", "2s")
	if code != 1 || !strings.Contains(errOut, "unsupported") {
		t.Errorf("fill a button: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = c.cli(tab, "click")
	if code == 0 || !strings.Contains(errOut, "usage") {
		t.Errorf("click without a target: exit %d, stderr %q", code, errOut)
	}

	// A download: the click starts it, chrome.downloads reports where it went.
	run("goto", base+"/download")
	out = run("download", "--click", "#dl", "--json")
	var dl protocol.DownloadResult
	if err := json.Unmarshal([]byte(out), &dl); err != nil {
		t.Fatalf("download --json: %q: %v", out, err)
	}
	t.Cleanup(func() { os.Remove(dl.Filename) })
	if dl.State != "complete" || filepath.Base(dl.Filename) == "" || !strings.HasSuffix(dl.URL, "/report.csv") {
		t.Errorf("download: %+v", dl)
	}
	if got, err := os.ReadFile(dl.Filename); err != nil || string(got) != "name,colour\nAda,green\n" {
		t.Errorf("downloaded file %s: %q, %v", dl.Filename, got, err)
	}
}
