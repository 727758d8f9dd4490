package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/cdpdirect"
	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/protocol"
)

// The popup as a person uses it (issue 12): its page opened as a window of
// the real Chromium with the real extension and service, driven with real
// input events (Input.dispatchMouseEvent / insertText through the test's
// DevTools connection), its results checked in the page under test.
//
// EGOHOST_SCREENSHOTS=dir writes a screenshot of each panel there
// (scripts/popup-screenshots.sh writes docs/img/).

// ui is one page driven through the test's direct DevTools connection.
type ui struct {
	t  testing.TB
	s  *cdpdirect.Session
	id target.ID
}

// openPopup opens popup.html?tab=N in a window of its own, as the popup of
// that tab, and waits until it has its status.
func openPopup(ctx context.Context, t testing.TB, c *chain, tab int) *ui {
	t.Helper()
	yes := true
	created, err := cdp.Call(ctx, c.direct.Browser(), target.CreateTarget, target.CreateTargetParams{
		URL: fmt.Sprintf("chrome-extension://%s/popup.html?tab=%d", extension.ID, tab), NewWindow: &yes,
	})
	if err != nil {
		t.Fatalf("open the popup: %v", err)
	}
	s, err := c.direct.Attach(ctx, created.TargetID)
	if err != nil {
		t.Fatal(err)
	}
	p := &ui{t: t, s: s, id: created.TargetID}
	if _, err := cdp.Call(ctx, s, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 380, Height: 720, DeviceScaleFactor: 2}); err != nil {
		t.Fatal(err)
	}
	p.waitFor(ctx, "the popup's status", `document.getElementById('relay-state').textContent === 'connected' && !document.getElementById('agents').hidden`)
	return p
}

// attachTab attaches the test's own session to the browser tab with id
// (the page under test: the oracle reads it directly).
func attachTab(ctx context.Context, t testing.TB, c *chain, url string) *ui {
	t.Helper()
	res, err := cdp.Call(ctx, c.direct.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range res.TargetInfos {
		if ti.Type == "page" && ti.URL == url {
			s, err := c.direct.Attach(ctx, ti.TargetID)
			if err != nil {
				t.Fatal(err)
			}
			return &ui{t: t, s: s, id: ti.TargetID}
		}
	}
	t.Fatalf("no page target at %s", url)
	return nil
}

func (p *ui) eval(ctx context.Context, expr string, out any) {
	p.t.Helper()
	yes := true
	res, err := cdp.Call(ctx, p.s, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes})
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	if res.ExceptionDetails != nil {
		p.t.Fatalf("evaluate %s: %s", expr, res.ExceptionDetails.Text)
	}
	if out != nil {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			p.t.Fatalf("evaluate %s: %v (value %s)", expr, err, res.Result.Value)
		}
	}
}

