package overlay_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/engine/overlay"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

const page = `<!doctype html><body style="margin:0;font:14px sans-serif">
<div style="position:relative;z-index:99999"><button id=a style="position:absolute;left:40px;top:50px;width:120px;height:30px">Alpha</button></div>
<p id=b style="position:absolute;left:200px;top:120px;margin:0">Beta text</p>
<div id=clicked></div>
<script>document.addEventListener('click', (e) => { document.getElementById('clicked').textContent += e.target.id || e.target.localName; }, true);</script>`

func open(t *testing.T) (cdp.Session, context.Context) {
	t.Helper()
	b := browsers.Launch(t)
	url := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": page}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	s := b.NewPage(t, url+"/")
	if err := browsertest.WaitLoaded(ctx, s); err != nil {
		t.Fatal(err)
	}
	return s, ctx
}

// inMain evaluates expr in the page's main world and decodes its value.
func inMain(ctx context.Context, t *testing.T, s cdp.Session, expr string, v any) {
	t.Helper()
	yes := true
	res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes})
	if err != nil || res.ExceptionDetails != nil {
		t.Fatalf("evaluate %s: %v %v", expr, err, res.ExceptionDetails)
	}
	if err := json.Unmarshal(res.Result.Value, v); err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
}

const boxesExpr = `[...(document.querySelector('egohost-overlay')?.shadowRoot?.querySelectorAll('.box') ?? [])].map((b) => {
  const r = b.getBoundingClientRect();
  return {x: r.x, y: r.y, width: r.width, height: r.height, label: b.textContent};
})`

func TestShowDrawsBoxesOnTopAndClearRemovesThem(t *testing.T) {
	s, ctx := open(t)
	want := []overlay.Box{{X: 40, Y: 50, Width: 120, Height: 30, Label: "1"}, {X: 200, Y: 120, Width: 60, Height: 18, Label: `p "Beta"`}}
	if err := overlay.Show(ctx, s, want); err != nil {
		t.Fatal(err)
	}
	var got []overlay.Box
	inMain(ctx, t, s, boxesExpr, &got)
	if len(got) != len(want) {
		t.Fatalf("got %d boxes, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("box %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	// The overlay is in the top layer (the page's own z-index does not
	// beat it), and lets the pointer through.
	var top bool
	inMain(ctx, t, s, `document.querySelector('egohost-overlay').matches(':popover-open') && document.elementFromPoint(100, 65).id === 'a'`, &top)
	if !top {
		t.Error("the overlay is not an open popover that lets clicks through to the page")
	}
	// Showing again replaces the boxes.
	if err := overlay.Show(ctx, s, want[:1]); err != nil {
		t.Fatal(err)
	}
	inMain(ctx, t, s, boxesExpr, &got)
	if len(got) != 1 {
		t.Errorf("after a second Show: got %d boxes, want 1", len(got))
	}
	if err := overlay.Clear(ctx, s); err != nil {
		t.Fatal(err)
	}
	var left int
	inMain(ctx, t, s, `document.querySelectorAll('egohost-overlay').length`, &left)
	if left != 0 {
		t.Errorf("after Clear: got %d overlay elements, want 0", left)
	}
	// Showing no boxes adds nothing to the page.
	if err := overlay.Show(ctx, s, nil); err != nil {
		t.Fatal(err)
	}
	inMain(ctx, t, s, `document.querySelectorAll('egohost-overlay').length`, &left)
	if left != 0 {
		t.Errorf("after showing no boxes: got %d overlay elements, want 0", left)
	}
}

func TestScrollTakesTheBoxesOff(t *testing.T) {
	s, ctx := open(t)
	if err := overlay.Show(ctx, s, []overlay.Box{{X: 40, Y: 50, Width: 120, Height: 30}}); err != nil {
		t.Fatal(err)
	}
	var n int
	inMain(ctx, t, s, `document.body.style.height = '3000px'; scrollTo(0, 200); new Promise((r) => requestAnimationFrame(() => r(document.querySelectorAll('egohost-overlay').length)))`, &n)
	for n != 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("after a scroll: got %d overlay elements, want 0 (the boxes no longer match the elements)", n)
		case <-time.After(10 * time.Millisecond):
		}
		inMain(ctx, t, s, `document.querySelectorAll('egohost-overlay').length`, &n)
	}
}

