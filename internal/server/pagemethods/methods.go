package pagemethods

import (
	"context"
	"encoding/json"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirmmethods"
	"github.com/egohost/egohost/internal/server/filegate"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// ActParams are the params of an element action: each embeds a
// protocol.Target and protocol.ActionOptions, and checks itself.
type ActParams interface {
	TargetOf() protocol.Target
	ActionOptionsOf() protocol.ActionOptions
	Check(op string) error
}

// Act is the one shape of the element actions: check the params, make
// one engine call (run, an actwire mapping) on their tab, answer an
// ActionResult. A click, or a press or a type of Enter, the call's policy
// may ask the person about first (confirmmethods.Verb).
func Act[T Tab, P ActParams](m Methods[T], op string, run func(context.Context, actwire.Runner, P, actions.ActOptions) (*actions.Result, error)) func(context.Context, Call[T], P) (any, error) {
	return func(ctx context.Context, c Call[T], p P) (any, error) {
		if err := p.Check(op); err != nil {
			return nil, err
		}
		return m.RunAct(ctx, c, p.TargetOf(), op, p.ActionOptionsOf(), func(ctx context.Context, tab T, r *actions.Runner, o actions.ActOptions) (*actions.Result, error) {
			if verb, enter, ok := confirmmethods.Verb(p); ok {
				if o.Confirm = tab.ConfirmHook(ctx, r, verb, enter); o.Confirm != nil {
					p = confirmmethods.Target(p)
				}
			}
			return run(ctx, r, p, o)
		})
	}
}

// RunAct makes one element action (run) on the target's tab, under the
// tab's action lock, and answers an ActionResult.
func (m Methods[T]) RunAct(ctx context.Context, c Call[T], t protocol.Target, op string, o protocol.ActionOptions, run func(context.Context, T, *actions.Runner, actions.ActOptions) (*actions.Result, error)) (any, error) {
	return m.Run(ctx, c, t, op, actwire.Millis(o.TimeoutMs), func(ctx context.Context, tab T, r *actions.Runner) (any, error) {
		// One element action at a time per tab: two agents granted
		// the same tab never interleave a click's steps.
		unlock, err := tab.LockActions(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
		opened := tab.WatchOpened()
		res, err := run(ctx, tab, r, actwire.ActOptions(o))
		if err != nil {
			opened(ctx, 0)
			return nil, err
		}
		// The tabs the action opened: Chrome makes a tab a moment after
		// the page asks for it, which the settle has mostly covered.
		tabs := opened(ctx, openedWait)
		c.TraceBox(res.Box)
		if res.Settled.URL != "" && c.CheckLanded(tab.ID(), res.Settled.URL) != nil {
			// The action led the page to a document the caller may not
			// reach (a link, a form, the page's own doing): it happened,
			// but where it went is not the caller's to read.
			res.Settled.URL = ""
		}
		out := actwire.ActionResult(op, tab.ID(), res)
		out.Opened = tabs
		return out, nil
	})
}

// openedWait bounds the wait for a tab the page announced it opens
// (Page.windowOpen with a user gesture) and Chrome has not made yet.
const openedWait = time.Second

// Wait is the wait method.
func (m Methods[T]) Wait(ctx context.Context, c Call[T], p protocol.WaitParams) (any, error) {
	return m.Run(ctx, c, p.Target, "wait", actwire.Millis(p.TimeoutMs), func(ctx context.Context, tab T, r *actions.Runner) (any, error) {
		res, err := r.Wait(ctx, actwire.WaitOptions(p))
		if err != nil {
			return nil, err
		}
		if p.Load != "" {
			var landed string
			_ = json.Unmarshal(res.Value, &landed)
			if err := c.CheckLanded(tab.ID(), landed); err != nil {
				return nil, err
			}
		}
		return actwire.WaitResult(tab.ID(), res), nil
	})
}

// Goto is the goto method: the navigation, then, when asked, the loaded
// page's snapshot.
func (m Methods[T]) Goto(ctx context.Context, c Call[T], p protocol.GotoParams) (any, error) {
	res, err := m.gotoOnly(ctx, c, p)
	if err != nil || p.Snapshot == nil {
		return res, err
	}
	nav := res.(protocol.NavResult)
	if nav.Dialog != nil || nav.Download {
		return nav, nil // a dialog blocks the page; a download left it as it was
	}
	// The page is loaded: its snapshot, as the snapshot method takes it.
	snap, err := c.Snapshot(ctx, protocol.SnapshotParams{
		Target:      protocol.Target{Browser: p.Browser, Tab: nav.Tab},
		Interactive: p.Snapshot.Interactive, URLs: p.Snapshot.URLs, MaxChars: p.Snapshot.MaxChars,
	})
	if err != nil {
		nav.SnapshotError = wireerr.Of(err)
		return nav, nil
	}
	nav.Snapshot = &snap
	return nav, nil
}

// gotoOnly is goto's navigation (Goto without its snapshot).
func (m Methods[T]) gotoOnly(ctx context.Context, c Call[T], p protocol.GotoParams) (any, error) {
	if err := p.Check(protocol.MethodGoto); err != nil {
		return nil, err
	}
	url, err := actwire.URL("goto", p.URL)
	if err != nil {
		return nil, err
	}
	if err := c.CheckDestination(url); err != nil {
		return nil, err
	}
	if p.Tab == 0 && c.NeedsFirstTab(ctx, p.Browser) {
		// A named agent's first goto opens its space's first tab there.
		if err := actwire.CheckUntil("goto", p.Until); err != nil {
			return nil, err
		}
		res, err := c.OpenTab(ctx, protocol.TabsOpenParams{Browser: p.Browser, URL: url, Until: p.Until, TimeoutMs: p.TimeoutMs})
		if err != nil {
			return nil, err
		}
		if nav := res.Nav; nav != nil {
			return *nav, nil
		}
		return protocol.NavResult{Tab: res.Tab.ID, URL: url}, nil
	}
	return m.Run(ctx, c, p.Target, "goto", actwire.Millis(p.TimeoutMs), func(ctx context.Context, tab T, r *actions.Runner) (any, error) {
		if c.MayAsk(confirm.NavigateNewOrigin) {
			if _, err := tab.ConfirmNavigation(ctx, "go to", 0, url); err != nil {
				return nil, err
			}
		}
		// A snapshot taken at once prepares the page itself (its world, the
		// module): a preparation beside it would only hold it up.
		res, err := r.Goto(ctx, url, actions.NavOptions{Until: p.Until, Timeout: actwire.Millis(p.TimeoutMs), NoPrepare: p.Snapshot != nil})
		if err != nil {
			return nil, err
		}
		if err := c.CheckLanded(tab.ID(), res.URL); err != nil {
			return nil, err
		}
		return actwire.NavResult(tab.ID(), res), nil
	})
}

// History is back, forward or reload (op).
func (m Methods[T]) History(op string) func(context.Context, Call[T], protocol.NavParams) (any, error) {
	return func(ctx context.Context, c Call[T], p protocol.NavParams) (any, error) {
		return m.Run(ctx, c, p.Target, op, actwire.Millis(p.TimeoutMs), func(ctx context.Context, tab T, r *actions.Runner) (any, error) {
			o := actions.NavOptions{Until: p.Until, Timeout: actwire.Millis(p.TimeoutMs)}
			judged := "" // the origin the policy judged (and the person allowed, when asked)
			if op != protocol.MethodReload && c.MayAsk(confirm.NavigateNewOrigin) {
				verb, delta := "go back to", int64(-1)
				if op == protocol.MethodForward {
					verb, delta = "go forward to", 1
				}
				var err error
				if judged, err = tab.ConfirmNavigation(ctx, verb, delta, ""); err != nil {
					return nil, err
				}
			}
			if limited := tab.Limited(); limited || judged != "" {
				// The history entry is a destination like goto's: judged
				// before it loads; it must be on the origin the policy
				// judged (the page may have pushed entries while the
				// person was asked).
				o.Destination = func(url string) error {
					if judged != "" && pairing.Origin(url) != judged {
						return protocol.Errorf(protocol.CodeStaleRef, "%s: the tab's history changed while the policy judged it: the page it goes to is now on %s, not %s; nothing was done", op, pairing.Origin(url), judged)
					}
					if !limited {
						return nil
					}
					return c.CheckDestination(url)
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
			if err := c.CheckLanded(tab.ID(), res.URL); err != nil {
				return nil, err
			}
			return actwire.NavResult(tab.ID(), res), nil
		})
	}
}

// Eval is the eval method: an expression in the page, or a function on
// an element.
func (m Methods[T]) Eval(ctx context.Context, c Call[T], p protocol.EvalParams) (any, error) {
	if err := p.Check(protocol.MethodEval); err != nil {
		return nil, err
	}
	return m.Run(ctx, c, p.Target, "eval", actwire.Millis(p.TimeoutMs), func(ctx context.Context, tab T, r *actions.Runner) (any, error) {
		evaluate := r.Evaluate
		if p.Element != "" {
			evaluate = func(ctx context.Context, fn string, d time.Duration) (*actions.EvalResult, error) {
				return r.EvaluateOn(ctx, p.Element, fn, d)
			}
		}
		res, err := evaluate(ctx, p.Expression, actwire.Millis(p.TimeoutMs))
		if err != nil {
			return nil, err
		}
		return actwire.EvalResult(tab.ID(), res), nil
	})
}

// Screenshot answers the PNG, or writes it to a new file (p.Path, under
// the rules of filegate.Rules.Create), made before the page is touched.
func (m Methods[T]) Screenshot(ctx context.Context, c Call[T], p protocol.ScreenshotParams) (any, error) {
	var out *filegate.Output
	if p.Path != "" {
		f, err := c.CreateOutput(p.Path)
		if err != nil {
			return nil, err
		}
		out = f
		defer out.Discard()
	}
	return m.Run(ctx, c, p.Target, "screenshot", actwire.Millis(p.TimeoutMs), func(ctx context.Context, tab T, r *actions.Runner) (any, error) {
		start := time.Now()
		// A frame the caller may not reach would be in the picture.
		if frames, err := tab.Withheld(ctx); err != nil {
			return nil, err
		} else if len(frames) > 0 {
			return nil, protocol.Errorf(protocol.CodeForbiddenOriginScope, "screenshot: tab %d shows a frame of %s, which this agent may not reach: a picture would show it (snapshot leaves it out)", tab.ID(), frames[0]).
				With("tab", tab.ID()).With("origin", frames[0]).With("reason", "frame").With("frame", true)
		}
		shot, err := r.Screenshot(ctx, actions.ScreenshotOptions{FullPage: p.FullPage, Target: p.Element, Timeout: actwire.Millis(p.TimeoutMs)})
		if err != nil {
			return nil, err
		}
		res := protocol.ScreenshotResult{Tab: tab.ID(), Bytes: len(shot.PNG), Width: shot.Width, Height: shot.Height, Element: shot.Element, FullPage: p.FullPage}
		if out != nil {
			if err := out.Write(shot.PNG); err != nil {
				return nil, protocol.Errorf(protocol.CodeInternal, "screenshot: %v", err)
			}
			res.Path = out.Path
		} else {
			res.Data = shot.PNG
		}
		res.TookMs = actwire.TookMs(time.Since(start))
		return res, nil
	})
}

// Dialog is the dialog method: it answers the JavaScript dialog that
// blocks the tab, or the next one to open.
func (m Methods[T]) Dialog(ctx context.Context, c Call[T], p protocol.DialogParams) (any, error) {
	return m.Run(ctx, c, p.Target, protocol.MethodDialog, actwire.Millis(p.TimeoutMs), func(ctx context.Context, tab T, r *actions.Runner) (any, error) {
		// A dialog an earlier call opened: the runner's own watch starts
		// after it, so the tab's record is what says which one this is.
		seen := tab.Seen(tab.Dialog())
		start := time.Now()
		res, err := r.HandleDialog(ctx, p.Accept, p.PromptText, actwire.Millis(p.TimeoutMs))
		if err != nil {
			if seen != nil && protocol.CodeOf(wireerr.Classify(err)) == protocol.CodeTabNotFound {
				// The answer let the page go, and the tab closed before
				// Chrome's reply came: a beforeunload dialog that held the
				// tab's close, accepted. The dialog was answered.
				return protocol.DialogResult{Tab: tab.ID(), Accepted: p.Accept, Dialog: seen, TabClosed: true, TookMs: actwire.TookMs(time.Since(start))}, nil
			}
			return nil, err
		}
		d := tab.Seen(actwire.Dialog(res.Dialog))
		if d == nil {
			d = seen
		}
		return protocol.DialogResult{Tab: tab.ID(), Accepted: res.Accepted, Dialog: d, TookMs: actwire.TookMs(res.Took)}, nil
	})
}

// FormFill sets a form's fields in one call: each field is the action it
// names, made in order under the tab's action lock as that method makes
// it alone (the same auto-wait and checks); only the last field settles.
// It saves an agent a call, and the service a tab context and a lock, per
// field. A field that fails ends the call with its error, which says how
// many fields before it were set (data "filled").
func (m Methods[T]) FormFill(ctx context.Context, c Call[T], p protocol.FormFillParams) (any, error) {
	if err := p.Check(protocol.MethodFormFill); err != nil {
		return nil, err
	}
	return m.Run(ctx, c, p.Target, protocol.MethodFormFill, actwire.Millis(p.TimeoutMs), func(ctx context.Context, tab T, r *actions.Runner) (any, error) {
		unlock, err := tab.LockActions(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
		start := time.Now()
		out := protocol.FormFillResult{Tab: tab.ID(), Fields: make([]protocol.ActionResult, 0, len(p.Fields))}
		for i, f := range p.Fields {
			o := actwire.ActOptions(p.ActionOptions)
			if i < len(p.Fields)-1 {
				o.Settle = &actions.Settle{Off: true}
			}
			if f.Action == protocol.MethodSelect {
				// As the select method: its clicks on a widget are asked about.
				o.Confirm = tab.ConfirmHook(ctx, r, "click", false)
			}
			res, err := actwire.Field(ctx, r, f, o)
			if err != nil {
				return nil, actwire.FieldError(i, f, wireerr.Classify(err))
			}
			c.TraceBox(res.Box)
			if res.Settled.URL != "" && c.CheckLanded(tab.ID(), res.Settled.URL) != nil {
				res.Settled.URL = "" // as RunAct: where it went is not the caller's to read
			}
			out.Fields = append(out.Fields, actwire.ActionResult(f.Action, tab.ID(), res))
			if res.Dialog != nil {
				break // the page is blocked until someone answers it
			}
		}
		out.TookMs = actwire.TookMs(time.Since(start))
		return out, nil
	})
}
