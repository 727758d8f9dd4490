package actions_test

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/cdpcount"
	"github.com/egohost/egohost/resolver"
)

const formPage = `
<form id=form action="/done" onsubmit="log('submit')">
<input id=name name=name value="old" oninput="log('input ' + this.value)" onchange="log('change ' + this.value)">
<input id=email name=email type=email value="a@b.c">
<label>Nickname <input id=nick></label>
<input id=num type=number>
<input id=when type=date>
<input id=ro readonly value="fixed">
<input id=off disabled>
<input id=box type=checkbox onchange="log('box ' + this.checked)">
<input id=never type=checkbox onclick="return false">
<input type=radio name=r id=r1 value=1> <input type=radio name=r id=r2 value=2>
<div id=sw role=switch aria-checked=false tabindex=0 onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') === 'true' ? 'false' : 'true')">switch</div>
<textarea id=area>line</textarea>
<div id=ce contenteditable oninput="log('ce ' + event.inputType)">old text</div>
<div id=plain>not editable</div>
<label for=color>Colour</label>
<select id=color onchange="log('select ' + this.value)" oninput="log('select input')">
  <option value=r>Red</option><option value=g>Green</option><option value=b>Blue</option><option value=x disabled>Off</option>
</select>
<select id=many multiple><option>one</option><option>two</option><option>three</option></select>
<input id=file type=file onchange="log('file ' + [...this.files].map(f => f.name).join(','))">
<input id=files type=file multiple>
<button id=submit>Send</button>
</form>`

