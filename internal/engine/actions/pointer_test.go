package actions_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

func TestClick(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<button id=b onclick="log('click ' + event.detail + ' ' + event.isTrusted)" style="margin:40px">Buy now</button>`)}, "/")
	res := tb.ok(tb.r.Click(tb.ctx, "#b", actions.ClickOptions{}))
	tb.want("window.events", `["click 1 true"]`)
	if res.Point == nil || res.Point.X <= 40 || res.Point.Y <= 40 {
		t.Errorf("point: got %+v, want inside the button", res.Point)
	}
	contains(t, "element", res.Element, `<button id="b">Buy now`)
	if res.Waited.Attempts != 1 {
		t.Errorf("attempts: got %d, want 1", res.Waited.Attempts)
	}
	if len(res.Settled.For) == 0 || res.Settled.For[len(res.Settled.For)-1] != "dom quiet" {
		t.Errorf("settled for: got %v, want dom quiet", res.Settled.For)
	}
}

func TestClickKinds(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<button id=b style="margin:40px" onclick="log('click ' + event.detail + (event.shiftKey ? ' shift' : ''))"
  ondblclick="log('dblclick')" oncontextmenu="log('contextmenu ' + event.button); return false"
  onauxclick="log('auxclick ' + event.button)" onmouseover="log('over')">B</button>`)}, "/")
	tb.ok(tb.r.Click(tb.ctx, "#b", actions.ClickOptions{Count: 2}))
	tb.want("window.events", `["over","click 1","click 2","dblclick"]`)
	tb.eval("window.events = []")
	tb.ok(tb.r.Click(tb.ctx, "#b", actions.ClickOptions{Button: "right"}))
	tb.want("window.events", `["contextmenu 2","auxclick 2"]`)
	tb.eval("window.events = []")
	tb.ok(tb.r.Click(tb.ctx, "#b", actions.ClickOptions{Modifiers: []string{"Shift"}}))
	tb.want("window.events", `["click 1 shift"]`)
	if _, err := tb.r.Click(tb.ctx, "#b", actions.ClickOptions{Button: "fourth"}); err == nil {
		t.Error("unknown button: no error")
	}
	if _, err := tb.r.Click(tb.ctx, "#b", actions.ClickOptions{Modifiers: []string{"Hyper"}}); err == nil {
		t.Error("unknown modifier: no error")
	}
}

func TestHover(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<style>#menu{display:none} #m:hover #menu{display:block}</style>
<div id=m style="margin:30px;width:100px">Menu<div id=menu><button id=item onclick="log('item')">Item</button></div></div>`)}, "/")
	tb.ok(tb.r.Hover(tb.ctx, "#m", actions.ActOptions{}))
	// The item shows only while the mouse is over the menu.
	tb.ok(tb.r.Click(tb.ctx, "#item", actions.ClickOptions{}))
	tb.want("window.events", `["item"]`)
}

// An overlay that goes away after 300 ms: the click waits for it, then
// lands on the button, never on the overlay.
func TestClickWaitsForOverlay(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<button id=b style="margin:50px" onclick="log('button')">Go</button>
<div id=overlay onclick="log('overlay')" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>`)}, "/")
	tb.eval("setTimeout(() => document.getElementById('overlay').remove(), 300)")
	res := tb.ok(tb.r.Click(tb.ctx, "#b", actions.ClickOptions{}))
	tb.want("window.events", `["button"]`)
	if res.Waited.Attempts > 1 {
		if len(res.Waited.Reasons) == 0 {
			t.Fatalf("waited %d attempts with no reason", res.Waited.Attempts)
		}
		contains(t, "reason", res.Waited.Reasons[0], `covered by <div id="overlay">`)
	}
}

// A banner that never goes: the error names it.
func TestClickCoveredForGood(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<button id=b style="margin:50px" onclick="log('button')">Go</button>
<div id=cookie-banner onclick="log('banner')" style="position:fixed;inset:0">We use cookies</div>`)}, "/")
	_, err := tb.r.Click(tb.ctx, "#b", actions.ClickOptions{ActOptions: actions.ActOptions{Timeout: 1500 * time.Millisecond}})
	var te *actions.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a timeout", err)
	}
	var na *actions.NotActionableError
	if !errors.As(err, &na) || na.Reason != actions.Covered {
		t.Fatalf("got %v, want covered", err)
	}
	contains(t, "cover", na.Cover, `<div id="cookie-banner">We use cookies`)
	contains(t, "message", err.Error(), `element is covered by <div id="cookie-banner">`)
	tb.want("window.events", `[]`)
	// force skips the check: the click lands on the banner.
	tb.ok(tb.r.Click(tb.ctx, "#b", actions.ClickOptions{ActOptions: actions.ActOptions{Force: true}}))
	tb.want("window.events", `["banner"]`)
}

func TestClickWaitsForEnabled(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<button id=b disabled onclick="log('clicked')" style="margin:20px">Pay</button>`)}, "/")
	_, err := tb.r.Click(tb.ctx, "#b", actions.ClickOptions{ActOptions: actions.ActOptions{Timeout: 1500 * time.Millisecond}})
	var na *actions.NotActionableError
	if !errors.As(err, &na) || na.Reason != actions.Disabled {
		t.Fatalf("got %v, want disabled", err)
	}
	tb.eval("setTimeout(() => document.getElementById('b').disabled = false, 300)")
	tb.ok(tb.r.Click(tb.ctx, "#b", actions.ClickOptions{}))
	tb.want("window.events", `["clicked"]`)
}

