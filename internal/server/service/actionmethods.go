package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// unreportedProbe bounds how long the dialog method waits for a tab's
// first answer before it treats the tab as blocked by a dialog Chrome did
// not report.
const unreportedProbe = time.Second

// dialogUnreported answers the dialog method on a tab that has answered
// nothing since the attach: a dialog that opened before egohost attached,
// which only a navigation closes (actions.DismissUnreported). done is
// false when the tab answers: the ordinary path handles it.
func (s *Service) dialogUnreported(ctx context.Context, c *call, t protocol.Target, timeout time.Duration) (any, bool, error) {
	l, id, err := s.target(ctx, c, t)
	if err != nil {
		return nil, true, err
	}
	pctx, cancel := context.WithTimeout(ctx, min(timeout, unreportedProbe))
	err = l.Tabs.Tab(id).Reachable(pctx)
	cancel()
	var pe *protocol.Error
	if err == nil || !errors.As(err, &pe) || pe.Code != protocol.CodeDialogOpen {
		return nil, false, nil
	}
	res, err := actions.DismissUnreported(ctx, l.Session(id), timeout)
	if err != nil {
		return nil, true, wireerr.Classify(err)
	}
	return protocol.DialogResult{Tab: id, Accepted: res.Accepted, Dialog: dialogOf(res.Dialog), TookMs: tookMs(res.Took), Unreported: true}, true, nil
}

// withRunner runs fn with an actions.Runner on the target's tab. The
// context fn gets ends, with a clear cause, when the tab is closed, its
// debugger detached or the browser gone, so nothing waits on a dead tab.
// timeout is the call's own timeout (the default action timeout when
// zero): it bounds reaching the tab too (the attach, and the wait for a
// tab that answers nothing), so a blocked tab fails within it.
func (s *Service) withRunner(ctx context.Context, c *call, t protocol.Target, op string, timeout time.Duration, fn func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error)) (any, error) {
	return s.again(ctx, op, func(ctx context.Context) (any, error) { return s.withRunnerOnce(ctx, c, t, op, timeout, fn) })
}

// withRunnerOnce is one run of withRunner.
func (s *Service) withRunnerOnce(ctx context.Context, c *call, t protocol.Target, op string, timeout time.Duration, fn func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error)) (any, error) {
	if timeout <= 0 {
		timeout = s.opts.ActionTimeout
	}
	answersDialogs := s.methods[op].dialogs // a tab a dialog blocks is where it works
	if answersDialogs {
		res, done, err := s.dialogUnreported(ctx, c, t, timeout)
		if done {
			return res, err
		}
	}
	tc, err := s.tabContextWithin(ctx, c, t, op, timeout)
	if err != nil {
		return nil, err
	}
	if !answersDialogs {
		if err := tc.checkDialog(op); err != nil {
			return nil, err
		}
	}
	gctx, stop := guard(ctx, tc, op)
	defer stop()
	// A ref another agent's tab handed out is not_in_space before anything
	// reaches the page (checkRef), on both ways of finding.
	find := actions.FinderFunc(func(ctx context.Context, target string) (actions.Element, error) {
		if err := s.checkRef(ctx, c, tc, target); err != nil {
			return actions.Element{}, err
		}
		return tc.res.Object(ctx, target)
	})
	call := actions.FindCallFunc(func(ctx context.Context, target, fn string, args ...any) (actions.Element, cdptab.Called, error) {
		if err := s.checkRef(ctx, c, tc, target); err != nil {
			return actions.Element{}, cdptab.Called{}, err
		}
		return tc.res.ObjectCall(ctx, target, fn, args...)
	})
	r := actions.New(tc.page, actions.FindCallers(find, call), actions.Options{Timeout: s.opts.ActionTimeout, Transient: resolver.IsTransient, Setup: tc.acts, Pin: tc.pin(), Prepare: tc.background(!isPerson(c.conn.agentName()), tc.res.Prepare)})
	if st, need := c.traceStep(); st != nil {
		// A traced call: pictures before and after it acts, and what
		// the tab logged meanwhile (trace.go).
		if t := s.traces.Current(); t != nil {
			acts := need >= pairing.NeedAct
			since := time.Now()
			if acts {
				s.traceBefore(ctx, t, st, tc)
			}
			defer s.traceAfter(ctx, t, st, tc, acts, since)
		}
	}
	res, err := fn(gctx, tc, r)
	if err != nil {
		err = wireerr.Classify(err)
		var cause *protocol.Error
		if ctx.Err() == nil && wireerr.CodeOf(err) == protocol.CodeTimeout && errors.As(context.Cause(gctx), &cause) {
			// The tab closed, its debugger detached or the browser went,
			// which ended the call: say that, not "timed out".
			return nil, cause
		}
		return nil, err
	}
	return res, nil
}

