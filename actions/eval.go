package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

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
	w := r.watch(ctx, "eval")
	defer w.close()
	res, err := r.evaluate(w.ctx, expr, false)
	var je *JSError
	if errors.As(err, &je) && strings.Contains(je.Text, "await is only valid") {
		// Top-level await: evaluate as the console does.
		res, err = r.evaluate(w.ctx, expr, true)
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
	if res.ExceptionDetails != nil {
		return nil, &JSError{Op: "eval", Text: exceptionText(res.ExceptionDetails), Line: res.ExceptionDetails.LineNumber, Column: res.ExceptionDetails.ColumnNumber}
	}
	out := &EvalResult{Value: json.RawMessage("null"), Type: "undefined"}
	if o := res.Result; o != nil {
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
