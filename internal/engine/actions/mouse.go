package actions

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/link/cdptab"
)

// ClickOptions tune Click.
type ClickOptions struct {
	ActOptions
	// Button is "left" (default), "right" or "middle".
	Button string
	// Count is 1 (default) for a click, 2 for a double click.
	Count int
	// Modifiers are keys held during the click: "Shift", "Control", "Alt",
	// "Meta", "ControlOrMeta".
	Modifiers []string
}

// Click clicks the element target names at the centre of its first box,
// after the checks Playwright makes for a click: visible, stable, enabled,
// receives events.
func (r *Runner) Click(ctx context.Context, target string, o ClickOptions) (*Result, error) {
	button, mask, err := mouseButton(o.Button)
	if err != nil {
		return nil, err
	}
	count := o.Count
	switch {
	case count == 0:
		count = 1
	case count < 0 || count > 3:
		return nil, fmt.Errorf("click %s: %w", target, invalid("click count %d: want 1, 2 or 3", count))
	}
	mods, err := r.modifiers(o.Modifiers)
	if err != nil {
		return nil, fmt.Errorf("click %s: %w", target, err)
	}
	op := "click"
	if count == 2 {
		op = "dblclick"
	}
	// The guard starts in the checks' call (Guard): one round trip less.
	c := checks{Visible: true, Stable: true, Enabled: true, Hit: true, Retarget: "button", Guard: !o.Force}
	return r.actWith(ctx, op, target, o.ActOptions, c, hooks{
		do: func(ctx context.Context, el Element, at Point, res *Result) error {
			res.Point = &at
			if err := r.guardedClick(ctx, el, at, c.Retarget, o.Force, c.Guard, res, button, mask, count, mods); err != nil {
				return fmt.Errorf("%s %s: %w", op, target, err)
			}
			return nil
		},
		retryDo: true, // a click the guard stopped changed nothing
	})
}

var (
	//go:embed intercept.js
	interceptSrc string
	// interceptJS is intercept.js with describe in its scope.
	interceptJS = aria.WithDescribe(interceptSrc)
	//go:embed intercepted.js
	interceptedJS string
)

// guardedClick clicks at `at` with a guard in the element's window: a
// press that lands on another element (one that slid over it since the
// checks, or a viewport that changed) is stopped before the page sees it
// and reported as covered, so the action retries. force clicks unguarded;
// guarded says the checks' call started the guard already; res.hidden
// says the document is hidden (a background tab: no mouse move, see
// clickAt). Errors after the first event is sent are final. A click that
// starts a navigation of the main frame happened: the guard's answer is
// not waited for then (res.leaving; the old document may answer only once
// the new one has loaded). res.ReleasedOn names where the release landed when
// the press landed on the element and the release did not (no click of
// it happened: a layout shift between them).
func (r *Runner) guardedClick(ctx context.Context, el Element, at Point, retarget string, force, guarded bool, res *Result, button input.MouseButton, mask int64, count int, mods int64) error {
	res.ReleasedOn = ""
	if !force && !guarded {
		if err := r.callOn(ctx, el, interceptJS, nil, map[string]string{"retarget": retarget}); err != nil {
			return err
		}
	}
	if err := r.clickAt(ctx, at, !res.hidden, button, mask, count, mods); err != nil {
		return finalError{err}
	}
	if force {
		return nil
	}
	var got struct {
		Blocked string `json:"blocked"`
		Split   string `json:"split"`
	}
	ictx, stop := untilClosed(ctx, res.leaving)
	defer stop()
	if err := r.callOn(ictx, el, interceptedJS, &got); err != nil {
		return nil // the page went on (a navigation): the click happened
	}
	if got.Blocked != "" {
		return &NotActionableError{Reason: Covered, Cover: got.Blocked, Detail: "the click landed on it and was stopped"}
	}
	res.ReleasedOn = got.Split
	return nil
}

// untilClosed returns a context that ends with ctx or when ch closes (a
// nil ch never does), and the function that releases it.
func untilClosed(ctx context.Context, ch <-chan struct{}) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithCancel(ctx)
	if ch == nil {
		return cctx, cancel
	}
	go func() {
		select {
		case <-ch:
			cancel()
		case <-cctx.Done():
		}
	}()
	return cctx, cancel
}

// Hover moves the mouse over the element target names, after the checks
// for hover: visible, stable, receives events. In a hidden (background)
// tab the checks' call moves the mouse in the page instead (hover.js).
func (r *Runner) Hover(ctx context.Context, target string, o ActOptions) (*Result, error) {
	c := checks{Visible: true, Stable: true, Hit: true, Retarget: "button", Hover: true}
	return r.act(ctx, "hover", target, o, c, func(ctx context.Context, el Element, at Point, res *Result) error {
		res.Point = &at
		if res.hovered {
			return nil
		}
		if err := r.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, at, input.MouseButtonNone, 0, 0, 0); err != nil {
			return fmt.Errorf("hover %s: %w", target, err)
		}
		return nil
	})
}

