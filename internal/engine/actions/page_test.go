package actions_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

func TestWaits(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<div id=box></div><p id=gone>bye soon</p>`), "/x/y": html("deep")}, "/")
	tb.eval(`setTimeout(() => { box.innerHTML = '<span id=s style="visibility:hidden">Hello   World</span>'; }, 200);
		setTimeout(() => { s.style.visibility = 'visible'; }, 400);
		setTimeout(() => { document.getElementById('gone').remove(); }, 300);`)
	res, err := tb.r.Wait(tb.ctx, actions.WaitOptions{Target: "#s", State: actions.StateAttached})
	if err != nil || res.Element != `<span id="s">` {
		t.Fatalf("attached: got %+v, %v", res, err)
	}
	if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{Target: "#s"}); err != nil {
		t.Fatalf("visible: %v", err)
	}
	if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{Text: "hello world"}); err != nil {
		t.Fatalf("text: %v", err)
	}
	if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{Target: "#gone", State: actions.StateDetached}); err != nil {
		t.Fatalf("detached: %v", err)
	}
	if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{Text: "bye soon", Gone: true}); err != nil {
		t.Fatalf("text gone: %v", err)
	}
	tb.eval(`setTimeout(() => { s.style.display = 'none'; }, 100)`)
	if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{Target: "#s", State: actions.StateHidden}); err != nil {
		t.Fatalf("hidden: %v", err)
	}
	if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{Target: "#never", State: actions.StateHidden}); err != nil {
		t.Fatalf("hidden (absent): %v", err)
	}
	_, err = tb.r.Wait(tb.ctx, actions.WaitOptions{Target: "#never", Timeout: 300 * time.Millisecond})
	var te *actions.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("absent: got %v, want a timeout", err)
	}

	tb.eval(`setTimeout(() => { window.ready = {n: 7}; }, 200)`)
	res, err = tb.r.Wait(tb.ctx, actions.WaitOptions{Function: "() => window.ready"})
	if err != nil || string(res.Value) != `{"n":7}` {
		t.Fatalf("function: got %+v, %v; want {\"n\":7}", res, err)
	}
	if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{Function: "window.ready.n === 7"}); err != nil {
		t.Fatalf("expression: %v", err)
	}
	_, err = tb.r.Wait(tb.ctx, actions.WaitOptions{Function: "window.nothing.here"})
	var je *actions.JSError
	if !errors.As(err, &je) {
		t.Fatalf("a throwing function: got %v, want a JSError", err)
	}
	contains(t, "exception", je.Text, "TypeError")

	tb.eval(`setTimeout(() => history.pushState({}, '', '/x/y?q=1'), 200)`)
	for _, pattern := range []string{"**/x/*?q=1", "/\\/X\\/Y/i", tb.base + "/x/y?q=1"} {
		if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{URL: pattern}); err != nil {
			t.Errorf("url %s: %v", pattern, err)
		}
	}
	if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{Load: actions.LoadNetworkIdle}); err != nil {
		t.Errorf("networkidle: %v", err)
	}
	if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{}); err == nil {
		t.Error("nothing to wait for: no error")
	}
	if _, err := tb.r.Wait(tb.ctx, actions.WaitOptions{Text: "a", URL: "b"}); err == nil {
		t.Error("two things to wait for: no error")
	}
}

// slowImage answers /slow.png after a while, so load comes well after
// DOMContentLoaded.
func slowImage(pages map[string]string, release <-chan struct{}) http.Handler {
	files := browsertest.Pages(pages)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow.png" {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "image/gif")
			w.Write([]byte("GIF89a"))
			return
		}
		files.ServeHTTP(w, r)
	})
}

func TestNavigation(t *testing.T) {
	release := make(chan struct{})
	pages := map[string]string{
		"/":     html(`<a id=a href="/two">two</a>`),
		"/two":  html(`<title>two</title><h1>Two</h1>`),
		"/slow": html(`<title>slow</title><img src="/slow.png">`),
	}
	tb := openWith(t, slowImage(pages, release), "/", actions.Options{})
	res, err := tb.r.Goto(tb.ctx, tb.base+"/two", actions.NavOptions{})
	if err != nil || res.URL != tb.base+"/two" || res.Title != "two" || res.Reached != "load" {
		t.Fatalf("goto: got %+v, %v", res, err)
	}
	// DOMContentLoaded of the new document, while its image still loads.
	res, err = tb.r.Goto(tb.ctx, tb.base+"/slow", actions.NavOptions{Until: actions.LoadDOMContentLoaded})
	if err != nil || res.Title != "slow" {
		t.Fatalf("goto domcontentloaded: got %+v, %v", res, err)
	}
	tb.want("document.readyState", `"interactive"`)
	// load of a new document does not come from the old one's readyState.
	_, err = tb.r.Goto(tb.ctx, tb.base+"/slow", actions.NavOptions{Timeout: 2 * time.Second})
	var te *actions.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("goto a page that never loads: got %v, want a timeout", err)
	}
	contains(t, "timeout", err.Error(), "reached")
	close(release)
	_, err = tb.r.WaitLoad(tb.ctx, actions.LoadLoad, 0)
	if err != nil {
		t.Fatalf("wait load: %v", err)
	}
	_, err = tb.r.Goto(tb.ctx, tb.base+"/two#part", actions.NavOptions{Until: actions.LoadNetworkIdle})
	if err != nil {
		t.Fatalf("goto networkidle: %v", err)
	}
	res, err = tb.r.Goto(tb.ctx, tb.base+"/two#other", actions.NavOptions{})
	if err != nil || !res.SameDocument {
		t.Fatalf("goto a fragment: got %+v, %v; want same document", res, err)
	}
	res, err = tb.r.Back(tb.ctx, actions.NavOptions{})
	if err != nil || !strings.HasSuffix(res.URL, "/two#part") {
		t.Fatalf("back: got %+v, %v", res, err)
	}
	res, err = tb.r.Back(tb.ctx, actions.NavOptions{})
	if err != nil || !strings.HasSuffix(res.URL, "/slow") {
		t.Fatalf("back twice: got %+v, %v", res, err)
	}
	res, err = tb.r.Forward(tb.ctx, actions.NavOptions{})
	if err != nil || !strings.HasSuffix(res.URL, "/two#part") {
		t.Fatalf("forward: got %+v, %v", res, err)
	}
	tb.eval("window.marker = 1")
	_, err = tb.r.Reload(tb.ctx, actions.NavOptions{})
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	tb.want("window.marker === undefined", "true")
	tb.ok(tb.r.Click(tb.ctx, "h1", actions.ClickOptions{}))
	for i := 0; i < 3; i++ {
		if _, err := tb.r.Forward(tb.ctx, actions.NavOptions{}); err != nil {
			var ne *actions.NavigationError
			if !errors.As(err, &ne) {
				t.Fatalf("forward at the end: got %v, want a NavigationError", err)
			}
			break
		}
	}
	_, err = tb.r.Goto(tb.ctx, "http://127.0.0.1:1/", actions.NavOptions{})
	var ne *actions.NavigationError
	if !errors.As(err, &ne) || ne.Text == "" {
		t.Fatalf("goto a closed port: got %v, want a NavigationError", err)
	}
	if _, err := tb.r.Goto(tb.ctx, tb.base, actions.NavOptions{Until: "sometime"}); err == nil {
		t.Error("unknown load state: no error")
	}
}

func TestDialogs(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<button id=alert onclick="alert('Saved!'); log('after alert')">Alert</button>
<button id=confirm onclick="log('confirm ' + confirm('Sure?'))">Confirm</button>
<button id=prompt onclick="log('prompt ' + prompt('Name?', 'nobody'))">Prompt</button>`)}, "/")
	res := tb.ok(tb.r.Click(tb.ctx, "#alert", actions.ClickOptions{}))
	if res.Dialog == nil || res.Dialog.Type != "alert" || res.Dialog.Message != "Saved!" {
		t.Fatalf("dialog: got %+v, want the alert", res.Dialog)
	}
	// The page is blocked: an action says so at once instead of timing out.
	d, err := tb.r.HandleDialog(tb.ctx, true, "", 0)
	if err != nil || !d.Accepted {
		t.Fatalf("accept: got %+v, %v", d, err)
	}
	tb.want("window.events", `["after alert"]`)
	res = tb.ok(tb.r.Click(tb.ctx, "#confirm", actions.ClickOptions{}))
	if res.Dialog == nil || res.Dialog.Type != "confirm" {
		t.Fatalf("dialog: got %+v, want the confirm", res.Dialog)
	}
	if _, err := tb.r.HandleDialog(tb.ctx, false, "", 0); err != nil {
		t.Fatal(err)
	}
	res = tb.ok(tb.r.Click(tb.ctx, "#prompt", actions.ClickOptions{}))
	if res.Dialog == nil || res.Dialog.DefaultPrompt != "nobody" {
		t.Fatalf("dialog: got %+v, want the prompt", res.Dialog)
	}
	if _, err := tb.r.HandleDialog(tb.ctx, true, "Ada", 0); err != nil {
		t.Fatal(err)
	}
	tb.want("window.events", `["after alert","confirm false","prompt Ada"]`)
	// A dialog that opens later is waited for.
	tb.eval("setTimeout(() => alert('later'), 300)")
	d, err = tb.r.HandleDialog(tb.ctx, true, "", 0)
	if err != nil || d.Dialog == nil || d.Dialog.Message != "later" {
		t.Fatalf("wait for a dialog: got %+v, %v", d, err)
	}
	_, err = tb.r.HandleDialog(tb.ctx, true, "", 300*time.Millisecond)
	var te *actions.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("no dialog: got %v, want a timeout", err)
	}
	// A script that opens a dialog returns with it.
	ev, err := tb.r.Evaluate(tb.ctx, "alert('from eval')", 0)
	if err != nil || ev.Dialog == nil || ev.Dialog.Message != "from eval" {
		t.Fatalf("eval with a dialog: got %+v, %v", ev, err)
	}
	if _, err := tb.r.HandleDialog(tb.ctx, true, "", 0); err != nil {
		t.Fatal(err)
	}
}