func click(ctx context.Context, t *testing.T, s cdp.Session, x, y float64) {
	t.Helper()
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
		if typ != input.DispatchMouseEventTypeMouseMoved {
			p.Button = input.MouseButtonLeft
			p.ClickCount = 1
		}
		if _, err := cdp.Call(ctx, s, input.DispatchMouseEvent, p); err != nil {
			t.Fatalf("%s at %v,%v: %v", typ, x, y, err)
		}
	}
}

// waitPicking waits until the picker's hint is up (inspect mode is on before it).
func waitPicking(ctx context.Context, t *testing.T, s cdp.Session) {
	t.Helper()
	for {
		var up bool
		inMain(ctx, t, s, `!!document.querySelector('egohost-overlay')?.shadowRoot?.querySelector('.hint')`, &up)
		if up {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("the picker never came up")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestPickReturnsTheClickedElementAndThePageSeesNoClick(t *testing.T) {
	s, ctx := open(t)
	type result struct {
		p   overlay.Picked
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := overlay.Pick(ctx, s)
		done <- result{p, err}
	}()
	waitPicking(ctx, t, s)
	click(ctx, t, s, 210, 128) // the paragraph
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.p.CSS != "#b" || r.p.Text != "Beta text" {
		t.Errorf("got css %q text %q, want #b and \"Beta text\"", r.p.CSS, r.p.Text)
	}
	var want struct{ BackendNodeID cdp.BackendNodeID }
	node := browsertest.QuerySelector(ctx, t, s, "#b")
	d, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{NodeID: node})
	if err != nil {
		t.Fatal(err)
	}
	want.BackendNodeID = d.Node.BackendNodeID
	if r.p.BackendNodeID != want.BackendNodeID {
		t.Errorf("got backend node %d, want %d (#b)", r.p.BackendNodeID, want.BackendNodeID)
	}
	var clicked string
	inMain(ctx, t, s, `document.getElementById('clicked').textContent`, &clicked)
	if clicked != "" {
		t.Errorf("the page saw clicks on %q, want none while picking", clicked)
	}
	var left int
	inMain(ctx, t, s, `document.querySelectorAll('egohost-overlay').length`, &left)
	if left != 0 {
		t.Errorf("after the pick: got %d overlay elements, want 0", left)
	}
}

func TestPickAnElementInAPositionedContainer(t *testing.T) {
	s, ctx := open(t)
	done := make(chan overlay.Picked, 1)
	go func() {
		p, err := overlay.Pick(ctx, s)
		if err != nil {
			t.Error(err)
		}
		done <- p
	}()
	waitPicking(ctx, t, s)
	click(ctx, t, s, 100, 65) // the button, in a container with its own z-index
	p := <-done
	if p.CSS != "#a" || p.Text != "Alpha" {
		t.Errorf("got css %q text %q, want #a and Alpha", p.CSS, p.Text)
	}
}

func TestPickEndsWithItsContext(t *testing.T) {
	s, ctx := open(t)
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := overlay.Pick(pctx, s)
		done <- err
	}()
	waitPicking(ctx, t, s)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	// Inspect mode is off: a click reaches the page again.
	click(ctx, t, s, 100, 65)
	var clicked string
	inMain(ctx, t, s, `document.getElementById('clicked').textContent`, &clicked)
	if clicked != "a" {
		t.Errorf("after the pick ended the page saw clicks on %q, want a", clicked)
	}
}

func TestEscapeCancelsAPick(t *testing.T) {
	s, ctx := open(t)
	done := make(chan error, 1)
	go func() {
		_, err := overlay.Pick(ctx, s)
		done <- err
	}()
	waitPicking(ctx, t, s)
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		if _, err := cdp.Call(ctx, s, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: typ, Key: "Escape", Code: "Escape", WindowsVirtualKeyCode: 27}); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; !errors.Is(err, overlay.ErrCancelled) {
		t.Errorf("got %v, want ErrCancelled", err)
	}
}