func TestFill(t *testing.T) {
	tb := open(t, map[string]string{"/": html(formPage), "/done": html("done")}, "/")
	res := tb.ok(tb.r.Fill(tb.ctx, "#name", "Ada Lovelace", actions.FillOptions{}))
	if res.Value == nil || *res.Value != "Ada Lovelace" {
		t.Errorf("value: got %v, want Ada Lovelace", res.Value)
	}
	// One trusted input event, as typing fires; change comes when the
	// field loses focus, as after typing.
	tb.want("window.events", `["input Ada Lovelace"]`)
	tb.ok(tb.r.Focus(tb.ctx, "#area", actions.ActOptions{}))
	tb.want("window.events", `["input Ada Lovelace","change Ada Lovelace"]`)

	tb.ok(tb.r.Fill(tb.ctx, "#name", " and Babbage", actions.FillOptions{Append: true}))
	tb.want("document.getElementById('name').value", `"Ada Lovelace and Babbage"`)
	tb.ok(tb.r.Fill(tb.ctx, "#name", "", actions.FillOptions{}))
	tb.want("document.getElementById('name').value", `""`)
	tb.ok(tb.r.Fill(tb.ctx, "#email", "x@y.z", actions.FillOptions{}))
	tb.want("document.getElementById('email').value", `"x@y.z"`)
	tb.ok(tb.r.Fill(tb.ctx, "#email", ".org", actions.FillOptions{Append: true}))
	tb.want("document.getElementById('email').value", `"x@y.z.org"`)
	tb.ok(tb.r.Fill(tb.ctx, "#num", "42", actions.FillOptions{}))
	tb.want("document.getElementById('num').value", `"42"`)
	tb.ok(tb.r.Fill(tb.ctx, "#when", "2026-11-30", actions.FillOptions{}))
	tb.want("document.getElementById('when').value", `"2026-11-30"`)
	tb.ok(tb.r.Fill(tb.ctx, "#area", "two\nlines", actions.FillOptions{}))
	tb.want("document.getElementById('area').value", `"two\nlines"`)
	tb.eval("window.events = []")
	tb.ok(tb.r.Fill(tb.ctx, "#ce", "new text", actions.FillOptions{}))
	tb.want("document.getElementById('ce').innerText", `"new text"`)
	tb.want("window.events", `["ce insertText"]`)
	tb.ok(tb.r.Fill(tb.ctx, "#ce", "!", actions.FillOptions{Append: true}))
	tb.want("document.getElementById('ce').innerText", `"new text!"`)
	tb.ok(tb.r.Fill(tb.ctx, "label=Nickname", "Ada", actions.FillOptions{}))
	tb.want("document.getElementById('nick').value", `"Ada"`)

	short := actions.FillOptions{ActOptions: actions.ActOptions{Timeout: 1500 * time.Millisecond}}
	for _, c := range []struct {
		target string
		reason actions.Reason
	}{{"#ro", actions.NotEditable}, {"#off", actions.Disabled}} {
		_, err := tb.r.Fill(tb.ctx, c.target, "x", short)
		var na *actions.NotActionableError
		if !errors.As(err, &na) || na.Reason != c.reason {
			t.Errorf("fill %s: got %v, want %s", c.target, err, c.reason)
		}
	}
	for _, target := range []string{"#plain", "#box", "#color"} {
		if _, err := tb.r.Fill(tb.ctx, target, "x", short); !errors.Is(err, actions.ErrUnsupported) {
			t.Errorf("fill %s: got %v, want ErrUnsupported", target, err)
		}
	}
	if _, err := tb.r.Fill(tb.ctx, "#num", "abc", short); !errors.Is(err, actions.ErrUnsupported) {
		t.Errorf("fill a number with text: got %v, want ErrUnsupported", err)
	}
	// A terminal's key input (xterm.js, as Cockpit and Jupyter ship it):
	// the text would be dropped while the textarea showed it as filled.
	tb.eval(`document.body.insertAdjacentHTML("beforeend", '<textarea id=term class="xterm-helper-textarea" aria-label="Terminal input"></textarea>')`)
	if _, err := tb.r.Fill(tb.ctx, "#term", "ls", short); !errors.Is(err, actions.ErrUnsupported) || !strings.Contains(err.Error(), "key by key") {
		t.Errorf("fill a terminal's input: got %v, want ErrUnsupported saying to type", err)
	}
	tb.want("document.getElementById('term').value", `""`)

	// A password's value never comes back: its bullets do (at most 8, as
	// the snapshot shows them), after fill and after type alike.
	tb.eval(`document.body.insertAdjacentHTML("beforeend", '<input id=pw type=password>')`)
	res = tb.ok(tb.r.Fill(tb.ctx, "#pw", "hunter2-secret", actions.FillOptions{}))
	if res.Value == nil || *res.Value != "••••••••" {
		t.Errorf("fill a password: got the value %v, want 8 bullets", res.Value)
	}
	tb.want("document.getElementById('pw').value", `"hunter2-secret"`)
	if res.FocusMovedTo != "" {
		t.Errorf("fill a password: got the focus moved to %q, want it kept", res.FocusMovedTo)
	}
	res = tb.ok(tb.r.Type(tb.ctx, "!", actions.PressOptions{Target: "#pw"}))
	if res.Value == nil || strings.Trim(*res.Value, "•") != "" {
		t.Errorf("type into a password: got the value %v, want bullets", res.Value)
	}
}

