package resolver_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/refmap"
	"github.com/egohost/egohost/resolver"
)

// An invalid selector is the same permanent syntax error in every mode:
// the centre, the object, the count and the list of matches, for a plain
// and a role locator (whose candidates come from the list mode), and a
// Wait on it ends at once.
func TestSyntaxErrorInEveryModeInChromium(t *testing.T) {
	b := browsers.Launch(t)
	p, ctx := tab(t, b, fixture(t))
	r := resolver.New(p, nil)
	modes := []struct {
		name string
		run  func(ctx context.Context, target string) error
	}{
		{"Center", func(ctx context.Context, target string) error { _, err := r.Center(ctx, target); return err }},
		{"Object", func(ctx context.Context, target string) error { _, err := r.Object(ctx, target); return err }},
		{"Count", func(ctx context.Context, target string) error { _, err := r.Count(ctx, target); return err }},
		{"All", func(ctx context.Context, target string) error { _, err := r.All(ctx, target); return err }},
	}
	for _, target := range []string{"div[", "css=a[", "xpath=//a[", "text=/a(/", "css=div[ >> role=button", "role=button >> css=div["} {
		for _, m := range modes {
			t.Run(m.name+" "+target, func(t *testing.T) {
				err := m.run(ctx, target)
				var se *locator.SyntaxError
				if !errors.As(err, &se) || resolver.IsTransient(err) {
					t.Errorf("got %v, want a permanent *locator.SyntaxError", err)
				}
				// Waiting on it gives up at once, with the same error: a
				// Wait that kept trying would end with the deadline.
				wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				_, err = resolver.Wait(wctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, m.run(ctx, target) })
				if !errors.As(err, &se) || errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Wait: got %v, want the syntax error at once", err)
				}
			})
		}
	}
}

// pageRect is an element's first box with an area (getClientRects: the
// border box, one per line for an inline element), in the top-level
// viewport of a page without frames.
func pageRect(t *testing.T, ctx context.Context, p *cdptab.Page, id string) (x, y, w, h float64) {
	t.Helper()
	yes := true
	res, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{ReturnByValue: &yes, Expression: fmt.Sprintf(
		`(() => { const r = [...document.getElementById(%q).getClientRects()].find((r) => r.width > 0 && r.height > 0); return r ? [r.x, r.y, r.width, r.height] : null; })()`, id)})
	if err != nil {
		t.Fatal(err)
	}
	var v []float64
	if err := jsonUnmarshal(res.Result.Value, &v); err != nil || len(v) != 4 {
		t.Fatalf("no box for #%s: %s", id, res.Result.Value)
	}
	return v[0], v[1], v[2], v[3]
}

