package resolver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/resolver"
)

const gif = "data:image/gif;base64,R0lGODlhAQABAAAAACw="

// recordClicks makes a document note the id of the element a click lands
// on, in the DOM, where every world can read it.
const recordClicks = `<script>document.addEventListener('click', (e) => {
  const el = e.composedPath()[0].closest ? e.composedPath()[0].closest('[id]') : null;
  document.documentElement.dataset.clicked = el ? el.id : '';
}, true);</script>`

// fixture is the test site: a main page on one 127.0.0.1 port with a
// same-origin iframe, a cross-origin (same-site, so same-process) iframe
// from a second port holding a nested iframe, an out-of-process iframe
// (localhost is another site), and an open shadow root.
func fixture(t *testing.T) (mainURL string) {
	other := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/cross": `<!doctype html><body style="margin:0">` + recordClicks + `
<button id=cbtn style="margin:4px 9px">Cross button</button>
<iframe id=nested src="/nested" style="border:3px solid;padding:2px;width:200px;height:60px"></iframe>`,
		"/nested": `<!doctype html><body style="margin:0">` + recordClicks + `<button id=nbtn style="margin:5px">Nested button</button>`,
		"/oop":    `<!doctype html><body style="margin:0">` + recordClicks + `<p>remote</p><button id=obtn style="margin-left:20px">Remote button</button><input id=oinput aria-label="Remote field">`,
	}))
	oop := strings.Replace(other, "127.0.0.1", "localhost", 1)
	return browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/": `<!doctype html><html><body style="margin:0;padding:8px;font:14px sans-serif">` + recordClicks + `
<h1 id=title>Resolver fixture</h1>
<form id=form>
  <label for=email>Email</label> <input id=email placeholder="you@example.com">
  <label>Password <input id=pw type=password></label>
  <input id=search aria-label="Search the site" type=search>
  <button id=save type=button>Save</button> <button id=savedraft type=button>Save draft</button>
  <button id=close type=button aria-label="Close dialog">×</button>
  <input id=send type=submit value="Send it" onclick="return false">
  <input id=agree type=checkbox checked aria-label="Agree to terms" onclick="return false">
</form>
<div id=dups><button class=dup>Duplicate</button><button class=dup>Duplicate</button><button class=dup id=dup3>Duplicate</button></div>
<ul id=list><li id=milk>Milk <button id=buymilk>Buy</button></li><li id=bread>Bread <button id=buybread>Buy</button></li><li id=eggs class=archived>Eggs <button id=buyeggs>Buy</button></li></ul>
<img id=cat alt="A cat" src="` + gif + `" width=20 height=20>
<span id=tip title="Helpful tip">?</span>
<div id=row data-testid="row-1">Row one</div>
<a id=home href="/home" onclick="return false">Home page</a>
<p id=para>Some   text with <b id=bold>bold   words</b> inside</p>
<p id=scripted>Glue<script>var gluex = 1;</script>d words</p>
<div style="display:none"><button id=hidden>Hidden thing</button></div>
<button id=ariahidden aria-hidden=true>Secret thing</button>
<h2 id=h2>Second level</h2><div role=heading aria-level=3 id=h3>Third level</div>
<button id=stale type=button>Stale me</button>
<div id=host></div>
<script>
const sr = document.getElementById('host').attachShadow({mode: 'open'});
sr.innerHTML = '<button id=sbtn>Shadow button</button> <span id=stext>Shadow text</span> <input id=sinput placeholder="Shadow field">';
</script>
<br>
<iframe id=same src="/same" style="border:2px solid;padding:5px;width:220px;height:50px"></iframe>
<iframe id=cross src="` + other + `/cross" style="border:4px solid;padding:3px;width:320px;height:120px"></iframe>
<iframe id=oop src="` + oop + `/oop" style="border:1px solid;padding:6px;width:320px;height:90px"></iframe>
<table id=stock><tr><th>Item</th><th>Qty</th></tr>
<tr id=ink><td><img alt=Pick src="` + gif + `" width=8 height=8> <a href="#ink" onclick="return false">edit</a></td><td>Ink</td><td>7</td></tr>
<tr id=pen><td><a href="#pen" onclick="return false">edit</a></td><td>Pen</td><td>3</td></tr></table>
</body></html>`,
		"/same": `<!doctype html><body style="margin:0">` + recordClicks + `<button id=fbtn style="margin:6px">Framed button</button>`,
		"/home": `<!doctype html><title>home</title><button id=other>Other page</button>`,
	})) + "/"
}

// tab opens the fixture in a fresh tab and waits for its frames.
func tab(t *testing.T, b *browsertest.Browser, url string) (*cdptab.Page, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	s := b.NewPage(t, url)
	p, err := cdptab.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	// Wait for the out-of-process frame and every frame's load.
	_, err = resolver.Wait(ctx, func(ctx context.Context) (bool, error) {
		r := resolver.New(p, nil)
		n, err := r.Count(ctx, "#obtn")
		if err == nil && n == 1 {
			if n, err = r.Count(ctx, "#nbtn"); err == nil && n == 1 {
				return true, nil
			}
		}
		return false, &resolver.Error{Kind: resolver.Transient, Op: "setup", Err: fmt.Errorf("frames not loaded (%v)", err)}
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, ctx
}

// idOf returns the id attribute of a resolved element.
func idOf(ctx context.Context, p *cdptab.Page, o resolver.Object) (string, error) {
	s := cdp.Session(p)
	if o.SessionID != "" {
		s = p.Child(o.SessionID)
	}
	yes := true
	res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function() { return this.id; }", ObjectID: o.ObjectID, ReturnByValue: &yes,
	})
	if err != nil {
		return "", err
	}
	var id string
	_ = jsonUnmarshal(res.Result.Value, &id)
	return id, nil
}

// clickAt clicks the top-level viewport at pt and returns the id the
// click landed on, read in the document of o ("" when it landed in no
// element of that document). The click reaches an out-of-process frame's
// renderer after Input.dispatchMouseEvent returns, so the note is waited
// for (at most 5 s).
// clickCenter clicks at r.Center(ref) and returns the point and the id of
// the element of obj's document the click landed on.
func clickCenter(t *testing.T, ctx context.Context, p *cdptab.Page, r *resolver.Resolver, ref string, obj resolver.Object) (resolver.Point, string) {
	t.Helper()
	pt, err := r.Center(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := clickAt(ctx, p, pt, obj)
	return pt, got
}

// wantConnectedClone checks that obj is connected and is the clone the
// test made (data-clone="yes").
func wantConnectedClone(t *testing.T, ctx context.Context, p *cdptab.Page, obj resolver.Object) {
	t.Helper()
	yes := true
	res, err := cdp.Call(ctx, sessionOf(p, obj), runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function() { return this.isConnected && this.dataset.clone; }", ObjectID: obj.ObjectID, ReturnByValue: &yes})
	if err != nil || string(res.Result.Value) != `"yes"` {
		t.Errorf("Object: got %s, %v; want the connected clone", res.Result.Value, err)
	}
}

func clickAt(ctx context.Context, p *cdptab.Page, pt resolver.Point, o resolver.Object) (string, error) {
	s := sessionOf(p, o)
	yes := true
	read := func(fn string) (string, error) {
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: fn, ObjectID: o.ObjectID, ReturnByValue: &yes,
		})
		if err != nil {
			return "", err
		}
		var id string
		_ = jsonUnmarshal(res.Result.Value, &id)
		return id, nil
	}
	if _, err := read("function() { this.ownerDocument.documentElement.dataset.clicked = ''; return ''; }"); err != nil {
		return "", err
	}
	// Two animation frames of the element's document first, as an
	// action's checks wait: an out-of-process frame whose content changed
	// is hit-tested by its last frame's regions until it draws again.
	if _, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function() { const w = this.ownerDocument.defaultView; return new Promise((r) => { w.requestAnimationFrame(() => w.requestAnimationFrame(r)); w.setTimeout(r, 200); }); }",
		ObjectID:            o.ObjectID, AwaitPromise: &yes,
	}); err != nil {
		return "", err
	}
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		err := p.Call(ctx, input.CommandDispatchMouseEvent, input.DispatchMouseEventParams{
			Type: typ, X: pt.X, Y: pt.Y, Button: input.MouseButtonLeft, ClickCount: 1,
		}, nil)
		if err != nil {
			return "", err
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		id, err := read("function() { return this.ownerDocument.documentElement.dataset.clicked || ''; }")
		if err != nil || id != "" || time.Now().After(deadline) {
			return id, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Every kind, in every kind of frame and in a shadow root: the locator
// resolves to the expected element (Object), and a real click at Center
// lands on it.
func TestKindsAndFramesInChromium(t *testing.T) {
	b := browsers.Launch(t)
	p, ctx := tab(t, b, fixture(t))
	r := resolver.New(p, nil)
	tests := []struct {
		target string
		id     string
	}{
		// css (bare, css=, css:), xpath (bare, xpath=).
		{"#save", "save"},
		{"css=#savedraft", "savedraft"},
		{"css:form >> #close", "close"},
		{"//button[@id='save']", "save"},
		{"xpath=//a[@href='/home']", "home"},
		// role, with Chrome's names: case-insensitive substring by default.
		{`role=button[name="save draft"]`, "savedraft"},
		{`role:button[name="Save"s]`, "save"},
		{`role=button[name="close dialog"]`, "close"},
		{`role=button[name="Send"]`, "send"},
		{`role=textbox[name="email"]`, "email"},
		{`role=textbox[name="Password"]`, "pw"},
		{`role=searchbox`, "search"},
		{`role=checkbox[checked]`, "agree"},
		{`role=checkbox[checked=false]`, ""},
		{`role=link[name="home"]`, "home"},
		{`role=img[name="cat"]`, "cat"},
		{`role=image[name="cat"]`, "cat"},
		{`role=heading[level=2]`, "h2"},
		{`role=heading[name="third"]`, "h3"},
		{`role=heading[name=/^resolver/i]`, "title"},
		{`role=button[name="Hidden"]`, ""},                       // display:none: not in the tree
		{`role=button[name="Secret"]`, ""},                       // aria-hidden
		{`role=button[name="Hidden"][include-hidden]`, "hidden"}, // asked for
		{`role=button[name="Buy"] >> nth=1`, "buybread"},         // nth over all matches
		{`role=button[name="Buy"] >> last`, "buyeggs"},           // last
		{`css=li >> has-text=bread >> role=button`, "buybread"},  // scoped
		// text: substring, case-insensitive, white space normalised; exact.
		{"text=text WITH bold", "para"},
		{`text="bold words"`, "bold"},
		{`text:exact:"Some text with bold words inside"`, "para"},
		{"text=/b.ld/", "bold"},
		{"text=glued words", "scripted"},
		{"text=Send it", "send"},
		{`"Row one"`, "row"},
		// label, placeholder, alt, title, testid.
		{"label=Email", "email"},
		{`label:"password"`, "pw"},
		{"label=Search the", "search"},
		{"placeholder=example.com", "email"},
		{"alt=a cat", "cat"},
		{"title=helpful", "tip"},
		{"testid=row-1", "row"},
		{`testid="row"i`, "row"},
		// Playwright's attribute engines, exact, through shadow roots.
		{"id=row", "row"},
		{`data-testid="row-1"`, "row"},
		{"id=sbtn", "sbtn"},
		// filters and chaining.
		{`css=li >> has-text="Eggs"i >> css=button`, "buyeggs"},
		{`css=li >> has-text="Eggs Buy" >> css=button`, "buyeggs"},
		{`css=li >> has-not-text=/milk|bread/i`, "eggs"},
		{`li:has-text("Milk")`, "milk"},
		{`css=li >> has=#buybread`, "bread"},
		{`css=li >> has-not=.nothing >> has-not-text=milk >> has-not-text=eggs`, "bread"},
		{`.dup >> nth=2`, "dup3"},
		{`css=#list >> text=Bread`, "bread"},
		{`button >> visible=false`, "hidden"},
		// open shadow roots: css and text pierce them, role sees them.
		{"#sbtn", "sbtn"},
		{"css=#host >> css=#stext", "stext"},
		{"text=Shadow text", "stext"},
		{`role=button[name="shadow"]`, "sbtn"},
		{"placeholder=Shadow field", "sinput"},
		// frames: same-origin, cross-origin in-process (and nested), out of process.
		{"#fbtn", "fbtn"},
		{"text=Framed", "fbtn"},
		{`role=button[name="framed button"]`, "fbtn"},
		{"#cbtn", "cbtn"},
		{`role=button[name="Cross"]`, "cbtn"},
		{"#nbtn", "nbtn"},
		{`role=button[name="Nested button"s]`, "nbtn"},
		{"text=Nested", "nbtn"},
		{"#obtn", "obtn"},
		{`role=button[name="remote"]`, "obtn"},
		{"label=remote field", "oinput"},
		{"//button[@id='obtn']", "obtn"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			obj, err := r.Object(ctx, tt.target)
			if tt.id == "" {
				if !errors.Is(err, resolver.ErrNotFound) || !resolver.IsTransient(err) {
					id, _ := idOf(ctx, p, obj)
					t.Fatalf("Object: got #%s, %v; want a transient ErrNotFound", id, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Object: %v", err)
			}
			id, err := idOf(ctx, p, obj)
			if err != nil || id != tt.id {
				t.Fatalf("Object: got element #%s (%v), want #%s", id, err, tt.id)
			}
			if tt.id == "hidden" {
				return // no box
			}
			if _, err := cdp.Call(ctx, sessionOf(p, obj), runtime.CallFunctionOn, runtime.CallFunctionOnParams{
				FunctionDeclaration: "function() { this.scrollIntoView({block: 'center', inline: 'center'}); }", ObjectID: obj.ObjectID,
			}); err != nil {
				t.Fatal(err)
			}
			pt, err := r.Center(ctx, tt.target)
			if err != nil {
				t.Fatalf("Center: %v", err)
			}
			if pt.SessionID != obj.SessionID {
				t.Errorf("Center: session %q, Object: %q", pt.SessionID, obj.SessionID)
			}
			got, err := clickAt(ctx, p, pt, obj)
			if err != nil || got != tt.id {
				t.Errorf("a click at Center (%.1f, %.1f) landed on #%s (%v), want #%s", pt.X, pt.Y, got, err, tt.id)
			}
		})
	}
}