// TestFillSaysWhereThePageMovedTheFocus: a page that hands the focus on
// when a field takes it (Roundcube's hidden To text area, to its
// recipient widget's input) gets the text where the focus is, as typing
// would; the result says so, and the element's own value is as it was.
func TestFillSaysWhereThePageMovedTheFocus(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<textarea id=to aria-label=To onfocus="document.getElementById('widget').focus()"></textarea>` +
		`<input id=widget role=combobox type=text>`)}, "/")
	res := tb.ok(tb.r.Fill(tb.ctx, "#to", "boss@example.test", actions.FillOptions{}))
	if res.FocusMovedTo != `<input id="widget" role="combobox" type="text">` {
		t.Errorf("got the focus moved to %q, want the widget's input", res.FocusMovedTo)
	}
	if res.Value == nil || *res.Value != "" {
		t.Errorf("got the text area's value %v, want it empty", res.Value)
	}
	tb.want("document.getElementById('widget').value", `"boss@example.test"`)
}

func TestTypeAndPress(t *testing.T) {
	tb := open(t, map[string]string{"/": html(formPage), "/done": html("<title>done</title>")}, "/")
	tb.ok(tb.r.Fill(tb.ctx, "#name", "", actions.FillOptions{}))
	tb.eval("window.events = []")
	res := tb.ok(tb.r.Type(tb.ctx, "Hi! é", actions.PressOptions{Target: "#name"}))
	if res.Value == nil || *res.Value != "Hi! é" {
		t.Errorf("value: got %v, want %q", res.Value, "Hi! é")
	}
	tb.want("window.events.length", "5")
	// Select all and type over it.
	tb.ok(tb.r.Press(tb.ctx, "ControlOrMeta+a", actions.PressOptions{}))
	tb.ok(tb.r.Type(tb.ctx, "X", actions.PressOptions{}))
	tb.want("document.getElementById('name').value", `"X"`)
	tb.ok(tb.r.Press(tb.ctx, "Backspace", actions.PressOptions{}))
	tb.want("document.getElementById('name').value", `""`)
	tb.ok(tb.r.Press(tb.ctx, "Shift+a", actions.PressOptions{}))
	tb.ok(tb.r.Press(tb.ctx, "Shift++", actions.PressOptions{}))
	tb.want("document.getElementById('name').value", `"A+"`)
	// Tab and Shift+Tab move the focus.
	tb.ok(tb.r.Press(tb.ctx, "Tab", actions.PressOptions{}))
	tb.want("document.activeElement.id", `"email"`)
	tb.ok(tb.r.Press(tb.ctx, "Shift+Tab", actions.PressOptions{}))
	tb.want("document.activeElement.id", `"name"`)
	tb.ok(tb.r.Press(tb.ctx, "Control+a", actions.PressOptions{}))
	tb.ok(tb.r.Press(tb.ctx, "Delete", actions.PressOptions{}))
	tb.want("document.getElementById('name').value", `""`)
	// Enter submits the form: the press settles on the navigation.
	res = tb.ok(tb.r.Press(tb.ctx, "Enter", actions.PressOptions{Target: "#name"}))
	if !res.Settled.Navigated {
		t.Errorf("settled: got %+v, want the form's navigation", res.Settled)
	}
	tb.want("document.title", `"done"`)
	if _, err := tb.r.Press(tb.ctx, "Control+Nope", actions.PressOptions{}); err == nil {
		t.Error("unknown key: no error")
	}
}

func TestSelect(t *testing.T) {
	tb := open(t, map[string]string{"/": html(formPage)}, "/")
	res := tb.ok(tb.r.Select(tb.ctx, "#color", actions.SelectOptions{Values: []string{"b"}}))
	if len(res.Selected) != 1 || res.Selected[0] != "b" {
		t.Errorf("selected: got %v, want [b]", res.Selected)
	}
	if fmt.Sprint(res.SelectedLabels) != "[Blue]" {
		t.Errorf("selected labels: got %v, want [Blue] (the label of value b)", res.SelectedLabels)
	}
	tb.want("window.events", `["select input","select b"]`)
	tb.ok(tb.r.Select(tb.ctx, "label=Colour", actions.SelectOptions{Values: []string{"Green"}}))
	tb.want("document.getElementById('color').value", `"g"`)
	tb.ok(tb.r.Select(tb.ctx, "#color", actions.SelectOptions{Labels: []string{"Red"}}))
	tb.want("document.getElementById('color').value", `"r"`)
	tb.ok(tb.r.Select(tb.ctx, "#color", actions.SelectOptions{Indexes: []int{2}}))
	tb.want("document.getElementById('color').value", `"b"`)
	res = tb.ok(tb.r.Select(tb.ctx, "#many", actions.SelectOptions{Values: []string{"one", "three"}}))
	if len(res.Selected) != 2 {
		t.Errorf("multiple: got %v, want [one three]", res.Selected)
	}
	if res.SelectedLabels != nil {
		t.Errorf("labels that are their values: got %v, want none", res.SelectedLabels)
	}
	short := actions.ActOptions{Timeout: 1500 * time.Millisecond}
	_, err := tb.r.Select(tb.ctx, "#color", actions.SelectOptions{ActOptions: short, Values: []string{"purple"}})
	var na *actions.NotActionableError
	if !errors.As(err, &na) || na.Reason != actions.NoOption || !strings.Contains(err.Error(), `no option matches: "purple" (options: r (Red), g (Green)`) {
		t.Errorf("missing option: got %v, want no matching option, naming the options", err)
	}
	// An autocomplete's hidden <select> (select2, Django's autocomplete
	// fields) holds no options until one types in the widget.
	tb.eval(`document.body.insertAdjacentHTML("beforeend", '<select id=auto aria-hidden=true></select>')`)
	_, err = tb.r.Select(tb.ctx, "#auto", actions.SelectOptions{ActOptions: short, Values: []string{"Games"}})
	if !errors.As(err, &na) || na.Reason != actions.NoOption || !strings.Contains(err.Error(), "has no options") || !strings.Contains(err.Error(), "select in that combobox") {
		t.Errorf("a <select> with no options: got %v, want no matching option saying it has none and where to select", err)
	}
	if _, err := tb.r.Select(tb.ctx, "#color", actions.SelectOptions{ActOptions: short, Values: []string{"r", "g"}}); !errors.Is(err, actions.ErrUnsupported) {
		t.Errorf("two options in a single select: got %v, want ErrUnsupported", err)
	}
	if _, err := tb.r.Select(tb.ctx, "#name", actions.SelectOptions{ActOptions: short, Values: []string{"r"}}); !errors.Is(err, actions.ErrUnsupported) || !strings.Contains(fmt.Sprint(err), "click the element, then the entry") {
		t.Errorf("select on an input: got %v, want ErrUnsupported saying what to do instead", err)
	}
	// Options that arrive late are waited for.
	tb.eval(`setTimeout(() => document.getElementById('color').add(new Option('Late', 'late')), 300)`)
	tb.ok(tb.r.Select(tb.ctx, "#color", actions.SelectOptions{Values: []string{"late"}}))
	tb.want("document.getElementById('color').value", `"late"`)
}

func TestCheck(t *testing.T) {
	tb := open(t, map[string]string{"/": html(formPage)}, "/")
	res := tb.ok(tb.r.SetChecked(tb.ctx, "#box", true, actions.ActOptions{}))
	if res.Checked == nil || !*res.Checked || res.Point == nil {
		t.Errorf("check: got checked %v at %v, want true after a click", res.Checked, res.Point)
	}
	tb.want("window.events", `["box true"]`)
	// Already checked: no click.
	res = tb.ok(tb.r.SetChecked(tb.ctx, "#box", true, actions.ActOptions{}))
	if res.Point != nil {
		t.Errorf("check again: clicked at %v, want no click", res.Point)
	}
	tb.ok(tb.r.SetChecked(tb.ctx, "#box", false, actions.ActOptions{}))
	tb.want("window.events", `["box true","box false"]`)
	tb.ok(tb.r.SetChecked(tb.ctx, "#r2", true, actions.ActOptions{}))
	tb.want("document.getElementById('r2').checked", "true")
	tb.ok(tb.r.SetChecked(tb.ctx, "#sw", true, actions.ActOptions{}))
	tb.want("document.getElementById('sw').getAttribute('aria-checked')", `"true"`)
	if _, err := tb.r.SetChecked(tb.ctx, "#r2", false, actions.ActOptions{}); !errors.Is(err, actions.ErrUnsupported) {
		t.Errorf("uncheck a radio: got %v, want ErrUnsupported", err)
	}
	_, err := tb.r.SetChecked(tb.ctx, "#never", true, actions.ActOptions{})
	if !errors.Is(err, actions.ErrUnsupported) {
		t.Fatalf("a checkbox whose click is cancelled: got %v, want ErrUnsupported", err)
	}
	contains(t, "error", err.Error(), "did not change its state")
	if _, err := tb.r.SetChecked(tb.ctx, "#plain", true, actions.ActOptions{}); !errors.Is(err, actions.ErrUnsupported) {
		t.Errorf("check a div: got %v, want ErrUnsupported", err)
	}
}

// A layout shift between the press and the release (a page that inserts a
// banner above the form as the press comes, once): the press lands on the
// checkbox, the release beside it, and the page sees no click of it. The
// guard saw where the release went, so check clicks again, not "did not
// change its state" (e2e's script test met this under load: the page's
// paragraph came 300 ms after its load, between a press and its release).
func TestCheckAgainWhenTheReleaseLandsElsewhere(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<label style="display:block;margin-top:20px"><input type=checkbox id=terms onchange="log('terms ' + this.checked)"> I accept</label>
<script>
document.getElementById('terms').addEventListener('mousedown', () => {
  if (window.shifted) return;
  window.shifted = true;
  const b = document.createElement('div');
  b.style.height = '200px';
  b.textContent = 'banner';
  document.body.prepend(b);
}, {once: true});
</script>`)}, "/")
	res := tb.ok(tb.r.SetChecked(tb.ctx, "#terms", true, actions.ActOptions{}))
	tb.want("window.events", `["terms true"]`)
	tb.want("window.shifted", "true")
	if res.Waited.Attempts < 2 {
		t.Errorf("attempts: got %d, want a second click after the split one", res.Waited.Attempts)
	}
}

