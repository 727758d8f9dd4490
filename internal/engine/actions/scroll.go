package actions

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/input"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
)

var (
	//go:embed scroll.js
	scrollJS string
	//go:embed wheel.js
	wheelJS string

	// Both run in the page's own world, on its document.
	scrollFn = aria.Page(scrollJS)
	wheelFn  = aria.Page(wheelJS)
)

// ScrollOptions tune Scroll.
type ScrollOptions struct {
	ActOptions
	// Target is the element to scroll into view, or (with a delta) the
	// element to turn the wheel over; "" is the centre of the viewport.
	Target string
	// DX and DY scroll by a delta in CSS pixels with the mouse wheel.
	DX, DY float64
}

// Scroll scrolls the element o.Target into view (when there is no delta),
// or turns the mouse wheel by (DX, DY) over it or over the viewport's
// centre. Result.Scroll is the window's scroll position after. A hidden
// (background) tab gets no trusted wheel from Chrome: there the wheel is
// turned in the page (wheel.js).
func (r *Runner) Scroll(ctx context.Context, o ScrollOptions) (*Result, error) {
	if o.Target != "" && o.DX == 0 && o.DY == 0 {
		return r.act(ctx, "scroll", o.Target, o.ActOptions, checks{Visible: true, Stable: true}, func(ctx context.Context, _ Element, at Point, res *Result) error {
			var s scrolled
			if err := r.evalMain(ctx, scrollFn.Call(aria.InstallNone, "document", fmt.Sprintf("%g, %g, null, 0", at.X, at.Y)), &s); err != nil {
				return fmt.Errorf("scroll %s: %w", o.Target, err)
			}
			res.Scroll = &Point{X: s.X, Y: s.Y}
			return nil
		})
	}
	wheel := func(ctx context.Context, at Point, res *Result) error {
		var before, after scrolled
		if err := r.evalMain(ctx, scrollFn.Call(aria.InstallNone, "document", fmt.Sprintf("%g, %g, null, 0", at.X, at.Y)), &before); err != nil {
			return fmt.Errorf("scroll: %w", err)
		}
		waitMs := 1000
		if before.Hidden {
			// Scrolled at once, in the page: nothing to wait for.
			if err := r.evalMain(ctx, wheelFn.Call(aria.InstallNone, "document", fmt.Sprintf("%g, %g, %g, %g", at.X, at.Y, o.DX, o.DY)), nil); err != nil {
				return fmt.Errorf("scroll: wheel: %w", err)
			}
			waitMs = 0
		} else {
			// Chrome wants both deltas, and cdproto's params omit a zero.
			err := r.tab.Call(ctx, input.DispatchMouseEvent.Method, wheelParams{
				Type: input.DispatchMouseEventTypeMouseWheel, X: round2(at.X), Y: round2(at.Y), DeltaX: o.DX, DeltaY: o.DY,
			}, nil)
			if err != nil {
				return fmt.Errorf("scroll: wheel: %w", err)
			}
		}
		key, _ := json.Marshal(before.Key)
		if err := r.evalMain(ctx, scrollFn.Call(aria.InstallNone, "document", fmt.Sprintf("%g, %g, %s, %d", at.X, at.Y, key, waitMs)), &after); err != nil {
			return fmt.Errorf("scroll: %w", err)
		}
		res.Point = &at
		res.Scroll = &Point{X: after.X, Y: after.Y}
		return nil
	}
	if o.Target != "" {
		return r.act(ctx, "scroll", o.Target, o.ActOptions, checks{Visible: true}, func(ctx context.Context, _ Element, at Point, res *Result) error {
			return wheel(ctx, at, res)
		})
	}
	return r.unbound(ctx, "scroll", o.ActOptions, func(ctx context.Context, res *Result, observe string) error {
		var vp struct{ W, H float64 }
		if err := r.evalMain(ctx, "(() => {\n"+observe+"return {W: innerWidth, H: innerHeight};\n})()", &vp); err != nil {
			return fmt.Errorf("scroll: %w", err)
		}
		return wheel(ctx, Point{X: vp.W / 2, Y: vp.H / 2}, res)
	})
}

// wheelParams are Input.dispatchMouseEvent's params for a wheel event,
// with both deltas always present.
type wheelParams struct {
	Type   input.DispatchMouseEventType `json:"type"`
	X      float64                      `json:"x"`
	Y      float64                      `json:"y"`
	DeltaX float64                      `json:"deltaX"`
	DeltaY float64                      `json:"deltaY"`
}

type scrolled struct {
	Key    string  `json:"key"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Hidden bool    `json:"hidden"`
}

// evalMain evaluates expr in the main frame's page world, awaits it and
// decodes its value into out. The page's exceptions are *JSError.
func (r *Runner) evalMain(ctx context.Context, expr string, out any) error {
	yes := true
	res, err := r.pageEval(ctx, cdpruntime.EvaluateParams{
		Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes, Silent: &yes,
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return &JSError{Op: "evaluate", Text: exceptionText(res.ExceptionDetails), Line: res.ExceptionDetails.LineNumber, Column: res.ExceptionDetails.ColumnNumber}
	}
	if out != nil && res.Result != nil && len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			return fmt.Errorf("decode: %w", err)
		}
	}
	return nil
}