func sessionOf(p *cdptab.Page, o resolver.Object) cdp.Session {
	if o.SessionID == "" {
		return p
	}
	return p.Child(o.SessionID)
}

// Center is the centre of DOM.getBoxModel's border quad, in top-level
// coordinates, measured in the page (a locator) or with CDP (a ref).
func TestCenterIsTheBorderQuadCentre(t *testing.T) {
	b := browsers.Launch(t)
	url := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<!doctype html><body style="margin:0">
<button id=a style="padding:3px 20px 9px 1px;border-width:1px 7px 2px 4px">asymmetric</button>
<a id=b href="#" style="padding:6px 2px 0 12px;border-left:5px solid">inline link</a>
<div id=c style="width:100px;height:40px;padding:10px 30px 0 0;border:3px solid;transform:scale(1.5);transform-origin:0 0;margin:20px">scaled</div>
<span id=d style="display:inline-block;padding:4px 9px;border:2px solid">inline-block</span>
<div style="height:2000px"></div><button id=far>far below</button>`})) + "/"
	p, ctx := tab0(t, b, url)
	st := snapshot.NewTab(p)
	snap, err := st.Snapshot(ctx, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := resolver.New(p, st)
	refs := map[string]string{"a": "asymmetric", "b": "inline link"} // the names of the elements with refs
	for _, id := range []string{"a", "b", "c", "d", "far"} {
		targets := []string{"#" + id}
		for _, e := range snap.Entries {
			if e.Name == refs[id] {
				targets = append(targets, "@"+e.Ref)
			}
		}
		obj, err := r.Object(ctx, "#"+id)
		if err != nil {
			t.Fatal(err)
		}
		bm, err := cdp.Call(ctx, p, dom.GetBoxModel, dom.GetBoxModelParams{ObjectID: obj.ObjectID})
		if err != nil {
			t.Fatal(err)
		}
		q := bm.Model.Border
		wx, wy := (q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4
		for _, target := range targets {
			pt, err := r.Center(ctx, target)
			if err != nil {
				t.Fatalf("%s: %v", target, err)
			}
			if math.Abs(pt.X-wx) > 0.5 || math.Abs(pt.Y-wy) > 0.5 {
				t.Errorf("#%s as %s: Center (%.2f, %.2f), border quad centre (%.2f, %.2f)", id, target, pt.X, pt.Y, wx, wy)
			}
		}
	}
}

// PageObject hands out the element in its frame's page world, where the
// page's own globals are (egohost's world has none of them); Object's is
// egohost's world.
func TestPageObjectIsInThePageWorld(t *testing.T) {
	b := browsers.Launch(t)
	url := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<!doctype html><script>window.mark = "page"</script>
<button id=top>top</button><iframe srcdoc="<script>window.mark = 'frame'</script><button id=inner>in the frame</button>"></iframe>`})) + "/"
	p, ctx := tab0(t, b, url)
	r := resolver.New(p, nil)
	if _, err := resolver.Wait(ctx, func(ctx context.Context) (bool, error) {
		if n, err := r.Count(ctx, "#inner"); err != nil || n != 1 {
			return false, &resolver.Error{Kind: resolver.Transient, Op: "setup", Err: fmt.Errorf("frame not loaded (%v)", err)}
		}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	yes := true
	seen := func(o resolver.Object) string {
		t.Helper()
		res, err := cdp.Call(ctx, p, runtime.CallFunctionOn, runtime.CallFunctionOnParams{ObjectID: o.ObjectID, FunctionDeclaration: "function() { return String(window.mark) + ' ' + this.id }", ReturnByValue: &yes})
		if err != nil {
			t.Fatal(err)
		}
		var v string
		json.Unmarshal(res.Result.Value, &v)
		return v
	}
	for _, tt := range []struct{ target, want string }{{"#top", "page top"}, {"text=in the frame", "frame inner"}} {
		o, err := r.PageObject(ctx, tt.target)
		if err != nil {
			t.Fatalf("%s: %v", tt.target, err)
		}
		if got := seen(o); got != tt.want {
			t.Errorf("PageObject(%s) sees %q, want %q (the page's world)", tt.target, got, tt.want)
		}
	}
	o, err := r.Object(ctx, "#top")
	if err != nil {
		t.Fatal(err)
	}
	if got := seen(o); got != "undefined top" {
		t.Errorf("Object(#top) sees %q, want egohost's world (no page globals)", got)
	}
}

// tab0 opens url in a fresh tab (no frames to wait for).
func tab0(t *testing.T, b *browsertest.Browser, url string) (*cdptab.Page, context.Context) {
	t.Helper()
	return b.OpenTab(t, url)
}

func TestStrictnessAndErrorsInChromium(t *testing.T) {
	b := browsers.Launch(t)
	p, ctx := tab(t, b, fixture(t))
	r := resolver.New(p, nil)
	tests := []struct {
		target string
		kind   resolver.Kind
		cause  error
		msg    string
		count  int
	}{
		{".dup", resolver.Permanent, resolver.ErrAmbiguous, `strict mode: css=.dup matched 3 elements: button "Duplicate", button "Duplicate", button "Duplicate"; add nth=… or make it more specific`, 3},
		{`role=button[name="Buy"]`, resolver.Permanent, resolver.ErrAmbiguous, `strict mode: role=button[name="Buy"i] matched 3 elements`, 3},
		{"text=Duplicate", resolver.Permanent, resolver.ErrAmbiguous, "matched 3 elements", 3},
		{"button", resolver.Permanent, resolver.ErrAmbiguous, "matched", 0}, // across all frames
		{"#nope", resolver.Transient, resolver.ErrNotFound, "css=#nope matched 0 elements", 0},
		{".dup >> nth=3", resolver.Transient, resolver.ErrNotFound, "nth=3 is out of range", 3},
		{"#hidden", resolver.Transient, resolver.ErrNoBox, "has no box", 1},
		{"css=a[", resolver.Permanent, nil, "not a valid selector", 0},
		{"xpath=//a[", resolver.Permanent, nil, "not a valid XPath expression", 0},
		{"text=/a(/", resolver.Permanent, nil, "Invalid regular expression", 0},
		{`role=button[name="x"`, resolver.Permanent, nil, "unclosed [ at offset 11", 0},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			_, err := r.Center(ctx, tt.target)
			var e *resolver.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a *resolver.Error", err)
			}
			if e.Kind != tt.kind || (tt.cause != nil && !errors.Is(err, tt.cause)) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %s %v, want %s %v containing %q", e.Kind, err, tt.kind, tt.cause, tt.msg)
			}
			if tt.count != 0 && e.Count != tt.count {
				t.Errorf("count: got %d, want %d", e.Count, tt.count)
			}
			var se *locator.SyntaxError
			if tt.cause == nil && !errors.As(err, &se) {
				t.Errorf("got %v, want a *locator.SyntaxError inside", err)
			}
		})
	}
	// Count and All are not strict.
	if n, err := r.Count(ctx, "role=button[name=buy]"); err != nil || n != 3 {
		t.Errorf("Count: got %d, %v; want 3", n, err)
	}
	all, err := r.All(ctx, "role=button[name=buy]")
	if err != nil || len(all) != 3 {
		t.Fatalf("All: got %v, %v", all, err)
	}
	for _, m := range all {
		if m.Role != "button" || m.Name != "Buy" || m.Box == nil || m.BackendNodeID == 0 {
			t.Errorf("All: got %+v", m)
		}
	}
	ms, err := r.All(ctx, "#obtn")
	if err != nil || len(ms) != 1 || ms[0].SessionID == "" || ms[0].FrameID == "" || ms[0].Name != "Remote button" {
		t.Errorf("All in an out-of-process frame: got %+v, %v", ms, err)
	}
}

