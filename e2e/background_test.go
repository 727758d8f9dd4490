package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// backgroundPage counts what the actions do to it in window.got, and
// answers a click on Load with work done at once: a fetch, then a
// setTimeout(0), then the text in #out.
const backgroundPage = `<!doctype html><html><head><meta charset=utf-8><title>bg</title>
<style>body{margin:0;font:16px sans-serif} #box{height:80px;overflow:auto;width:200px} #tall{height:3000px}</style>
<script>
window.seq = []; for (const t of ["pointerover","pointerenter","mouseover","mouseenter","pointermove","mousemove","pointerdown","mousedown","pointerup","mouseup","click"]) addEventListener(t, (e) => { if (e.target.id === "go") seq.push(t + (e.isTrusted ? "" : "*")) }, true);
window.got = {click: 0, dbl: 0, ctx: 0, over: 0, enter: 0, move: 0, hoverClick: 0, keys: [], load: 0, wheel: 0};
</script></head><body>
<button id=go onclick="got.click++" ondblclick="got.dbl++" oncontextmenu="got.ctx++; return false">Go</button>
<span id=hov onmouseover="got.over++" onmouseenter="got.enter++" onmousemove="got.move++">Hover me</span>
<button id=load onclick="fetch('/data').then(r => r.text()).then(t => setTimeout(() => { out.textContent = t; got.load++ }, 0))">Load</button>
<p id=out></p>
<label>Name <input id=name onkeydown="got.keys.push(event.key)"></label>
<label><input id=agree type=checkbox> I agree</label>
<select id=colour aria-label=Colour><option value=r>Red</option><option value=g>Green</option></select>
<input id=file type=file aria-label=File>
<div id=src draggable=true>Drag me</div><div id=dst>Drop here</div>
<div id=box onwheel="got.wheel++"><div style="height:400px">inner</div></div>
<div id=tall></div><button id=far>Far</button>
</body></html>`

