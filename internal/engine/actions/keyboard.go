package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/link/cdptab"
)

// PressOptions tune Press and Type.
type PressOptions struct {
	ActOptions
	// Target, when set, is focused first (after it is attached and
	// enabled); otherwise the keys go to the focused element.
	Target string
	// Delay waits between keys when typing (0: none).
	Delay time.Duration
}

// Press presses a key or a combo ("Enter", "Control+a", "Shift+Tab",
// "ControlOrMeta+a"): the modifiers go down in order, the key goes down
// and up, the modifiers go up in reverse order.
func (r *Runner) Press(ctx context.Context, combo string, o PressOptions) (*Result, error) {
	strokes, err := r.kb.parseCombo(combo, r.opts.GOOS)
	if err != nil {
		return nil, err
	}
	return r.keys(ctx, "press", o, func(ctx context.Context) error {
		return r.pressStrokes(ctx, strokes)
	})
}

// Type types text key by key into the focused element (or o.Target,
// focused first): characters of the US layout as key presses, others
// (é, 中, emoji) as text input, as Playwright does.
func (r *Runner) Type(ctx context.Context, text string, o PressOptions) (*Result, error) {
	return r.keys(ctx, "type", o, func(ctx context.Context) error {
		for i, c := range text {
			if i > 0 && o.Delay > 0 {
				t := time.NewTimer(o.Delay)
				select {
				case <-ctx.Done():
					t.Stop()
					return ctxErr(ctx)
				case <-t.C:
				}
			}
			ch := string(c)
			if d, ok := r.kb.lookup(ch); ok && (d.key == ch || d.shiftKey == ch || ch == "\n" || ch == "\r") {
				strokes, err := r.kb.parseCombo(ch, r.opts.GOOS)
				if ch == "\n" || ch == "\r" {
					strokes, err = r.kb.parseCombo("Enter", r.opts.GOOS)
				}
				if err != nil {
					return err
				}
				if err := r.pressStrokes(ctx, strokes); err != nil {
					return err
				}
				continue
			}
			if _, err := cdp.Call(ctx, r.tab, input.InsertText, input.InsertTextParams{Text: ch}); err != nil {
				return fmt.Errorf("insert %q: %w", ch, err)
			}
		}
		return nil
	})
}

// keys runs do after focusing o.Target (when set), then settles.
func (r *Runner) keys(ctx context.Context, op string, o PressOptions, do func(ctx context.Context) error) (*Result, error) {
	if o.Target != "" {
		// focus.js runs in the checks' call (one round trip less), and
		// reads the value the keys start from.
		var raw json.RawMessage
		c := checks{Enabled: true, Then: "focusValue", thenOut: &raw}
		return r.actWith(ctx, op, o.Target, o.ActOptions, c, hooks{
			do: func(ctx context.Context, el Element, _ Point, res *Result) error {
				var then struct {
					Focus json.RawMessage `json:"focus"`
					Value *string         `json:"value"`
				}
				_ = json.Unmarshal(raw, &then) // none (null) when the checks did not run it: focused below
				focus := then.Focus
				err := focused(focus)
				if len(focus) == 0 || string(focus) == "null" {
					err = r.focusElement(ctx, el)
				}
				if err != nil {
					return fmt.Errorf("%s: %w", op, err)
				}
				if err := do(ctx); err != nil {
					return finalError{fmt.Errorf("%s: %w", op, err)}
				}
				// Read now, not in the settle: a key (Enter) often
				// submits, and the field goes with its page. Once that
				// navigation has started, Chrome answers no call on the
				// page until the next one commits, and then the field is
				// gone: the value is the one the keys started from (Enter
				// in a field changes nothing of it).
				v, err := r.value(ctx, el)
				var na *NotActionableError
				if errors.As(err, &na) && na.Reason == NotAttached {
					v = then.Value
				}
				res.Value = v
				return nil
			},
			retryDo: true, // until the focus lands; keys sent are final
		})
	}
	return r.unbound(ctx, op, o.ActOptions, func(ctx context.Context, res *Result, observe string) error {
		desc, err := r.describeFocused(ctx, observe)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		res.Element = desc
		if err := do(ctx); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		return nil
	})
}