// The centre is the centre of the border box (of its first line for an
// inline element that wraps) for a ref and a locator alike, in every mode:
// a button whose padding is all of it has a centre, and a click there lands
// on it.
func TestBorderBoxCentreInChromium(t *testing.T) {
	b := browsers.Launch(t)
	url := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<!doctype html><body style="margin:0;font:16px sans-serif">` + recordClicks + `
<div style="padding:10px"><button id=pad aria-label="Pad" style="box-sizing:border-box;width:34px;height:34px;padding:17px;border:2px solid">
</button></div>
<div style="width:130px;margin:10px"><a id=wrap href="#" onclick="return false" style="padding:3px 9px;border-left:20px solid">Open the long wrapped link here</a></div>
<button id=thick style="border-style:solid;border-width:2px 40px 2px 2px;padding:0 0 0 30px">Thick</button>
</body>`})) + "/"
	p, ctx := tab0(t, b, url)
	if err := browsertest.WaitLoaded(ctx, p); err != nil {
		t.Fatal(err)
	}
	st := snapshot.NewTab(p)
	r := resolver.New(p, st)
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.51 }
	for _, el := range []struct{ id, role, name string }{
		{"pad", "button", "Pad"},
		{"wrap", "link", "Open the long wrapped link here"},
		{"thick", "button", "Thick"},
	} {
		t.Run(el.id, func(t *testing.T) {
			x, y, w, h := pageRect(t, ctx, p, el.id)
			if el.id == "pad" && (w != 38 || h != 38) {
				t.Fatalf("#pad is %v×%v on screen, want 38×38", w, h)
			}
			wantX, wantY := x+w/2, y+h/2
			at := func(px, py float64) bool { return near(px, wantX) && near(py, wantY) }
			if el.id == "wrap" {
				// Chrome's quads of an inline box leave out its own
				// horizontal padding and border: a point on the middle
				// line of its first line box.
				at = func(px, py float64) bool { return px > x && px < x+w && near(py, wantY) }
			}
			ref := refFor(t, ctx, st, el.role, el.name)
			for _, target := range []string{ref, "#" + el.id, fmt.Sprintf("role=%s[name=%q]", el.role, el.name)} {
				pt, err := r.Center(ctx, target)
				if err != nil {
					t.Errorf("Center(%s): %v", target, err)
					continue
				}
				if !at(pt.X, pt.Y) {
					t.Errorf("Center(%s): got (%.2f, %.2f), want the border box centre (%.2f, %.2f)", target, pt.X, pt.Y, wantX, wantY)
				}
				ms, err := r.All(ctx, target)
				if err != nil || len(ms) != 1 || ms[0].Box == nil {
					t.Errorf("All(%s): got %+v, %v; want one match with a box", target, ms, err)
					continue
				}
				if got := ms[0].Box; !at(got.X, got.Y) {
					t.Errorf("All(%s): box centre (%.2f, %.2f), want (%.2f, %.2f)", target, got.X, got.Y, wantX, wantY)
				}
				obj, err := r.Object(ctx, target)
				if err != nil {
					t.Fatalf("Object(%s): %v", target, err)
				}
				if got, err := clickAt(ctx, p, pt, obj); err != nil || got != el.id {
					t.Errorf("a click at Center(%s) landed on #%s (%v), want #%s", target, got, err, el.id)
				}
			}
		})
	}
}

// A ref whose element was removed never lands on another element: not on
// one that has a ref of its own, not on a look-alike that took another's
// place. The role+name fallback picks the element in the ref's place among
// its look-alikes only when every other look-alike is still where the
// snapshot saw it; otherwise the ref is stale.
func TestRefFallbackNeverClicksTheWrongThingInChromium(t *testing.T) {
	b := browsers.Launch(t)
	url := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/twins": `<!doctype html><body>` + recordClicks + `<button id=del1>Delete</button> <button id=del2>Delete</button>`,
		"/rows": `<!doctype html><body>` + recordClicks + `<table><tbody id=rows>
<tr><td>Alice</td><td><button id=alice>Delete</button></td></tr>
<tr><td>Bob</td><td><button id=bob>Delete</button></td></tr></tbody></table>`,
		"/list": `<!doctype html><body>` + recordClicks + `<ul id=list>
<li id=apples>Apples <button id=openapples>Open</button></li>
<li id=pears>Pears <button id=openpears>Open</button></li></ul>`,
		"/renamed": `<!doctype html><body>` + recordClicks + `<button id=save>Save</button> <button id=del>Delete</button>`,
		"/terms":   `<!doctype html><body>` + recordClicks + `<dl id=hosts><dt id=host onclick="">localclient@127.0.0.1:58846</dt><dd>Online</dd></dl>`,
		"/pseudo":  `<!doctype html><body>` + recordClicks + `<style>.h::before { content: "\2022  " }</style><dl id=hosts><dt class=h id=gamma onclick="">gamma:58846</dt></dl>`,
		"/glyph":   `<!doctype html><body>` + recordClicks + `<dl id=hosts><dt id=delta onclick="">&#xf0c7; delta:58846</dt></dl>`,
		"/hostlist": `<!doctype html><body>` + recordClicks + `<dl><dt>Downloaded:</dt><dd>1 MB</dd><dt>Uploaded:</dt><dd>2 MB</dd></dl>
<dl id=hosts><dt id=alpha onclick="">alpha:58846</dt><dt id=beta onclick="">beta:58846</dt><dt id=beta2 onclick="">beta:58846</dt></dl>`,
	})) + "/"
	type tc struct {
		name   string
		path   string
		ref    [2]string // role and name of the ref to use
		refID  string    // the ref's element (the snapshot must give it the ref)
		change string    // script run after the snapshot
		want   string    // the element the ref may land on; "" for a stale ref
	}
	tests := []tc{
		{name: "removed twin", path: "twins", ref: [2]string{"button", "Delete"}, refID: "del2",
			change: `document.getElementById('del2').remove()`},
		{name: "replaced row, the other row rendered again", path: "rows", ref: [2]string{"button", "Delete"}, refID: "alice",
			change: `document.getElementById('rows').innerHTML = '<tr><td>Alice (deleted)</td><td><button id=undo>Undo</button></td></tr><tr><td>Bob</td><td><button id=bob2>Delete</button></td></tr>'`},
		{name: "replaced row, the other row still there", path: "rows", ref: [2]string{"button", "Delete"}, refID: "alice",
			change: `document.getElementById('alice').closest('tr').outerHTML = '<tr><td>Alice (deleted)</td><td><button id=undo>Undo</button></td></tr>'`},
		{name: "reordered list rendered again", path: "list", ref: [2]string{"button", "Open"}, refID: "openapples",
			change: `document.getElementById('list').innerHTML = '<li>Pears <button id=newpears>Open</button></li><li>Apples <button id=newapples>Open</button></li>'`},
		{name: "reordered list, one item moved and one rendered again", path: "list", ref: [2]string{"button", "Open"}, refID: "openapples",
			change: `const l = document.getElementById('list'); l.prepend(document.getElementById('pears')); document.getElementById('apples').outerHTML = '<li>Apples <button id=newapples>Open</button></li>'`},
		{name: "reordered and filtered list", path: "list", ref: [2]string{"button", "Open"}, refID: "openapples",
			change: `const l = document.getElementById('list'); l.prepend(document.getElementById('pears')); document.getElementById('apples').remove()`},
		{name: "another ref's element renamed to the ref's name", path: "renamed", ref: [2]string{"button", "Delete"}, refID: "del",
			change: `document.getElementById('del').remove(); document.getElementById('save').textContent = 'Delete'`},
		{name: "rendered again in its place among twins", path: "list", ref: [2]string{"button", "Open"}, refID: "openapples",
			change: `document.getElementById('apples').outerHTML = '<li id=apples2>Apples <button id=newapples>Open</button></li>'`,
			want:   "newapples"},
		{name: "the second twin rendered again in its place", path: "twins", ref: [2]string{"button", "Delete"}, refID: "del2",
			change: `document.getElementById('del2').outerHTML = '<button id=del2b>Delete</button>'`,
			want:   "del2b"},
		// Chrome names a term from its content; role locators, as
		// Playwright's, do not (the snapshot's term has no name): Deluge's
		// host list renders its rows again every few seconds.
		{name: "a term rendered again in its place", path: "terms", ref: [2]string{"term", ""}, refID: "host",
			change: `document.getElementById('host').outerHTML = '<dt id=host2 onclick="">localclient@127.0.0.1:58846</dt>'`,
			want:   "host2"},
		// An unnamed element is known by its text: the host list rendered
		// again (and the other terms of the page still there) takes the
		// one with the ref's text, among those with it.
		{name: "an unnamed term found by its text among others", path: "hostlist", ref: [2]string{"term", ""}, refID: "alpha",
			change: `hosts.innerHTML = '<dt id=alpha2 onclick="">alpha:58846</dt><dt id=beta3 onclick="">beta:58846</dt><dt id=beta4 onclick="">beta:58846</dt>'`,
			want:   "alpha2"},
		// Its text in the page is not the snapshot's: generated content
		// (the snapshot shows it), an icon font's glyph (the snapshot
		// leaves it out). By role and name then, as any unnamed element.
		{name: "an unnamed term with generated content rendered again", path: "pseudo", ref: [2]string{"term", ""}, refID: "gamma",
			change: `hosts.innerHTML = '<dt class=h id=gamma2 onclick="">gamma:58846</dt>'`,
			want:   "gamma2"},
		{name: "an unnamed term with a glyph rendered again", path: "glyph", ref: [2]string{"term", ""}, refID: "delta",
			change: `hosts.innerHTML = '<dt id=delta2 onclick="">\uf0c7 delta:58846</dt>'`,
			want:   "delta2"},
		{name: "an unnamed term whose text twin was rendered again too", path: "hostlist", ref: [2]string{"term", ""}, refID: "beta2",
			change: `hosts.innerHTML = '<dt id=alpha2 onclick="">alpha:58846</dt><dt id=beta3 onclick="">beta:58846</dt><dt id=beta4 onclick="">beta:58846</dt>'`},
	}
	tab := b.Tab(t) // one tab, each page loaded in it afresh
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ctx := tab.Load(t, url+tt.path)
			if err := browsertest.WaitLoaded(ctx, p); err != nil {
				t.Fatal(err)
			}
			st := snapshot.NewTab(p)
			snap, err := st.Snapshot(ctx, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := resolver.New(p, st)
			ref := ""
			for _, e := range snap.Entries {
				if e.Role != tt.ref[0] || e.Name != tt.ref[1] {
					continue
				}
				o, err := r.Object(ctx, "@"+e.Ref)
				if err != nil {
					t.Fatal(err)
				}
				if id, _ := idOf(ctx, p, o); id == tt.refID {
					ref = "@" + e.Ref
				}
			}
			if ref == "" {
				t.Fatalf("no ref for #%s in\n%s", tt.refID, snap.Text)
			}
			yes := true
			if _, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: tt.change + "; true", ReturnByValue: &yes}); err != nil {
				t.Fatal(err)
			}
			check := func(what string, err error, landed string) {
				t.Helper()
				if tt.want != "" {
					if err != nil || landed != tt.want {
						t.Errorf("%s(%s): landed on #%s (%v), want #%s", what, ref, landed, err, tt.want)
					}
					return
				}
				if !errors.Is(err, resolver.ErrStaleRef) || resolver.IsTransient(err) || !strings.Contains(err.Error(), ref) {
					t.Errorf("%s(%s): landed on #%s (%v), want a permanent stale ref naming %s", what, ref, landed, err, ref)
				}
			}
			obj, err := r.Object(ctx, ref)
			landed := ""
			if err == nil {
				landed, _ = idOf(ctx, p, obj)
			}
			check("Object", err, landed)
			pt, err := r.Center(ctx, ref)
			landed = ""
			if err == nil {
				landed, _ = clickAt(ctx, p, pt, resolver.Object{ObjectID: pageObject(t, ctx, p)})
			}
			check("Center", err, landed)
			ms, err := r.All(ctx, ref)
			landed = ""
			if err == nil && len(ms) == 1 {
				landed = nodeID(t, ctx, p, ms[0].BackendNodeID)
			}
			check("All", err, landed)
		})
	}
}