// The same layout shift under a click: the press lands on the button, the
// release on the banner that took its place, and the page sees no click
// of it. Click does not press again (a page may act on the press), so its
// result says where the release went; a click whose press and release
// both land on the button says nothing of it.
func TestClickSaysWhereASplitReleaseLanded(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<button id=go style="margin-top:20px" onclick="log('go clicked')">Go</button>
<script>
document.getElementById('go').addEventListener('mousedown', () => {
  if (window.shift) {
    window.shift = false;
    const b = document.createElement('div');
    b.id = 'banner';
    b.style.height = '200px';
    b.textContent = 'banner';
    document.body.prepend(b);
  }
});
</script>`)}, "/")
	res := tb.ok(tb.r.Click(tb.ctx, "#go", actions.ClickOptions{}))
	if res.ReleasedOn != "" {
		t.Errorf("a whole click: got the release on %q, want it on the button (no ReleasedOn)", res.ReleasedOn)
	}
	tb.want("window.events", `["go clicked"]`)
	tb.want("window.shift = true", "true")
	res = tb.ok(tb.r.Click(tb.ctx, "#go", actions.ClickOptions{}))
	if !strings.Contains(res.ReleasedOn, `id="banner"`) {
		t.Errorf("a split click: got ReleasedOn %q, want the banner", res.ReleasedOn)
	}
	tb.want("window.events", `["go clicked"]`) // no second click, and none made again
	if res.Waited.Attempts != 1 {
		t.Errorf("attempts: got %d, want 1 (a click is not made again)", res.Waited.Attempts)
	}
}

func TestUploadFocusScroll(t *testing.T) {
	tb := open(t, map[string]string{"/": html(formPage + `<div id=tall style="height:4000px"></div><p id=end>end</p>`)}, "/")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte("hello"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tb.ok(tb.r.SetFiles(tb.ctx, "#file", []string{a}, actions.ActOptions{}))
	tb.want("window.events", `["file a.txt"]`)
	tb.ok(tb.r.SetFiles(tb.ctx, "#files", []string{a, b}, actions.ActOptions{}))
	tb.want("document.getElementById('files').files.length", "2")
	if _, err := tb.r.SetFiles(tb.ctx, "#file", []string{a, b}, actions.ActOptions{}); !errors.Is(err, actions.ErrUnsupported) {
		t.Errorf("two files in a single input: got %v, want ErrUnsupported", err)
	}
	if _, err := tb.r.SetFiles(tb.ctx, "#name", []string{a}, actions.ActOptions{}); !errors.Is(err, actions.ErrUnsupported) {
		t.Errorf("upload to a text input: got %v, want ErrUnsupported", err)
	}

	tb.ok(tb.r.Focus(tb.ctx, "#area", actions.ActOptions{}))
	tb.want("document.activeElement.id", `"area"`)
	if _, err := tb.r.Focus(tb.ctx, "#plain", actions.ActOptions{}); !errors.Is(err, actions.ErrUnsupported) {
		t.Errorf("focus a plain div: got %v, want ErrUnsupported", err)
	}

	res := tb.ok(tb.r.Scroll(tb.ctx, actions.ScrollOptions{Target: "#end"}))
	if res.Scroll == nil || res.Scroll.Y < 3000 {
		t.Errorf("scroll into view: got %v, want y > 3000", res.Scroll)
	}
	tb.eval("window.scrollTo(0, 0)")
	res = tb.ok(tb.r.Scroll(tb.ctx, actions.ScrollOptions{DY: 500}))
	if res.Scroll == nil || res.Scroll.Y < 100 {
		t.Errorf("scroll by 500: got %v, want it scrolled", res.Scroll)
	}
	tb.want("scrollY > 100", "true")
}

// TestAWaitThatEndsInsideAStep: when an action's wait ends inside a step
// it retries (here the focus, which the page moves away at once the first
// time and after 2.5 s of work the second), the error is the timeout with
// the reason of the attempt before, as when the wait ends in the checks,
// not the cut CDP call's bare "context deadline exceeded" (a <select>
// waiting for its options met that under load). The 1.5 s wait ends
// inside the second focus unless the two attempts' checks take 1.4 s.
func TestAWaitThatEndsInsideAStep(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<input id=slow onfocus="if (++window.focused > 1) { const end = performance.now() + 2500; while (performance.now() < end) {} } this.blur()"><script>window.focused = 0</script>`)}, "/")
	_, err := tb.r.Focus(tb.ctx, "#slow", actions.ActOptions{Timeout: 1500 * time.Millisecond})
	var te *actions.TimeoutError
	var na *actions.NotActionableError
	if !errors.As(err, &te) || te.Attempts != 2 || !errors.As(err, &na) || na.Reason != actions.NotFocused {
		t.Errorf("got %v, want a timeout in the second attempt, the first having found the focus elsewhere", err)
	}
}

