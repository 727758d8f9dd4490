package snapshot_test

import (
	"strings"
	"testing"

	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// TestUnnamedFieldsShowWhatTheyAreFor: an interactive-only snapshot shows
// no text, so a field an older page labels with plain text beside it
// (Fossil's forms), or a column header (phpMyAdmin's insert form), or an
// element drawn as a button with only a tooltip (Transmission's toolbar),
// or a link with nothing in it, would be a bare "textbox @3", "link @4". Each case is the page's markup and the
// lines the snapshot must show for it.
func TestUnnamedFieldsShowWhatTheyAreFor(t *testing.T) {
	tests := []struct{ name, html, want string }{
		{"text before a field on its line, a link's text in it",
			`<form><p>Name of new wiki page: <input name=n><br><a href=/h>Markup style</a>: <select><option>Markdown</select><br><input type=submit value=Create></p></form>`,
			"form\n textbox [beside=\"Name of new wiki page:\"] @1\n link \"Markup style\" @2\n combobox [beside=\"Markup style:\" options: \"Markdown\"] @3: Markdown\n button \"Create\" @4\n"},
		{"a field first on its line: the line above, not two lines above, not past a control",
			`<div>Intro line<br>Enter a one-line summary:<br><input></div><div>Two lines up<br><br><input></div><div><select><option>md</select><br><textarea></textarea></div>`,
			"textbox [beside=\"Enter a one-line summary:\"] @1\ntextbox @2\ncombobox [options: \"md\"] @3: md\ntextbox @4\n"},
		{"the text after a checkbox or a radio",
			`<div><input type=checkbox> Remember me <input type=radio name=r> Daily</div>`,
			"checkbox [beside=\"Remember me\"] @1\nradio [beside=\"Daily\"] @2\n"},
		{"a label in the block before the field's, not a paragraph",
			`<div><div>Email</div><div><input></div></div><div><p>Phone:</p><input type=tel></div><p>` + strings.Repeat("A paragraph, not a label. ", 4) + `</p><div><input></div>`,
			"textbox [beside=\"Email\"] @1\ntextbox [beside=\"Phone:\"] @2\ntextbox @3\n"},
		{"a label outside the blocks around a field it is first in, not out of a section, not a legend",
			`<div><label for="gone">Move completed to:</label><div><div><table><tr><td><div><input type=checkbox id=cb><label for=cb>&nbsp;</label></div></td><td><input disabled></td></tr></table></div></div></div>` +
				`<section><p>Shipping</p></section><section><div><div><input></div></div></section>` +
				`<fieldset><legend>Incoming Address</legend><div><div><input></div></div></fieldset>`,
			"checkbox [beside=\"Move completed to:\"] @1\ntextbox [disabled] @2\ntextbox @3\ngroup \"Incoming Address\"\n textbox @4\n"},
		{"a flex row's items are one line; an empty icon is passed over",
			`<div style="display:flex">Local edits (<code>localStorage</code>):<div style="width:9px;height:9px"></div><select><option>Mine</select></div>`,
			"combobox [beside=\"Local edits (localStorage):\" options: \"Mine\"] @1: Mine\n"},
		{"a table's column header, else the cell before (and no row line that says it again)",
			`<table><tr><th>Column<th>Value</tr><tr><td>id<td><input></tr></table><table><tr><td>User ID:<td><input id=u></tr></table>`,
			"table\n row \"id\"\n  textbox [column=\"Value\"] @1\ntextbox [beside=\"User ID:\"] @2\n"},
		{"the end of a long text, the start of a long text after",
			`<p>` + strings.Repeat("x", 100) + ` Enter the code: <input></p><p><input type=checkbox> I agree ` + strings.Repeat("y", 100) + `</p>`,
			"textbox [beside=\"…" + strings.Repeat("x", 64) + " Enter the code:\"] @1\ncheckbox [beside=\"I agree " + strings.Repeat("y", 72) + "…\"] @2\n"},
		{"no hint: a named field, punctuation alone, a menu before it, a control between, a clickable block",
			`<label>Named <input></label><p>: <input></p><nav><a href=/a>Home</a></nav><div><input></div><p>Old <button>B</button><input></p>` +
				`<div ondblclick="1">dbl</div><input>`,
			"textbox \"Named\" @1\ntextbox @2\nnavigation\n link \"Home\" @3\ntextbox @4\nbutton \"B\" @5\ntextbox @6\ntextbox @7\n"},
		{"a drawn button's tooltip, not when it has text; an empty link's URL",
			`<div title="Open Torrent" onclick="1" style="width:20px;height:20px"></div><div title="Hint" onclick="1">Start</div>` +
				`<div title="Peers" onclick="1"><a href="/inspector#peers" style="display:block;width:20px;height:20px"></a></div><a href="/files/"><i style="display:inline-block;width:9px;height:9px"></i></a><a href="/named/">Named</a>`,
			"generic [title=\"Open Torrent\"] @1\ngeneric @2: Start\ngeneric [title=\"Peers\"] @3\n link [url=/inspector#peers] @4\nlink [url=/files/] @5\nlink \"Named\" @6\n"},
		{"a tooltip on the lone element inside; an empty item a role alone makes is left out",
			`<span class=flag style="cursor:pointer;display:inline-block;width:9px;height:9px"><span title="Not Flagged"></span></span>` +
				`<ul role=toolbar aria-label=Mail><li role=menuitem><a href="/r">Reply</a></li><li role=menuitem class=spacer style="display:inline-block;width:9px"></li>` +
				`<li role=menuitem><a href="/h" title="Hidden link" style="display:none">Hidden</a></li><li role=menuitem tabindex=0></li><li role=menuitemcheckbox aria-checked=true></li></ul><button></button>`,
			"generic [title=\"Not Flagged\"] @1\ntoolbar \"Mail\"\n menuitem \"Reply\" @2\n  link \"Reply\" @3\n menuitem @4\n menuitemcheckbox [checked] @5\nbutton @6\n"},
		{"a focusable list's clickable parts stay elements of their own, a clickable one's do not",
			`<table tabindex=0 aria-label=Mails><tr><td><a href="/m/1">Report</a> <span title="Not Flagged" style="cursor:pointer;display:inline-block;width:9px;height:9px"></span></td></tr></table>` +
				`<div tabindex=0 style="cursor:pointer">Open <span title="Star" style="cursor:default"><span style="cursor:pointer;display:inline-block;width:9px;height:9px"></span></span></div>`,
			"table \"Mails\" @1\n row \"Report Not Flagged\"\n  link \"Report\" @2\n  generic [title=\"Not Flagged\"] @3\ngeneric @4: Open\n"},
		{"a clickable box drawn around one control is that control; not one with text of its own",
			`<table class=x-btn style="cursor:pointer"><tr><td><i>&nbsp;</i></td></tr><tr><td><em><button type=button>Preferences</button></em></td></tr><tr><td><i>&nbsp;</i></td></tr></table>` +
				`<div style="cursor:pointer"><button>Inner</button> and text</div>`,
			"button \"Preferences\" @1\ngeneric @2\n button \"Inner\" @3\n"},
		{"an icon with nothing else to tell it by: its class names that say what it does",
			`<a class="button icon remove" onclick="1" style="display:inline-block;width:9px;height:9px"></a>` +
				`<div class="x-tool x-tool-toggle x-tool-collapse-west" style="cursor:pointer;width:9px;height:9px">&nbsp;</div>` +
				`<div class="css-1x2y3 sc-bdVaJa" onclick="1" style="width:9px;height:9px"></div>` +
				`<span onclick="1" style="display:inline-block"><i class="fa fa-trashCan" style="display:inline-block;width:9px;height:9px"></i></span>` +
				`<div class="closeButton" title="Close it" onclick="1" style="width:9px;height:9px"></div><button class="btn-close">Close</button>`,
			"generic [class=\"remove\"] @1\ngeneric [class=\"x-tool-toggle x-tool-collapse-west\"] @2\ngeneric @3\ngeneric [class=\"fa-trashCan\"] @4\ngeneric [title=\"Close it\"] @5\nbutton \"Close\" @6\n"},
		{"a select lists its few options, counts many",
			`<label>Markup <select><option>Fossil Wiki<option selected>Markdown<option>Plain "Text"</select></label>` +
				`<label>Function <select>` + strings.Repeat("<option>ABS", 13) + `</select></label>` +
				`<label>Long <select><option>` + strings.Repeat("x", 250) + `</select></label>` +
				`<label>Box <select size=3><option>A<option>B</select></label>`,
			"combobox \"Markup\" [options: \"Fossil Wiki\", \"Markdown\", \"Plain \\\"Text\\\"\"] @1: Markdown\ncombobox \"Function\" [13 options] @2: ABS\n" +
				"combobox \"Long\" [1 option] @3: " + strings.Repeat("x", 250) + "\nlistbox \"Box\" [options: \"A\", \"B\"] @4\n"},
		{"a heading is no notice, whatever its class",
			`<div class="dialog_container"><h2 class="dialog_heading">Upload Torrent Files</h2><form><label>URL <input></label></form></div>`,
			"heading \"Upload Torrent Files\" [level=2]\nform\n textbox \"URL\" @1\n"},
	}
	checkInteractive(t, tests)
}

// TestStatusBarsAndToastsAreMessages: where a page says what an action
// did, in a status bar or a toast marked by class or id alone (Fossil's
// "Saved page: [AgentPage]."), an interactive-only snapshot shows it, as
// it shows an error marked so; "status" alone is no such mark.
func TestStatusBarsAndToastsAreMessages(t *testing.T) {
	checkInteractive(t, []struct{ name, html, want string }{
		{"a status bar, a toast, a snackbar",
			`<div id="fossil-status-bar">Saved page: [AgentPage].</div><div class="toast"><div class="toast-body">Link copied.</div></div><div class="app-statusBar">Ready</div><span class="mdc-snackbar__label">Archived.</span><button>Undo</button>`,
			"Saved page: [AgentPage].\nLink copied.\nReady\nArchived.\nbutton \"Undo\" @1\n"},
		{"not a mailbox's list or its header, whose ids name it a message list",
			`<div id="messagelist-header"><span>Inbox</span> <a href="#s">Select</a></div><div id="messagelist-content"><table class="messagelist"><tr><td>Colleague 6 <a href="/m/6">Quarterly report</a></td></tr></table></div>` +
				`<div class="flash">Mail moved. <table><tr><td><a href="/u">Undo</a></td></tr></table></div><ul class="messagelist"><li>Saved.</li></ul>`,
			"link \"Select\" @1\ntable\n row \"Colleague 6 Quarterly report\"\n  link \"Quarterly report\" @2\nlink \"Undo\" @3\nSaved.\n"},
		{"not a status cell or a login status",
			`<div class="status">admin</div><table><tr><td class="status">Shipped</td><td><a href="/o">Order 7</a></td></tr></table><p id="status">Online</p>`,
			"table\n row \"Shipped Order 7\"\n  link \"Order 7\" @1\n"},
	})
}

// checkInteractive loads each case's markup in a page of its own and
// compares its interactive-only snapshot with want; a full snapshot of
// it shows none of the hints, whose text it shows itself.
func checkInteractive(t *testing.T, tests []struct{ name, html, want string }) {
	t.Helper()
	pages := map[string]string{}
	for i, tc := range tests {
		pages["/"+string(rune('a'+i))] = "<!doctype html><body>" + tc.html
	}
	srv := browsertest.Serve(t, browsertest.Pages(pages))
	b := snapshot.SharedBrowsers.Launch(t)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ctx := open(t, b, srv+"/"+string(rune('a'+i)))
			got := snap(t, ctx, snapshot.NewTab(p), snapshot.Options{Interactive: true})
			if got.Text != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got.Text, tc.want)
			}
			full := snap(t, ctx, snapshot.NewTab(p), snapshot.Options{})
			if strings.Contains(full.Text, "beside=") || strings.Contains(full.Text, "column=") || strings.Contains(full.Text, "title=") || strings.Contains(full.Text, "class=") {
				t.Errorf("a full snapshot shows the text itself, got:\n%s", full.Text)
			}
		})
	}
}
