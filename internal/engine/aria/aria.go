// Package aria is egohost's page module, and the one way egohost calls
// JavaScript in a page.
//
// The module (aria.js) computes what egohost reads of a page: ARIA roles,
// accessible names, states and values, what the accessibility tree leaves
// out, visibility, generated content. The locator engine (resolver) and
// the snapshot walker (snapshot) both read the page through it, so what a
// locator matches and what a snapshot shows come from one place. Node
// tests (internal/engine/aria/test, `node --test internal/engine/aria/test/`) run it over a small fake DOM;
// the resolver's and the snapshot's Chromium tests hold it to Chrome's own
// accessibility tree.
//
// # The calling convention
//
// Every function egohost injects into a page is written
//
//	(el, ns, ...args) => result        // or async
//
// and called with el the node the call is about (the element, or the
// document for a call about a whole document) and ns the module's
// namespace; args are JSON values. Functions never use `this`, and the
// module reaches them as ns, never through a global. (A kept function
// keeps its state in its closure; the actions' watches keep theirs on the
// element's window, between the calls that start and read them.) Go
// builds every call with a Func, in one of three homes:
//
//   - Keep: the function is kept in egohost's world after its first call
//     (under a key derived from its source), so later calls send a few
//     bytes, not the function (the locator engine, the snapshot walker,
//     the overlay, a function run with a resolution).
//   - Send: the function is sent with every call (small or one-off
//     functions, and the actions' steps, composed per action).
//   - Page: the function runs in the page's own world (the actions that
//     must: the DOM quiet, scroll and wheel, the focused element's
//     description, a location assignment); ns is null there, since the
//     module is never put where the page's scripts can reach it.
//
// Runtime.callFunctionOn's `this` appears only in the declarations that
// Decl and cdptab.Boxed build, in the one-property probes around them (a
// node's isConnected, a boxed object's element), and in an agent's own
// function (actions.Runner.EvaluateOn), which gets the element as `this`
// as well as its argument, as PROTOCOL.md's eval promises: that function
// is the agent's, not egohost's.
//
// The module is installed once per world (egohost's isolated world of a
// frame, and the overlay's), under Key. A call made in a world that lacks
// the module or the kept function answers a marker instead of running;
// Func.Again reads it and says what to install, and the call is sent
// again with that (Func.Call's in): at most two more round trips, the
// first time a world is used. Func.Evaluate and Func.CallOn send a call
// that way, one CDP method each.
//
// The script sandbox's facade (internal/server/script/facade.js) is not injected into a
// page: it runs in goja, around the service's methods, and is not under
// this convention.
package aria

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

//go:embed aria.js
var source string

//go:embed describe.js
var describeSource string

// WithDescribe returns the source of a function that is src (a function's
// source) with describe (describe.js: one line that names a node, as the
// actions' messages quote it) in its scope. It needs no module, so the
// function runs in any world.
func WithDescribe(src string) string {
	return "((describe) => " + src + "\n)(" + describeSource + "\n)"
}

// Source is the module's JavaScript: one expression whose value is the
// namespace (Compact: what a page needs of aria.js).
func Source() string { return module() }

// module is aria.js compacted, on first use.
var module = sync.OnceValue(func() string { return Compact(source) })

// Key is the global of a world that holds the module. It names the
// module's version: a new build never uses an old module left in a page.
// It is hashed on first use: a CLI call that never touches a page does
// not pay for it.
var Key = sync.OnceValue(func() string { return "__egohostAria_" + digest(module()) })

