package actions

import (
	"context"
	"errors"
	"time"
)

// releaseTimeout bounds the clean-up calls made after an action.
const releaseTimeout = 2 * time.Second

// ActOptions are the options every element action takes.
type ActOptions struct {
	// Timeout bounds the auto-wait for the element to be actionable
	// (Options.Timeout when zero).
	Timeout time.Duration
	// Force skips the checks that are not essential (visible, stable,
	// enabled, editable, receives events).
	Force bool
	// Settle overrides Options.Settle when not nil.
	Settle *Settle
	// Confirm, when set, is asked just before the action happens, with
	// the element found and checked (the one the action will act on); it
	// may wait for the person, past the auto-wait's timeout (its ctx is
	// the action's, not an attempt's). asked: it waited, and from then on
	// the action acts on that same element only, once: an element that
	// is gone, moved to another document or no longer actionable ends the
	// action with a *ChangedError, never a click on another element. An
	// error ends the action as it is.
	Confirm func(ctx context.Context, el Element) (asked bool, err error)
}

// ChangedError is an action refused after the person confirmed it: the
// element they confirmed changed meanwhile (removed, its document gone,
// covered or hidden), so nothing was done.
type ChangedError struct {
	Op, Target string
	Err        error
}

func (e *ChangedError) Error() string {
	return e.Op + " " + e.Target + ": the element the person confirmed changed while they were asked (" + e.Err.Error() + "): nothing was done"
}

func (e *ChangedError) Unwrap() error { return e.Err }

// Result says what an action did, what it waited for and for how long.
type Result struct {
	// Took is the whole action, waits included.
	Took time.Duration
	// Element describes the element acted on, e.g. `<button id="buy">Buy</button>`.
	Element string
	// Point is where a pointer action happened (top-level viewport).
	Point *Point
	// Waited is the auto-wait before acting.
	Waited Waited
	// Settled is the settle after acting.
	Settled Settled
	// Dialog is a JavaScript dialog the action opened: it is still open.
	Dialog *Dialog

	// Value is the element's value after fill or type.
	Value *string
	// FocusMovedTo names the element the page moved the focus to when
	// fill focused its element (Roundcube's hidden To text area hands it
	// to its recipient widget): the text went there, not into the
	// element, whose Value says so. "" when the focus stayed.
	FocusMovedTo string
	// Selected lists the selected options' values after select.
	Selected []string
	// SelectedLabels are their labels, when one differs from its value
	// (<option value="2">Games</option>); nil otherwise.
	SelectedLabels []string
	// ReleasedOn names the element a click's release landed on when its
	// press landed on the element and its release did not: the element
	// moved away between the two (a layout shift) or the page replaced
	// it, and the page saw a press of it and no click. "" otherwise.
	// Click does not click again (the press went in, and a page may have
	// acted on it); check and uncheck do, as the state tells them no
	// click happened.
	ReleasedOn string
	// Checked is the state after check or uncheck.
	Checked *bool
	// Scroll is the window's scroll position after scroll.
	Scroll *Point
	// Box is the element's border box (top-level viewport, CSS pixels)
	// as measured just before the action, for a trace's picture.
	Box *Box

	// hidden: the checks found the document hidden (a background tab);
	// hovered: they moved the mouse to the action point in the page
	// (checks.Hover), so the action must not send a trusted mouse move.
	hidden, hovered bool
	// leaving is closed when the main frame starts to navigate after the
	// action was dispatched (watch.leaving): a check after the dispatch
	// need not wait for a document that is going away.
	leaving <-chan struct{}
	// readValue: the action wants Value read after it; the settle's call
	// on the element reads it (one round trip less), else actWith does.
	readValue bool
}

// unsettled ends an action that is not settled (Settled.Skipped says
// why): its time is taken now.
func (res *Result) unsettled(reason string, start time.Time) *Result {
	res.Settled.Skipped = reason
	res.Took = time.Since(start)
	return res
}

// Waited is an auto-wait: how long, how many attempts, and the reasons
// seen while waiting (e.g. "element is covered by <div id="banner"></div>").
type Waited struct {
	Took     time.Duration
	Attempts int
	Reasons  []string
}

// Settled says how the page settled after an action.
type Settled struct {
	Took time.Duration
	// For lists what was waited for: "navigation", "domcontentloaded",
	// "network" (requests the action started), "dom quiet".
	For []string
	// Navigated is set when the action started a navigation of the main
	// frame; URL is where it went.
	Navigated bool
	URL       string
	// Capped is set when the settle ran out of its cap before the page was
	// quiet.
	Capped bool
	// Ended is what ended the call before the page settled (the tab
	// closed: a popup that closes itself once its form is sent), nil
	// otherwise. The action itself happened.
	Ended error
	// Skipped says why no settle happened ("off", "dialog", "no action").
	Skipped string
}

// finalError marks an error of do that must not be retried even with retryDo
// (what failed had already started to act).
type finalError struct{ error }

func (f finalError) Unwrap() error { return f.error }

// hooks are the steps of an element action.
type hooks struct {
	// before runs on the element before the checks; done ends the action
	// there (e.g. a checkbox already checked). Its errors are retried when
	// transient.
	before func(ctx context.Context, el Element, res *Result) (done bool, err error)
	// do acts; its errors are final (the action may have happened)
	// unless retryDo is set.
	do func(ctx context.Context, el Element, at Point, res *Result) error
	// retryDo retries do's transient errors: do changes nothing when it
	// fails that way (select with options still missing).
	retryDo bool
}