// guard returns a context that ends when the tab is closed or detached,
// or the browser link goes; stop releases it.
func guard(ctx context.Context, tc *tabContext, op string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	unsubscribe := tc.link.Subscribe(&browserlink.Subscriber{
		Filter: func(in *extwire.Message) bool {
			return (in.Event == "tab.removed" || in.Event == "detached") && in.TabID == tc.tabID
		},
		Deliver: func(in *extwire.Message) {
			if in.Event == "tab.removed" {
				cancel(protocol.Errorf(protocol.CodeTabNotFound, "%s: tab %d was closed", op, tc.tabID))
				return
			}
			cancel(protocol.Errorf(protocol.CodeDetached, "%s: the debugger was detached from tab %d (%s)", op, tc.tabID, in.Reason).With("reason", in.Reason))
		},
		Done: func() {
			cancel(protocol.Errorf(protocol.CodeBrowserGone, "%s: browser %s disconnected", op, tc.link.ID))
		},
	})
	return ctx, func() {
		cancel(nil)
		unsubscribe()
	}
}

func millis(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

func tookMs(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// actOptions converts the wire's action options.
func actOptions(o protocol.ActionOptions) actions.ActOptions {
	a := actions.ActOptions{Timeout: millis(o.TimeoutMs), Force: o.Force}
	switch {
	case o.NoSettle:
		a.Settle = &actions.Settle{Off: true}
	case o.SettleMs > 0:
		a.Settle = &actions.Settle{Cap: millis(o.SettleMs)}
	}
	return a
}

func dialogOf(d *actions.Dialog) *protocol.Dialog {
	if d == nil {
		return nil
	}
	return &protocol.Dialog{Type: d.Type, Message: d.Message, DefaultPrompt: d.DefaultPrompt, URL: d.URL}
}

// actionResult converts an action's result.
func actionResult(op string, tab int, r *actions.Result) protocol.ActionResult {
	out := protocol.ActionResult{
		Action: op, Tab: tab, Element: r.Element, TookMs: tookMs(r.Took),
		Waited:  protocol.Waited{Ms: tookMs(r.Waited.Took), Attempts: r.Waited.Attempts, Reasons: r.Waited.Reasons},
		Settled: protocol.Settled{Ms: tookMs(r.Settled.Took), For: r.Settled.For, Navigated: r.Settled.Navigated, URL: r.Settled.URL, Capped: r.Settled.Capped, Skipped: r.Settled.Skipped},
		Dialog:  dialogOf(r.Dialog), Value: r.Value, Selected: r.Selected, Checked: r.Checked,
	}
	if r.Point != nil {
		out.Point = &protocol.Point{X: r.Point.X, Y: r.Point.Y}
	}
	if r.Scroll != nil {
		out.Scroll = &protocol.Point{X: r.Scroll.X, Y: r.Scroll.Y}
	}
	return out
}

func needElement(op, element string) error {
	if element == "" {
		return protocol.Errorf(protocol.CodeInvalidParams, "%s: target is empty (a @ref or a locator)", op)
	}
	return nil
}

// actParams are the params of an element action: each embeds a
// protocol.Target and protocol.ActionOptions.
type actParams interface {
	TargetOf() protocol.Target
	ActionOptionsOf() protocol.ActionOptions
}

// act is the one shape of the element actions: decode the params (typed),
// check them, make one Runner call on their tab, answer an ActionResult.
func act[P actParams](s *Service, op string, check func(op string, p P) error, run func(context.Context, *actions.Runner, P, actions.ActOptions) (*actions.Result, error)) handler {
	return typed(func(ctx context.Context, c *call, p P) (any, error) {
		if err := check(op, p); err != nil {
			return nil, err
		}
		return s.runAct(ctx, c, p.TargetOf(), op, p.ActionOptionsOf(), func(ctx context.Context, tc *tabContext, r *actions.Runner, o actions.ActOptions) (*actions.Result, error) {
			if verb, enter, ok := confirmVerb(p); ok {
				if o.Confirm = s.confirmHook(ctx, c, tc, r, verb, enter); o.Confirm != nil {
					p = confirmTarget(p)
				}
			}
			return run(ctx, r, p, o)
		})
	})
}

// runAct makes one element action (run) on the target's tab, under the
// tab's action lock, and answers an ActionResult.
func (s *Service) runAct(ctx context.Context, c *call, t protocol.Target, op string, o protocol.ActionOptions, run func(context.Context, *tabContext, *actions.Runner, actions.ActOptions) (*actions.Result, error)) (any, error) {
	return s.withRunner(ctx, c, t, op, millis(o.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		// One element action at a time per tab: two agents granted
		// the same tab never interleave a click's steps.
		unlock, err := tc.tab.LockActions(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
		res, err := run(ctx, tc, r, actOptions(o))
		if err != nil {
			return nil, err
		}
		traceBox(c, res.Box)
		if res.Settled.URL != "" && s.checkLanded(c, tc.tabID, res.Settled.URL) != nil {
			// The action led the page to a document the caller may not
			// reach (a link, a form, the page's own doing): it happened,
			// but where it went is not the caller's to read.
			res.Settled.URL = ""
		}
		return actionResult(op, tc.tabID, res), nil
	})
}

func checkClick(op string, p protocol.ClickParams) error { return needElement(op, p.Element) }

func runClick(ctx context.Context, r *actions.Runner, p protocol.ClickParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Click(ctx, p.Element, actions.ClickOptions{ActOptions: o, Button: p.Button, Count: p.Count, Modifiers: p.Modifiers})
}

// checkElement checks the params of hover, check, uncheck and focus.
func checkElement(op string, p protocol.ElementParams) error { return needElement(op, p.Element) }

func runHover(ctx context.Context, r *actions.Runner, p protocol.ElementParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Hover(ctx, p.Element, o)
}

func runCheck(ctx context.Context, r *actions.Runner, p protocol.ElementParams, o actions.ActOptions) (*actions.Result, error) {
	return r.SetChecked(ctx, p.Element, true, o)
}

func runUncheck(ctx context.Context, r *actions.Runner, p protocol.ElementParams, o actions.ActOptions) (*actions.Result, error) {
	return r.SetChecked(ctx, p.Element, false, o)
}

func runFocus(ctx context.Context, r *actions.Runner, p protocol.ElementParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Focus(ctx, p.Element, o)
}

func checkFill(op string, p protocol.FillParams) error { return needElement(op, p.Element) }

func runFill(ctx context.Context, r *actions.Runner, p protocol.FillParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Fill(ctx, p.Element, p.Text, actions.FillOptions{ActOptions: o, Append: p.Append})
}

func checkType(op string, p protocol.TypeParams) error {
	if p.DelayMs < 0 {
		return protocol.Errorf(protocol.CodeInvalidParams, "type: delayMs must not be negative")
	}
	return nil
}

func runType(ctx context.Context, r *actions.Runner, p protocol.TypeParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Type(ctx, p.Text, actions.PressOptions{ActOptions: o, Target: p.Element, Delay: millis(p.DelayMs)})
}

func checkPress(op string, p protocol.PressParams) error {
	if p.Key == "" {
		return protocol.Errorf(protocol.CodeInvalidParams, "press: key is empty")
	}
	return nil
}

func runPress(ctx context.Context, r *actions.Runner, p protocol.PressParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Press(ctx, p.Key, actions.PressOptions{ActOptions: o, Target: p.Element})
}

func checkSelect(op string, p protocol.SelectParams) error {
	if err := needElement(op, p.Element); err != nil {
		return err
	}
	for _, i := range p.Indexes {
		if i < 0 {
			return protocol.Errorf(protocol.CodeInvalidParams, "select: index %d is negative", i)
		}
	}
	return nil
}

func runSelect(ctx context.Context, r *actions.Runner, p protocol.SelectParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Select(ctx, p.Element, actions.SelectOptions{ActOptions: o, Values: p.Values, Labels: p.Labels, Indexes: p.Indexes})
}

func checkDrag(op string, p protocol.DragParams) error {
	if p.Element == "" || p.To == "" {
		return protocol.Errorf(protocol.CodeInvalidParams, "drag: needs a target and a to (each a @ref or a locator)")
	}
	return nil
}

func runDrag(ctx context.Context, r *actions.Runner, p protocol.DragParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Drag(ctx, p.Element, p.To, o)
}

func checkScroll(op string, p protocol.ScrollParams) error {
	if p.Element == "" && p.DX == 0 && p.DY == 0 {
		return protocol.Errorf(protocol.CodeInvalidParams, "scroll: give a target to scroll into view, or a delta (dx, dy)")
	}
	return nil
}

func runScroll(ctx context.Context, r *actions.Runner, p protocol.ScrollParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Scroll(ctx, actions.ScrollOptions{ActOptions: o, Target: p.Element, DX: p.DX, DY: p.DY})
}

func (s *Service) wait(ctx context.Context, c *call, p protocol.WaitParams) (any, error) {
	return s.withRunner(ctx, c, p.Target, "wait", millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		res, err := r.Wait(ctx, actions.WaitOptions{
			Target: p.Element, State: p.State, Text: p.Text, Gone: p.Gone, URL: p.URL, Load: p.Load, Function: p.Function,
			Timeout: millis(p.TimeoutMs),
		})
		if err != nil {
			return nil, err
		}
		if p.Load != "" {
			var landed string
			_ = json.Unmarshal(res.Value, &landed)
			if err := s.checkLanded(c, tc.tabID, landed); err != nil {
				return nil, err
			}
		}
		out := protocol.WaitResult{Tab: tc.tabID, What: res.What, TookMs: tookMs(res.Took), Attempts: res.Attempts, Element: res.Element}
		if len(res.Value) > 0 && string(res.Value) != "null" {
			out.Value = res.Value
		}
		return out, nil
	})
}

func navResult(tab int, r *actions.NavResult) protocol.NavResult {
	return protocol.NavResult{
		Tab: tab, URL: r.URL, Title: r.Title, Reached: r.Reached, SameDocument: r.SameDocument, Download: r.Download,
		TookMs: tookMs(r.Took), Dialog: dialogOf(r.Dialog),
	}
}

func (s *Service) gotoURL(ctx context.Context, c *call, p protocol.GotoParams) (any, error) {
	res, err := s.gotoOnly(ctx, c, p)
	if err != nil || p.Snapshot == nil {
		return res, err
	}
	nav := res.(protocol.NavResult)
	if nav.Dialog != nil || nav.Download {
		return nav, nil // a dialog blocks the page; a download left it as it was
	}
	// The page is loaded: its snapshot, as the snapshot method takes it.
	snap, err := s.snapshot(ctx, c, protocol.SnapshotParams{
		Target:      protocol.Target{Browser: p.Browser, Tab: nav.Tab},
		Interactive: p.Snapshot.Interactive, URLs: p.Snapshot.URLs, MaxChars: p.Snapshot.MaxChars,
	})
	if err != nil {
		nav.SnapshotError = wireerr.Of(err)
		return nav, nil
	}
	sr := snap.(protocol.SnapshotResult)
	nav.Snapshot = &sr
	return nav, nil
}

// gotoOnly is goto's navigation (gotoURL without its snapshot).
func (s *Service) gotoOnly(ctx context.Context, c *call, p protocol.GotoParams) (any, error) {
	if p.Snapshot != nil && p.Snapshot.MaxChars < 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "goto: snapshot.maxChars must not be negative")
	}
	if p.URL == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "goto: url is empty")
	}
	url, err := navURL("goto", p.URL)
	if err != nil {
		return nil, err
	}
	if err := s.checkDestination(c, url); err != nil {
		return nil, err
	}
	if p.Tab == 0 && s.needsFirstTab(ctx, c, p.Browser) {
		// A named agent's first goto opens its space's first tab there.
		if err := checkUntil("goto", p.Until); err != nil {
			return nil, err
		}
		res, err := s.tabsOpen(ctx, c, protocol.TabsOpenParams{Browser: p.Browser, URL: url, Until: p.Until, TimeoutMs: p.TimeoutMs})
		if err != nil {
			return nil, err
		}
		if nav := res.(protocol.TabResult).Nav; nav != nil {
			return *nav, nil
		}
		return protocol.NavResult{Tab: res.(protocol.TabResult).Tab.ID, URL: url}, nil
	}
	return s.withRunner(ctx, c, p.Target, "goto", millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		if s.mayAsk(c, confirm.NavigateNewOrigin) {
			if _, err := s.confirmNavigation(ctx, c, tc, "go to", 0, url); err != nil {
				return nil, err
			}
		}
		// A snapshot taken at once prepares the page itself (its world, the
		// module): a preparation beside it would only hold it up.
		res, err := r.Goto(ctx, url, actions.NavOptions{Until: p.Until, Timeout: millis(p.TimeoutMs), NoPrepare: p.Snapshot != nil})
		if err != nil {
			return nil, err
		}
		if err := s.checkLanded(c, tc.tabID, res.URL); err != nil {
			return nil, err
		}
		return navResult(tc.tabID, res), nil
	})
}