// A fill's read-back of the value rides on the settle's call on the
// element (one round trip less); without a settle it is a call of its
// own. Both read the value as the page's handlers left it.
func TestFillReadsTheValueInTheSettle(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<input id=up oninput="this.value = this.value.toUpperCase()">`)}, "/")
	ctx := tb.ctx
	p := tb.p
	ct := cdpcount.New(safeTab{p})
	res := resolver.New(ct, nil)
	r := actions.New(ct, actions.FindCallers(res.Object, res.ObjectCall), actions.Options{Transient: resolver.IsTransient})
	if _, err := r.Fill(ctx, "#up", "warm", actions.FillOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		settle    *actions.Settle
		wantCalls int // Runtime.callFunctionOn: the settle's, or the read-back's (the checks and fill.js ride on the find)
	}{
		{"default settle", nil, 1},
		{"settle off", &actions.Settle{Off: true}, 1},
	} {
		ct.Take()
		got, err := r.Fill(ctx, "#up", "ada", actions.FillOptions{ActOptions: actions.ActOptions{Settle: tt.settle}})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got.Value == nil || *got.Value != "ADA" {
			t.Errorf("%s: value: got %v, want ADA", tt.name, got.Value)
		}
		if n := ct.Take()[cdpruntime.CommandCallFunctionOn]; n != tt.wantCalls {
			t.Errorf("%s: Runtime.callFunctionOn calls: got %d, want %d", tt.name, n, tt.wantCalls)
		}
	}
}

// A key pressed in a field reports the field's value as the key left it,
// also when the key submits the form: the value is read at once, not after
// the settle has followed the navigation (the field goes with its page).
// The next page answers slowly, so that "at once" is before it commits.
func TestPressThatSubmitsReportsTheValue(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/done", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(1500 * time.Millisecond):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, html("<title>done</title>"))
	})
	mux.Handle("/", browsertest.Pages(map[string]string{"/": html(formPage)}))
	tb := openWith(t, mux, "/", actions.Options{})
	res := tb.ok(tb.r.Press(tb.ctx, "Enter", actions.PressOptions{Target: "#name"}))
	if !res.Settled.Navigated {
		t.Fatalf("Enter in the form: settled %+v, want a navigation (the form submitted)", res.Settled)
	}
	if res.Value == nil || *res.Value != "old" {
		t.Errorf("value: got %v, want old", res.Value)
	}
}

// A goto asks nothing of the current document (Page.navigate names the new
// one), and an evaluation needs only the dialog events: neither sends the
// lifecycle events of the current document again nor reads the frame tree.
// The load wait and the tab's URL and title are as before.
func TestGotoAndEvalAskNothingOfTheCurrentDocument(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<title>One</title>`), "/two": html(`<title>Two</title>`)}, "/")
	ct := cdpcount.New(safeTab{tb.p})
	res := resolver.New(ct, nil)
	r := actions.New(ct, actions.FindCallers(res.Object, res.ObjectCall), actions.Options{Transient: resolver.IsTransient})
	if _, err := r.Goto(tb.ctx, tb.base+"/", actions.NavOptions{}); err != nil { // the tab's setup
		t.Fatal(err)
	}
	for _, path := range []string{"/two", "/"} {
		ct.Take()
		nav, err := r.Goto(tb.ctx, tb.base+path, actions.NavOptions{NoPrepare: true})
		if err != nil {
			t.Fatal(err)
		}
		if nav.URL != tb.base+path || nav.Reached != actions.LoadLoad {
			t.Errorf("goto %s: got %+v, want its URL, loaded", path, nav)
		}
		got := ct.Take()
		if want := map[string]int{page.CommandNavigate: 1, page.CommandGetNavigationHistory: 1}; !maps.Equal(got, want) {
			t.Errorf("goto %s: got calls %v, want %v", path, got, want)
		}
	}
	if _, err := r.Evaluate(tb.ctx, "document.title", 0); err != nil {
		t.Fatal(err)
	}
	if got, want := ct.Take(), map[string]int{cdpruntime.CommandEvaluate: 1}; !maps.Equal(got, want) {
		t.Errorf("eval: got calls %v, want %v", got, want)
	}
}

