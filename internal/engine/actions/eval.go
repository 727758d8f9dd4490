package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdpruntime "github.com/chromedp/cdproto/runtime"
)

// EvalResult is what a script gave back.
type EvalResult struct {
	// Value is the JSON of the value (null for undefined and for values
	// JSON cannot hold; Description then says what it was).
	Value json.RawMessage
	// Type is JavaScript's typeof ("number", "object", "undefined", …).
	Type string
	// Description describes values JSON cannot hold: NaN, Infinity, -0,
	// bigints.
	Description string
	Took        time.Duration
	// Dialog is a JavaScript dialog the script opened (it is still open;
	// the script waits for it).
	Dialog *Dialog
}

// Evaluate runs expr in the main frame's page world (top-level await
// allowed; a function is called), awaits a promise, and returns the value.
// An exception the page throws is a *JSError.
func (r *Runner) Evaluate(ctx context.Context, expr string, d time.Duration) (*EvalResult, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout(d, r.opts.Timeout))
	defer cancel()
	w := r.pageWatch(ctx, "eval")
	defer w.close()
	res, err := r.evaluate(w.ctx, expr, false)
	var je *JSError
	if errors.As(err, &je) && strings.Contains(je.Text, "await is only valid") {
		// Top-level await: evaluate as the console does.
		res, err = r.evaluate(w.ctx, expr, true)
	} else if errors.As(err, &je) && strings.Contains(je.Text, "has already been declared") && je.Line == 0 && je.Column == 0 {
		// A let or const an earlier evaluation declared (an agent's
		// second `const rows = …`): this evaluation's own, in a block.
		// Chrome refuses the script before it runs any of it, and says
		// so at its very start (line 0, column 0): the same error thrown
		// while it ran (an eval inside it) is not retried, which would
		// run what came before twice. (The console's REPL mode would
		// allow it only after a REPL declaration, and loses an
		// exception's position.)
		res, err = r.evaluate(w.ctx, "{\n"+expr+"\n}", false)
		if errors.As(err, &je) && je.Line > 0 {
			je.Line-- // the block's first line
		}
	}
	if err == nil && res.Type == "function" {
		res, err = r.evaluate(w.ctx, "("+expr+")()", false)
	}
	if dl := w.opened(); dl != nil {
		return &EvalResult{Type: "undefined", Value: json.RawMessage("null"), Dialog: dl, Took: time.Since(start)}, nil
	}
	if err != nil {
		if ctx.Err() != nil { // however the transport words it
			return nil, &TimeoutError{Op: "eval", Timeout: timeout(d, r.opts.Timeout)}
		}
		return nil, err
	}
	res.Took = time.Since(start)
	return res, nil
}

func (r *Runner) evaluate(ctx context.Context, expr string, repl bool) (*EvalResult, error) {
	yes := true
	p := cdpruntime.EvaluateParams{
		Expression:    expr,
		ReturnByValue: &yes,
		AwaitPromise:  &yes,
		UserGesture:   &yes,
	}
	if repl {
		p.ReplMode = &yes
	}
	res, err := r.pageEval(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return evalResult(res.Result, res.ExceptionDetails)
}

// evalResult reads what an evaluation gave back.
func evalResult(o *cdpruntime.RemoteObject, ex *cdpruntime.ExceptionDetails) (*EvalResult, error) {
	if ex != nil {
		return nil, &JSError{Op: "eval", Text: exceptionText(ex), Line: ex.LineNumber, Column: ex.ColumnNumber}
	}
	out := &EvalResult{Value: json.RawMessage("null"), Type: "undefined"}
	if o != nil {
		out.Type = string(o.Type)
		if len(o.Value) > 0 {
			out.Value = json.RawMessage(o.Value)
		}
		if o.UnserializableValue != "" {
			out.Description = string(o.UnserializableValue)
		}
	}
	return out, nil
}

// EvaluateOn calls fn, a JavaScript function's source such as
// `(element) => element.value`, with the element target names as its
// argument (and `this`), in the page's own world of the element's frame,
// where the page's globals are; it awaits a promise and returns the value,
// as Evaluate does. It waits (up to d) for target to match one element.
func (r *Runner) EvaluateOn(ctx context.Context, target, fn string, d time.Duration) (*EvalResult, error) {
	if r.find == nil {
		return nil, errors.New("eval: no element finder")
	}
	start := time.Now()
	d = timeout(d, r.opts.Timeout)
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	w := r.pageWatch(ctx, "eval")
	defer w.close()
	var el Element
	err := r.retry(w.ctx, "eval", target, d, nil, func(ctx context.Context, n int) error {
		var err error
		el, err = r.find.Find(ctx, target)
		return err
	})
	if err != nil {
		return nil, err
	}
	defer r.release(context.WithoutCancel(ctx), el)
	inner, done, err := r.unboxed(w.ctx, el)
	if err != nil {
		return nil, err
	}
	defer done()
	res, err := r.callInPage(w.ctx, inner, fn)
	if dl := w.opened(); dl != nil {
		return &EvalResult{Type: "undefined", Value: json.RawMessage("null"), Dialog: dl, Took: time.Since(start)}, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, &TimeoutError{Op: "eval", Timeout: d}
		}
		return nil, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// callInPage calls fn with el (an object of egohost's world) as its
// argument, on the same node in the page's main world.
func (r *Runner) callInPage(ctx context.Context, el Element, fn string) (*EvalResult, error) {
	s := r.session(el.SessionID)
	node, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: el.ObjectID})
	if err != nil || node.Node == nil {
		if chromeContextGone(err) {
			return nil, &NotActionableError{Reason: NotAttached, Detail: "its document went away"}
		}
		return nil, fmt.Errorf("eval: describe the element: %w", err)
	}
	obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node.Node.BackendNodeID})
	if err != nil || obj.Object == nil || obj.Object.ObjectID == "" {
		return nil, fmt.Errorf("eval: the element in the page's world: %w", err)
	}
	page := Element{ObjectID: obj.Object.ObjectID, SessionID: el.SessionID}
	defer r.release(context.WithoutCancel(ctx), page)
	yes := true
	res, err := cdp.Call(ctx, s, cdpruntime.CallFunctionOn, cdpruntime.CallFunctionOnParams{
		FunctionDeclaration: fn,
		ObjectID:            page.ObjectID,
		Arguments:           []*cdpruntime.CallArgument{{ObjectID: page.ObjectID}},
		ReturnByValue:       &yes,
		AwaitPromise:        &yes,
		UserGesture:         &yes,
	})
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return evalResult(res.Result, res.ExceptionDetails)
}
