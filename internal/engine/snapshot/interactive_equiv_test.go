package snapshot_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// equivPages exercise what the interactive-only walk decides: shadow
// roots and slots, frames, aria-hidden, display:none, visibility, inert,
// contenteditable, labels, cursor:pointer, onclick, tabindex, roles, a
// modal dialog, tables and lists, text that only the names use, and the
// messages a page announces (alerts, statuses, live regions) or marks by
// class or id (Django's errornote, WordPress's notice, Bootstrap's
// invalid-feedback; not a state class, a chat's messages, or past the cap).
var equivPages = map[string]string{
	"/shadow": `<!doctype html><body><div id=host><span slot=s>slotted <a href="/x">Slotted link</a></span> light <b>text</b></div>
<my-card><button slot=act>Act</button></my-card>
<script>
host.attachShadow({mode: 'open'}).innerHTML = '<p>shadow <button>Shadow button</button></p><slot name=s></slot><slot>fallback <a href="/f">Fallback</a></slot>';
customElements.define('my-card', class extends HTMLElement { constructor() { super(); this.attachShadow({mode: 'open'}).innerHTML = '<h3>Card</h3><slot name=act></slot><input aria-label="In shadow">'; } });
</script>`,
	"/hidden": `<!doctype html><body>
<div aria-hidden=true><button>Aria hidden</button></div>
<div style="display:none"><button>Display none</button></div>
<div style="visibility:hidden">hidden <button style="visibility:visible">Visible inside hidden</button><button>Hidden too</button></div>
<div inert><button>Inert</button></div>
<button aria-hidden=false>Not hidden</button>
<div hidden><a href="/h">Hidden attr</a></div>
<details><summary>More</summary><button>Inside details</button></details>
<details open><summary>Open one</summary><a href="/o">Inside open</a></details>`,
	"/editable": `<!doctype html><body>
<div contenteditable>Edit <b>me</b> <span contenteditable=false>not me</span></div>
<p contenteditable=true><span>nested <i>inline</i></span></p>
<div role=textbox contenteditable aria-label="Rich">x</div>
<textarea aria-label=Notes>hello</textarea>
<div role=document aria-label="Paragraph block" contenteditable>Typed <b>words</b></div>`,
	"/labels": `<!doctype html><body><form>
<label>Name <input id=n></label>
<label for=e>Email</label> <input id=e type=email value="a@b.c">
<label>Agree <input type=checkbox checked></label>
<input type=radio name=r aria-labelledby=rl><span id=rl>Radio <em>label</em></span>
<select aria-label=Pick><option>One</option><option selected>Two</option></select>
<select><option value=""></option><option>ABS</option><option>ACOS</option></select><select multiple><option>new</option><option>sale</option></select>
<input type=submit value=Send> <input type=image alt=Go src="data:,"> <button type=reset></button>
<fieldset><legend>Group</legend><input placeholder="Placeholder only"></fieldset>
<input type=password value=secret aria-label=Pw><input type=range aria-label=Vol value=3 min=0 max=10>
</form>`,
	"/clickable": `<!doctype html><body>
<div style="cursor:pointer">Pointer div <span>child</span> <div style="cursor:pointer">nested pointer</div></div>
<a id=top style="cursor:pointer"></a><span onclick="1"></span><div style="cursor:pointer;width:20px;height:20px"></div>
<div onclick="1">Shown <span style="display:none">secret</span></div>
<span><input type=checkbox aria-label="Watch this page" style="opacity:0"><span style="cursor:pointer;display:inline-block;width:20px;height:20px"></span></span>
<form><input type=hidden name=csrf value=x><span class=icon-search style="cursor:pointer;display:inline-block;width:20px;height:20px"></span><input aria-label=Find></form>
<div onclick="1">Onclick div</div>
<span tabindex=0>Focusable span</span> <span tabindex=-1>Not in tab order</span>
<div role=button>Role button</div> <div role=none tabindex=0>None but focusable</div>
<a>No href</a> <a href="#top" title="Top">↑</a>
<img src="data:," alt="Picture" onclick="1"> <svg role=img aria-label=Logo onclick="1"><title>Logo</title></svg>
<ul role=menu><li role=menuitem>Cut</li><li role=menuitemcheckbox aria-checked=true>Bold</li></ul>
<div role=tablist><div role=tab aria-selected=true>Tab 1</div><div role=tab>Tab 2</div></div>`,
	"/structure": `<!doctype html><body><header><nav aria-label=Main><a href="/a">A</a></nav></header>
<main><h1>Title</h1><section aria-label=Part><h2>Part</h2><p>Text <a href="/in">in text</a>.</p></section>
<table><caption>Prices</caption><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td><button>Buy tea</button></td></tr></table>
<ol><li>One <button aria-pressed=true>Toggle</button></li><li><button disabled>Off</button></li></ol>
<iframe title="Frame one" src="data:text/html,<button>In frame</button>"></iframe>
<div role=grid><div role=row><div role=gridcell tabindex=0>Cell</div></div></div>
<button aria-expanded=false aria-haspopup=menu>Menu</button>
</main><footer><a href="/c">Contact</a></footer>
<dialog id=d><button>In dialog</button></dialog>`,
	"/hiddenkinds": `<!doctype html><body>
<iframe style="visibility:hidden" title="Hidden frame" src="data:text/html,x"></iframe>
<div style="visibility:hidden"><iframe style="visibility:visible" title="Shown frame" src="data:text/html,y"></iframe></div>
<div style="visibility:hidden;cursor:pointer" onclick="1">hidden clickable <span style="cursor:pointer">pointer child</span> <button style="visibility:visible">Shown button</button></div>
<h2 style="visibility:hidden">Hidden heading <a href="/v" style="visibility:visible">Shown link</a></h2>
<nav aria-label=Hidden style="visibility:hidden"><a href="/n">Hidden nav link</a></nav>
<div style="cursor:pointer"><div style="visibility:hidden"><span style="cursor:pointer;visibility:visible">under a pointer</span></div></div>
<div style="visibility:hidden"><div style="cursor:pointer;visibility:visible">pointer in hidden</div></div>
<div role=button style="visibility:hidden">Hidden role button <span style="visibility:visible" tabindex=0>Focusable inside</span></div>
<ul style="visibility:collapse"><li><a href="/c">Collapsed link</a></li></ul>`,
	"/messages": `<!doctype html><body><form>
<label>Password <input type=password id=pw></label><div aria-live=polite class=error>The password is shorter than 8 characters</div>
<div aria-live=polite></div><div aria-live=off>Not a message</div>
<div role=alert>Could not save. <button>Retry</button></div>
<p role=status>3 results</p><output>42</output>
<div aria-live=assertive style="display:none">Hidden message</div>
<div aria-live=polite>` + strings.Repeat("A live list of items. ", 20) + `<button>In a long region</button></div>
<div aria-live=polite>Outer <div role=alert>inner</div></div>
</form>`,
	"/notices": `<!doctype html><body>
<p class="errornote"><i class="icon-warning"></i>Please enter the correct username and password.</p>
<ul class="messagelist"><li class="success">The product was added.</li></ul>
<form class="ng-invalid ng-dirty"><div class="form-row errors field-name"><ul class="errorlist"><li>This field is required.</li></ul>
<label>Name <input class="is-invalid"></label><div class="invalid-feedback">Enter a name.</div></div>
<div class="has-error"><label>City <input></label></div>
<div class="fieldError" style="display:none">Hidden error</div><span class="error"></span></form>
<div id="setting-error-settings_updated" class="notice notice-success is-dismissible"><p><strong>Settings saved.</strong></p><button class="notice-dismiss"><span>Dismiss this notice.</span></button></div>
<p id="message">Post updated.</p><div class="messages-list"><div class="message">A chat message</div></div>
<div class="terrorism successor">Not a notice</div>
<p class="error">Please <a href="/login">log in</a> to go on.</p>
<div class="x-window x-window-dlg"><div class="x-window-header-text">Change Default Password</div><div class="ext-mb-text">Would you like to change it now?</div><div><button>Yes</button> <button>No</button></div><input class=ext-mb-input style="display:none"></div>
<div class="modal-content"><div class="modal-header">Delete item?<button>×</button></div><div class="modal-body"><p>This cannot be undone.</p></div><div class="modal-footer"><button>Cancel</button><button>Delete</button></div></div>
<div class="modal-body"><label>Name <input></label></div>
<div role=dialog aria-label="Delete file"><h2>Delete "Report.pdf"?</h2><p>This cannot be undone.</p><p></p><button>Delete</button></div>
<table><tr><td class="text-success">passed</td><td><a href="/r">Run</a></td></tr></table>
` + strings.Repeat(`<span class="text-success">passed</span> <a href="/r">Run</a>`, 22) + `
<p class="text-danger">After the cap</p>`,
	"/modal": `<!doctype html><body><button>Behind</button><dialog id=d><h2>Modal</h2><button>Inside modal</button></dialog>
<script>d.showModal()</script>`,
}