// history is back, forward or reload.
func (s *Service) history(op string) handler {
	return typed(func(ctx context.Context, c *call, p protocol.NavParams) (any, error) {
		return s.withRunner(ctx, c, p.Target, op, millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
			o := actions.NavOptions{Until: p.Until, Timeout: millis(p.TimeoutMs)}
			judged := "" // the origin the policy judged (and the person allowed, when asked)
			if op != protocol.MethodReload && s.mayAsk(c, confirm.NavigateNewOrigin) {
				verb, delta := "go back to", int64(-1)
				if op == protocol.MethodForward {
					verb, delta = "go forward to", 1
				}
				var err error
				if judged, err = s.confirmNavigation(ctx, c, tc, verb, delta, ""); err != nil {
					return nil, err
				}
			}
			if tc.reach != nil || judged != "" {
				// The history entry is a destination like goto's: judged
				// before it loads; it must be on the origin the policy
				// judged (the page may have pushed entries while the
				// person was asked).
				o.Destination = func(url string) error {
					if judged != "" && pairing.Origin(url) != judged {
						return protocol.Errorf(protocol.CodeStaleRef, "%s: the tab's history changed while the policy judged it: the page it goes to is now on %s, not %s; nothing was done", op, pairing.Origin(url), judged)
					}
					if tc.reach == nil {
						return nil
					}
					return s.checkDestination(c, url)
				}
			}
			var res *actions.NavResult
			var err error
			switch op {
			case protocol.MethodBack:
				res, err = r.Back(ctx, o)
			case protocol.MethodForward:
				res, err = r.Forward(ctx, o)
			default:
				res, err = r.Reload(ctx, o)
			}
			if err != nil {
				return nil, err
			}
			if err := s.checkLanded(c, tc.tabID, res.URL); err != nil {
				return nil, err
			}
			return navResult(tc.tabID, res), nil
		})
	})
}