// pageObject is the page's document element, to read what a click hit.
func pageObject(t *testing.T, ctx context.Context, p *cdptab.Page) runtime.RemoteObjectID {
	t.Helper()
	res, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.body"})
	if err != nil || res.Result == nil || res.Result.ObjectID == "" {
		t.Fatalf("document.body: %v", err)
	}
	return res.Result.ObjectID
}

// nodeID is the id attribute of a node.
func nodeID(t *testing.T, ctx context.Context, p *cdptab.Page, id cdp.BackendNodeID) string {
	t.Helper()
	res, err := cdp.Call(ctx, p, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id})
	if err != nil || res.Object == nil {
		t.Fatalf("resolve node %d: %v", id, err)
	}
	got, err := idOf(ctx, p, resolver.Object{ObjectID: res.Object.ObjectID})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A ref's match has the name role locators read and the snapshot shows,
// not Chrome's where Chrome's own rule differs: a term has none.
func TestARefsMatchHasTheLocatorsName(t *testing.T) {
	ctx, r, snap := interactiveOf(t, `<!doctype html><body><dl><dt id=host onclick="">localclient:58846</dt><dd>Online</dd></dl>`)
	if len(snap.Entries) != 1 {
		t.Fatalf("got entries %+v, want the term's\n%s", snap.Entries, snap.Text)
	}
	ms, err := r.All(ctx, "@"+snap.Entries[0].Ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Role != "term" || ms[0].Name != "" {
		t.Errorf("got %+v, want one term with no name (the snapshot's: %q)", ms, snap.Text)
	}
}

// TestRolesChromeDropsOutOfContext: Chrome drops an option's or a tree
// item's role outside the context ARIA requires (Roundcube's settings
// sections, <table role=listbox><tr role=option>, with the implicit
// <tbody> between, are generic to Chrome); Playwright and the snapshot
// keep the author's role, and so does the role locator: each option and
// tree item the snapshot shows is found by its role and name, and is the
// ref's element.
func TestRolesChromeDropsOutOfContext(t *testing.T) {
	ctx, r, snap := interactiveOf(t, `<!doctype html><body>
<table role=listbox aria-label=Sections><tr role=option aria-labelledby=l1><td id=l1>User Interface</td></tr><tr role=option><td>Composing Messages</td></tr></table>
<div role=option>Loose</div>
<table role=tree aria-label=Folders><tr role=treeitem><td>Inbox</td></tr></table>
<ul role=listbox aria-label=Plain><li role=option>Fine</li></ul>
<div role=listbox aria-label=Rows><div role=row>Not an option</div></div>`)
	seen := map[string]int{}
	for _, e := range snap.Entries {
		if e.Role != "option" && e.Role != "treeitem" {
			continue
		}
		seen[e.Role]++
		roleFindsRef(ctx, t, r, e)
	}
	if seen["option"] != 4 || seen["treeitem"] != 1 {
		t.Fatalf("got %v in the snapshot, want 4 options and 1 tree item:\n%s", seen, snap.Text)
	}
	for role, want := range map[string]int{"option": 4, "treeitem": 1, "row": 1} {
		if n, err := r.Count(ctx, "role="+role); err != nil || n != want {
			t.Errorf("role=%s: got %d (%v), want %d", role, n, err, want)
		}
	}
}

// TestHiddenLabelNamesItsControl: a control whose labels are all hidden
// (Roundcube's login, <label for> hidden beside the placeholder) is
// unnamed to Chrome, which leaves the labels' text out and passes over
// the placeholder; the snapshot names it by its placeholder, and so does
// the role locator. (One with no placeholder is unnamed to both.)
func TestHiddenLabelNamesItsControl(t *testing.T) {
	ctx, r, snap := interactiveOf(t, `<!doctype html><body><form>
<label for=u style="display:none">Username</label><input id=u placeholder="Username">
<label for=p style="display:none">Password</label><input id=p type=password>
<label for=v>Visible</label><input id=v placeholder="Other"></form>`)
	if want := "form\n textbox \"Username\" @1\n textbox @2\n textbox \"Visible\" @3\n"; snap.Text != want {
		t.Fatalf("got:\n%s\nwant:\n%s", snap.Text, want)
	}
	for _, e := range snap.Entries {
		if e.Name != "" {
			roleFindsRef(ctx, t, r, e)
		}
	}
}

// interactiveOf serves html as a page of its own, takes its interactive
// snapshot in a tab of the shared browser, and returns the call's context
// and a resolver of the tab over that snapshot's refs.
func interactiveOf(t *testing.T, html string) (context.Context, *resolver.Resolver, *snapshot.Snapshot) {
	t.Helper()
	url := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": html})) + "/"
	p, ctx := tab0(t, browsers.Launch(t), url)
	st := snapshot.NewTab(p)
	snap, err := st.Snapshot(ctx, snapshot.Options{Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, resolver.New(p, st), snap
}

// roleFindsRef checks that role=R[name="N"s], with the role and name a
// snapshot shows for entry e, finds e's element alone, with that role and
// name.
func roleFindsRef(ctx context.Context, t *testing.T, r *resolver.Resolver, e refmap.Entry) {
	t.Helper()
	ref, err := r.All(ctx, "@"+e.Ref)
	if err != nil || len(ref) != 1 {
		t.Fatalf("@%s: got %+v, %v", e.Ref, ref, err)
	}
	ms, err := r.All(ctx, fmt.Sprintf("role=%s[name=%q s]", e.Role, e.Name))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].BackendNodeID != ref[0].BackendNodeID || ms[0].Role != e.Role || ms[0].Name != e.Name {
		t.Errorf("role=%s[name=%q]: got %+v, want the element of @%s", e.Role, e.Name, ms, e.Ref)
	}
}