func TestClickWaitsForElement(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<div id=box></div>`)}, "/")
	tb.eval(`setTimeout(() => { document.getElementById('box').innerHTML = '<button id=late onclick="log(\'late\')">Late</button>'; window.addedAt = performance.now(); }, 500)`)
	// On a loaded machine the click may start after the button came: it
	// must have waited when it started well before (the page's clock just
	// before the call, against the button's arrival on it).
	start, err := strconv.ParseFloat(tb.eval(`window.addedAt === undefined ? performance.now() : -1`), 64)
	if err != nil {
		t.Fatal(err)
	}
	res := tb.ok(tb.r.Click(tb.ctx, "role=button[name=Late]", actions.ClickOptions{}))
	tb.want("window.events", `["late"]`)
	added, err := strconv.ParseFloat(tb.eval(`window.addedAt`), 64)
	if err != nil {
		t.Fatal(err)
	}
	if start >= 0 && added-start > 250 && res.Waited.Attempts < 2 {
		t.Errorf("attempts: got %d, want a wait (the button came %.0f ms after the click was called)", res.Waited.Attempts, added-start)
	}
}

func TestClickWaitsForVisibleAndStable(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<style>@keyframes slide { from { margin-left: 0 } to { margin-left: 300px } } #b { animation: slide 400ms linear 1 forwards }</style>
<button id=b onclick="log('moving')">Moving</button>
<button id=h style="visibility:hidden" onclick="log('hidden')">Hidden</button>`)}, "/")
	tb.ok(tb.r.Click(tb.ctx, "#b", actions.ClickOptions{}))
	tb.want("window.events", `["moving"]`)
	_, err := tb.r.Click(tb.ctx, "#h", actions.ClickOptions{ActOptions: actions.ActOptions{Timeout: 1500 * time.Millisecond}})
	var na *actions.NotActionableError
	if !errors.As(err, &na) || na.Reason != actions.NotVisible {
		t.Fatalf("got %v, want not visible", err)
	}
}

func TestClickScrollsIntoView(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<div style="height:3000px"></div><button id=far onclick="log('far')">Far</button><div style="height:3000px"></div>`)}, "/")
	tb.ok(tb.r.Click(tb.ctx, "#far", actions.ClickOptions{}))
	tb.want("window.events", `["far"]`)
	tb.want("scrollY > 1000", "true")
}

func TestClickNavigates(t *testing.T) {
	tb := open(t, map[string]string{
		"/":       html(`<a id=next href="/second" style="display:inline-block;margin:20px">Next page</a>`),
		"/second": html(`<h1>Second</h1><script>document.title = 'second'</script>`),
	}, "/")
	res := tb.ok(tb.r.Click(tb.ctx, "text=Next page", actions.ClickOptions{}))
	if !res.Settled.Navigated || res.Settled.URL != tb.base+"/second" {
		t.Errorf("settled: got %+v, want a navigation to /second", res.Settled)
	}
	tb.want("document.title", `"second"`)
}

func TestClickInFrames(t *testing.T) {
	frame := html(`<button id=o style="margin:15px" onclick="log('remote')">Remote</button>`)
	other := browsertest.Serve(t, browsertest.Pages(map[string]string{"/oop": frame}))
	oop := strings.Replace(other, "127.0.0.1", "localhost", 1) // another site: out of process
	tb := open(t, map[string]string{
		"/": html(`<div style="height:100px"></div>
<iframe id=same src="/frame" style="margin-left:70px;border:5px solid;padding:3px;width:300px;height:100px"></iframe>
<iframe id=remote src="` + oop + `/oop" style="margin-left:20px;border:2px solid;padding:7px;width:300px;height:100px"></iframe>`),
		"/frame": html(`<button id=f style="margin:15px" onclick="log('framed')">In frame</button>`),
	}, "/")
	tb.ok(tb.r.Click(tb.ctx, "#f", actions.ClickOptions{}))
	tb.want("document.getElementById('same').contentWindow.events", `["framed"]`)
	res := tb.ok(tb.r.Click(tb.ctx, "#o", actions.ClickOptions{}))
	ids := tb.children()
	if len(ids) != 1 {
		t.Fatalf("out-of-process frames: got %d, want 1", len(ids))
	}
	yes := true
	v, err := cdp.Call(tb.ctx, tb.p.Child(ids[0]), cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: "window.events", ReturnByValue: &yes})
	if err != nil || string(v.Result.Value) != `["remote"]` {
		t.Errorf("remote frame events: got %s, %v; want [\"remote\"] (clicked at %+v)", v.Result.Value, err, res.Point)
	}
}

func TestDrag(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<div id=src draggable=true style="width:80px;height:40px;background:#ccc;margin:20px"
  ondragstart="event.dataTransfer.setData('text/plain', 'hello'); log('dragstart')">drag me</div>
<div id=dst style="width:200px;height:100px;background:#eee;margin:20px"
  ondragover="event.preventDefault()" ondrop="event.preventDefault(); log('drop ' + event.dataTransfer.getData('text/plain'))">drop here</div>
<div id=knob style="position:absolute;left:400px;top:30px;width:30px;height:30px;background:red"></div>
<div id=rail style="position:absolute;left:400px;top:200px;width:200px;height:30px;background:#def"></div>
<script>
let dragging = false;
knob.addEventListener('mousedown', () => { dragging = true; log('down'); });
document.addEventListener('mousemove', (e) => { if (dragging) { knob.style.left = (e.clientX - 15) + 'px'; knob.style.top = (e.clientY - 15) + 'px'; } });
document.addEventListener('mouseup', (e) => { if (dragging) { dragging = false; log('up ' + document.elementsFromPoint(e.clientX, e.clientY).map(x => x.id).filter(Boolean).join(',')); } });
</script>`)}, "/")
	tb.ok(tb.r.Drag(tb.ctx, "#src", "#dst", actions.ActOptions{}))
	tb.want("window.events", `["dragstart","drop hello"]`)
	tb.eval("window.events = []")
	tb.ok(tb.r.Drag(tb.ctx, "#knob", "#rail", actions.ActOptions{}))
	tb.want("window.events", `["down","up rail,knob"]`)
}