// moveTimeout bounds the wait for the mouse move before a press (clickAt).
const moveTimeout = time.Second

// clickAt moves to at (unless move is false) and presses and releases the
// button count times, as Playwright does (a double click is two
// press/release pairs, the second with clickCount 2). The move and the
// first press go in one sequence: Chrome keeps the order of input events,
// and the press dispatches the move still queued for the next animation
// frame at once, so the click does not wait a frame for the move's answer.
// Every later event waits for the answer to the one before it, as a
// person's next event comes after the page has handled the last (a
// release waits for its press's at the extension: cdptab.Command.Then):
// a dialog the press (or a click) opens stops the click there, and
// nothing queued behind it reaches the page once the dialog is answered. A hidden tab
// gets no move: Chrome answers a trusted one only after an animation
// frame, which a background tab never runs. Its presses and releases
// complete at once, and the first press at a new point fires the trusted
// over and enter events a move would have (but no pointermove or
// mousemove). Events dispatched in the page instead would make those
// twice.
func (r *Runner) clickAt(ctx context.Context, at Point, move bool, button input.MouseButton, mask int64, count int, mods int64) error {
	var first []cdptab.Command
	if move {
		// Bounded: a tab hidden since the checks (the person switched
		// tabs) may never answer the move; the press goes on all the same.
		c := r.mouseCommand(input.DispatchMouseEventTypeMouseMoved, at, input.MouseButtonNone, 0, 0, mods)
		c.Within = moveTimeout
		first = append(first, c)
	}
	for i := int64(1); i <= int64(count); i++ {
		// Each release goes as the press's Then: sent by the extension the
		// moment Chrome answered the press, not after a round trip to the
		// service, in which the page's timers run (a layout shift there put
		// the release on another element: no click; docs/benchmarks.md).
		press := r.mouseCommand(input.DispatchMouseEventTypeMousePressed, at, button, mask, i, mods)
		release := r.mouseCommand(input.DispatchMouseEventTypeMouseReleased, at, button, 0, i, mods)
		press.Then = &release
		err := cdptab.CallSequence(ctx, r.tab, append(first, press))
		first = nil
		if err == nil {
			continue
		}
		// The first press failed: no click. Unless the tab went (detached,
		// closed) with the press and its release in flight: the service may
		// hear of that before the extension's answer that the release failed
		// (the link fails the calls of a tab it heard went), and a page
		// that closes its tab in answer to the click (a button that calls
		// window.close()) took it; the settle says the tab went.
		var released *cdptab.ThenError
		if i == 1 && !errors.As(err, &released) && !gone(err) {
			return fmt.Errorf("click at (%.0f, %.0f): %w", at.X, at.Y, err)
		}
		// The press went in. A page that closes its tab in answer to it
		// took the click: the events after it have nowhere to go, and the
		// settle says the tab went.
		err = fmt.Errorf("click %d at (%.0f, %.0f): %w", i, at.X, at.Y, err)
		if !gone(err) {
			awaitEnd(ctx) // the tab's close may be heard just after the failed call
		}
		if gone(err) || endedBy(ctx) != nil {
			return nil
		}
		return err
	}
	return nil
}

// mouse dispatches one mouse event on the tab's main session (Chrome routes
// it to the frame under the point).
func (r *Runner) mouse(ctx context.Context, typ input.DispatchMouseEventType, at Point, button input.MouseButton, buttons, count, mods int64) error {
	c := r.mouseCommand(typ, at, button, buttons, count, mods)
	if err := r.tab.Call(ctx, c.Method, c.Params, nil); err != nil {
		return fmt.Errorf("%s at (%.0f, %.0f): %w", typ, at.X, at.Y, err)
	}
	return nil
}

// mouseCommand is one mouse event as a command.
func (r *Runner) mouseCommand(typ input.DispatchMouseEventType, at Point, button input.MouseButton, buttons, count, mods int64) cdptab.Command {
	return cdptab.Command{Method: input.DispatchMouseEvent.Method, Params: input.DispatchMouseEventParams{
		Type: typ, X: round2(at.X), Y: round2(at.Y), Button: button, Buttons: buttons, ClickCount: count, Modifiers: mods,
	}}
}

// mouseButton returns the CDP button and its bit in the buttons mask.
func mouseButton(name string) (input.MouseButton, int64, error) {
	switch name {
	case "", "left":
		return input.MouseButtonLeft, 1, nil
	case "right":
		return input.MouseButtonRight, 2, nil
	case "middle":
		return input.MouseButtonMiddle, 4, nil
	}
	return "", 0, invalid("unknown mouse button %q: want left, right or middle", name)
}

// round2 rounds to 1/100 of a CSS pixel (Chrome takes fractions).
func round2(v float64) float64 { return math.Round(v*100) / 100 }