// widgetsPage has what sites build instead of a <select>: a combobox
// whose list opens on a click and fills in late (OOUI's dropdown on
// MediaWiki's preferences, React Select), a listbox that is always open, a
// menu button, and a div that is none of them.
const widgetsPage = `<div id=font role=combobox tabindex=0 aria-expanded=false aria-controls=fonts aria-label="Font">Monospaced</div>
<div id=fonts role=listbox hidden></div>
<div role=listbox aria-label=Colour><div role=option onclick="colour.textContent = this.textContent">Red</div><div role=option onclick="colour.textContent = this.textContent">Blue</div></div>
<span id=colour></span>
<button id=sort aria-haspopup=menu onclick="sorts.hidden = false">Sort</button>
<div id=sorts role=menu hidden><div role=menuitem onclick="sorted.textContent = 'by ' + this.textContent">Name</div><div role=menuitem>Date</div></div>
<span id=sorted></span>
<div role=option>Serif</div>
<div id=plain>Plain</div>
<input id=city role=combobox aria-label=City aria-controls=cities aria-autocomplete=list><div id=cities role=listbox></div>
<script>
city.oninput = () => {
  cities.textContent = '';
  for (const c of ['Paris', 'Parma', 'Perth'].filter((c) => c.toLowerCase().startsWith(city.value.toLowerCase().slice(0, 2)))) {
    const o = document.createElement('div');
    o.setAttribute('role', 'option');
    o.textContent = c;
    o.onclick = () => { city.value = c + ', chosen'; cities.textContent = ''; };
    cities.append(o);
  }
};
font.onclick = () => {
  font.setAttribute('aria-expanded', 'true');
  fonts.hidden = false;
  setTimeout(() => {
    for (const f of ['Monospaced', 'Sans-serif', 'Serif']) {
      const o = document.createElement('div');
      o.setAttribute('role', 'option');
      o.textContent = f;
      o.onclick = () => { font.textContent = f; font.setAttribute('aria-expanded', 'false'); fonts.hidden = true; fonts.textContent = ''; };
      fonts.append(o);
    }
  }, 200);
};
</script>`