func (s *Service) eval(ctx context.Context, c *call, p protocol.EvalParams) (any, error) {
	if p.Expression == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "eval: expression is empty")
	}
	return s.withRunner(ctx, c, p.Target, "eval", millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		evaluate := r.Evaluate
		if p.Element != "" {
			evaluate = func(ctx context.Context, fn string, d time.Duration) (*actions.EvalResult, error) {
				return r.EvaluateOn(ctx, p.Element, fn, d)
			}
		}
		res, err := evaluate(ctx, p.Expression, millis(p.TimeoutMs))
		if err != nil {
			return nil, err
		}
		return protocol.EvalResult{Tab: tc.tabID, Value: res.Value, Type: res.Type, Description: res.Description, TookMs: tookMs(res.Took), Dialog: dialogOf(res.Dialog)}, nil
	})
}

// screenshot answers the PNG, or writes it to a new file (p.Path, under
// the rules of filegate.Rules.Create), made before the page is touched.
func (s *Service) screenshot(ctx context.Context, c *call, p protocol.ScreenshotParams) (any, error) {
	var out *newFile
	if p.Path != "" {
		f, err := s.createFile(ctx, c, "screenshot", p.Path)
		if err != nil {
			return nil, err
		}
		out = f
		defer out.discard()
	}
	return s.withRunner(ctx, c, p.Target, "screenshot", millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		start := time.Now()
		// A frame the caller may not reach would be in the picture.
		if frames, err := tc.res.Withheld(ctx); err != nil {
			return nil, err
		} else if len(frames) > 0 {
			return nil, protocol.Errorf(protocol.CodeForbiddenOriginScope, "screenshot: tab %d shows a frame of %s, which this agent may not reach: a picture would show it (snapshot leaves it out)", tc.tabID, frames[0]).
				With("tab", tc.tabID).With("origin", frames[0]).With("reason", "frame").With("frame", true)
		}
		shot, err := r.Screenshot(ctx, actions.ScreenshotOptions{FullPage: p.FullPage, Target: p.Element, Timeout: millis(p.TimeoutMs)})
		if err != nil {
			return nil, err
		}
		res := protocol.ScreenshotResult{Tab: tc.tabID, Bytes: len(shot.PNG), Width: shot.Width, Height: shot.Height, Element: shot.Element, FullPage: p.FullPage}
		if out != nil {
			if err := out.write(shot.PNG); err != nil {
				return nil, protocol.Errorf(protocol.CodeInternal, "screenshot: %v", err)
			}
			res.Path = out.path
		} else {
			res.Data = shot.PNG
		}
		res.TookMs = tookMs(time.Since(start))
		return res, nil
	})
}

