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

	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/internal/testkit/cdpdirect"
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
// that tab, and waits until it has its status. Its viewport is as high as
// Chrome's popup at most (600 px).
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
	if _, err := cdp.Call(ctx, s, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 380, Height: 600, DeviceScaleFactor: 2}); err != nil {
		t.Fatal(err)
	}
	p.waitFor(ctx, "the popup's status", `document.getElementById('relay-state').textContent === 'connected' && !document.getElementById('agents').hidden`)
	return p
}

// attachTab attaches the test's own session to the browser tab with id
// (the page under test: the oracle reads it directly).
func attachTab(ctx context.Context, t testing.TB, c *chain, url string) *ui {
	t.Helper()
	if p := attachPage(ctx, t, c, url); p != nil {
		return p
	}
	t.Fatalf("no page target at %s", url)
	return nil
}

// attachPage attaches the test's own DevTools session to the page target
// at url, if there is one now (nil: none).
func attachPage(ctx context.Context, t testing.TB, c *chain, url string) *ui {
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

// contrastJS lists every text shown in the page whose colour is under
// WCAG AA's 4.5:1 on the background it is drawn on (issue 26): the
// rendered counterpart of extension/test/contrast.test.mjs.
const contrastJS = `(() => {
	const parse = (c) => { const m = /rgba?\(([^)]+)\)/.exec(c); if (!m) return null; const v = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
	const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
	const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
	const bgOf = (el) => {
		const layers = [];
		for (let e = el; e; e = e.parentElement) {
			const c = parse(getComputedStyle(e).backgroundColor);
			if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
		}
		return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
	};
	const out = new Set();
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		const el = n.parentElement;
		if (!n.textContent.trim() || !el.getClientRects().length || el.closest('[hidden], :disabled')) continue;
		const st = getComputedStyle(el);
		if (st.visibility === 'hidden') continue;
		const bg = bgOf(el);
		const fg = over(parse(st.color), bg);
		const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
		const r = (hi + 0.05) / (lo + 0.05);
		if (r < 4.5) out.add(el.localName + (el.className ? '.' + el.className : '') + ' "' + n.textContent.trim().slice(0, 30) + '": ' + st.color + ' on rgb(' + bg.slice(0, 3).map(Math.round) + ') is ' + r.toFixed(2) + ':1');
	}
	return [...out];
})()`

// checkContrast fails the test for each text of the popup under 4.5:1.
func (p *ui) checkContrast(ctx context.Context, what string) {
	p.t.Helper()
	var low []string
	p.eval(ctx, contrastJS, &low)
	for _, l := range low {
		p.t.Errorf("%s: contrast under WCAG AA: %s", what, l)
	}
}

// setScheme emulates prefers-color-scheme ("" for the default, light).
func (p *ui) setScheme(ctx context.Context, scheme string) {
	p.t.Helper()
	if _, err := cdp.Call(ctx, p.s, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		p.t.Fatal(err)
	}
}

// pathBreaksJS reports the paths the popup shows (class "path"): the
// parts (words of the text nodes between the breaks pathview.js allows)
// that a line break cuts, and how many paths wrap at all.
const pathBreaksJS = `(() => {
	const cut = [];
	let wrapped = 0;
	for (const el of document.querySelectorAll('.path')) {
		if (!el.getClientRects().length) continue;
		const lines = new Set();
		for (const n of el.childNodes) {
			if (n.nodeType !== Node.TEXT_NODE) continue;
			for (const m of n.textContent.matchAll(/\S+/g)) {
				const r = document.createRange();
				r.setStart(n, m.index);
				r.setEnd(n, m.index + m[0].length);
				const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
				if (tops.size > 1) cut.push(m[0]);
				tops.forEach((t) => lines.add(t));
			}
		}
		if (lines.size > 1) wrapped++;
	}
	return {Cut: cut, Wrapped: wrapped};
})()`

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
	c := useSharedChain(t)
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
		// Each ref shows once: as its line's button, not again in the line's text.
		var twice []string
		pop.eval(ctx, `(() => { const text = document.getElementById('snapshot-lines').innerText; return [...document.querySelectorAll('#snapshot-lines li.has-ref')].map((li) => li.dataset.ref).filter((r) => text.split(new RegExp(r + '(?![0-9])')).length !== 2); })()`, &twice)
		if len(twice) != 0 {
			t.Errorf("refs shown more than once in the snapshot panel: %v", twice)
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

		// The two matches are told apart: their lines differ by more than
		// their numbers, hovering the second boxes it alone, its nth copies
		// the locator that picks it.
		var lines []string
		pop.eval(ctx, `[...document.querySelectorAll('#tester-matches li')].map((li) => { const c = li.cloneNode(true); c.querySelectorAll('.label, button').forEach((e) => e.remove()); return c.textContent.replace(/^\s*\d+(\/\d+|\.)\s*/, '').trim(); })`, &lines)
		if len(lines) != 2 || lines[0] == lines[1] {
			t.Errorf("the tester's matches without their numbers: got %q, want two lines that differ", lines)
		}
		pop.hover(ctx, "#tester-matches li:nth-child(2) .text")
		pg.waitBoxes(ctx, "hovering the second match", links[1:])
		pop.click(ctx, "#tester-matches li:nth-child(2) button.nth")
		nth := `role=link[name="More"] >> nth=1`
		pop.waitFor(ctx, "the copy of the second match's locator", fmt.Sprintf(`document.getElementById('copied').dataset.text === %q`, nth))
		if got, want := resolveOne(ctx, t, c, tab, nth), resolveOne(ctx, t, c, tab, `css=a[href="#b"]`); got != want {
			t.Errorf("%s resolves to node %d, want the second More link (%d)", nth, got, want)
		}
		pop.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, 2, 2)
		pg.waitBoxes(ctx, "both matches again after leaving the list", links)

		// Select all, then a locator with a missing ].
		pop.click(ctx, "#locator")
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

		again.checkContrast(ctx, "the Locators panel with a pick")
		again.click(ctx, "#tab-status")
		again.waitFor(ctx, "the socket and the token", `document.getElementById('relay-socket').textContent !== '' && document.getElementById('agents-token').textContent !== ''`)
		again.screenshot(ctx, "popup-status")
		again.checkContrast(ctx, "the Status panel")
		// No path breaks inside a name: the test's long temporary paths wrap
		// only after a separator.
		var paths struct {
			Cut     []string
			Wrapped int
		}
		again.eval(ctx, pathBreaksJS, &paths)
		if len(paths.Cut) != 0 || paths.Wrapped == 0 {
			t.Errorf("paths in the Status panel: got %+v, want some wrapped and no part cut by a line break", paths)
		}
		again.setScheme(ctx, "dark")
		again.checkContrast(ctx, "the Status panel, dark")
		again.click(ctx, "#tab-locator")
		again.screenshot(ctx, "popup-dark")
		again.checkContrast(ctx, "the Locators panel with a pick, dark")
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
	pop.checkContrast(ctx, "the Status panel, automation stopped")
	refused := func(why string) {
		t.Helper()
		_, errOut, code := c.cli(tab, "snapshot", "-i")
		if code == 0 || !strings.Contains(errOut, "automation_stopped") {
			t.Fatalf("%s: got exit %d, stderr %q; want a refusal with automation_stopped", why, code, errOut)
		}
	}
	refused("after the switch")

	// The worker restarts: the switch is still off, in the extension and the service.
	id := workerTarget(ctx, t, c.direct)
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