// Select on a widget that acts as a <select> opens it and clicks the
// entry with that name, in the list it controls (the page's other
// "Serif" option is not taken), waiting for entries that come late.
func TestSelectInAWidget(t *testing.T) {
	tb := open(t, map[string]string{"/": html(widgetsPage)}, "/")
	res := tb.ok(tb.r.Select(tb.ctx, "role=combobox[name=Font]", actions.SelectOptions{Values: []string{"Serif"}}))
	if len(res.Selected) != 1 || res.Selected[0] != "Serif" {
		t.Errorf("selected: got %v, want [Serif]", res.Selected)
	}
	tb.want("font.textContent", `"Serif"`)
	tb.ok(tb.r.Select(tb.ctx, "role=listbox[name=Colour]", actions.SelectOptions{Labels: []string{"Blue"}}))
	tb.want("colour.textContent", `"Blue"`)
	tb.ok(tb.r.Select(tb.ctx, "#sort", actions.SelectOptions{Values: []string{"Name"}}))
	tb.want("sorted.textContent", `"by Name"`)
	// An autocomplete lists its entries as one types.
	tb.ok(tb.r.Select(tb.ctx, "role=combobox[name=City]", actions.SelectOptions{Values: []string{"Parma"}}))
	tb.want("city.value", `"Parma, chosen"`)

	short := actions.ActOptions{Timeout: 1500 * time.Millisecond}
	if _, err := tb.r.Select(tb.ctx, "#plain", actions.SelectOptions{ActOptions: short, Values: []string{"x"}}); !errors.Is(err, actions.ErrUnsupported) {
		t.Errorf("select on a div: got %v, want ErrUnsupported", err)
	}
	if _, err := tb.r.Select(tb.ctx, "role=listbox[name=Colour]", actions.SelectOptions{ActOptions: short, Values: []string{"Red", "Blue"}}); !errors.Is(err, actions.ErrUnsupported) {
		t.Errorf("two entries: got %v, want ErrUnsupported", err)
	}
	if _, err := tb.r.Select(tb.ctx, "role=listbox[name=Colour]", actions.SelectOptions{ActOptions: short, Values: []string{"Green"}}); err == nil || !strings.Contains(err.Error(), `"Green"`) {
		t.Errorf("a missing entry: got %v, want an error that names it", err)
	}
}

