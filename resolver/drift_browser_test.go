package resolver_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/resolver"
)

// driftPage holds what the locator engine and the snapshot once computed
// apart, each its own way (issue 23); Chrome's names, in comments, decide.
const driftPage = `<!doctype html><title>drift</title>
<style>.s::before { content: "Sa" "ve" } .a::before { content: "★" / "Starred" } .i::before { content: "Icon" }
.hb::before { content: "Debian" } .hide::before { display: none } .vh::after { content: " (new)"; visibility: hidden }</style>
<button class=s></button>
<button class="hb hide">Debian</button>
<button class=vh>Fresh</button>
<button class=a></button>
<button class=i>text</button>
<input type=" color" aria-label=Spaced>
<span id=lo>Light</span><div id=host></div>
<script>
document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<input aria-labelledby=lo>';
</script>`

// What a locator matches and what a snapshot shows come from one page
// module: generated content is concatenated as Chrome does ("Sa" "ve" is
// "Save", an alternative text after a slash replaces the content, an
// inline ::before is glued to the text), so a regular expression over the
// whole name finds the element, a hidden pseudo-element gives no text; an input's type is not trimmed (Chrome
// makes type=" color" a text box); an ID reference stays in its own tree.
func TestOneModuleForLocatorsAndSnapshotsInChromium(t *testing.T) {
	b := browsers.Launch(t)
	p, ctx := tab0(t, b, browsertest.Serve(t, browsertest.Pages(map[string]string{"/": driftPage}))+"/")
	r := resolver.New(p, nil)
	for target, want := range map[string]int{
		`role=button[name=/^Save$/]`:       1, // Chrome: "Save"
		`role=button[name=/^Starred$/]`:    1, // Chrome: "Starred"
		`role=button[name=/^Icontext$/]`:   1, // Chrome: "Icontext"
		`role=textbox[name="Spaced"]`:      1, // Chrome: textbox "Spaced"
		`role=ColorWell[name="Spaced"]`:    0,
		`label=Light`:                      0, // Chrome: the shadow input has no name (Playwright's getByLabel agrees)
		`role=textbox[name="Light"]`:       0,
		`role=button[name="Save"s]`:        1,
		`role=button[name=/Sa ve/]`:        0,
		`role=button[name=/^Icon text$/]`:  0,
		`role=button[name=/^★ Starred$/]`:  0,
		`role=button[name=/^Debian$/]`:     1, // Chrome: "Debian" (a hidden ::before is not rendered; Cockpit's login)
		`role=button[name=/^Fresh$/]`:      1, // Chrome: "Fresh"
		`role=button[name=/DebianDebian/]`: 0,
	} {
		n, err := r.Count(ctx, target)
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		if n != want {
			t.Errorf("%s: got %d, want %d", target, n, want)
		}
	}
}

// realPagesDrift holds what real pages showed the snapshot naming apart
// from Chrome, and so apart from what a role locator finds (4 December
// 2026: Python's Sphinx documentation and DokuWiki): white space at the
// edge of an inline child, a th beside a td in a thead, a container's
// content inside the name around it, a DPUB role.
const realPagesDrift = `<!doctype html><title>real pages</title>
<a href="/io"><span class="section-number">7. </span>Input and Output</a>
<button><span><b>Save </b><i>all</i></span>!</button>
<table><thead><tr><td>   </td><th>Heading 1</th><th>Heading 2</th></tr></thead>
<tbody><tr><th>Heading 3</th><td>Row 1</td><td>Col 3</td></tr></tbody></table>
<ul role=tree><li role=treeitem tabindex=0><img alt="-" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><a href="/r">[root]</a>
<ul role=group><li role=treeitem tabindex=0><img alt="+" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><a href="/w">wiki</a></li></ul></li></ul>
<div role=menu><div role=menuitem tabindex=0>File <div role=menu><div role=menuitem tabindex=0>Open</div></div></div></div>
<p>Text<a href="#fn1" id=r1 role=doc-noteref>[1]</a>.</p>
<aside role=doc-footnote id=fn1><a href="#r1" role=doc-backlink>1</a> The note.</aside>
<p><input aria-label=Released><a href="#">Today</a> | <a href="#" id=calendarlink0><span class=date-icon title="Choose a Date"></span></a></p>`

// iconFontsPage is Jupyter's notebook toolbar and file list (4 December
// 2026): buttons drawn with an icon font's private-use glyphs, named by
// their tooltips; Chrome names them "\uf0c7" (aria.Shown).
const iconFontsPage = `<!doctype html><title>icon fonts</title>
<style>.fa::before{font-family:monospace} .fa-save::before{content:"\f0c7"} .fa-plus::before{content:"\f067"}
.fa-folder::before{content:"\f07b"} .fa-play::before{content:"\f04b"}</style>
<button title="Save and Checkpoint"><i class="fa fa-save"></i></button>
<button title="insert cell below"><i class="fa fa-plus"></i></button>
<button title="run cell, select below"><i class="fa fa-play"></i><span> Run</span></button>
<a href="/tree"><i class="fa fa-folder"></i> Home</a>
<a href="/f"><i class="fa fa-folder" title="Folder"></i></a>
<button>&#xf04b;&#x200b;Go</button>`

