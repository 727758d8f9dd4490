package aria_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/setup/browser"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// The calling convention in Chromium: each home of a function, each form
// of a call (an expression, a declaration on an element), and the install
// protocol (a world lacking the module or the function says so, the
// caller sends what Again asks, and later calls send nothing more).
func TestCallsInChromium(t *testing.T) {
	b := browsertest.Launch(t, browser.Options{})
	url := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<!doctype html><title>t</title><button id=b>Save</button>`})) + "/"
	s := b.NewPage(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	world := browsertest.MainWorld(ctx, t, s, "aria-test")
	yes := true
	// eval evaluates f's call (in the test's world, or the page's own for
	// a Page function) and returns the installs it needed and its value.
	eval := func(t *testing.T, f aria.Func, page bool, args ...json.RawMessage) ([]aria.Install, string) {
		t.Helper()
		var ins []aria.Install
		for in := aria.InstallNone; ; {
			ins = append(ins, in)
			p := runtime.EvaluateParams{Expression: f.Expr(in, args...), ReturnByValue: &yes}
			if !page {
				p.ContextID = world
			}
			res, err := cdp.Call(ctx, s, runtime.Evaluate, p)
			if err != nil || res.ExceptionDetails != nil {
				t.Fatalf("evaluate: %v %+v", err, res.ExceptionDetails)
			}
			next, again := f.Again(in, res.Result)
			if !again {
				return ins, string(res.Result.Value)
			}
			in = next
		}
	}
	same := slices.Equal[[]aria.Install]
	none, all := []aria.Install{aria.InstallNone}, []aria.Install{aria.InstallNone, aria.InstallModule}

	// A kept function with state: the first call installs the module and
	// it, later ones send neither, and its state lives on.
	counter := aria.Keep(`(() => { let n = 0; return (el, ns, by) => ({ n: n += by, doc: el === document, ns: typeof ns.view }); })()`)
	ins, v := eval(t, counter, false, json.RawMessage("2"))
	if !same(ins, all) || v != `{"n":2,"doc":true,"ns":"function"}` {
		t.Errorf("first call: installs %v, value %s; want %v and n 2 on the document with the module", ins, v, all)
	}
	if ins, v = eval(t, counter, false, json.RawMessage("3")); !same(ins, none) || v != `{"n":5,"doc":true,"ns":"function"}` {
		t.Errorf("second call: installs %v, value %s; want none and n 5", ins, v)
	}
	// Sending it again (a caller that did not know) keeps the one there,
	// and its state.
	res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: counter.Expr(aria.InstallModule, json.RawMessage("1")), ContextID: world, ReturnByValue: &yes})
	if err != nil || res.ExceptionDetails != nil || string(res.Result.Value) != `{"n":6,"doc":true,"ns":"function"}` {
		t.Errorf("sent again: %v %+v; want n 6", err, res)
	}
	// Another kept function in the same world: the module is there, the
	// function is not.
	other := aria.Keep(`(el, ns) => ns.norm("  a \n b ")`)
	if ins, v = eval(t, other, false); !same(ins, []aria.Install{aria.InstallNone, aria.InstallFunc}) || v != `"a b"` {
		t.Errorf("another kept function: installs %v, value %s; want none then the function, and \"a b\"", ins, v)
	}
	// A sent function needs only the module.
	sent := aria.Send(`(el, ns, x) => x + ns.normWS(" y ")`)
	if ins, v = eval(t, sent, false, json.RawMessage(`"x"`)); !same(ins, none) || v != `"xy"` {
		t.Errorf("sent function: installs %v, value %s; want none and \"xy\"", ins, v)
	}
	// The page's own world never gets the module: a Page function gets
	// null, and the page sees no module.
	pageFn := aria.Page(`(el, ns) => [el === document, ns === null, typeof globalThis.` + aria.Key() + `]`)
	if ins, v = eval(t, pageFn, true); !same(ins, none) || v != `[true,true,"undefined"]` {
		t.Errorf("page function: installs %v, value %s; want none and [true,true,\"undefined\"]", ins, v)
	}
	// A declaration: the element is el.
	node := browsertest.QuerySelector(ctx, t, s, "#b")
	obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{NodeID: node, ExecutionContextID: world})
	if err != nil {
		t.Fatal(err)
	}
	role := aria.Keep(`(el, ns, what) => what + ": " + ns.view(el.ownerDocument).role(el) + " " + ns.view(el.ownerDocument).name(el)`)
	var got []aria.Install
	for in := aria.InstallNone; ; {
		got = append(got, in)
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: role.Decl(in), ObjectID: obj.Object.ObjectID, ReturnByValue: &yes,
			Arguments: []*runtime.CallArgument{{Value: []byte(`"it"`)}},
		})
		if err != nil || res.ExceptionDetails != nil {
			t.Fatalf("call: %v %+v", err, res.ExceptionDetails)
		}
		next, again := role.Again(in, res.Result)
		if !again {
			v = string(res.Result.Value)
			break
		}
		in = next
	}
	if !same(got, []aria.Install{aria.InstallNone, aria.InstallFunc}) || v != `"it: button Save"` {
		t.Errorf("declaration: installs %v, value %s; want none then the function, and \"it: button Save\"", got, v)
	}
	// A function kept ahead (Keeper) runs nothing, and its first call
	// sends none of it; a kept one is left as it is (its state too).
	ahead := aria.Keep(`(el, ns) => "ahead " + typeof ns.norm`)
	for _, k := range []string{ahead.Keeper(), counter.Keeper()} {
		res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: k, ContextID: world, ReturnByValue: &yes})
		if err != nil || res.ExceptionDetails != nil || string(res.Result.Value) != "0" {
			t.Fatalf("keeper: %v %+v; want 0", err, res)
		}
	}
	if ins, v = eval(t, ahead, false); !same(ins, none) || v != `"ahead function"` {
		t.Errorf("kept ahead: installs %v, value %s; want none and \"ahead function\"", ins, v)
	}
	if ins, v = eval(t, counter, false, json.RawMessage("1")); !same(ins, none) || v != `{"n":7,"doc":true,"ns":"function"}` {
		t.Errorf("kept ahead again: installs %v, value %s; want none and n 7", ins, v)
	}
	// One function's marker is not another's.
	res, err = cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: aria.Keep(`(el) => 1`).Expr(aria.InstallNone), ContextID: world, ReturnByValue: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if _, again := other.Again(aria.InstallNone, res.Result); again {
		t.Errorf("another function's marker %s made this one install", res.Result.Value)
	}
}