// A popup that opens when the mouse moves in, over the button, between the
// checks and the press: the guard stops the press on the popup (the page
// never sees it), and the click retries once the popup is gone.
func TestClickGuardStopsMisclicks(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<button id=b style="margin:50px" onclick="log('button')">Go</button>
<div id=pop style="display:none;position:fixed;inset:0" onmousedown="log('pop down')" onclick="log('pop')"></div>
<script>
let shown = false;
document.addEventListener('mousemove', () => {
  if (shown) return;
  shown = true;
  pop.style.display = 'block';
  setTimeout(() => { pop.style.display = 'none'; }, 300);
});
</script>`)}, "/")
	res := tb.ok(tb.r.Click(tb.ctx, "#b", actions.ClickOptions{}))
	tb.want("window.events", `["button"]`)
	if res.Waited.Attempts < 2 || len(res.Waited.Reasons) == 0 {
		t.Fatalf("waited %+v, want the stopped click among the reasons", res.Waited)
	}
	contains(t, "reason", res.Waited.Reasons[0], `covered by <div id="pop">`)
}

// A control that puts something else in its place as the press focuses it
// (Gutenberg's block appender adds the block it stands for): the press
// landed on it, so the release and the click go on to what is there now,
// as in Playwright; the click is done once, not stopped halfway and tried
// again on an element that is gone.
func TestClickThatReplacesItsElementOnThePress(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<p id=appender role=button tabindex=0 aria-label="Add default block" style="margin:50px;height:30px;border:1px solid"></p>
<script>
appender.addEventListener('focus', () => {
  log('focus');
  const b = document.createElement('p');
  b.id = 'block';
  b.contentEditable = true;
  b.style.cssText = 'margin:50px;height:30px';
  b.addEventListener('mouseup', () => log('block up'));
  b.addEventListener('click', () => log('block click'));
  appender.replaceWith(b);
  b.focus();
});
</script>`)}, "/")
	short := actions.ClickOptions{ActOptions: actions.ActOptions{Timeout: 2 * time.Second}}
	res := tb.ok(tb.r.Click(tb.ctx, "#appender", short))
	// (The click itself goes to what holds both, as Chrome does when the
	// press and the release land on two elements.)
	tb.want("window.events", `["focus","block up"]`)
	if res.Waited.Attempts > 1 {
		t.Errorf("waited %+v, want the click done at the first attempt", res.Waited)
	}
}

// A control the page keeps off-screen until its row is hovered (WordPress's
// row actions, at left -9999em): the click says so and what to do, and
// after a hover over the row it clicks.
func TestClickOffScreenUntilHovered(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<style>.row { padding: 20px } .actions { position: absolute; left: -9999em } .row:hover .actions, .actions:focus-within { position: static }</style>
<div class=row id=row>Hello world <span class=actions><a id=trash href="#" onclick="log('trash'); return false">Trash</a></span></div>`)}, "/")
	short := actions.ClickOptions{ActOptions: actions.ActOptions{Timeout: 700 * time.Millisecond}}
	_, err := tb.r.Click(tb.ctx, "#trash", short)
	var na *actions.NotActionableError
	if !errors.As(err, &na) || na.Reason != actions.OutsideViewport || !strings.Contains(na.Detail, "off-screen") || !strings.Contains(na.Detail, "hover") {
		t.Fatalf("click off-screen: got %v, want outside the viewport, saying it is off-screen and to hover", err)
	}
	tb.ok(tb.r.Hover(tb.ctx, "#row", actions.ActOptions{}))
	tb.ok(tb.r.Click(tb.ctx, "#trash", short))
	tb.want("window.events", `["trash"]`)
}
