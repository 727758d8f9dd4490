package resolver_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/resolver"
)

// varied is a page with many kinds of element, names and states.
const varied = `<!doctype html><title>varied</title><body>
<header><nav aria-label="Main"><a href="/a">Home</a> <a>No href</a></nav></header>
<main><h1>Title <b>bold</b></h1><h2 aria-level=4>Sub</h2><p>Para <em>em</em> <strong>st</strong> <code>c</code></p>
<section aria-label="News"><h3>News</h3><article><h4>Art</h4></article></section><section>unnamed</section><aside>Side</aside>
<form aria-label="Login"><fieldset><legend>Who</legend>
<label for=a>First name</label><input id=a><label>Last <input></label><input aria-label="Search the site" type=search>
<input placeholder="Your email" type=email><input title="Phone" type=tel><input type=url value="http://x"><input type=password aria-label=Pass>
<input type=number aria-label=Qty value=3><input type=range aria-label=Vol><input type=checkbox aria-label=Agree checked>
<input type=radio id=r1><label for=r1>Radio one</label><input type=checkbox switch aria-label=Wifi>
<input type=submit><input type=reset><input type=button value=Push><input type=image alt=Go src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<input type=file aria-label=Upload><input type=color aria-label=Colour><input type=date aria-label=When><input type=time aria-label=At>
<input list=dl aria-label=Pick><datalist id=dl><option>one</option></datalist>
<textarea aria-labelledby=lt></textarea><div id=lt>Notes</div>
<select aria-label=Size><option>S</option><option selected>M</option></select><select multiple aria-label=Many><option>x</option></select>
<button aria-label="Close dialog">×</button><button>  Save
  <b>now</b> </button><button><img alt="Print" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="> it</button>
<button title="Only title"></button><button aria-labelledby="l1 l2">x</button><span id=l1>Label one</span><span id=l2 hidden>two</span>
<style>.i::before{content:"Icon "}</style><button class=i></button><button class=i>text</button>
</fieldset></form>
<ul><li>one</li><li><a href="#x">two <span>parts</span></a></li></ul><ol><li>first</li></ol><dl><dt>term</dt><dd>def</dd></dl>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="A cat"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="">
<svg role=img aria-label="Logo" width=5 height=5></svg><svg width=5 height=5><title>Plain svg</title></svg>
<figure><img alt="Chart" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><figcaption>Sales chart</figcaption></figure>
<table><caption>Scores</caption><thead><tr><th>Name</th><th>Score</th></tr></thead><tbody><tr><th scope=row>Ann</th><td>10</td></tr></tbody></table>
<table role=grid aria-label=G><tr><td>g1</td></tr></table>
<details><summary>More info</summary>Body</details><dialog open><p>Hi</p><button>OK</button></dialog>
<div role=tablist><div role=tab aria-selected=true>Tab A</div><div role=tab>Tab B</div></div>
<div role=menu><div role=menuitem>Open</div><div role=menuitemcheckbox aria-checked=false>Wrap</div></div>
<a role=button href="/x">Link as button</a><h2 role=presentation>Not heading</h2><button role=presentation>Still button</button>
<div role="foo link" tabindex=0>Fallback link</div><div role=switch aria-checked=true tabindex=0>Wifi 2</div>
<div role=slider aria-valuenow=5 aria-label="Level" tabindex=0></div><div role=listbox aria-label="Pick2"><div role=option>Red</div></div>
<div contenteditable>Editable</div><progress value=3 max=9 aria-label=Prog></progress><meter value=1 aria-label=Met></meter>
<output>out</output><hr><blockquote>q</blockquote><mark>m</mark><time>t</time><abbr title=ab>AB</abbr><address>addr</address>
<my-widget></my-widget><div id=host></div><div aria-hidden=true><button>hidden</button></div><button style="visibility:hidden">invisible</button>
<a href="/p"><span aria-hidden=true>★</span> Starred</a><button>A<span style="display:none">B</span>C</button>
<script>
customElements.define('my-widget', class extends HTMLElement { constructor() { super(); this.attachShadow({mode: 'open'}).innerHTML = '<button>Inner</button><slot></slot>'; const i = this.attachInternals(); i.role = 'group'; i.ariaLabel = 'Widget'; } });
document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<label for=si>Shadow input</label><input id=si><button>Shadow btn</button>';
</script>
</main><footer>Bottom</footer>`

// Every element in Chrome's accessibility tree is found by a role locator
// with its role and exact name: the page's candidate search never misses
// what Chrome computes.
func TestRoleCandidatesMissNothing(t *testing.T) {
	b := browsers.Launch(t)
	p, ctx := tab0(t, b, browsertest.Serve(t, browsertest.Pages(map[string]string{"/": varied}))+"/")
	tree, err := cdp.Call(ctx, p, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatal(err)
	}
	r := resolver.New(p, nil)
	checked := 0
	for _, n := range tree.Nodes {
		if n.Ignored || n.BackendDOMNodeID == 0 || n.Role == nil {
			continue
		}
		var role, name string
		json.Unmarshal(n.Role.Value, &role)
		if n.Name != nil {
			json.Unmarshal(n.Name.Value, &name)
		}
		switch role {
		case "StaticText", "InlineTextBox", "RootWebArea", "LineBreak", "ListMarker", "none", "":
			continue
		}
		d, err := cdp.Call(ctx, p, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: n.BackendDOMNodeID})
		if err != nil || d.Node.NodeType != 1 {
			continue
		}
		// Skip the browser's own shadow trees (inside <input type=date>,
		// <select>, <details>…): no page script reaches them.
		obj, err := cdp.Call(ctx, p, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: n.BackendDOMNodeID})
		if err != nil {
			t.Fatal(err)
		}
		yes := true
		reach, err := cdp.Call(ctx, p, runtime.CallFunctionOn, runtime.CallFunctionOnParams{ObjectID: obj.Object.ObjectID, ReturnByValue: &yes,
			FunctionDeclaration: "function() { const r = this.getRootNode(); return r === this.ownerDocument || !!(r.host && r.host.shadowRoot === r); }"})
		if err != nil {
			t.Fatal(err)
		}
		if string(reach.Result.Value) != "true" {
			continue
		}
		want := &locator.Text{Value: name, Exact: true}
		if role == "row" && name == "" {
			// A row Chrome leaves unnamed (a table's) has its name from
			// content in a role locator, as in Playwright
			// (TestSameElementsAsPlaywright): found by its role.
			want = nil
		}
		if role == "term" {
			// Chrome names a term from its content; ARIA forbids its
			// name, and Playwright, the page module and role locators read
			// none: found by its role and no name.
			want = &locator.Text{Value: "", Exact: true}
		}
		l := locator.Locator{Steps: []locator.Step{{Op: locator.OpQuery, Kind: locator.KindRole,
			Role: locator.Role{Role: role, Name: want}}}}
		ms, err := r.All(ctx, l.String())
		if err != nil {
			t.Errorf("%s: %v", l, err)
			continue
		}
		if !slices.ContainsFunc(ms, func(m resolver.Match) bool { return m.BackendNodeID == n.BackendDOMNodeID }) {
			t.Errorf("%s (<%s> %d) not found; got %+v", l, d.Node.LocalName, n.BackendDOMNodeID, ms)
		}
		checked++
	}
	if checked < 60 {
		t.Errorf("checked only %d elements", checked)
	}
	t.Logf("%d elements found by their role and name", checked)
}