// waitFor waits until expr is true in the page.
func (p *ui) waitFor(ctx context.Context, what, expr string) {
	p.t.Helper()
	yes := true
	for {
		// A page still loading throws (no element yet): that is a no.
		res, err := cdp.Call(ctx, p.s, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: "!!(" + expr + ")", ReturnByValue: &yes})
		if err == nil && res.ExceptionDetails == nil && string(res.Result.Value) == "true" {
			return
		}
		select {
		case <-ctx.Done():
			var body string
			p.eval(context.Background(), "document.body.innerText.slice(0, 3000)", &body)
			p.t.Fatalf("waiting for %s: %v\npage text:\n%s", what, ctx.Err(), body)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

type rect struct{ X, Y, Width, Height float64 }

func (r rect) near(o rect) bool {
	return math.Abs(r.X-o.X) < 1 && math.Abs(r.Y-o.Y) < 1 && math.Abs(r.Width-o.Width) < 1 && math.Abs(r.Height-o.Height) < 1
}

// rectOf is the viewport rectangle of the first element matching a CSS selector.
func (p *ui) rectOf(ctx context.Context, selector string) rect {
	p.t.Helper()
	var r rect
	p.eval(ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "nearest"}); const r = e.getBoundingClientRect(); return {X: r.x, Y: r.y, Width: r.width, Height: r.height}; })()`, selector), &r)
	return r
}

func (p *ui) mouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64) {
	p.t.Helper()
	params := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
	if typ != input.DispatchMouseEventTypeMouseMoved {
		params.Button = input.MouseButtonLeft
		params.ClickCount = 1
	}
	if _, err := cdp.Call(ctx, p.s, input.DispatchMouseEvent, params); err != nil {
		p.t.Fatalf("%s at %v,%v: %v", typ, x, y, err)
	}
}

// click clicks the centre of the element matching selector with real mouse events.
func (p *ui) click(ctx context.Context, selector string) {
	p.t.Helper()
	r := p.rectOf(ctx, selector)
	p.clickAt(ctx, r.X+r.Width/2, r.Y+r.Height/2)
}

func (p *ui) clickAt(ctx context.Context, x, y float64) {
	p.t.Helper()
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		p.mouse(ctx, typ, x, y)
	}
}

func (p *ui) hover(ctx context.Context, selector string) {
	p.t.Helper()
	r := p.rectOf(ctx, selector)
	p.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, r.X+r.Width/2, r.Y+r.Height/2)
}

// typeText types into the focused field the way an IME or a paste does.
func (p *ui) typeText(ctx context.Context, text string) {
	p.t.Helper()
	if _, err := cdp.Call(ctx, p.s, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		p.t.Fatal(err)
	}
}

// selectAll presses Ctrl+A through Input.dispatchKeyEvent (with the
// editing command, which headless Chromium needs for shortcuts).
func (p *ui) selectAll(ctx context.Context) {
	p.t.Helper()
	const ctrl = 2
	down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: "a", Code: "KeyA", WindowsVirtualKeyCode: 65, Modifiers: ctrl, Commands: []string{"selectAll"}}
	up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: "a", Code: "KeyA", WindowsVirtualKeyCode: 65, Modifiers: ctrl}
	for _, k := range []input.DispatchKeyEventParams{down, up} {
		if _, err := cdp.Call(ctx, p.s, input.DispatchKeyEvent, k); err != nil {
			p.t.Fatal(err)
		}
	}
}

// pressTab presses Tab through Input.dispatchKeyEvent.
func (p *ui) pressTab(ctx context.Context) {
	p.t.Helper()
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		if _, err := cdp.Call(ctx, p.s, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: typ, Key: "Tab", Code: "Tab", WindowsVirtualKeyCode: 9}); err != nil {
			p.t.Fatal(err)
		}
	}
}

// overlayBoxes are the highlight boxes egohost drew in the page.
func (p *ui) overlayBoxes(ctx context.Context) []rect {
	p.t.Helper()
	var boxes []rect
	p.eval(ctx, `[...(document.querySelector('egohost-overlay')?.shadowRoot?.querySelectorAll('.box') ?? [])].map((b) => { const r = b.getBoundingClientRect(); return {X: r.x, Y: r.y, Width: r.width, Height: r.height}; })`, &boxes)
	return boxes
}

// waitBoxes waits until the page shows exactly the boxes of want.
func (p *ui) waitBoxes(ctx context.Context, what string, want []rect) {
	p.t.Helper()
	for {
		got := p.overlayBoxes(ctx)
		if len(got) == len(want) {
			same := true
			for i := range want {
				same = same && got[i].near(want[i])
			}
			if same {
				return
			}
		}
		select {
		case <-ctx.Done():
			p.t.Fatalf("%s: got boxes %+v, want %+v", what, got, want)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// screenshot writes the popup to dir/name.png when EGOHOST_SCREENSHOTS is set.
func (p *ui) screenshot(ctx context.Context, name string) {
	p.t.Helper()
	dir := os.Getenv("EGOHOST_SCREENSHOTS")
	if dir == "" {
		return
	}
	var r rect
	p.eval(ctx, `(() => { const r = document.body.getBoundingClientRect(); return {X: r.x, Y: r.y, Width: r.width, Height: Math.max(r.height, document.body.scrollHeight)}; })()`, &r)
	// Beyond the viewport for the popup's long panels; never for a page with
	// boxes: the resize it makes takes them off.
	beyond := strings.HasPrefix(name, "popup-")
	shot, err := cdp.Call(ctx, p.s, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng, CaptureBeyondViewport: &beyond,
		Clip: &page.Viewport{X: r.X, Y: r.Y, Width: r.Width, Height: r.Height, Scale: 1},
	})
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	b := shot.Data
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

const popupFixture = `<!doctype html><html><head><meta charset=utf-8><title>Shop</title>
<style>body{margin:0;padding:16px;font:15px sans-serif} nav a{margin-right:12px} form{margin-top:24px}</style></head><body>
<h1>Shop</h1>
<nav><a href="#a">More</a><a href="#b">More</a><a href="#c">About</a></nav>
<p>Fresh bread every morning.</p>
<button id=buy type=button onclick="document.title = 'bought'">Buy now</button>
<form><label for=email>Email</label> <input id=email placeholder="you@example.com"></form>
<div id=clicks></div>
<script>document.addEventListener('click', (e) => { document.getElementById('clicks').textContent += (e.target.id || e.target.localName) + ' '; }, true);</script>
</body></html>`

func TestPopupPanelsInChromium(t *testing.T) {
	c := startChain(t)
	base := serve(t, map[string]string{"/": popupFixture})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 120*time.Second)
	pg := attachTab(ctx, t, c, base+"/")
	pop := openPopup(ctx, t, c, tab.Tab)

	t.Run("status shows where agents connect and the token", func(t *testing.T) {
		var endpoint, token string
		pop.eval(ctx, `document.getElementById('agents-endpoint').textContent`, &endpoint)
		pop.eval(ctx, `document.getElementById('agents-token').textContent`, &token)
		if endpoint != "ws://"+c.svc.addr+protocol.Path || token != filepath.Join(c.svc.stateDir, "token") {
			t.Errorf("got endpoint %q token %q, want ws://%s%s and %s", endpoint, token, c.svc.addr, protocol.Path, filepath.Join(c.svc.stateDir, "token"))
		}
	})

	t.Run("snapshot, hover highlights, click copies the ref", func(t *testing.T) {
		pop.click(ctx, "#snapshot")
		pop.waitFor(ctx, "the snapshot", `[...document.querySelectorAll('#snapshot-lines li.has-ref')].some((li) => li.textContent.includes('button "Buy now"'))`)
		var ref string
		pop.eval(ctx, `[...document.querySelectorAll('#snapshot-lines li.has-ref')].find((li) => li.textContent.includes('button "Buy now"')).dataset.ref`, &ref)
		// The ref is the service's: an agent's call with it reaches the button.
		var res protocol.ResolveResult
		if err := c.agent.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: tab, Element: ref}, &res); err != nil || res.Count != 1 || res.Matches[0].Name != "Buy now" {
			t.Fatalf("resolve %s: got %+v, %v; want the Buy now button", ref, res, err)
		}
		sel := fmt.Sprintf(`#snapshot-lines li[data-ref=%q] .text`, ref)
		pop.hover(ctx, sel)
		pop.screenshot(ctx, "popup-snapshot")
		pg.waitBoxes(ctx, "hovering "+ref, []rect{pg.rectOf(ctx, "#buy")})

		pop.click(ctx, fmt.Sprintf(`#snapshot-lines li[data-ref=%q] button.ref`, ref))
		pop.waitFor(ctx, "the copy", fmt.Sprintf(`document.getElementById('copied').dataset.text === %q`, ref))
		// The keyboard: Tab from that ref to the next one (the Email field's) boxes it.
		pop.pressTab(ctx)
		pg.waitBoxes(ctx, "tabbing to the next ref", []rect{pg.rectOf(ctx, "#email")})

		var title string
		pg.eval(ctx, `document.title`, &title)
		if title != "Shop" {
			t.Errorf("the page's title is %q: the popup must not have clicked the button", title)
		}
	})

	t.Run("locator tester counts and highlights every match, marks a syntax error", func(t *testing.T) {
		pop.click(ctx, "#tab-locator")
		pop.click(ctx, "#locator")
		pop.typeText(ctx, `role=link[name="More"]`)
		pop.waitFor(ctx, "the count", `document.getElementById('tester-result').textContent.startsWith('2 matches')`)
		var links []rect
		pg.eval(ctx, `[...document.querySelectorAll('nav a[href="#a"], nav a[href="#b"]')].map((e) => { const r = e.getBoundingClientRect(); return {X: r.x, Y: r.y, Width: r.width, Height: r.height}; })`, &links)
		pg.waitBoxes(ctx, "the tester's matches", links)
		pop.screenshot(ctx, "popup-locators")
		pg.screenshot(ctx, "page-highlight")
		pg.waitBoxes(ctx, "the tester's matches after the screenshot", links)

		// Select all, then a locator with a missing ].
		pop.selectAll(ctx)
		pop.typeText(ctx, `role=button[name="Buy"`)
		pop.waitFor(ctx, "the syntax error", `document.querySelector('#tester-result .syntax mark') !== null`)
		var marked struct{ Before, At, After, Invalid string }
		pop.eval(ctx, `(() => { const s = document.querySelector('#tester-result .syntax'); return {Before: s.firstChild.textContent, At: s.querySelector('mark').textContent, After: s.lastChild.nodeType === 3 && s.lastChild !== s.firstChild ? s.lastChild.textContent : '', Invalid: document.getElementById('locator').getAttribute('aria-invalid')}; })()`, &marked)
		// The mark is where the service's syntax_error says (data.offset).
		err := c.agent.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: tab, Element: `role=button[name="Buy"`}, nil)
		pe := wantCode(t, err, protocol.CodeSyntax)
		offset, _ := pe.Data["offset"].(float64)
		in := `role=button[name="Buy"`
		if marked.Before != in[:int(offset)] || marked.Before+marked.At+marked.After != in || marked.Invalid != "true" {
			t.Errorf("syntax error: got %+v, want the input split at the service's offset %v, aria-invalid true", marked, offset)
		}
	})

	t.Run("closing the popup takes the boxes off the page", func(t *testing.T) {
		pop.click(ctx, "#locator")
		pop.selectAll(ctx)
		pop.typeText(ctx, "#buy")
		pg.waitBoxes(ctx, "the tester's match", []rect{pg.rectOf(ctx, "#buy")})
		if _, err := cdp.Call(ctx, c.direct.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: pop.id}); err != nil {
			t.Fatal(err)
		}
		pg.waitFor(ctx, "the boxes to go", `document.querySelector('egohost-overlay') === null`)
	})

	t.Run("pick an element: the popup closes, the pick goes on, the reopened popup shows it", func(t *testing.T) {
		picker := openPopup(ctx, t, c, tab.Tab)
		picker.click(ctx, "#tab-locator")
		picker.click(ctx, "#pick")
		pg.waitFor(ctx, "the picker", `document.querySelector('egohost-overlay')?.shadowRoot?.querySelector('.hint')`)
		// A real popup closes as the person clicks into the page.
		if _, err := cdp.Call(ctx, c.direct.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: picker.id}); err != nil {
			t.Fatal(err)
		}
		r := pg.rectOf(ctx, "#email")
		pg.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, r.X+r.Width/2, r.Y+r.Height/2)
		pg.clickAt(ctx, r.X+r.Width/2, r.Y+r.Height/2)
		pg.waitFor(ctx, "the picker to end", `document.querySelector('egohost-overlay') === null`)

		again := openPopup(ctx, t, c, tab.Tab)
		again.waitFor(ctx, "the last pick, on the Locators panel", `document.getElementById('pick-locator').textContent !== '' && !document.getElementById('panel-locator').hidden`)
		again.screenshot(ctx, "popup-pick")
		var locator, ref string
		again.eval(ctx, `document.getElementById('pick-locator').textContent`, &locator)
		again.eval(ctx, `document.getElementById('pick-ref').textContent`, &ref)
		if locator != `role=textbox[name="Email"]` {
			t.Errorf("got locator %q, want role=textbox[name=\"Email\"] (role and name first)", locator)
		}
		want := resolveOne(ctx, t, c, tab, "#email")
		for _, target := range []string{locator, ref} {
			if got := resolveOne(ctx, t, c, tab, target); got != want {
				t.Errorf("%s resolves to node %d, want the picked #email (%d)", target, got, want)
			}
		}
		var clicks string
		pg.eval(ctx, `document.getElementById('clicks').textContent`, &clicks)
		if clicks != "" {
			t.Errorf("the page saw clicks on %q while picking, want none", clicks)
		}

		again.click(ctx, "#tab-status")
		again.screenshot(ctx, "popup-status")
		if _, err := cdp.Call(ctx, again.s, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
			t.Fatal(err)
		}
		again.click(ctx, "#tab-locator")
		again.screenshot(ctx, "popup-dark")
	})
}