// Every action on a page in a background tab (its document hidden, as an
// agent's tab is while the person uses another one) lands in the page,
// promptly (no wait on animation frames or on the 1 s wake-ups of a
// hidden tab's timers), and leaves the person's tab active.
func TestActionsInBackgroundTab(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": backgroundPage, "/data": "loaded at once"})
	ctx := ctxT(t, 180*time.Second)
	dir := t.TempDir()
	upload := filepath.Join(dir, "note.txt")
	if err := os.WriteFile(upload, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}

	bg := c.openTab(t, base+"/")
	person := c.openTab(t, base+"/") // the person's tab: bg is now in the background
	state := func(tab protocol.Target) string {
		v, err := c.eval(ctx, tab, "document.visibilityState")
		if err != nil {
			t.Fatal(err)
		}
		return strings.Trim(string(v), `"`)
	}
	if got := state(bg); got != "hidden" {
		t.Fatalf("background tab: visibilityState %q, want hidden", got)
	}

	took := map[string][2]time.Duration{}
	var order []string // the actions in the order they ran
	run := func(tab protocol.Target, col int) {
		eval := func(expr string) string {
			t.Helper()
			v, err := c.eval(ctx, tab, expr)
			if err != nil {
				t.Fatalf("eval %s: %v", expr, err)
			}
			return string(v)
		}
		act := func(name, method string, params any, check string, want string) {
			t.Helper()
			start := time.Now()
			var res map[string]any
			err := c.agent.Call(ctx, method, params, &res)
			d := time.Since(start)
			if err != nil {
				t.Errorf("%s: %v (after %v)", name, err, d.Round(time.Millisecond))
				return
			}
			e, seen := took[name]
			if !seen {
				order = append(order, name)
			}
			e[col] = d
			took[name] = e
			if check != "" {
				if got := eval(check); got != want {
					t.Errorf("%s: %s is %s, want %s (settled %v)", name, check, got, want, res["settled"])
				}
			}
		}
		el := func(sel string) protocol.ElementParams { return protocol.ElementParams{Target: tab, Element: sel} }
		act("click", protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#go"}, "got.click", "1")
		act("click --no-settle", protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#go", ActionOptions: protocol.ActionOptions{NoSettle: true}}, "got.click", "2")
		act("dblclick", protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#go", Count: 2}, "[got.click, got.dbl]", "[4,1]")
		act("right click", protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#go", Button: "right"}, "got.ctx", "1")
		act("hover", protocol.MethodHover, el("#hov"), "[got.over > 0, got.enter > 0, got.move > 0]", "[true,true,true]")
		act("click (fetch, then setTimeout 0)", protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#load"}, "", "")
		// The settle's promise: the next read sees what the page did at once.
		var snap protocol.SnapshotResult
		if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab}, &snap); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(snap.Text, "loaded at once") {
			t.Errorf("snapshot after the Load click lacks the fetched text:\n%s", snap.Text)
		}
		act("fill", protocol.MethodFill, protocol.FillParams{Target: tab, Element: "#name", Text: "Ada"}, "document.getElementById('name').value", `"Ada"`)
		act("type", protocol.MethodType, protocol.TypeParams{Target: tab, Element: "#name", Text: "!"}, "document.getElementById('name').value", `"Ada!"`)
		act("press", protocol.MethodPress, protocol.PressParams{Target: tab, Element: "#name", Key: "Enter"}, "got.keys.at(-1)", `"Enter"`)
		act("check", protocol.MethodCheck, el("#agree"), "document.getElementById('agree').checked", "true")
		act("uncheck", protocol.MethodUncheck, el("#agree"), "document.getElementById('agree').checked", "false")
		act("select", protocol.MethodSelect, protocol.SelectParams{Target: tab, Element: "#colour", Values: []string{"g"}}, "document.getElementById('colour').value", `"g"`)
		act("upload", protocol.MethodUpload, protocol.UploadParams{Target: tab, Element: "#file", Files: []string{upload}}, "document.getElementById('file').files[0].name", `"note.txt"`)
		act("scroll into view", protocol.MethodScroll, protocol.ScrollParams{Target: tab, Element: "#far"}, "scrollY > 1000", "true")
		act("scroll wheel", protocol.MethodScroll, protocol.ScrollParams{Target: tab, Element: "#box", DY: 100}, "[document.getElementById('box').scrollTop, got.wheel]", "[100,1]")
		eval("window.y0 = scrollY")
		act("scroll wheel (viewport)", protocol.MethodScroll, protocol.ScrollParams{Target: tab, DY: 300}, "scrollY - window.y0", "300")
		act("focus", protocol.MethodFocus, el("#name"), "document.activeElement.id", `"name"`)
		act("wait for an element", protocol.MethodWait, protocol.WaitParams{Target: tab, Element: "#go", State: "visible"}, "", "")
		act("wait for a function", protocol.MethodWait, protocol.WaitParams{Target: tab, Function: "() => got.click === 4"}, "", "")
		start := time.Now()
		var shot protocol.ScreenshotResult
		// A hidden tab is captured while Chrome keeps its last frame; after
		// that the screenshot says so, promptly.
		if err := c.agent.Call(ctx, protocol.MethodScreenshot, protocol.ScreenshotParams{Target: tab}, &shot); err != nil {
			if pe := wantCode(t, err, protocol.CodeUnsupported); col == 1 || !strings.Contains(pe.Message, "background") {
				t.Errorf("screenshot: %v", pe)
			}
		} else if len(shot.Data) == 0 {
			t.Error("screenshot: no image")
		}
		if err := c.agent.Call(ctx, protocol.MethodScreenshot, protocol.ScreenshotParams{Target: tab, Element: "#go"}, &shot); err != nil || len(shot.Data) == 0 {
			t.Errorf("screenshot of an element: %v", err)
		}
		// The clicks on #go were trusted events only, entering it as a
		// person's mouse does (a hidden tab: no move events).
		if got := eval("seq.slice(0, 2).join() + ' ' + seq.some((t) => t.endsWith('*'))"); got != `"pointerover,mouseover false"` {
			t.Errorf("events on #go: got %s, want trusted pointerover, mouseover first (all: %s)", got, eval("seq"))
		}
		e, seen := took["screenshot"]
		if !seen {
			order = append(order, "screenshot")
		}
		e[col] = time.Since(start)
		took["screenshot"] = e
	}

	t.Run("hidden", func(t *testing.T) {
		run(bg, 0)
		// A drag's mouse moves do not complete in a hidden tab: a clear
		// error at once, not a hang.
		start := time.Now()
		err := c.agent.Call(ctx, protocol.MethodDrag, protocol.DragParams{Target: bg, Element: "#src", To: "#dst"}, nil)
		if pe := wantCode(t, err, protocol.CodeUnsupported); !strings.Contains(pe.Message, "background") {
			t.Errorf("drag: %v, want the background tab named", pe)
		}
		took["drag (refused)"] = [2]time.Duration{time.Since(start)}
		order = append(order, "drag (refused)")
		if got := state(bg); got != "hidden" {
			t.Errorf("background tab after the actions: %q, want hidden", got)
		}
		if got := state(person); got != "visible" {
			t.Errorf("the person's tab after the actions: %q, want visible", got)
		}
		var tabs protocol.TabsListResult
		if err := c.agent.Call(ctx, protocol.MethodTabsList, struct{}{}, &tabs); err != nil {
			t.Fatal(err)
		}
		for _, tb := range tabs.Tabs {
			if tb.ID == bg.Tab && tb.Active {
				t.Errorf("tab %d became active", tb.ID)
			}
			if tb.ID == person.Tab && !tb.Active {
				t.Errorf("the person's tab %d is no longer active", tb.ID)
			}
		}
	})
	t.Run("visible", func(t *testing.T) { run(person, 1) })

	var b strings.Builder
	for _, name := range order {
		d := took[name]
		fmt.Fprintf(&b, "\n  %-36s hidden %6.0f ms   visible %6.0f ms", name, ms(d[0]), ms(d[1]))
	}
	t.Logf("action times (through the chain):%s", b.String())
}