func (s *Service) dialog(ctx context.Context, c *call, p protocol.DialogParams) (any, error) {
	return s.withRunner(ctx, c, p.Target, protocol.MethodDialog, millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		// A dialog an earlier call opened: the runner's own watch starts
		// after it, so the tab's record is what says which one this is.
		seen := tc.seen(tc.link.Tabs.Dialog(tc.tabID))
		res, err := r.HandleDialog(ctx, p.Accept, p.PromptText, millis(p.TimeoutMs))
		if err != nil {
			return nil, err
		}
		d := tc.seen(dialogOf(res.Dialog))
		if d == nil {
			d = seen
		}
		return protocol.DialogResult{Tab: tc.tabID, Accepted: res.Accepted, Dialog: d, TookMs: tookMs(res.Took)}, nil
	})
}

// The actions a form.fill field may name.
const (
	fieldFill    = "fill"
	fieldCheck   = "check"
	fieldUncheck = "uncheck"
	fieldSelect  = "select"
)

// maxFormFields bounds a form.fill call (a form's fields, not a page's).
const maxFormFields = 100

func checkFormFill(p protocol.FormFillParams) error {
	if len(p.Fields) == 0 {
		return protocol.Errorf(protocol.CodeInvalidParams, "form.fill: no fields")
	}
	if len(p.Fields) > maxFormFields {
		return protocol.Errorf(protocol.CodeInvalidParams, "form.fill: %d fields; at most %d in one call", len(p.Fields), maxFormFields)
	}
	for i, f := range p.Fields {
		if f.Element == "" {
			return protocol.Errorf(protocol.CodeInvalidParams, "form.fill: field %d: target is empty (a @ref or a locator)", i+1)
		}
		switch f.Action {
		case fieldFill:
			if len(f.Values) > 0 {
				return protocol.Errorf(protocol.CodeInvalidParams, "form.fill: field %d (%s): fill takes text, not values", i+1, f.Element)
			}
		case fieldSelect:
			if len(f.Values) == 0 {
				return protocol.Errorf(protocol.CodeInvalidParams, "form.fill: field %d (%s): select needs values", i+1, f.Element)
			}
			if f.Text != "" {
				return protocol.Errorf(protocol.CodeInvalidParams, "form.fill: field %d (%s): select takes values, not text", i+1, f.Element)
			}
		case fieldCheck, fieldUncheck:
			if f.Text != "" || len(f.Values) > 0 {
				return protocol.Errorf(protocol.CodeInvalidParams, "form.fill: field %d (%s): %s takes no text or values", i+1, f.Element, f.Action)
			}
		default:
			return protocol.Errorf(protocol.CodeInvalidParams, "form.fill: field %d (%s): action %q is not fill, check, uncheck or select", i+1, f.Element, f.Action)
		}
	}
	return nil
}

