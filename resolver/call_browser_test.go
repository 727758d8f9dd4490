package resolver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/cdpcount"
	"github.com/egohost/egohost/resolver"
)

// ObjectCall finds the same element as Object, in every kind of frame and
// for every way of finding (one evaluation, a role check, a ref), runs the
// function on it with its arguments, and gives back an Object that
// functions can run on afterwards.
func TestObjectCallInChromium(t *testing.T) {
	b := browsers.Launch(t)
	url := fixture(t)
	p, ctx := tab(t, b, url)
	st := snapshot.NewTab(p)
	r := resolver.New(p, st)
	const fn = `async (el, ns, a, b) => { await new Promise((r) => requestAnimationFrame(r)); return { id: el.id, sum: a.n + b, ns: typeof ns.view }; }`
	for _, tt := range []struct {
		name, target, id string
		boxed            bool
	}{
		{"css", "#save", "save", true},
		{"text", "text=Framed button", "fbtn", true},
		{"in a shadow root", "#sbtn", "sbtn", true},
		{"in a same-process frame", "#cbtn", "cbtn", true},
		{"in an out-of-process frame", "#obtn", "obtn", true},
		{"role", `role=button[name="Save draft"]`, "savedraft", false},
		// A ref's element is found by the snapshot script, in the same
		// evaluation as the call, once the Resolver knows the world of the
		// ref's document (the rows above made them).
		{"ref", refFor(t, ctx, st, "button", "Stale me"), "stale", true},
		{"ref in a same-process frame", refFor(t, ctx, st, "button", "Cross button"), "cbtn", true},
		{"ref in an out-of-process frame", refFor(t, ctx, st, "button", "Remote button"), "obtn", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			obj, called, err := r.ObjectCall(ctx, tt.target, fn, map[string]int{"n": 40}, 2)
			if err != nil {
				t.Fatal(err)
			}
			if called.Exception != "" {
				t.Fatalf("exception: %s", called.Exception)
			}
			var got struct {
				ID  string `json:"id"`
				Sum int    `json:"sum"`
				NS  string `json:"ns"`
			}
			if err := json.Unmarshal(called.Value, &got); err != nil {
				t.Fatalf("value %s: %v", called.Value, err)
			}
			if got.ID != tt.id || got.Sum != 42 || got.NS != "function" {
				t.Errorf("got %+v, want id %s, sum 42 and the page module", got, tt.id)
			}
			if obj.Boxed != tt.boxed {
				t.Errorf("got boxed %v, want %v", obj.Boxed, tt.boxed)
			}
			// The Object is the element for the functions that follow.
			inner := obj
			if obj.Boxed {
				inner.ObjectID, inner.Boxed = unbox(t, ctx, p, obj), false
			}
			if id, err := idOf(ctx, p, inner); err != nil || id != tt.id {
				t.Errorf("the object is #%s (%v), want #%s", id, err, tt.id)
			}
		})
	}
	t.Run("an exception is the call's, not an error", func(t *testing.T) {
		obj, called, err := r.ObjectCall(ctx, "#save", `() => { throw new Error("boom"); }`)
		if err != nil {
			t.Fatal(err)
		}
		if called.Exception != "Error: boom" || obj.ObjectID == "" {
			t.Errorf("got exception %q, object %q; want Error: boom and the element", called.Exception, obj.ObjectID)
		}
	})
	t.Run("resolution errors are the resolver's", func(t *testing.T) {
		for target, want := range map[string]error{"#nothing-here": resolver.ErrNotFound, ".dup": resolver.ErrAmbiguous} {
			_, _, err := r.ObjectCall(ctx, target, `() => 1`)
			if !errors.Is(err, want) {
				t.Errorf("%s: got %v, want %v", target, err, want)
			}
		}
	})
}

// unbox returns the element of a boxed Object.
func unbox(t *testing.T, ctx context.Context, p *cdptab.Page, o resolver.Object) runtime.RemoteObjectID {
	t.Helper()
	s := cdp.Session(p)
	if o.SessionID != "" {
		s = p.Child(o.SessionID)
	}
	res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: "function() { return this[1]; }", ObjectID: o.ObjectID})
	if err != nil || res.Result == nil || res.Result.Subtype != "node" {
		t.Fatalf("unbox: %+v, %v", res, err)
	}
	return res.Result.ObjectID
}