// Compact returns src, our own JavaScript, without what a page does not
// need to run it: its whole-line comments and the indentation of its
// lines. Every line stays (an empty or a shorter one), so that an
// exception's line is still the file's (its column counts from the
// line's first character that is not a space). Whole-line comments and
// indentation were 45 % of what a new document gets (aria.js, snapshot.js,
// engine.js, the actions' checks: docs/benchmarks.md), which otherwise
// cross chrome.debugger (~80 ns a byte through the extension) and the page
// scans again in each new document. A source
// whose lines a string, a template or a block comment may span (a line
// with an odd number of backticks, a "/*", a line that ends with a
// backslash) comes back as it is: a line of it that starts with "//" may
// not be a comment.
func Compact(src string) string {
	lines := strings.Split(src, "\n")
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "//") {
			continue
		}
		if strings.Count(t, "`")%2 == 1 || strings.Contains(t, "/*") || strings.HasSuffix(t, "\\") {
			return src
		}
	}
	var b strings.Builder
	b.Grow(len(src))
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(t, "//") {
			t = ""
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String()
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// Install says what a call installs in the world before it runs.
type Install int

const (
	// InstallNone only calls.
	InstallNone Install = iota
	// InstallFunc installs a kept function, then calls it.
	InstallFunc
	// InstallModule installs the module (when missing) and the function,
	// then calls it.
	InstallModule
)

// MissingModule is what a call answers in a world without the module (a
// fake page answers it too).
const MissingModule = "egohost: no page module"

// What a call answers when its world lacks the module, or a kept function
// (its key follows).
const (
	noModule     = MissingModule
	noFuncPrefix = "egohost: no page function "
)

// Func is a function with the calling convention (its source evaluates to
// the function), and where it runs.
type Func struct {
	src  string
	key  func() string // where the world keeps it (hashed on first use); nil when sent with every call
	page bool          // the page's own world: ns is null
}

// Keep returns a Func kept in egohost's world after its first call. Its
// source may close over state (an IIFE that returns the function): the
// state then lives as long as the world, the document's. Sending it again
// (a caller that did not know the world had it) keeps the one there, and
// its state.
func Keep(src string) Func {
	return Func{src: src, key: sync.OnceValue(func() string { return "__egohostFn_" + digest(src) })}
}

// Send returns a Func sent with every call.
func Send(src string) Func { return Func{src: src} }

// Page returns a Func that runs in the page's own world, with ns null.
func Page(src string) Func { return Func{src: src, page: true} }

// Key is the global where a world keeps the function ("" for one sent
// with every call).
func (f Func) Key() string {
	if f.key == nil {
		return ""
	}
	return f.key()
}

// Source is the function's source.
func (f Func) Source() string { return f.src }

// Keeper returns an expression that keeps the function in the world it is
// evaluated in (where none is kept yet) and calls nothing: a world gets it
// ahead of its first call. "" for a function not kept (Send, Page).
func (f Func) Keeper() string {
	if f.key == nil || f.page {
		return ""
	}
	return "(globalThis." + f.key() + " ??= (" + f.src + "\n), 0)"
}

// Call returns an expression that calls the function with el and args:
// JavaScript expressions (el is "document", "this", a variable…; args is
// an argument list, e.g. JSON texts joined by commas, or "...a"). Outside
// the page world, a world that lacks what in does not install makes the
// expression evaluate to a marker instead (see Func.Again).
func (f Func) Call(in Install, el, args string) string {
	if args != "" {
		args = ", " + args
	}
	mod := "globalThis." + Key()
	noMod := strconv.Quote(noModule)
	switch {
	case f.page:
		return "(" + f.src + "\n)(" + el + ", null" + args + ")"
	case f.key == nil && in == InstallNone:
		return "(" + mod + " ? (" + f.src + "\n)(" + el + ", " + mod + args + ") : " + noMod + ")"
	case f.key == nil:
		return "(" + f.src + "\n)(" + el + ", (" + mod + " ??= (" + module() + "\n))" + args + ")"
	}
	fn := "globalThis." + f.key()
	switch in {
	case InstallNone:
		return "(" + mod + " ? (" + fn + " ? " + fn + "(" + el + ", " + mod + args + ") : " + strconv.Quote(f.noFunc()) + ") : " + noMod + ")"
	case InstallFunc:
		return "(" + mod + " ? (" + fn + " ??= (" + f.src + "\n))(" + el + ", " + mod + args + ") : " + noMod + ")"
	default:
		return "(" + fn + " ??= (" + f.src + "\n))(" + el + ", (" + mod + " ??= (" + module() + "\n))" + args + ")"
	}
}

// noFunc is what a call answers when its world does not keep f.
// A function sent with every call has no key (and no marker of its own:
// its calls can only lack the module).
func (f Func) noFunc() string {
	if f.key == nil {
		return noFuncPrefix
	}
	return noFuncPrefix + f.key()
}

// Expr returns an expression for Runtime.evaluate that calls the
// function with the document and args (each a JSON value).
func (f Func) Expr(in Install, args ...json.RawMessage) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = string(a)
	}
	return f.Call(in, "document", strings.Join(parts, ", "))
}

// Decl returns a function declaration for Runtime.callFunctionOn that
// calls the function with the object it is called on (`this`) and the
// call's arguments.
func (f Func) Decl(in Install) string {
	return "function(...a) { return " + f.Call(in, "this", "...a") + "; }"
}

// Marked returns a JavaScript expression that is true when the variable v
// holds a marker of this function's (Call's value in a world that lacked
// something): code that wraps a call's value (in an envelope, say) passes
// a marker on as it is, for Again to read.
func (f Func) Marked(v string) string {
	return "(" + v + " === " + strconv.Quote(noModule) + " || " + v + " === " + strconv.Quote(f.noFunc()) + ")"
}