// act is the frame of every element action: it finds target, checks c and
// calls do with the element and its action point, retrying transient
// failures until the timeout; then it lets the page settle.
func (r *Runner) act(ctx context.Context, op, target string, o ActOptions, c checks, do func(ctx context.Context, el Element, at Point, res *Result) error) (*Result, error) {
	return r.actWith(ctx, op, target, o, c, hooks{do: do})
}

// actWith is act with a before hook.
func (r *Runner) actWith(ctx context.Context, op, target string, o ActOptions, c checks, h hooks) (*Result, error) {
	if r.find == nil {
		return nil, errors.New(op + ": no element finder")
	}
	start := time.Now()
	w := r.actionWatch(ctx, op)
	defer w.close()
	s := r.opts.Settle
	if o.Settle != nil {
		s = o.Settle.withDefaults()
	}
	c.Observe = !s.Off // the settle's watch starts with the checks
	c.Final = finalEvents(op)
	res := &Result{}
	var log waitLog
	dispatched := false
	var final error
	var acted Element // released after the settle, after the reply
	err := r.retry(w.ctx, op, target, timeout(o.Timeout, r.opts.Timeout), &log, func(ctx context.Context, n int) error {
		var el Element
		var at spot
		var err error
		if h.before == nil {
			el, at, err = r.findChecked(ctx, target, c, o.Force, n)
		} else {
			el, err = r.find.Find(ctx, target)
		}
		release := true
		defer func() {
			if release {
				r.release(w.ctx, el)
			}
		}()
		if h.before != nil && err == nil {
			var done bool
			done, err = h.before(ctx, el, res)
			if err != nil {
				return err
			}
			if done {
				return nil
			}
			at, err = r.measure(ctx, el, c, o.Force, n)
		}
		if el.ObjectID != "" {
			res.Element = at.desc
		}
		res.hidden, res.hovered = at.hidden, at.hovered
		if err != nil {
			return err
		}
		bound := false // confirmed by the person: this element, once
		if o.Confirm != nil {
			asked, err := o.Confirm(w.ctx, el)
			if err != nil {
				final = err
				return nil
			}
			if asked {
				// The person took their time: the attempt's deadline may
				// have passed. The element is checked again, as it is now.
				bctx, cancel := context.WithTimeout(w.ctx, timeout(o.Timeout, r.opts.Timeout))
				defer cancel()
				ctx, bound = bctx, true
				if at, err = r.measure(ctx, el, c, o.Force, 0); err != nil {
					final = &ChangedError{Op: op, Target: target, Err: err}
					return nil
				}
			}
		}
		if el.ObjectID != "" {
			box := at.box // measured again after a yes
			res.Box = &box
		}
		if err := w.waitReady(); err != nil && w.ctx.Err() != nil {
			return err
		}
		w.drain()
		w.arm()
		res.leaving = w.leaving
		dispatched = true
		release, acted = false, el
		final = h.do(ctx, el, at.at, res)
		if final == nil || !h.retryDo || errors.As(final, new(finalError)) {
			return nil
		}
		// A step that may run again failed: a transient error is tried
		// again, and a deadline that cut the step short is the wait's
		// timeout; any other error ends the action.
		switch {
		case r.transient(final) && bound:
			// A retry would find the target again: maybe another element.
			dispatched = false
			release, acted = true, Element{}
			final = &ChangedError{Op: op, Target: target, Err: final}
			return nil
		case r.transient(final):
			dispatched = false
		case ctx.Err() != nil && !bound:
			// The wait's deadline passed inside the step (its CDP call cut
			// short): a timeout, as when it passes in the checks, whose
			// last attempt says what was awaited, not the call's bare
			// "context deadline exceeded".
		default:
			return nil
		}
		release, acted = true, Element{}
		err, final = final, nil
		return err
	})
	res.Waited = Waited{Took: log.took, Attempts: log.attempts, Reasons: log.reasons}
	if d := w.opened(); d != nil {
		if !dispatched {
			return nil, &DialogOpenError{Op: op, Dialog: *d}
		}
		// The action opened the dialog: it happened, and the dialog waits
		// for an answer. (The element's remote object stays: the page
		// cannot answer while the dialog is open; a navigation frees it.)
		res.Dialog = d
		return res.unsettled("dialog", start), nil
	}
	if err != nil {
		return nil, err
	}
	if final != nil {
		return nil, final
	}
	if !dispatched { // nothing to do (a checkbox already checked): nothing to settle
		return res.unsettled("no action", start), nil
	}
	var back *readBack
	if res.readValue {
		back = &readBack{}
	}
	res.Settled = r.settle(w, s, acted, false, back)
	if back != nil && w.opened() == nil {
		if back.read {
			res.Value = back.value
		} else {
			res.Value = r.valueOf(ctx, acted) // no settle, or not on the element
		}
	}
	if d := w.opened(); d != nil {
		res.Dialog = d
	} else {
		// After the settle (which may use the element), and off the
		// reply's path: the page forgets the element's remote object.
		go r.release(context.WithoutCancel(ctx), acted)
	}
	res.Took = time.Since(start)
	return res, nil
}

// finalEvents are the events the page sees last of an action op (those
// of its last dispatch): the settle counts a frame observe.js saw after
// the action's events only once one of them came (a page that stops
// them, or a later event that lands in another window, leaves the settle
// its own frame, as before observe.js watched events). None for an
// action the page sees no event of.
func finalEvents(op string) []string {
	switch op {
	case "click", "dblclick", "check", "uncheck", "drag":
		return []string{"pointerup", "mouseup", "click", "dblclick", "auxclick", "drop", "dragend"}
	case "hover":
		return []string{"pointermove", "mousemove"}
	case "fill", "select", "upload":
		return []string{"input", "change"}
	case "press", "type":
		return []string{"keyup"}
	case "scroll":
		return []string{"wheel"}
	}
	return nil
}