// unbound runs an action that needs no element (keys to the focused
// element, a wheel over the viewport) with the same dialog watch and
// settle as element actions. do runs observe (observePage; "" when the
// action is not settled) in its first evaluation, before the action's
// events.
func (r *Runner) unbound(ctx context.Context, op string, o ActOptions, do func(ctx context.Context, res *Result, observe string) error) (*Result, error) {
	start := time.Now()
	w := r.actionWatch(ctx, op)
	defer w.close()
	res := &Result{}
	if err := w.waitReady(); err != nil && w.ctx.Err() != nil {
		if d := w.opened(); d != nil {
			return nil, &DialogOpenError{Op: op, Dialog: *d}
		}
		return nil, err
	}
	w.drain()
	w.arm()
	s := r.opts.Settle
	if o.Settle != nil {
		s = o.Settle.withDefaults()
	}
	observe := ""
	if !s.Off {
		observe = observePage(op)
	}
	err := do(w.ctx, res, observe)
	if d := w.opened(); d != nil {
		res.Dialog = d
		return res.unsettled("dialog", start), nil
	}
	if err != nil {
		return nil, err
	}
	res.Settled = r.settle(w, s, Element{}, observe != "", nil)
	res.Dialog = w.opened()
	res.Took = time.Since(start)
	return res, nil
}

// pressStrokes sends the key events of one combo, in one sequence (one
// round trip: Chrome's input queue keeps them in order, as a person's
// keys).
func (r *Runner) pressStrokes(ctx context.Context, strokes []stroke) error {
	var mods int64
	var cmds []cdptab.Command
	for _, s := range strokes {
		mods |= s.modifier
		cmds = append(cmds, r.keyEvent(true, s, mods))
	}
	for i := len(strokes) - 1; i >= 0; i-- {
		s := strokes[i]
		// A modifier's own keyup no longer has it held, as in a browser.
		mods &^= s.modifier
		cmds = append(cmds, r.keyEvent(false, s, mods))
	}
	if err := cdptab.CallSequence(ctx, r.tab, cmds); err != nil {
		return fmt.Errorf("key %s: %w", strokes[len(strokes)-1].key, err)
	}
	return nil
}

// keyEvent is one keyDown (keyDown with text, rawKeyDown without) or
// keyUp.
func (r *Runner) keyEvent(down bool, s stroke, mods int64) cdptab.Command {
	p := input.DispatchKeyEventParams{
		Type:                  input.DispatchKeyEventTypeKeyUp,
		Modifiers:             mods,
		Key:                   s.key,
		Code:                  s.def.code,
		WindowsVirtualKeyCode: s.def.keyCode,
		NativeVirtualKeyCode:  s.def.keyCode,
		Location:              s.def.location,
	}
	if down {
		p.Type = input.DispatchKeyEventTypeRawKeyDown
		if s.text != "" {
			p.Type = input.DispatchKeyEventTypeKeyDown
			p.Text = s.text
			p.UnmodifiedText = s.text
		}
		if r.opts.GOOS == "darwin" {
			p.Commands = macCommands(mods&^s.modifier, s.def.code)
		}
	}
	return cdptab.Command{Method: input.DispatchKeyEvent.Method, Params: p}
}

// modifiers returns the modifier bits of key names (Shift, Control, Alt,
// Meta, ControlOrMeta).
func (r *Runner) modifiers(names []string) (int64, error) {
	var mods int64
	for _, n := range names {
		bit := modifierBit(n, r.opts.GOOS)
		if bit == 0 {
			return 0, invalid("unknown modifier %q: want Shift, Control, Alt, Meta or ControlOrMeta", n)
		}
		mods |= bit
	}
	return mods, nil
}

// focusedJS is the element that has the focus, through shadow roots and
// same-origin frames, or null when nothing has (the page's body gets the
// keys). An out-of-process frame is reported as its <iframe>.
const focusedJS = `(document) => {
  let a = document.activeElement;
  for (;;) {
    if (a && a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
    let d = null;
    try { d = a && a.contentDocument; } catch (e) { d = null; }
    if (d && d.activeElement && d.activeElement !== d.body && d.activeElement !== d.documentElement) { a = d.activeElement; continue; }
    break;
  }
  return a && a !== document.body && a !== document.documentElement ? a : null;
}`

// describeFocused describes the element the keys are about to go to (as
// element actions describe theirs), or returns "" when nothing has the
// focus or the page cannot say (a description is not worth failing the
// keys for). One evaluation: the focused element and its description. Its
// one error is a document the Runner's Pin refuses: the keys must not go
// there.
func (r *Runner) describeFocused(ctx context.Context, observe string) (string, error) {
	yes := true
	expr := aria.Page("async (document, ns) => {\n" + observe + "const a = (" + focusedJS + ")(document); return a ? (" + checkJS + "\n)(a, ns, { describe: true }) : null; }").Expr(aria.InstallNone)
	res, err := r.pageEval(ctx, cdpruntime.EvaluateParams{Expression: expr, Silent: &yes, ReturnByValue: &yes, AwaitPromise: &yes})
	var we *cdptab.WithheldError
	if errors.As(err, &we) || errors.Is(err, errPageMoves) {
		return "", err
	}
	if err != nil || res.ExceptionDetails != nil || res.Result == nil {
		return "", nil
	}
	var c checkResult
	if json.Unmarshal(res.Result.Value, &c) != nil {
		return "", nil
	}
	return c.Desc, nil
}