// Every line of a snapshot with a role, a name and a ref is found by the
// role locator with that exact name (role=R[name="N"s]): what a snapshot
// shows is what a locator matches, on the pages where the two once drifted.
func TestEverySnapshotLineIsFoundByItsRoleAndNameInChromium(t *testing.T) {
	b := browsers.Launch(t)
	for name, pg := range map[string]struct {
		html  string
		lines int      // how many named lines with a ref the page has
		want  []string // lines the snapshot has
	}{
		"drift":      {html: driftPage, lines: 6},
		"real pages": {html: realPagesDrift, lines: 13, want: []string{`link "Choose a Date" @`}},
		"icon fonts": {html: iconFontsPage, lines: 6, want: []string{
			`button "Save and Checkpoint" @`, `button "insert cell below" @`, `button "Run" @`,
			`link "Home" @`, `link "Folder" @`, `button "Go" @`}},
	} {
		t.Run(name, func(t *testing.T) {
			page := pg.html
			p, ctx := tab0(t, b, browsertest.Serve(t, browsertest.Pages(map[string]string{"/": page}))+"/")
			st := snapshot.NewTab(p)
			snap, err := st.Snapshot(ctx, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range pg.want {
				if !strings.Contains(snap.Text, w) {
					t.Errorf("no line %q in the snapshot:\n%s", w, snap.Text)
				}
			}
			r := resolver.New(p, st)
			checked := 0
			for _, e := range snap.Entries {
				if e.Ref == "" || e.Name == "" || e.Role == "generic" {
					continue
				}
				ref, err := st.Lookup(ctx, "@"+e.Ref)
				if err != nil {
					t.Fatalf("lookup @%s: %v", e.Ref, err)
				}
				target := "role=" + e.Role + "[name=" + strconv.Quote(e.Name) + "s]"
				matches, err := r.All(ctx, target)
				if err != nil {
					t.Errorf("%s: %v", target, err)
					continue
				}
				found := false
				for _, m := range matches {
					found = found || m.BackendNodeID == ref.BackendNodeID
				}
				if !found {
					t.Errorf("%s: %d matches, none is @%s, which the snapshot shows as %s %q", target, len(matches), e.Ref, e.Role, e.Name)
				}
				checked++
			}
			if checked != pg.lines {
				t.Errorf("checked %d lines, want %d (every named line with a ref):\n%s", checked, pg.lines, snap.Text)
			}
		})
	}
}

// rowsPage is a form laid out in a table (Adminer's login) and a data
// table whose rows differ only in their text (Adminer's rows), a row longer
// than the snapshot shows, and a grid's row (which Chrome names itself).
const rowsPage = `<!doctype html><title>rows</title>
<form><table>
<tr><th>Username</th><td><input name=u></td></tr>
<tr><th>Password</th><td><input type=password name=p value="hunter2secret"></td></tr>
</table></form>
<table>
<tr><th>edit</th><th>id</th><th>name</th></tr>
<tr><td><a href="#1">edit</a></td><td>1</td><td>Customer 1</td></tr>
<tr><td><a href="#2">edit</a></td><td>2</td><td>Customer 2</td></tr>
<tr><td><a href="#3">edit</a></td><td>3</td><td>` + "Customer 3 with a very long note that goes on and on past the hundred bytes an interactive snapshot shows" + `</td></tr>
</table>
<div role=grid><div role=row><div role=gridcell><button>Open</button></div><div role=gridcell>Grid row</div></div></div>`

// An interactive-only snapshot names each row it shows with the name a
// role locator matches: role=row[name="N"s] finds the row of every
// `row "N"` line, and a name cut short (…) is still found by what it
// shows. A password in a row shows as bullets, never as its value.
// (Rows whose fields' beside texts and values say their names are left
// out: their fields stand in their place.)
func TestInteractiveRowNamesAreTheLocatorsInChromium(t *testing.T) {
	b := browsers.Launch(t)
	p, ctx := tab0(t, b, browsertest.Serve(t, browsertest.Pages(map[string]string{"/": rowsPage}))+"/")
	st := snapshot.NewTab(p)
	snap, err := st.Snapshot(ctx, snapshot.Options{Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(snap.Text, "hunter2") {
		t.Fatalf("the password's value is in the snapshot:\n%s", snap.Text)
	}
	r := resolver.New(p, st)
	var names []string
	for _, line := range strings.Split(snap.Text, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "row ")
		if !ok {
			continue
		}
		name, err := strconv.Unquote(rest)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		names = append(names, name)
		target := "role=row[name=" + strconv.Quote(name) + "s]"
		if cut, ok := strings.CutSuffix(name, "…"); ok {
			target = "role=row[name=" + strconv.Quote(cut) + "]"
		}
		n, err := r.Count(ctx, target)
		if err != nil || n != 1 {
			t.Errorf("%s: %d matches (%v), want the row the snapshot names", target, n, err)
		}
	}
	// A row step in the middle of a chain tests the same name: its cells
	// are apart ("edit 1 Customer 1" holds no "1Customer").
	for target, want := range map[string]int{
		`role=row[name="1 Customer"] >> role=link`:         1,
		`role=row[name="1Customer"] >> role=link`:          0,
		`role=row[name="edit 1 Customer 1"s] >> role=link`: 1,
		// A row the snapshot leaves out, its field's beside text and
		// value saying it (textbox [beside="Password"] @2: ••••••••), has
		// the same name: a password is its bullets there too.
		`role=row[name="Password ••••••••"s] >> role=textbox`: 1,
	} {
		if n, err := r.Count(ctx, target); err != nil || n != want {
			t.Errorf("%s: %d matches (%v), want %d", target, n, err, want)
		}
	}
	want := []string{"edit 1 Customer 1", "edit 2 Customer 2",
		"edit 3 Customer 3 with a very long note that goes on and on past the hundred bytes an interactive sn…", "Open Grid row"}
	if !slices.Equal(names, want) {
		t.Errorf("got rows %q, want %q (the header row, with nothing to act on, is not shown; nor are the rows of "+
			"Username and Password, which their fields' beside texts say):\n%s", names, want, snap.Text)
	}
	if !strings.Contains(snap.Text, `textbox [beside="Password"] @2: ••••••••`) {
		t.Errorf("want the password field with its beside text and bullets:\n%s", snap.Text)
	}
}