// A call on a ref's element is one round trip when the Resolver knows the
// world of the ref's document: no world made, no resolveNode, no separate
// lookup. After a navigation, a ref of the old document is stale as
// before (the new document's world is not the ref's).
func TestObjectCallOnARefIsOneRoundTrip(t *testing.T) {
	b := browsers.Launch(t)
	url := fixture(t)
	p, ctx := tab(t, b, url)
	ct := cdpcount.New(p)
	st := snapshot.NewTab(p)
	r := resolver.New(ct, st)
	ref := refFor(t, ctx, st, "button", "Stale me")
	ct.Take()
	const fn = `(el) => el.id`
	for i := range 3 {
		obj, called, err := r.ObjectCall(ctx, ref, fn)
		if err != nil || string(called.Value) != `"stale"` {
			t.Fatalf("call %d on %s: %s, %v; want \"stale\"", i, ref, called.Value, err)
		}
		r.Release(ctx, obj)
		got := ct.Take()
		delete(got, runtime.CommandReleaseObject)
		want := map[string]int{runtime.CommandEvaluate: 1}
		if i == 0 {
			// The Resolver's first call on the tab reads its frame tree,
			// makes its world (where the snapshot's module already is) and
			// sends the function with the call.
			want = map[string]int{page.CommandGetFrameTree: 1, page.CommandCreateIsolatedWorld: 1, runtime.CommandEvaluate: 2}
		}
		if !maps.Equal(got, want) {
			t.Errorf("call %d: got calls %v, want %v", i, got, want)
		}
	}
	// Object alone: one evaluation too.
	obj, err := r.Object(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := idOf(ctx, p, obj); err != nil || id != "stale" {
		t.Errorf("Object(%s) is #%s (%v), want #stale", ref, id, err)
	}
	r.Release(ctx, obj)
	got := ct.Take()
	delete(got, runtime.CommandReleaseObject)
	if want := map[string]int{runtime.CommandEvaluate: 1}; !maps.Equal(got, want) {
		t.Errorf("Object: got calls %v, want %v", got, want)
	}
	// The same page loaded again: the ref's document is gone.
	yes := true
	if _, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: "location.reload()", ReturnByValue: &yes}); err != nil {
		t.Fatal(err)
	}
	_, err = resolver.Wait(ctx, func(ctx context.Context) (int, error) { return r.Count(ctx, "#obtn") })
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.ObjectCall(ctx, ref, fn); !errors.Is(err, resolver.ErrStaleRef) {
		t.Errorf("ObjectCall after a reload: got %v, want ErrStaleRef", err)
	}
	if _, err := r.Object(ctx, ref); !errors.Is(err, resolver.ErrStaleRef) {
		t.Errorf("Object after a reload: got %v, want ErrStaleRef", err)
	}
}

// A hostile page that plants egohost's global names in its own world (the
// page module's key, a function's key, the world token's name: all are
// derived from public source) is never called: resolutions and calls run
// in egohost's isolated world, the ref's way as the locator's.
func TestPagePlantedGlobalsAreNeverCalled(t *testing.T) {
	b := browsers.Launch(t)
	const fn = `(el) => el.id`
	planted := []string{aria.Key(), aria.Keep(fn).Key(), "__egohostWorld1"}
	var js strings.Builder
	js.WriteString("window.pwned = [];")
	for _, k := range planted {
		fmt.Fprintf(&js, "globalThis[%q] = new Proxy(function () {}, { get(t, p) { window.pwned.push(%q + '.' + String(p)); return () => [document, document.body, true]; }, apply() { window.pwned.push(%q); return [document, document.body, true]; } });", k, k, k)
	}
	url := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/": `<!doctype html><script>` + js.String() + `</script><button id=real>Real</button>`,
	})) + "/"
	p, ctx := tab0(t, b, url)
	st := snapshot.NewTab(p)
	r := resolver.New(p, st)
	ref := refFor(t, ctx, st, "button", "Real")
	for _, target := range []string{"#real", "role=button[name=Real]", ref} {
		obj, called, err := r.ObjectCall(ctx, target, fn)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		r.Release(ctx, obj)
		if string(called.Value) != `"real"` {
			t.Errorf("%s: got %s, want \"real\"", target, called.Value)
		}
	}
	yes := true
	res, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: "window.pwned", ReturnByValue: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Result.Value); got != "[]" {
		t.Errorf("the page's planted globals were touched: %s", got)
	}
}

// A function run on an element a role locator found (the actions' checks,
// tens of kilobytes) crosses to the page once per document, as an
// evaluation's does: the first call sends it at once (no miss first),
// later calls only name it, and a new document gets it again.
func TestObjectCallKeepsItsFunctionPerDocument(t *testing.T) {
	b := browsers.Launch(t)
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/one": `<!doctype html><title>one</title><button id=a>Save draft</button>`,
		"/two": `<!doctype html><title>two</title><button id=b>Save draft</button>`,
	}))
	p, ctx := tab0(t, b, base+"/one")
	d := &cdpcount.Params[runtime.CallFunctionOnParams]{Page: p}
	r := resolver.New(d, nil)
	padding := "/* " + strings.Repeat("x", 20000) + " */"
	fn := `(el, ns, n) => { ` + padding + ` return el.id + ":" + n; }`
	call := func(what string, n int, wantID string, wantSent bool) {
		t.Helper()
		obj, called, err := r.ObjectCall(ctx, `role=button[name="Save draft"]`, fn, n)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		aria.Release(ctx, p, obj.ObjectID)
		if want := fmt.Sprintf("%q", wantID+":"+fmt.Sprint(n)); string(called.Value) != want {
			t.Errorf("%s: got %s (exception %q), want %s", what, called.Value, called.Exception, want)
		}
		var sent, named int
		for _, call := range d.Take() {
			switch decl := call.FunctionDeclaration; {
			case strings.Contains(decl, padding):
				sent++
			case strings.Contains(decl, "__egohostA"): // the call on the element
				named++
			}
		}
		switch {
		case wantSent && (sent != 1 || named != 0):
			t.Errorf("%s: sent the function %d times and named it alone %d times, want it sent once", what, sent, named)
		case !wantSent && (sent != 0 || named != 1):
			t.Errorf("%s: sent the function %d times and named it alone %d times, want it named once, not sent", what, sent, named)
		}
	}
	call("the first call", 1, "a", true)
	call("the second call", 2, "a", false)
	call("the third call", 3, "a", false)
	if _, err := cdp.Call(ctx, p, page.Navigate, page.NavigateParams{URL: base + "/two"}); err != nil {
		t.Fatal(err)
	}
	if _, err := resolver.Wait(ctx, func(ctx context.Context) (bool, error) {
		if n, err := resolver.New(p, nil).Count(ctx, "#b"); err != nil || n != 1 {
			return false, &resolver.Error{Kind: resolver.Transient, Op: "setup", Err: fmt.Errorf("the second page is not there (%d, %v)", n, err)}
		}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	call("the first call in a new document", 4, "b", true)
	call("the next call there", 5, "b", false)
}