// formFill sets a form's fields in one call: each field is the action it
// names, made in order under the tab's action lock as that method makes
// it alone (the same auto-wait and checks); only the last field settles.
// It saves an agent a call, and the service a tab context and a lock, per
// field. A field that fails ends the call with its error, which says how
// many fields before it were set (data "filled").
func (s *Service) formFill(ctx context.Context, c *call, p protocol.FormFillParams) (any, error) {
	if err := checkFormFill(p); err != nil {
		return nil, err
	}
	return s.withRunner(ctx, c, p.Target, protocol.MethodFormFill, millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		unlock, err := tc.tab.LockActions(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
		start := time.Now()
		out := protocol.FormFillResult{Tab: tc.tabID, Fields: make([]protocol.ActionResult, 0, len(p.Fields))}
		for i, f := range p.Fields {
			o := actOptions(p.ActionOptions)
			if i < len(p.Fields)-1 {
				o.Settle = &actions.Settle{Off: true}
			}
			res, err := runField(ctx, r, f, o)
			if err != nil {
				return nil, fieldError(i, f, wireerr.Classify(err))
			}
			traceBox(c, res.Box)
			if res.Settled.URL != "" && s.checkLanded(c, tc.tabID, res.Settled.URL) != nil {
				res.Settled.URL = "" // as runAct: where it went is not the caller's to read
			}
			out.Fields = append(out.Fields, actionResult(f.Action, tc.tabID, res))
			if res.Dialog != nil {
				break // the page is blocked until someone answers it
			}
		}
		out.TookMs = tookMs(time.Since(start))
		return out, nil
	})
}

