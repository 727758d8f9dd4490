package resolver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/cdperr"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/refmap"
)

// jsCall is a function to run on the element a resolution finds (with
// the calling convention of aria: fn(el, ns, ...args)), and its arguments
// as a JSON array.
type jsCall struct {
	f    aria.Func // kept in egohost's world, like the engine
	args []byte
}

func newCall(fn string, args []any) (*jsCall, error) {
	if args == nil {
		args = []any{}
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	return &jsCall{f: aria.Keep(fn), args: b}, nil
}

// envelope is what a call answers: {v: its value} or {x: the exception it
// threw}, as a JSON string; {gone: true} when the element is no longer in
// its document (a ref's node checked on the way).
type envelope struct {
	V    json.RawMessage `json:"v"`
	X    *string         `json:"x"`
	Gone bool            `json:"gone"`
}

// enveloped is JavaScript statements that await call (an expression that
// calls f) and leave its envelope in __egohostR; a marker of f's (a world
// that lacks the module or f) is returned as it is, for Again.
func enveloped(f aria.Func, call string) string {
	return "let __egohostR; try { const __egohostV = await " + call + "; " +
		"if (" + f.Marked("__egohostV") + ") return __egohostV; __egohostR = { v: __egohostV }; } " +
		"catch (__egohostE) { __egohostR = { x: String(__egohostE) }; } "
}

func (e envelope) called() cdptab.Called {
	if e.X != nil {
		return cdptab.Called{Exception: *e.X}
	}
	v := e.V
	if len(v) == 0 {
		v = json.RawMessage("null")
	}
	return cdptab.Called{Value: v}
}

// around wraps the engine's object-mode expression: when it gives an
// element, the function runs on it and the result is [envelope, element];
// anything else (the engine's answer as a string, or a marker of a world
// that lacks the function) passes through. The function is kept in
// egohost's world, like the engine, so that the expression stays small
// (its arguments change from call to call, and V8 compiles a new source
// every time): in says whether this call sends it (once per document).
func (c *jsCall) around(expr string, in aria.Install) string {
	// The arrow's names are unlikely ones, as the function's source sits
	// in their scope when it is sent.
	return "(async (__egohostEl) => { if (__egohostEl === null || typeof __egohostEl !== \"object\") return __egohostEl; " +
		enveloped(c.f, c.f.Call(in, "__egohostEl", "..."+string(c.args))) +
		"return [JSON.stringify(__egohostR), __egohostEl]; })(" + expr + ")"
}

// decodeBoxed reads [envelope, node].
func decodeBoxed(v *runtime.DeepSerializedValue) (cdptab.Called, error) {
	items, err := deepItems(v)
	if err != nil {
		return cdptab.Called{}, err
	}
	if len(items) != 2 || items[0].Type != "string" || items[1].Type != "node" {
		return cdptab.Called{}, fmt.Errorf("want [envelope, node], got %d items", len(items))
	}
	var s string
	if err := json.Unmarshal(items[0].Value, &s); err != nil {
		return cdptab.Called{}, err
	}
	var e envelope
	if err := json.Unmarshal([]byte(s), &e); err != nil {
		return cdptab.Called{}, fmt.Errorf("envelope: %w", err)
	}
	return e.called(), nil
}

// ObjectCall resolves target to exactly one element, as Object does, and
// runs a function on it (fn, a JavaScript function's source with the
// calling convention of package aria: called as fn(el, ns, ...args) with
// el the element, ns the page module and args its arguments, awaited):
// the element and the
// function's outcome come back together. For a locator the resolver finds
// with one evaluation (css, text, xpath…), the resolution and the function
// are that one evaluation, and the Object is boxed (cdptab.Object.Boxed);
// for a ref, the function runs in the call that checks the ref's node is
// still in its document. An exception of the function is in the Called,
// not an error. The caller releases the Object.
func (r *Resolver) ObjectCall(ctx context.Context, target, fn string, args ...any) (Object, cdptab.Called, error) {
	p, err := parse(target)
	if err != nil {
		return Object{}, cdptab.Called{}, err
	}
	c, err := newCall(fn, args)
	if err != nil {
		return Object{}, cdptab.Called{}, &Error{Kind: Permanent, Op: "call", Target: target, Err: err}
	}
	var el element
	if p.ref != "" {
		var called cdptab.Called
		var done bool
		el.object, called, done, err = r.refObjectCall(ctx, p, c)
		if err != nil || done {
			return el.object, called, err
		}
	} else if el, err = r.oneCall(ctx, p, c); err != nil {
		return Object{}, cdptab.Called{}, err
	}
	if el.object.Boxed {
		return el.object, el.called, nil
	}
	// Found another way (a role locator, a frame's pick): call it now.
	called, _, err := r.callObject(ctx, el.object, c, false, el.world)
	if err != nil {
		aria.Release(ctx, r.session(el.object.SessionID), el.object.ObjectID)
		return Object{}, cdptab.Called{}, classify("call", p.input, err)
	}
	return el.object, called, nil
}

// refObjectCall is refObject with the call: done is false when the ref's
// node is gone and its fallback (not yet called) is in the Object.
func (r *Resolver) refObjectCall(ctx context.Context, p parsed, c *jsCall) (Object, cdptab.Called, bool, error) {
	if o, called, hit, err := r.localCall(ctx, p, c); err != nil || hit {
		return o, called, true, err
	}
	e, gone, err := r.lookup(ctx, p)
	if err != nil {
		return Object{}, cdptab.Called{}, false, err
	}
	if !gone {
		d, err := r.entryDoc(ctx, e)
		if err != nil {
			return Object{}, cdptab.Called{}, false, classify("object", p.input, err)
		}
		obj, w, err := r.resolveIn(ctx, &d, e.BackendNodeID)
		if err != nil {
			return Object{}, cdptab.Called{}, false, classify("object", p.input, err)
		}
		if obj != "" {
			o := Object{ObjectID: obj, SessionID: e.SessionID}
			called, alive, err := r.callObject(ctx, o, c, true, &w)
			if err != nil {
				aria.Release(ctx, d.s, obj)
				return Object{}, cdptab.Called{}, false, classify("object", p.input, err)
			}
			if alive {
				return o, called, true, nil
			}
			aria.Release(ctx, d.s, obj)
		}
	}
	el, err := r.fallback(ctx, p, e, modeObject)
	return el.object, cdptab.Called{}, false, err
}

// LocalRefs is Refs that can name a ref's element without a round trip:
// Local returns the ref's entry and, when the element is known by a local
// id of the snapshot script in egohost's world of the entry's document, an
// expression that evaluates there to the element (null when it is not
// there any more). *snapshot.Tab satisfies it.
type LocalRefs interface {
	Local(input string) (e refmap.Entry, expr string, ok bool)
}

// localRef is a ref whose element one evaluation can find: in egohost's
// world of the ref's document, which the Resolver remembers (or made) for
// the ref's frame, find (guarded by the world's token) evaluates to the
// element, or to something else when it is not there any more.
type localRef struct {
	e    refmap.Entry
	d    doc
	w    worldRef
	find string
}

// localRef returns the ref's localRef when the Refs name its element by a
// local id and the Resolver's world of its frame is the world of its
// document (the same loader ID): ok says so. Anything else is not ok (a
// world of another document; a ref that came with its BackendNodeID), and
// the caller takes the way that says what is wrong (Lookup, then
// resolveNode). Its error is the reach's refusal of the ref's frame.
func (r *Resolver) localRef(ctx context.Context, p parsed) (localRef, bool, error) {
	lr, ok := r.refs.(LocalRefs)
	if !ok {
		return localRef{}, false, nil
	}
	e, find, ok := lr.Local(p.input)
	if !ok || e.LoaderID == "" {
		return localRef{}, false, nil
	}
	d, err := r.entryDoc(ctx, e)
	if err != nil {
		return localRef{}, false, nil
	}
	w, err := r.worldRef(ctx, &d, false) // made now when the Resolver has none there yet
	if err != nil || w.loader != e.LoaderID {
		return localRef{}, false, nil
	}
	// The ref's frame must be one the caller may reach, as lookup checks.
	if err := r.reachable(&d, w); err != nil {
		return localRef{}, false, classify("lookup", p.input, err)
	}
	return localRef{e: e, d: d, w: w, find: guarded(w.token, find)}, true, nil
}

// localObject is a ref's element found in one evaluation (see localRef):
// hit says it was.
func (r *Resolver) localObject(ctx context.Context, p parsed) (Object, bool, error) {
	l, ok, err := r.localRef(ctx, p)
	if err != nil || !ok {
		return Object{}, false, err
	}
	yes := true
	res, err := cdp.Call(ctx, l.d.s, runtime.Evaluate, runtime.EvaluateParams{Expression: l.find, ContextID: l.w.cid, Silent: &yes})
	if err != nil || res.ExceptionDetails != nil || res.Result == nil || res.Result.Subtype != "node" || res.Result.ObjectID == "" {
		return Object{}, false, nil // the other way says what is wrong
	}
	return Object{ObjectID: res.Result.ObjectID, SessionID: l.e.SessionID}, true, nil
}

// localCall is a ref's element found and c run on it in one evaluation
// (see localRef): hit says it was.
func (r *Resolver) localCall(ctx context.Context, p parsed, c *jsCall) (Object, cdptab.Called, bool, error) {
	l, ok, err := r.localRef(ctx, p)
	if err != nil || !ok {
		return Object{}, cdptab.Called{}, false, err
	}
	yes := true
	in := r.installOf(l.w, c.f)
	for attempt := 0; attempt < 3; attempt++ {
		res, err := cdp.Call(ctx, l.d.s, runtime.Evaluate, runtime.EvaluateParams{
			Expression:           c.around(l.find, in),
			ContextID:            l.w.cid,
			Silent:               &yes,
			AwaitPromise:         &yes,
			SerializationOptions: cdptab.DeepNodes(),
		})
		if err != nil || res.ExceptionDetails != nil || res.Result == nil {
			return Object{}, cdptab.Called{}, false, nil // the other way says what is wrong
		}
		if next, again := c.f.Again(in, res.Result); again {
			in = next // the first call of this function in the document: send it
			continue
		}
		if res.Result.Subtype != "array" || res.Result.ObjectID == "" {
			return Object{}, cdptab.Called{}, false, nil // null, or another world
		}
		r.sentTo(l.w, c.f)
		called, err := decodeBoxed(res.Result.DeepSerializedValue)
		if err != nil {
			aria.Release(ctx, l.d.s, res.Result.ObjectID)
			return Object{}, cdptab.Called{}, false, nil
		}
		return Object{ObjectID: res.Result.ObjectID, SessionID: l.e.SessionID, Boxed: true}, called, true, nil
	}
	return Object{}, cdptab.Called{}, false, nil
}

// callObject runs c on an element's object; with connected, it first
// checks that the element is in its document (alive false when not, and
// c does not run). In the world w the object lives in, the function is
// kept, as an evaluation keeps it: sent with the first call there, named
// by the later ones (its source is tens of kilobytes: an action's checks);
// in a world not known (w nil), it is sent with the call.
func (r *Resolver) callObject(ctx context.Context, o Object, c *jsCall, connected bool, w *worldRef) (cdptab.Called, bool, error) {
	check := ""
	if connected {
		check = "if (!this.isConnected) return JSON.stringify({ gone: true }); "
	}
	var args []any
	if err := json.Unmarshal(c.args, &args); err != nil {
		return cdptab.Called{}, false, fmt.Errorf("decode arguments: %w", err)
	}
	f, from := aria.Send(c.f.Source()), aria.InstallNone
	if w != nil {
		f, from = c.f, r.installOf(*w, c.f)
	}
	yes := true
	// A world no resolution or snapshot used yet lacks the page module:
	// CallOnFrom loads it.
	res, err := f.CallOnFrom(ctx, r.session(o.SessionID), runtime.CallFunctionOnParams{
		ObjectID:      o.ObjectID,
		ReturnByValue: &yes,
		AwaitPromise:  &yes,
		Silent:        &yes,
	}, from, func(in aria.Install) string {
		body := enveloped(f, f.Call(in, "this", "...__egohostA")) + "return JSON.stringify(__egohostR);"
		return "async function(...__egohostA) { " + check + body + " }"
	}, args...)
	if err != nil {
		return cdptab.Called{}, false, fmt.Errorf("call on the element: %w", err)
	}
	if res.ExceptionDetails != nil {
		return cdptab.Called{Exception: cdperr.ExceptionText(res.ExceptionDetails)}, true, nil
	}
	s, ok := aria.StringOf(res.Result)
	if !ok {
		return cdptab.Called{}, false, errors.New("call on the element: no envelope")
	}
	var e envelope
	if err := json.Unmarshal([]byte(s), &e); err != nil {
		return cdptab.Called{}, false, fmt.Errorf("call on the element: envelope: %w", err)
	}
	if e.Gone {
		return cdptab.Called{}, false, nil // the function did not run: nor was it kept
	}
	if w != nil {
		r.sentTo(*w, c.f)
	}
	return e.called(), true, nil
}