// An element that appears later: Wait retries until it is there; a locator
// that matches two stops at once.
func TestWaitInChromium(t *testing.T) {
	b := browsers.Launch(t)
	p, ctx := tab0(t, b, browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<!doctype html><div id=box></div><button class=two>a</button><button class=two>b</button>
<script>setTimeout(() => { document.getElementById('box').innerHTML = '<button id=late>Late</button>'; }, 300);</script>`}))+"/")
	r := resolver.New(p, nil)
	pt, err := resolver.Wait(ctx, func(ctx context.Context) (resolver.Point, error) { return r.Center(ctx, "role=button[name=late]") })
	if err != nil || pt.X == 0 {
		t.Fatalf("Wait for a late button: %+v, %v", pt, err)
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = resolver.Wait(short, func(ctx context.Context) (resolver.Point, error) { return r.Center(ctx, ".two") })
	if !errors.Is(err, resolver.ErrAmbiguous) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait on an ambiguous locator: got %v, want ErrAmbiguous at once", err)
	}
	short2, cancel2 := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel2()
	_, err = resolver.Wait(short2, func(ctx context.Context) (resolver.Point, error) { return r.Center(ctx, "#never") })
	if !errors.Is(err, resolver.ErrNotFound) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait for a missing element: got %v, want ErrNotFound and DeadlineExceeded", err)
	}
}

// refFor takes a snapshot and returns the ref of the element with role and
// name.
func refFor(t *testing.T, ctx context.Context, st *snapshot.Tab, role, name string) string {
	t.Helper()
	snap, err := st.Snapshot(ctx, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range snap.Entries {
		if e.Role == role && e.Name == name {
			return "@" + e.Ref
		}
	}
	t.Fatalf("no ref for %s %q in\n%s", role, name, snap.Text)
	return ""
}

func TestRefsInChromium(t *testing.T) {
	b := browsers.Launch(t)
	url := fixture(t)
	// refTo opens the fixture and returns a resolver and the ref of the
	// button named name.
	refTo := func(t *testing.T, name string) (*cdptab.Page, context.Context, *resolver.Resolver, string) {
		p, ctx := tab(t, b, url)
		st := snapshot.NewTab(p)
		return p, ctx, resolver.New(p, st), refFor(t, ctx, st, "button", name)
	}
	run := func(t *testing.T, js string) (*cdptab.Page, context.Context, *resolver.Resolver, string) {
		p, ctx, r, ref := refTo(t, "Stale me")
		if js != "" {
			yes := true
			if _, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: js, ReturnByValue: &yes}); err != nil {
				t.Fatal(err)
			}
		}
		return p, ctx, r, ref
	}
	t.Run("fresh", func(t *testing.T) {
		p, ctx, r, ref := run(t, "")
		obj, err := r.Object(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if id, _ := idOf(ctx, p, obj); id != "stale" {
			t.Errorf("Object: got #%s, want #stale", id)
		}
		if _, got := clickCenter(t, ctx, p, r, ref, obj); got != "stale" {
			t.Errorf("click at Center landed on #%s, want #stale", got)
		}
		ms, err := r.All(ctx, ref)
		if err != nil || len(ms) != 1 || ms[0].Name != "Stale me" || ms[0].Role != "button" {
			t.Errorf("All: got %+v, %v", ms, err)
		}
	})
	t.Run("in an out-of-process frame", func(t *testing.T) {
		p, ctx, r, ref := refTo(t, "Remote button")
		obj, err := r.Object(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if pt, got := clickCenter(t, ctx, p, r, ref, obj); got != "obtn" {
			t.Errorf("click at Center (%+v) landed on #%s, want #obtn", pt, got)
		}
	})
	t.Run("in an out-of-process frame, rendered again", func(t *testing.T) {
		p, ctx, r, ref := refTo(t, "Remote button")
		before, err := r.Object(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		yes := true
		if _, err := cdp.Call(ctx, sessionOf(p, before), runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: "function() { const c = this.cloneNode(true); c.dataset.clone = 'yes'; this.replaceWith(c); }", ObjectID: before.ObjectID, ReturnByValue: &yes,
		}); err != nil {
			t.Fatal(err)
		}
		obj, err := r.Object(ctx, ref)
		if err != nil {
			t.Fatalf("Object after the element was rendered again: %v", err)
		}
		wantConnectedClone(t, ctx, p, obj)
		if pt, got := clickCenter(t, ctx, p, r, ref, obj); got != "obtn" {
			t.Errorf("click at Center (%+v) landed on #%s, want the clone of #obtn", pt, got)
		}
	})
	t.Run("replaced by an identical clone", func(t *testing.T) {
		p, ctx, r, ref := run(t, `const b = document.getElementById('stale'); const c = b.cloneNode(true); c.dataset.clone = 'yes'; b.replaceWith(c); true`)
		obj, err := r.Object(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		wantConnectedClone(t, ctx, p, obj)
		if _, got := clickCenter(t, ctx, p, r, ref, obj); got != "stale" {
			t.Errorf("click at Center landed on #%s, want the clone", got)
		}
	})
	t.Run("replaced by two clones", func(t *testing.T) {
		_, ctx, r, ref := run(t, `const b = document.getElementById('stale'); b.replaceWith(b.cloneNode(true), b.cloneNode(true)); true`)
		_, err := r.Center(ctx, ref)
		if !errors.Is(err, resolver.ErrStaleRef) || resolver.IsTransient(err) || !strings.Contains(err.Error(), "not guessing") {
			t.Errorf("Center: got %v, want a permanent ErrStaleRef", err)
		}
		_, err = r.Object(ctx, ref)
		if !errors.Is(err, resolver.ErrStaleRef) {
			t.Errorf("Object: got %v, want ErrStaleRef", err)
		}
	})
	t.Run("removed", func(t *testing.T) {
		_, ctx, r, ref := run(t, `document.getElementById('stale').remove(); true`)
		_, err := r.Center(ctx, ref)
		if !errors.Is(err, resolver.ErrNotFound) || !resolver.IsTransient(err) {
			t.Errorf("Center: got %v, want a transient ErrNotFound", err)
		}
	})
	t.Run("hidden but there: no fallback", func(t *testing.T) {
		_, ctx, r, ref := run(t, `const b = document.getElementById('stale'); b.style.display = 'none'; document.body.insertAdjacentHTML('beforeend', '<button>Stale me</button>'); true`)
		_, err := r.Center(ctx, ref)
		if !errors.Is(err, resolver.ErrNoBox) || !resolver.IsTransient(err) {
			t.Errorf("Center: got %v, want a transient ErrNoBox (never the look-alike)", err)
		}
	})
	t.Run("navigated: fail closed", func(t *testing.T) {
		p, ctx, r, ref := run(t, "")
		if err := p.Call(ctx, page.CommandNavigate, page.NavigateParams{URL: strings.TrimSuffix(url, "/") + "/home"}, nil); err != nil {
			t.Fatal(err)
		}
		if err := browsertest.WaitLoaded(ctx, p); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		_, err := r.Center(ctx, ref)
		if !errors.Is(err, resolver.ErrStaleRef) || !errors.Is(err, snapshot.ErrStaleRef) || resolver.IsTransient(err) {
			t.Errorf("Center after navigation: got %v, want a permanent ErrStaleRef", err)
		}
	})
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// After a navigation the resolver makes a new world and loads its script
// there again.
func TestNavigationInChromium(t *testing.T) {
	b := browsers.Launch(t)
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/one": `<!doctype html><button id=x style="margin-left:10px">One</button>`,
		"/two": `<!doctype html><button id=x style="margin-left:200px">Two</button>`,
	}))
	p, ctx := tab0(t, b, base+"/one")
	r := resolver.New(p, nil)
	one, err := r.Center(ctx, "#x")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Call(ctx, page.CommandNavigate, page.NavigateParams{URL: base + "/two"}, nil); err != nil {
		t.Fatal(err)
	}
	two, err := resolver.Wait(ctx, func(ctx context.Context) (resolver.Point, error) {
		pt, err := r.Center(ctx, "role=button[name=Two]")
		return pt, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if two.X-one.X < 150 {
		t.Errorf("after navigating: got %+v, before %+v; want the second page's button", two, one)
	}
}

// A ref from a fresh snapshot after a navigation resolves to its own node,
// never through the role+name fallback (the remembered world of the old
// document made Chrome answer "does not belong to the document"); and after
// a cross-site navigation a remembered context ID that now names another
// context is not used.
func TestRefsAfterNavigationInChromium(t *testing.T) {
	b := browsers.Launch(t)
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/one":   `<!doctype html><button id=x>One</button>`,
		"/two":   `<!doctype html><button id=a>Buy</button><button id=b>Buy</button>`,
		"/inner": `<!doctype html><button id=inner>Inner</button>`,
	}))
	other := strings.Replace(base, "127.0.0.1", "localhost", 1)
	p, ctx := tab0(t, b, base+"/one")
	st := snapshot.NewTab(p)
	r := resolver.New(p, st)
	if _, err := r.Center(ctx, "#x"); err != nil { // remember a world in /one
		t.Fatal(err)
	}
	if err := p.Call(ctx, page.CommandNavigate, page.NavigateParams{URL: base + "/two"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.WaitLoaded(ctx, p); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Snapshot(ctx, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Entries) != 2 {
		t.Fatalf("got %d refs, want the two buttons:\n%s", len(snap.Entries), snap.Text)
	}
	for i, e := range snap.Entries {
		o, err := r.Object(ctx, "@"+e.Ref)
		if err != nil {
			t.Fatalf("Object(@%s) after a navigation: %v", e.Ref, err)
		}
		id, err := idOf(ctx, p, o)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"a", "b"}[i]; id != want {
			t.Errorf("@%s: got #%s, want #%s", e.Ref, id, want)
		}
	}

	// Cross-site: a new renderer process hands out context IDs again.
	if err := p.Call(ctx, page.CommandNavigate, page.NavigateParams{URL: other + "/two"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.WaitLoaded(ctx, p); err != nil {
		t.Fatal(err)
	}
	_, err = r.Object(ctx, "css=button")
	if !errors.Is(err, resolver.ErrAmbiguous) {
		t.Errorf("css=button on a page with two buttons after a cross-site navigation: got %v, want ErrAmbiguous", err)
	}
	if n, err := r.Count(ctx, "#a"); err != nil || n != 1 {
		t.Errorf("Count(#a) after a cross-site navigation: got %d, %v; want 1", n, err)
	}
}

// An ambiguous locator's error names its first matches by role and name,
// as Playwright's strict-mode error lists them, so the one meant can be
// named at once (WordPress's login: label=Password finds the field and
// its "Show password" button).
func TestAmbiguousNamesItsMatchesInChromium(t *testing.T) {
	b := browsers.Launch(t)
	p, ctx := tab0(t, b, browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<!doctype html><title>ambiguous</title>
<label>Password <input type=password id=pw></label><button aria-label="Show password">👁</button>
<button>Save</button><button>Save draft</button>
<a href="#">Edit</a><a href="#">Edit</a><a href="#">Edit all</a>
<ul><li>a</li><li>b</li><li>c</li><li>d</li><li>e</li></ul>
<label>To <input></label><div style="display:none"><label>Reply-To <input></label><label>Followup-To <input></label></div>` + strings.Repeat("<span>x</span>", 120)}))+"/")
	r := resolver.New(p, nil)
	for target, want := range map[string]string{
		"label=Password":         `matched 2 elements: textbox "Password", button "Show password"; add nth=`,
		"role=button[name=Save]": `matched 2 elements: button "Save", button "Save draft"; add nth=… or make it more specific (role=button[name="Save"s] takes the one named exactly so)`,
		// Two named exactly so: no exact locator takes one.
		"role=link[name=Edit]": `matched 3 elements: link "Edit", link "Edit", link "Edit all"; add nth=… or make it more specific`,
		"css=li":               `matched 5 elements: listitem, listitem, listitem, 2 more; add nth=`,
		// Roundcube's To, and its hidden Reply-To and Followup-To: said
		// to be hidden, not two more an agent looks for in vain.
		"label=To": `matched 3 elements: textbox "To", 2 hidden; add nth=`,
		"css=span": `matched 120 elements; add nth=`, // three among many would tell nothing
	} {
		_, err := r.Center(ctx, target)
		if !errors.Is(err, resolver.ErrAmbiguous) || !strings.Contains(err.Error(), want) || target == "role=link[name=Edit]" && strings.Contains(err.Error(), "exactly") {
			t.Errorf("%s: got %v, want ambiguous, %q", target, err, want)
		}
	}
	// After a snapshot, each match is named with its ref too: two alike
	// ("link "Edit", link "Edit"") are told apart, and either can be used.
	st := snapshot.NewTab(p)
	snap, err := st.Snapshot(ctx, snapshot.Options{Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	r = resolver.New(p, st)
	for target, want := range map[string]string{
		"role=link[name=Edit]":   `matched 3 elements: link "Edit" @5, link "Edit" @6, link "Edit all" @7; use one of their refs, add nth=`,
		"label=Password":         `matched 2 elements: textbox "Password" @1, button "Show password" @2; use one of their refs, add nth=`,
		"role=button[name=Save]": `button "Save" @3, button "Save draft" @4; use one of their refs, add nth=`,
	} {
		_, err := r.Center(ctx, target)
		if !errors.Is(err, resolver.ErrAmbiguous) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want ambiguous, %q; the snapshot:\n%s", target, err, want, snap.Text)
		}
	}
}