func TestEvaluate(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<title>eval</title>`)}, "/")
	for _, c := range []struct{ expr, value, typ, desc string }{
		{"document.title", `"eval"`, "string", ""},
		{"1 + 1", "2", "number", ""},
		{"({a: [1, 'b']})", `{"a":[1,"b"]}`, "object", ""},
		{"Promise.resolve(5)", "5", "number", ""},
		{"() => 6 * 7", "42", "number", ""},
		{"async () => { await new Promise(r => setTimeout(r, 10)); return 'late'; }", `"late"`, "string", ""},
		{"let x = 3; x * 2", "6", "number", ""},
		// Declared again, as an agent's next evaluation does: allowed, as
		// in the console (a SyntaxError before).
		{"let x = 4; x * 2", "8", "number", ""},
		{"const rows = 2; rows", "2", "number", ""},
		{"const rows = 3; rows", "3", "number", ""},
		{"await Promise.resolve('top')", `"top"`, "string", ""},
		{"undefined", "null", "undefined", ""},
		{"NaN", "null", "number", "NaN"},
	} {
		res, err := tb.r.Evaluate(tb.ctx, c.expr, 0)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if string(res.Value) != c.value || res.Type != c.typ || res.Description != c.desc {
			t.Errorf("%s: got %s %s %q, want %s %s %q", c.expr, res.Value, res.Type, res.Description, c.value, c.typ, c.desc)
		}
	}
	_, err := tb.r.Evaluate(tb.ctx, "throw new RangeError('too far')", 0)
	var je *actions.JSError
	if !errors.As(err, &je) {
		t.Fatalf("throw: got %v, want a JSError", err)
	}
	contains(t, "exception", je.Text, "RangeError: too far")
	// The same error thrown while the expression runs is the page's: what
	// ran before it is not run again.
	_, err = tb.r.Evaluate(tb.ctx, `window.ran = (window.ran || 0) + 1; eval("let q = 1; let q = 2")`, 0)
	if !errors.As(err, &je) || !strings.Contains(je.Text, "'q' has already been declared") {
		t.Errorf("a redeclaration while running: got %v, want the page's SyntaxError", err)
	}
	if res, err := tb.r.Evaluate(tb.ctx, "window.ran", 0); err != nil || string(res.Value) != "1" {
		t.Errorf("window.ran: got %v, %v, want 1 (run once)", res, err)
	}
	// Declared again, an exception is where it is in the expression.
	_, err = tb.r.Evaluate(tb.ctx, "const rows = 4;\n  nothingHere", 0)
	if !errors.As(err, &je) || je.Line != 1 || je.Column != 2 || !strings.Contains(je.Text, "nothingHere") {
		t.Errorf("an exception after a declaration again: got %v (line %d, column %d), want nothingHere at line 1, column 2", err, je.Line, je.Column)
	}
	_, err = tb.r.Evaluate(tb.ctx, "new Promise(() => {})", 300*time.Millisecond)
	var te *actions.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("a promise that never settles: got %v, want a timeout", err)
	}
}

func TestScreenshot(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<div id=box style="margin:30px;width:120px;height:50px;background:red"></div><div style="height:3000px"></div>`)}, "/")
	size := func(b []byte) (int, int) {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("not a PNG: %v", err)
		}
		return img.Bounds().Dx(), img.Bounds().Dy()
	}
	shot, err := tb.r.Screenshot(tb.ctx, actions.ScreenshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vw, vh := size(shot.PNG)
	if vw < 100 || vh < 100 || vw != shot.Width || vh != shot.Height {
		t.Errorf("viewport: got %dx%d (reported %dx%d)", vw, vh, shot.Width, shot.Height)
	}
	shot, err = tb.r.Screenshot(tb.ctx, actions.ScreenshotOptions{FullPage: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, h := size(shot.PNG); h < 3000 {
		t.Errorf("full page: height %d, want over 3000", h)
	}
	shot, err = tb.r.Screenshot(tb.ctx, actions.ScreenshotOptions{Target: "#box"})
	if err != nil {
		t.Fatal(err)
	}
	if w, h := size(shot.PNG); w != 120 || h != 50 {
		t.Errorf("element: got %dx%d, want 120x50", w, h)
	}
	img, _ := png.Decode(bytes.NewReader(shot.PNG))
	if r, g, b, _ := img.At(60, 25).RGBA(); r>>8 < 200 || g>>8 > 50 || b>>8 > 50 {
		t.Errorf("element: the centre pixel is %d,%d,%d, want red", r>>8, g>>8, b>>8)
	}
	if _, err := tb.r.Screenshot(tb.ctx, actions.ScreenshotOptions{Target: "#nothing", Timeout: 200 * time.Millisecond}); err == nil {
		t.Error("screenshot of nothing: no error")
	}
}

var _ = json.Marshal

// A dialog the press opens (on mousedown) stops the click there, as it
// stops a person's: the action reports the dialog, and once it is answered
// the page has seen the press only (no release or click queued behind it
// reaches the page), and the next action works. A double click whose
// first click opens a dialog is not clicked again after the answer.
func TestDialogOnMousedown(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<button id=b onmousedown="log('down'); alert('pressed')" onmouseup="log('up')" onclick="log('click')">Press</button>
<button id=c onclick="log('click'); alert('clicked')" ondblclick="log('dblclick')">Double</button>
<input id=after aria-label=After>`)}, "/")
	res := tb.ok(tb.r.Click(tb.ctx, "#b", actions.ClickOptions{}))
	if res.Dialog == nil || res.Dialog.Message != "pressed" {
		t.Fatalf("dialog: got %+v, want the alert of the press", res.Dialog)
	}
	if _, err := tb.r.HandleDialog(tb.ctx, true, "", 0); err != nil {
		t.Fatal(err)
	}
	tb.ok(tb.r.Fill(tb.ctx, "#after", "next", actions.FillOptions{}))
	tb.want("window.events", `["down"]`)
	tb.eval("window.events = []")
	res = tb.ok(tb.r.Click(tb.ctx, "#c", actions.ClickOptions{Count: 2}))
	if res.Dialog == nil || res.Dialog.Message != "clicked" {
		t.Fatalf("double click: dialog %+v, want the alert of the first click", res.Dialog)
	}
	if _, err := tb.r.HandleDialog(tb.ctx, true, "", 0); err != nil {
		t.Fatal(err)
	}
	tb.ok(tb.r.Fill(tb.ctx, "#after", "again", actions.FillOptions{}))
	tb.want("window.events", `["click"]`)
}