var updateWalk = flag.Bool("update", false, "rewrite testdata/interactive/*.golden from the current walk")

// TestInteractiveWalkUnchanged pins the interactive-only walk's records
// (and, in the -full files, the full walk's, recorded from the walk before
// it read cursors and visibility lazily) on each page (the header, whose
// second field is the time taken, left out) to the answers recorded in testdata/interactive/ from the walk as it was
// before it skipped text nodes (the two gave the same records, side by
// side, when the change was made). A change to what the walk decides is
// interactive shows here; -update records the new answers after review.
func TestInteractiveWalkUnchanged(t *testing.T) {
	now, err := os.ReadFile("snapshot.js")
	if err != nil {
		t.Fatal(err)
	}
	tab := snapshot.SharedBrowsers.Launch(t).Tab(t) // one tab, each page loaded in it
	srv := browsertest.Serve(t, browsertest.Pages(equivPages))
	for path := range equivPages {
		name := strings.TrimPrefix(path, "/")
		t.Run(name, func(t *testing.T) {
			s, ctx := tab.Load(t, srv+path)
			world := browsertest.MainWorld(ctx, t, s, "equiv")
			yes := true
			eval := func(expr string) string {
				t.Helper()
				res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: world, ReturnByValue: &yes})
				if err != nil {
					t.Fatal(err)
				}
				if res.ExceptionDetails != nil {
					t.Fatalf("%s: %s", expr[:min(len(expr), 60)], res.ExceptionDetails.Text)
				}
				var out string
				if err := json.Unmarshal(res.Result.Value, &out); err != nil {
					t.Fatal(err)
				}
				return out
			}
			eval("globalThis.now = (" + string(now) + "\n); globalThis.ns = (" + aria.Source() + "\n); ''")
			for _, v := range []struct{ suffix, opts string }{{"", `{interactive: true}`}, {"-viewport", `{interactive: true, viewport: true}`}, {"-full", `{}`}} {
				got := eval("now(document, ns, 'walk', " + v.opts + ")[0].replace(/^[^\\n]*\\n?/, '')")
				file := filepath.Join("testdata", "interactive", name+v.suffix+".golden")
				if *updateWalk {
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (record it with -update)", err)
				}
				if got != string(want) {
					t.Errorf("%s: the walk changed its answer\n got:\n%s\nwant:\n%s", v.opts, got, want)
				}
				if strings.Count(got, "\n") < 2 {
					t.Errorf("%s: want a few records, got %q", v.opts, got)
				}
			}
		})
	}
}
