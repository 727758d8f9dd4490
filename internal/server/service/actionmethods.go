package service

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirmmethods"
	"github.com/egohost/egohost/internal/server/filegate"
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
	return protocol.DialogResult{Tab: id, Accepted: res.Accepted, Dialog: actwire.Dialog(res.Dialog), TookMs: actwire.TookMs(res.Took), Unreported: true}, true, nil
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

// actParams are the params of an element action: each embeds a
// protocol.Target and protocol.ActionOptions, and checks itself.
type actParams interface {
	TargetOf() protocol.Target
	ActionOptionsOf() protocol.ActionOptions
	Check(op string) error
}

// act is the one shape of the element actions: decode the params (typed),
// check them, make one engine call (an actwire mapping) on their tab,
// answer an ActionResult.
func act[P actParams](s *Service, op string, run func(context.Context, actwire.Runner, P, actions.ActOptions) (*actions.Result, error)) handler {
	return typed(func(ctx context.Context, c *call, p P) (any, error) {
		if err := p.Check(op); err != nil {
			return nil, err
		}
		return s.runAct(ctx, c, p.TargetOf(), op, p.ActionOptionsOf(), func(ctx context.Context, tc *tabContext, r *actions.Runner, o actions.ActOptions) (*actions.Result, error) {
			if verb, enter, ok := confirmmethods.Verb(p); ok {
				if o.Confirm = s.confirmHook(ctx, c, tc, r, verb, enter); o.Confirm != nil {
					p = confirmmethods.Target(p)
				}
			}
			return run(ctx, r, p, o)
		})
	})
}

// runAct makes one element action (run) on the target's tab, under the
// tab's action lock, and answers an ActionResult.
func (s *Service) runAct(ctx context.Context, c *call, t protocol.Target, op string, o protocol.ActionOptions, run func(context.Context, *tabContext, *actions.Runner, actions.ActOptions) (*actions.Result, error)) (any, error) {
	return s.withRunner(ctx, c, t, op, actwire.Millis(o.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		// One element action at a time per tab: two agents granted
		// the same tab never interleave a click's steps.
		unlock, err := tc.tab.LockActions(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
		res, err := run(ctx, tc, r, actwire.ActOptions(o))
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
		return actwire.ActionResult(op, tc.tabID, res), nil
	})
}

func (s *Service) wait(ctx context.Context, c *call, p protocol.WaitParams) (any, error) {
	return s.withRunner(ctx, c, p.Target, "wait", actwire.Millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		res, err := r.Wait(ctx, actwire.WaitOptions(p))
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
		return actwire.WaitResult(tc.tabID, res), nil
	})
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
	if err := p.Check(protocol.MethodGoto); err != nil {
		return nil, err
	}
	url, err := actwire.URL("goto", p.URL)
	if err != nil {
		return nil, err
	}
	if err := s.checkDestination(c, url); err != nil {
		return nil, err
	}
	if p.Tab == 0 && s.needsFirstTab(ctx, c, p.Browser) {
		// A named agent's first goto opens its space's first tab there.
		if err := actwire.CheckUntil("goto", p.Until); err != nil {
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
	return s.withRunner(ctx, c, p.Target, "goto", actwire.Millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		if s.mayAsk(c, confirm.NavigateNewOrigin) {
			if _, err := s.confirmNavigation(ctx, c, tc, "go to", 0, url); err != nil {
				return nil, err
			}
		}
		// A snapshot taken at once prepares the page itself (its world, the
		// module): a preparation beside it would only hold it up.
		res, err := r.Goto(ctx, url, actions.NavOptions{Until: p.Until, Timeout: actwire.Millis(p.TimeoutMs), NoPrepare: p.Snapshot != nil})
		if err != nil {
			return nil, err
		}
		if err := s.checkLanded(c, tc.tabID, res.URL); err != nil {
			return nil, err
		}
		return actwire.NavResult(tc.tabID, res), nil
	})
}

// history is back, forward or reload.
func (s *Service) history(op string) handler {
	return typed(func(ctx context.Context, c *call, p protocol.NavParams) (any, error) {
		return s.withRunner(ctx, c, p.Target, op, actwire.Millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
			o := actions.NavOptions{Until: p.Until, Timeout: actwire.Millis(p.TimeoutMs)}
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
			return actwire.NavResult(tc.tabID, res), nil
		})
	})
}

