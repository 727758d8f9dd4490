package snapshot

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// fidelityPages are fixtures whose roles and names must match Chrome's own
// accessibility tree.
var fidelityPages = map[string]string{
	"buttons": `<button aria-label="Close dialog">×</button><button>  Save
	  <b>now</b> </button><input type=submit><input type=reset><input type=button value="Push">
	<input type=image src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Go"><button><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Print"> it</button>
	<div role=button tabindex=0>Div button</div><button title="Only title"></button>
	<button aria-labelledby="l1 l2">x</button><span id=l1>Label one</span><span id=l2 hidden>two</span>`,
	"labels": `<label for=a>First name</label><input id=a><label>Last <input></label>
	<input aria-label="Search the site" type=search><input placeholder="Your email" type=email>
	<input title="Phone"><textarea aria-labelledby=lt></textarea><div id=lt>Notes</div>
	<label>Remember me <input type=checkbox></label><input type=radio id=r1><label for=r1>Radio one</label>
	<select aria-label="Size"><option>S</option><option selected>M</option></select>
	<label>Volume <input type=range></label><label>Qty <input type=number value=3></label>
	<fieldset><legend>Shipping</legend><input aria-label="Street"></fieldset>`,
	"structure": `<header>Top</header><nav><a href="/a">A link</a></nav><main><h1>Title</h1><h2 aria-level=4>Sub</h2>
	<section aria-label="News"><h3>News</h3></section><aside>Side</aside><article><h4>Art</h4></article>
	<ul><li>one</li><li><a href="#x">two <span>parts</span></a></li></ul><ol><li>first</li></ol>
	<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="A cat"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt=""><svg role=img aria-label="Logo"></svg>
	<figure><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Chart"><figcaption>Sales chart</figcaption></figure>
	<table><caption>Scores</caption><thead><tr><th>Name</th><th>Score</th></tr></thead>
	<tbody><tr><td>Ann</td><td>10</td></tr></tbody></table>
	<dialog open><p>Hi</p><button>OK</button></dialog><form aria-label="Login"><input aria-label="User"></form>
	</main><footer>Bottom</footer>`,
	"roles": `<div role=navigation aria-label="Crumbs"><a href="/">Home</a></div><span role=checkbox aria-checked=true tabindex=0>Opt in</span>
	<div role=tablist><div role=tab aria-selected=true>Tab A</div><div role=tab>Tab B</div></div>
	<div role=menu><div role=menuitem>Open</div><div role=menuitemcheckbox aria-checked=false>Wrap</div></div>
	<a role=button href="/x">Link as button</a><h2 role=presentation>Not heading</h2>
	<button role=presentation>Still button</button><div role="foo link" tabindex=0>Fallback link</div>
	<div role=switch aria-checked=true tabindex=0>Wifi</div><div role=slider aria-valuenow=5 aria-label="Level" tabindex=0></div>
	<div role=listbox aria-label="Pick"><div role=option>Red</div><div role=option aria-selected=true>Blue</div></div>
	<details><summary>More info</summary>Body</details><div role=heading aria-level=3>Fake heading</div>`,
	"hidden": `<button>Visible</button><div style="display:none"><button>none</button></div>
	<div style="visibility:hidden"><button>invisible</button><button style="visibility:visible">Back</button></div>
	<div aria-hidden=true><button>aria hidden</button></div><button hidden>attr hidden</button>
	<div inert><button>inert</button></div><button style="opacity:0">Transparent</button>
	<a href="/p"><span aria-hidden=true>★</span> Starred</a><button>A<span style="display:none">B</span>C</button>
	<button aria-label="">Empty label</button><style>.i::before{content:"Icon "}</style><button class=i>text</button>
	<style>.u::before{content:url("data:image/svg+xml,%3csvg xmlns='http://www.w3.org/2000/svg' width='16' height='16'%3e%3c/svg%3e")}</style><button class=u>Contents</button>`,
	// White space inside inline children (Sphinx's numbered sections:
	// <span class="section-number">7. </span>Input and Output).
	"spaces": `<a href="/io"><span class=n>7. </span>Input and Output</a> <a href="/b">Input<span> and Output</span></a>
	<a href="/c"><span>7.</span>Glued</a> <button><span><b>Save </b><i>all</i></span>!</button>
	<a href="/d"><span>
	  Indented
	</span><em>  words </em>here</a>`,
	// Containers inside a name: Chrome leaves their content out (a
	// treeitem's group, a menuitem's menu, a tab's panel, a nav or a figure
	// in a link), keeps their label, an image's alt, a listbox's chosen
	// option, a <progress>'s number, and shows a closed <details>' summary
	// only. (A layout table's text stays too, but the snapshot does not
	// tell layout tables from data tables.)
	"containers": `<ul role=tree><li role=treeitem><img alt="-" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><div><a href="/r">[root]</a></div>
	<ul role=group><li role=treeitem><img alt="+" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><div><a href="/w">wiki</a></div></li></ul></li></ul>
	<div role=menu><div role=menuitem>File <div role=menu><div role=menuitem>Open</div></div></div></div>
	<div role=tablist><div role=tab>Tab <div role=tabpanel>panel</div></div></div>
	<button>Btn <span role=group>grp</span></button> <button>Lab <span role=group aria-label=Kids>grp</span></button>
	<a href="/n">Go <nav>menu</nav></a> <a href="/f"><figure><img alt=Pic src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><figcaption>Cap</figcaption></figure>Fig</a>
	<a href="/d"><details><summary>S</summary>D</details></a> <a href="/fo"><form>F</form>orm</a>
	<button>Pick <div role=listbox aria-label=L><div role=option aria-selected=true>Chosen</div></div></button>
	<button>Box <div role=combobox aria-label=Lab><span aria-selected=true>Chosen</span></div></button>
	<a href="/p">P <progress value=3 max=10></progress></a>
	<button><img alt="Print" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="> it</button>`,
	// Where a name made of content puts spaces: around a box of its own (an
	// inline-block, an image, an svg, a form control, a line break) and
	// between text from different sources (content, aria-label), not
	// between inline spans nor around an image with an empty alt.
	"separators": `<button>1<span style="display:inline-block">A</span>B</button> <button>2<span style="display:inline-flex">A</span>B</button>
	<button>3<span>A</span>B</button> <button>4<svg width=5 height=5 role=img aria-label=A></svg>B</button>
	<button>5<svg width=5 height=5><title>A</title></svg>B</button> <button>6A<br>B</button>
	<button>10<img alt="" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">B</button> <button>11<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">B</button>
	<button>15<span aria-label=A>x</span>B</button> <button>16<i class=fa></i>B</button>
	<button><img alt="A" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><img alt="B" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></button>
	<label>18Name<input>End</label> <label>19Lab<select><option selected>Opt</option></select>el</label>`,
	// DPUB-ARIA roles, as Sphinx's footnotes use them.
	"dpub": `<section role=doc-chapter><h2>Chapter</h2><p role=doc-subtitle>Sub</p>
	<p>Text<a href="#fn1" id=r1 role=doc-noteref>[1]</a>.</p>
	<aside role=doc-footnote id=fn1><a href="#r1" role=doc-backlink>1</a> The note.</aside></section>`,
	// Header cells: Chrome's row or column header (DokuWiki's tables put a
	// th beside an empty-looking td in a thead).
	"headers": `<table><thead><tr><td>   </td><th>H1</th><th>H2</th></tr></thead><tbody><tr><th>R</th><td>x</td><td>y</td></tr></tbody></table>
	<table><thead><tr><td></td><th>C1</th><th>C2</th></tr></thead></table>
	<table><tbody><tr><th>E1</th><td></td></tr><tr><td>a</td><td>b</td></tr></tbody></table>
	<table><thead><tr><th>T1</th><td>x</td></tr></thead></table>`,
	// A legend or a caption that holds a control: Adminer opens its
	// Search and Sort fieldsets with a link in their legends.
	"legends": `<form><fieldset><legend><a href="#fs">Search</a></legend><div hidden><input aria-label=Where></div></fieldset>
	<fieldset><legend>Sort <button type=button>Toggle</button></legend><input aria-label=By></fieldset></form>
	<table><caption><a href="/sort">Scores</a> by name</caption><tr><td>Ann</td><td>10</td></tr></table>`,
	// A control and its label inside a name made of content (MediaWiki's
	// filter menu: an option holds a checkbox and its label): the label's
	// text counts once, where it stands.
	"labelled": `<div role=listbox aria-label=L>
	<div role=option><input type=checkbox id=c1><label for=c1>First <b>one</b></label></div>
	<div role=option><label for=c2>Second</label><input type=checkbox id=c2></div>
	<div role=option><label>Third <input type=checkbox></label></div>
	<div role=option><input id=t1 value=val><label for=t1>Fourth</label></div>
	<div role=option><span><input type=checkbox id=c5></span><span><label for=c5>Fifth</label> tail</span></div>
	<div role=option><input type=checkbox id=c6 aria-label="Six label"><label for=c6>Sixth</label></div></div>
	<a href="#x"><input type=checkbox id=c7><label for=c7>Seventh</label></a>`,
	"shadow": `<div id=host></div><script>
	const r = document.getElementById('host').attachShadow({mode:'open'});
	r.innerHTML = '<button>Shadow button</button><label for=si>Shadow input</label><input id=si><slot></slot>';
	</script>`,
}