// resolveOne is the backend node the agent API resolves target to.
func resolveOne(ctx context.Context, t testing.TB, c *chain, tab protocol.Target, target string) int64 {
	t.Helper()
	var res protocol.ResolveResult
	if err := c.agent.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: tab, Element: target}, &res); err != nil {
		t.Fatalf("resolve %s: %v", target, err)
	}
	if res.Count != 1 {
		t.Fatalf("resolve %s: got %d matches, want 1", target, res.Count)
	}
	return res.Matches[0].BackendNodeID
}

// Stop all automation: the switch detaches every tab and the CLI's calls
// are refused with automation_stopped, also after the extension's worker
// restarts (the switch comes back with the hello), until it is switched
// back on.
func TestPopupStopAllAutomation(t *testing.T) {
	c := startChain(t)
	base := serve(t, map[string]string{"/": popupFixture})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 120*time.Second)
	if out, errOut, code := c.cli(tab, "snapshot", "-i"); code != 0 {
		t.Fatalf("snapshot before the stop: exit %d %s %s", code, out, errOut)
	}
	pop := openPopup(ctx, t, c, tab.Tab)
	pop.click(ctx, "#tab-status")
	pop.waitFor(ctx, "the attached tab", `document.querySelectorAll('#attached li').length === 1`)

	pop.click(ctx, "#automation")
	pop.waitFor(ctx, "the switch off", `document.getElementById('automation').getAttribute('aria-checked') === 'false' && document.querySelectorAll('#attached li').length === 0`)
	pop.screenshot(ctx, "popup-stopped")
	refused := func(why string) {
		t.Helper()
		_, errOut, code := c.cli(tab, "snapshot", "-i")
		if code == 0 || !strings.Contains(errOut, "automation_stopped") {
			t.Fatalf("%s: got exit %d, stderr %q; want a refusal with automation_stopped", why, code, errOut)
		}
	}
	refused("after the switch")

	// The worker restarts: the switch is still off, in the extension and the service.
	id, ok := workerTarget(ctx, t, c.direct)
	if !ok {
		t.Fatal("no service worker target for the extension")
	}
	if _, err := cdp.Call(ctx, c.direct.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
		t.Fatal(err)
	}
	c.waitNoBrowser(t, "worker stopped")
	c.waitLink(t)
	refused("after the worker restarted")

	pop.click(ctx, "#automation")
	pop.waitFor(ctx, "the switch on", `document.getElementById('automation').getAttribute('aria-checked') === 'true'`)
	if out, errOut, code := c.cli(tab, "snapshot", "-i"); code != 0 || !strings.Contains(out, `button "Buy now"`) {
		var note string
		pop.eval(ctx, `document.getElementById('worker-note').textContent`, &note)
		t.Fatalf("snapshot after switching back on: exit %d %s %s (popup note %q)\nservice log:\n%s", code, out, errOut, note, c.svc.logs)
	}
}