// Again reads a call's result: when it is the marker of a world that
// lacked the module or this function, it returns what to install and true
// (send the call again with that). It returns false when the call ran, or
// when in already installed what is asked (nothing more can help).
func (f Func) Again(in Install, o *runtime.RemoteObject) (Install, bool) {
	need := InstallNone
	switch s, _ := StringOf(o); {
	case s == noModule:
		need = InstallModule
	case f.key != nil && s == f.noFunc():
		need = InstallFunc
	}
	if need <= in {
		return in, false
	}
	return need, true
}

// Evaluate calls the function with the document and args (JSON values)
// by Runtime.evaluate with p (Evaluate writes its Expression) on s, and
// again with what the world lacked (Again). The result is the last
// call's: its exception, if any, is the caller's to read.
func (f Func) Evaluate(ctx context.Context, s cdp.Session, p runtime.EvaluateParams, args ...any) (runtime.EvaluateResult, error) {
	raw, err := encode(args)
	if err != nil {
		return runtime.EvaluateResult{}, err
	}
	for in := InstallNone; ; {
		p.Expression = f.Expr(in, raw...)
		res, err := cdp.Call(ctx, s, runtime.Evaluate, p)
		if err != nil {
			return runtime.EvaluateResult{}, err
		}
		next, again := f.Again(in, res.Result)
		if !again {
			return res, nil
		}
		in = next
	}
}

// CallOn calls the function by Runtime.callFunctionOn with p (on the
// object p.ObjectID; CallOn writes its declaration, decl(in), and its
// Arguments, args as JSON values) on s, and again with what the world
// lacked (Again). decl is f.Decl, or a declaration around f.Call. The
// result is the last call's: its exception, if any, is the caller's to
// read.
func (f Func) CallOn(ctx context.Context, s cdp.Session, p runtime.CallFunctionOnParams, decl func(in Install) string, args ...any) (runtime.CallFunctionOnResult, error) {
	return f.CallOnFrom(ctx, s, p, InstallNone, decl, args...)
}

// CallOnFrom is CallOn whose first call sends what from says: a caller
// that knows the world lacks a kept function sends it at once, not after
// a miss.
func (f Func) CallOnFrom(ctx context.Context, s cdp.Session, p runtime.CallFunctionOnParams, from Install, decl func(in Install) string, args ...any) (runtime.CallFunctionOnResult, error) {
	raw, err := encode(args)
	if err != nil {
		return runtime.CallFunctionOnResult{}, err
	}
	p.Arguments = make([]*runtime.CallArgument, len(raw))
	for i, v := range raw {
		p.Arguments[i] = &runtime.CallArgument{Value: jsonv2.Value(v)}
	}
	for in := from; ; {
		p.FunctionDeclaration = decl(in)
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, p)
		if err != nil {
			return runtime.CallFunctionOnResult{}, err
		}
		next, again := f.Again(in, res.Result)
		if !again {
			return res, nil
		}
		in = next
	}
}

// Release lets the page forget a remote object (one a call returned, or
// was made on), also after ctx ended, but within 2 s: a page a dialog
// blocks answers nothing.
func Release(ctx context.Context, s cdp.Session, id runtime.RemoteObjectID) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_, _ = cdp.Call(rctx, s, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: id})
}

// encode returns a call's arguments as JSON values.
func encode(args []any) ([]json.RawMessage, error) {
	raw := make([]json.RawMessage, len(args))
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("encode argument: %w", err)
		}
		raw[i] = b
	}
	return raw, nil
}

// StringOf is a result's string value, returned by value or deep
// serialized.
func StringOf(o *runtime.RemoteObject) (string, bool) {
	if o == nil || o.Type != runtime.RemoteObjectTypeString {
		return "", false
	}
	raw := o.Value
	if o.DeepSerializedValue != nil && len(o.DeepSerializedValue.Value) > 0 {
		raw = o.DeepSerializedValue.Value
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// World is egohost's isolated world in a tab's main frame as the
// resolver made it (resolver.Resolver.MainWorld), for the other parts of
// the engine that run there (the snapshot's walk): its execution context
// and its document's loader. Guard wraps an expression so that it runs
// only in that world; elsewhere (a context ID a new renderer handed out
// again) it evaluates to the string Wrong, and nothing else of it runs.
type World struct {
	Frame   cdp.FrameID
	Context runtime.ExecutionContextID
	Loader  cdp.LoaderID
	// URL and Origin are what the world's document said of itself when
	// the world was made (the reach checks' input).
	URL, Origin string
	// Module says the page module is in the world, or on its way (an
	// evaluation that sends it went there first: the world runs what
	// comes after it later). Without it, a call sends the module too.
	Module bool
	// Kept holds the keys of the functions sent to the world (Func.Key),
	// as Module says of the module: a call of one sends none of its
	// source.
	Kept  map[string]bool
	Guard func(expr string) string
	Wrong string
}