// runField makes one form.fill field's action.
func runField(ctx context.Context, r *actions.Runner, f protocol.FormField, o actions.ActOptions) (*actions.Result, error) {
	switch f.Action {
	case fieldCheck:
		return r.SetChecked(ctx, f.Element, true, o)
	case fieldUncheck:
		return r.SetChecked(ctx, f.Element, false, o)
	case fieldSelect:
		return r.Select(ctx, f.Element, actions.SelectOptions{ActOptions: o, Values: f.Values})
	}
	return r.Fill(ctx, f.Element, f.Text, actions.FillOptions{ActOptions: o})
}

// fieldError is a form.fill field's error: its own code and data, its
// message prefixed with the field, and how many fields were set before it.
func fieldError(i int, f protocol.FormField, err error) error {
	pe := protocol.AsError(err)
	done := "no field was set"
	switch {
	case i == 1:
		done = "field 1 is set"
	case i > 1:
		done = fmt.Sprintf("fields 1-%d are set", i)
	}
	out := protocol.Errorf(pe.Code, "form.fill: field %d (%s %s): %s; %s", i+1, f.Action, f.Element, pe.Message, done)
	for k, v := range pe.Data {
		if k != "name" {
			out.With(k, v)
		}
	}
	return out.With("field", i+1).With("filled", i)
}