func (s *Service) eval(ctx context.Context, c *call, p protocol.EvalParams) (any, error) {
	if err := p.Check(protocol.MethodEval); err != nil {
		return nil, err
	}
	return s.withRunner(ctx, c, p.Target, "eval", actwire.Millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
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
		return actwire.EvalResult(tc.tabID, res), nil
	})
}

// screenshot answers the PNG, or writes it to a new file (p.Path, under
// the rules of filegate.Rules.Create), made before the page is touched.
func (s *Service) screenshot(ctx context.Context, c *call, p protocol.ScreenshotParams) (any, error) {
	var out *filegate.Output
	if p.Path != "" {
		c.noteFiles(p.Path)
		f, err := s.files.CreateOutput("screenshot", p.Path, isPairedCall(c.conn))
		if err != nil {
			return nil, err
		}
		c.noteFiles(f.Path)
		out = f
		defer out.Discard()
	}
	return s.withRunner(ctx, c, p.Target, "screenshot", actwire.Millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		start := time.Now()
		// A frame the caller may not reach would be in the picture.
		if frames, err := tc.res.Withheld(ctx); err != nil {
			return nil, err
		} else if len(frames) > 0 {
			return nil, protocol.Errorf(protocol.CodeForbiddenOriginScope, "screenshot: tab %d shows a frame of %s, which this agent may not reach: a picture would show it (snapshot leaves it out)", tc.tabID, frames[0]).
				With("tab", tc.tabID).With("origin", frames[0]).With("reason", "frame").With("frame", true)
		}
		shot, err := r.Screenshot(ctx, actions.ScreenshotOptions{FullPage: p.FullPage, Target: p.Element, Timeout: actwire.Millis(p.TimeoutMs)})
		if err != nil {
			return nil, err
		}
		res := protocol.ScreenshotResult{Tab: tc.tabID, Bytes: len(shot.PNG), Width: shot.Width, Height: shot.Height, Element: shot.Element, FullPage: p.FullPage}
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

func (s *Service) dialog(ctx context.Context, c *call, p protocol.DialogParams) (any, error) {
	return s.withRunner(ctx, c, p.Target, protocol.MethodDialog, actwire.Millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		// A dialog an earlier call opened: the runner's own watch starts
		// after it, so the tab's record is what says which one this is.
		seen := tc.seen(tc.link.Tabs.Dialog(tc.tabID))
		res, err := r.HandleDialog(ctx, p.Accept, p.PromptText, actwire.Millis(p.TimeoutMs))
		if err != nil {
			return nil, err
		}
		d := tc.seen(actwire.Dialog(res.Dialog))
		if d == nil {
			d = seen
		}
		return protocol.DialogResult{Tab: tc.tabID, Accepted: res.Accepted, Dialog: d, TookMs: actwire.TookMs(res.Took)}, nil
	})
}

// formFill sets a form's fields in one call: each field is the action it
// names, made in order under the tab's action lock as that method makes
// it alone (the same auto-wait and checks); only the last field settles.
// It saves an agent a call, and the service a tab context and a lock, per
// field. A field that fails ends the call with its error, which says how
// many fields before it were set (data "filled").
func (s *Service) formFill(ctx context.Context, c *call, p protocol.FormFillParams) (any, error) {
	if err := p.Check(protocol.MethodFormFill); err != nil {
		return nil, err
	}
	return s.withRunner(ctx, c, p.Target, protocol.MethodFormFill, actwire.Millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		unlock, err := tc.tab.LockActions(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
		start := time.Now()
		out := protocol.FormFillResult{Tab: tc.tabID, Fields: make([]protocol.ActionResult, 0, len(p.Fields))}
		for i, f := range p.Fields {
			o := actwire.ActOptions(p.ActionOptions)
			if i < len(p.Fields)-1 {
				o.Settle = &actions.Settle{Off: true}
			}
			res, err := actwire.Field(ctx, r, f, o)
			if err != nil {
				return nil, actwire.FieldError(i, f, wireerr.Classify(err))
			}
			traceBox(c, res.Box)
			if res.Settled.URL != "" && s.checkLanded(c, tc.tabID, res.Settled.URL) != nil {
				res.Settled.URL = "" // as runAct: where it went is not the caller's to read
			}
			out.Fields = append(out.Fields, actwire.ActionResult(f.Action, tc.tabID, res))
			if res.Dialog != nil {
				break // the page is blocked until someone answers it
			}
		}
		out.TookMs = actwire.TookMs(time.Since(start))
		return out, nil
	})
}