// codeMirror5 returns CodeMirror 5's script and style, as bench/'s npm
// install has them (scripts/setup.sh); the test skips without them, and
// fails in CI.
func codeMirror5(t *testing.T) (js, css string) {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "bench", "node_modules", "codemirror", "lib")
	j, err := os.ReadFile(filepath.Join(dir, "codemirror.js"))
	if err == nil {
		var c []byte
		if c, err = os.ReadFile(filepath.Join(dir, "codemirror.css")); err == nil {
			return string(j), string(c)
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CodeMirror 5 is not in bench/node_modules (scripts/setup.sh installs it): %v", err)
	}
	t.Skipf("CodeMirror 5 is not in bench/node_modules (run scripts/setup.sh): %v", err)
	return "", ""
}

// A code editor (CodeMirror 5, as phpMyAdmin's SQL box and Jupyter's
// cells are) reads its hidden textarea and empties it: fill selects the
// editor's text with its own keys and types over it, so the editor holds
// the text and nothing else, and the read-back is the editor's text (the
// textarea's would be ""; Playwright's fill puts the text before what the
// editor held).
func TestFillACodeEditor(t *testing.T) {
	js, css := codeMirror5(t)
	page := html(`<style>` + css + `</style><script>` + js + `</script>
<form><textarea id=sql>SELECT * FROM items WHERE 1</textarea></form>
<script>window.cm = CodeMirror.fromTextArea(document.getElementById('sql'), {lineNumbers: true})</script>`)
	tb := open(t, map[string]string{"/": page}, "/")
	const input = "css=.CodeMirror textarea"
	res := tb.ok(tb.r.Fill(tb.ctx, input, "SELECT name\nFROM items", actions.FillOptions{}))
	tb.want("cm.getValue()", `"SELECT name\nFROM items"`)
	if got := valueText(res); got != "SELECT name\nFROM items" {
		t.Errorf("fill's read-back: got %q, want the editor's text", got)
	}
	res = tb.ok(tb.r.Fill(tb.ctx, input, " WHERE price > 5", actions.FillOptions{Append: true}))
	tb.want("cm.getValue()", `"SELECT name\nFROM items WHERE price > 5"`)
	if got := valueText(res); got != "SELECT name\nFROM items WHERE price > 5" {
		t.Errorf("append's read-back: got %q, want the editor's text", got)
	}
	tb.ok(tb.r.Fill(tb.ctx, input, "", actions.FillOptions{}))
	tb.want("cm.getValue()", `""`)
}

// valueText is an action's read-back, "<none>" when it has none.
func valueText(res *actions.Result) string {
	if res.Value == nil {
		return "<none>"
	}
	return *res.Value
}