// unshown are Chrome roles the snapshot folds into their parent's text.
var unshown = map[string]bool{
	"generic": true, "StaticText": true, "InlineTextBox": true, "RootWebArea": true, "paragraph": true,
	"LabelText": true, "none": true, "ListMarker": true, "LineBreak": true, "caption": true, "legend": true,
	"figure": true, "strong": true, "emphasis": true, "code": true, "rowgroup": true, "Iframe": true,
	"sectionheader": true, "sectionfooter": true, "time": true, "mark": true, "blockquote": true,
	"deletion": true, "insertion": true, "subscript": true, "superscript": true, "term": true,
	"definition": true, "separator": true, "Section": true, "MenuListPopup": true, "Abbr": true, "Legend": true, "Figcaption": true,
}

// chromeRoles maps Chrome's role names to ours where they differ.
var chromeRoles = map[string]string{"image": "img"}

func TestFidelityWithChromeAccessibilityTree(t *testing.T) {
	pages := map[string]string{}
	for k, v := range fidelityPages {
		pages["/"+k] = "<!doctype html><title>" + k + "</title><body>" + v
	}
	base := browsertest.Serve(t, browsertest.Pages(pages))
	tab := SharedBrowsers.Launch(t).Tab(t) // one tab, each page loaded in it
	for name := range fidelityPages {
		t.Run(name, func(t *testing.T) {
			p, ctx := tab.Load(t, base+"/"+name)
			tab := NewTab(p)
			snap, err := tab.Snapshot(ctx, Options{allRefs: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("snapshot:\n%s", snap.Text)
			checked := 0
			for _, e := range snap.Entries {
				if e.Role == "iframe" || e.Role == "generic" {
					continue
				}
				r, err := tab.Lookup(ctx, "@"+e.Ref)
				if err != nil {
					t.Errorf("lookup @%s: %v", e.Ref, err)
					continue
				}
				ax, err := cdp.Call(ctx, p, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{BackendNodeID: r.BackendNodeID, FetchRelatives: new(bool)})
				if err != nil || len(ax.Nodes) == 0 {
					t.Errorf("AX of @%s: %v", e.Ref, err)
					continue
				}
				n := ax.Nodes[0]
				role, axName := "", ""
				if n.Role != nil {
					role = strings.Trim(string(n.Role.Value), `"`)
				}
				if m, ok := chromeRoles[role]; ok {
					role = m
				}
				if n.Name != nil {
					axName = strings.Join(strings.Fields(strings.Trim(string(n.Name.Value), `"`)), " ")
				}
				if n.Ignored {
					t.Errorf("@%s %s %q: Chrome ignores this node", e.Ref, e.Role, e.Name)
					continue
				}
				if role != e.Role || axName != e.Name {
					t.Errorf("@%s: got %s %q, Chrome says %s %q", e.Ref, e.Role, e.Name, role, axName)
				}
				checked++
			}
			if checked == 0 {
				t.Errorf("nothing compared")
			}
			// And the other way: every node Chrome gives a meaningful role
			// is in the snapshot with that role.
			ours := make(map[cdp.BackendNodeID]string)
			for _, e := range snap.Entries {
				if r, err := tab.Lookup(ctx, "@"+e.Ref); err == nil {
					ours[r.BackendNodeID] = r.Role
				}
			}
			full, err := cdp.Call(ctx, p, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range full.Nodes {
				if n.Ignored || n.Role == nil || n.BackendDOMNodeID == 0 {
					continue
				}
				role := strings.Trim(string(n.Role.Value), `"`)
				if m, ok := chromeRoles[role]; ok {
					role = m
				}
				if unshown[role] {
					continue
				}
				if got, ok := ours[n.BackendDOMNodeID]; (!ok || got != role) && !userAgentShadow(ctx, p, n.BackendDOMNodeID) {
					d, _ := cdp.Call(ctx, p, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: n.BackendDOMNodeID})
					where := ""
					if d.Node != nil {
						where = d.Node.NodeName
						if d.Node.ParentID != 0 {
							where += " in a shadow tree"
						}
					}
					t.Errorf("Chrome has %s %s (node %d, %s); the snapshot has %q", role, n.Name.Value, n.BackendDOMNodeID, where, got)
				}
			}
		})
	}
}

// userAgentShadow reports whether a node lives in a shadow tree the page
// cannot see (e.g. the inside of <input type=image>).
func userAgentShadow(ctx context.Context, s cdp.Session, id cdp.BackendNodeID) bool {
	rn, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id})
	if err != nil || rn.Object == nil {
		return false
	}
	yes := true
	r, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function() { const r = this.getRootNode(); return r instanceof ShadowRoot && r.host.shadowRoot !== r; }",
		ObjectID:            rn.Object.ObjectID, ReturnByValue: &yes,
	})
	return err == nil && r.Result != nil && string(r.Result.Value) == "true"
}
