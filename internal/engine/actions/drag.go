package actions

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/input"
)

// Drag drags the element from names onto the element to names: the mouse
// presses at the centre of from, moves half way and then to the centre of
// to, and releases. When the page starts an HTML drag and drop, Chrome's
// drag is intercepted and replayed with Input.dispatchDragEvent (as
// Playwright does), so dragstart, dragenter, dragover and drop all fire.
// Both elements get the hover checks: visible, stable, receives events.
// A hidden (background) tab cannot be dragged in: ErrUnsupported, before
// any event.
func (r *Runner) Drag(ctx context.Context, from, to string, o ActOptions) (*Result, error) {
	c := checks{Visible: true, Stable: true, Hit: true}
	start := time.Now()
	return r.act(ctx, "drag", from, o, c, func(ctx context.Context, el Element, src Point, res *Result) error {
		if res.hidden {
			return fmt.Errorf("drag %s to %s: %w", from, to, unsupported("the tab is in the background (its document is hidden), where Chrome does not complete a drag's mouse moves: show the tab to drag"))
		}
		left := timeout(o.Timeout, r.opts.Timeout) - time.Since(start)
		dst, err := r.locate(ctx, "drag", to, c, o.Force, max(left, time.Second))
		if err != nil {
			return err
		}
		res.Point = &dst
		if err := r.dragBetween(ctx, el, src, dst); err != nil {
			return fmt.Errorf("drag %s to %s: %w", from, to, err)
		}
		return nil
	})
}

// locate waits until target is actionable and returns its action point.
func (r *Runner) locate(ctx context.Context, op, target string, c checks, force bool, d time.Duration) (Point, error) {
	var at Point
	err := r.retry(ctx, op, target, d, nil, func(ctx context.Context, n int) error {
		el, err := r.find.Find(ctx, target)
		if err != nil {
			return err
		}
		defer r.release(ctx, el)
		at, _, err = r.actionable(ctx, el, c, force, n)
		return err
	})
	return at, err
}

const dragWatchJS = `(el) => {
	const w = el.ownerDocument.defaultView;
	const state = { event: null };
	w.__egohostDrag = state;
	w.addEventListener("dragstart", (e) => { state.event = e; }, { once: true, capture: true });
}`

const dragStartedJS = `async (el) => {
	const w = el.ownerDocument.defaultView;
	const state = w.__egohostDrag;
	delete w.__egohostDrag;
	await new Promise((r) => setTimeout(r, 0));
	return !!(state && state.event && !state.event.defaultPrevented);
}`

// dragBetween presses at src, moves to dst and releases, replaying an
// HTML drag and drop when the page starts one.
func (r *Runner) dragBetween(ctx context.Context, el Element, src, dst Point) error {
	none, left := input.MouseButtonNone, input.MouseButtonLeft
	if err := r.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, src, none, 0, 0, 0); err != nil {
		return err
	}
	if err := r.mouse(ctx, input.DispatchMouseEventTypeMousePressed, src, left, 1, 1, 0); err != nil {
		return err
	}
	if err := r.callOn(ctx, el, dragWatchJS, nil); err != nil {
		return err
	}
	intercepted, stop := r.tab.Subscribe(input.DragIntercepted.Method)
	defer stop()
	if _, err := cdp.Call(ctx, r.tab, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: true}); err != nil {
		return err
	}
	mid := Point{X: (src.X + dst.X) / 2, Y: (src.Y + dst.Y) / 2}
	moveErr := r.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, mid, left, 1, 0, 0)
	var started bool
	if moveErr == nil {
		moveErr = r.callOn(ctx, el, dragStartedJS, &started)
	}
	var data *input.DragData
	if moveErr == nil && started {
		t := time.NewTimer(time.Second)
		select {
		case v, ok := <-intercepted:
			var ev input.EventDragIntercepted
			if ok && jsonv2.Unmarshal(v, &ev) == nil {
				data = ev.Data
			}
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	if _, err := cdp.Call(ctx, r.tab, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: false}); err != nil && moveErr == nil {
		moveErr = err
	}
	if moveErr != nil {
		return moveErr
	}
	if data != nil {
		for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter, input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
			if _, err := cdp.Call(ctx, r.tab, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: round2(dst.X), Y: round2(dst.Y), Data: data}); err != nil {
				return fmt.Errorf("%s: %w", typ, err)
			}
		}
		return nil
	}
	if err := r.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, dst, left, 1, 0, 0); err != nil {
		return err
	}
	return r.mouse(ctx, input.DispatchMouseEventTypeMouseReleased, dst, left, 0, 1, 0)
}
