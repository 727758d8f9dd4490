package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/cdperr"
	"github.com/egohost/egohost/internal/engine/locator"
)

// check asks Chrome's accessibility tree about fs[i] for each i in idx: it
// fills in the role and name, and ok: whether the element matches the
// plan's role step (always, for a plan without one).
func (r *Resolver) check(ctx context.Context, pl plan, docs []doc, fs []found, idx []int) error {
	err := parallel(len(idx), func(k int) error {
		f := &fs[idx[k]]
		if f.checked {
			return nil
		}
		n, err := axNode(ctx, docs[f.d].s, f.id)
		if err != nil {
			return err
		}
		f.checked = true
		f.hidden = axHidden(n)
		f.role, f.name = axRoleName(n)
		adopted := !f.hidden && outOfContext(n, f.role, f.pageRole)
		if adopted {
			f.role = f.pageRole
		}
		f.name = locatorName(n, f.role, f.name, f.pageName)
		f.ok = pl.verify == nil || roleOK(n, f.role, f.name, adopted, pl.verify)
		return nil
	})
	if err != nil {
		return err
	}
	if v := pl.verify; v != nil && v.Name != nil && v.Name.Regex {
		return r.checkRegex(ctx, v.Name, docs, fs, idx)
	}
	return nil
}

// contextRoles are the roles Chrome drops from an element outside the
// context ARIA requires of it, where Playwright and the page module keep
// the author's role: an option whose parent is no listbox or group, a
// tree item outside a tree or group. Roundcube's settings sections,
// <table role=listbox><tr role=option> (the implicit <tbody> between),
// are generic to Chrome and options to Playwright and the snapshot.
var contextRoles = map[string]bool{"option": true, "treeitem": true}

// outOfContext reports whether Chrome's role of a match, chrome (of its
// node n), is the fallback of an author's role the page module gives it,
// page, that Chrome dropped for its context (contextRoles): a generic
// element (which Chrome leaves out of its tree when nothing else makes
// it interesting), a table's row, a list item. Then page is its role.
func outOfContext(n *accessibility.Node, chrome, page string) bool {
	if !contextRoles[canonRole(page)] {
		return false
	}
	if n != nil && n.Ignored {
		return true // not hidden (the caller's test): an uninteresting generic
	}
	switch canonRole(chrome) {
	case "generic", "row", "layouttablerow", "listitem":
		return true
	}
	return false
}

// locatorName is a match's name as role locators match it and the
// snapshot shows it, from Chrome's accessibility node n (its role and
// name: role, chrome) and the page module's name (page: jsSpec.Names, ""
// when not asked), where the two differ by rule:
//   - Chrome names a term (<dt>) from its content, and math too; ARIA
//     forbids a term's name and names math only from author attributes
//     (aria-label, aria-labelledby), as Playwright and the page module
//     do: no name.
//   - Chrome leaves a table's rows unnamed; Playwright names every row
//     from its content, and so does the page module (namedFromContent).
//   - Characters that show no text (an icon font's glyphs: aria.Shown)
//     are no part of a name; an element of glyphs alone is named by its
//     tooltip, as the page module names an empty one.
//   - Chrome reads no descendant's tooltip when it names an element from
//     its content; Playwright and the page module do (Django's calendar
//     link, <a><span title="Choose a Date"></span></a>): a control named
//     from its content (namedFromContent) that Chrome leaves unnamed
//     takes the page module's name. (A role ARIA names from content only
//     in recursion, emphasis or a caption, keeps Chrome's no name.)
//   - A control whose labels are all hidden: Chrome leaves their text out
//     and names it "" (the labels still take the place of its
//     placeholder); the page module names it by its placeholder, as the
//     snapshot shows it (Roundcube's login, textbox "Username"): the page
//     module's name (labelledByNothing).
func locatorName(n *accessibility.Node, role, chrome, page string) string {
	switch canonRole(role) {
	case "term":
		return ""
	case "math":
		if namedByContent(n) {
			return ""
		}
	}
	if page != "" && (aria.HasNoText(chrome) || chrome == "" && (namedFromContent[canonRole(role)] || labelledByNothing(n))) {
		return page
	}
	return aria.Shown(chrome)
}

// namedFromContent are the roles that take their name from their content
// and may carry one (accname; ARIA's prohibited-name roles left out).
var namedFromContent = map[string]bool{
	"button": true, "cell": true, "checkbox": true, "columnheader": true, "gridcell": true, "heading": true,
	"link": true, "menuitem": true, "menuitemcheckbox": true, "menuitemradio": true, "option": true,
	"radio": true, "row": true, "rowheader": true, "switch": true, "tab": true, "tooltip": true, "treeitem": true,
}

// labelledByNothing reports whether Chrome's name of n came from its
// <label>s and they gave nothing: hidden labels, whose text Chrome leaves
// out, yet which take the place of the placeholder or title that would
// name it (Roundcube's login: <label for> hidden beside the placeholder
// "Username", which names it to the page module and in the snapshot).
func labelledByNothing(n *accessibility.Node) bool {
	src := nameSource(n)
	return src != nil && (src.NativeSource == accessibility.ValueNativeSourceTypeLabelfor || src.NativeSource == accessibility.ValueNativeSourceTypeLabelwrapped) &&
		valueString(src.Value.Value) == ""
}

// nameSource is the source Chrome's name of n came from: the first that
// gave a value and was not superseded (nil with none).
func nameSource(n *accessibility.Node) *accessibility.ValueSource {
	if n == nil || n.Name == nil {
		return nil
	}
	for _, src := range n.Name.Sources {
		if src.Value != nil && !src.Superseded {
			return src
		}
	}
	return nil
}

// namedByContent reports whether Chrome's name of n came from its
// content: the first of its name's sources that gave a value and was not
// superseded.
func namedByContent(n *accessibility.Node) bool {
	src := nameSource(n)
	return src != nil && src.Type == accessibility.ValueSourceTypeContents
}

// axNode returns the accessibility node of a DOM node (nil when the node
// is gone).
func axNode(ctx context.Context, s cdp.Session, id cdp.BackendNodeID) (*accessibility.Node, error) {
	no := false
	res, err := cdp.Call(ctx, s, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{BackendNodeID: id, FetchRelatives: &no})
	if err != nil {
		if cdperr.NodeGone(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("accessibility node: %w", err)
	}
	for _, n := range res.Nodes {
		if n.BackendDOMNodeID == id {
			return n, nil
		}
	}
	if len(res.Nodes) > 0 {
		return res.Nodes[0], nil
	}
	return nil, nil
}

// axRoleName is a node's role and name ("none" and "" when it is gone or
// hidden from the tree).
func axRoleName(n *accessibility.Node) (string, string) {
	if n == nil || n.Ignored {
		return "none", ""
	}
	return axValue(n.Role), axValue(n.Name)
}

// axHidden says whether Chrome's accessibility tree leaves n out because
// it is hidden: not rendered (display:none), not visible, aria-hidden or
// inert; not an element it finds uninteresting (a plain <div>).
func axHidden(n *accessibility.Node) bool {
	if n == nil || !n.Ignored {
		return false
	}
	for _, p := range n.IgnoredReasons {
		switch p.Name {
		case accessibility.PropertyNameNotRendered, accessibility.PropertyNameNotVisible,
			accessibility.PropertyNameAriaHiddenElement, accessibility.PropertyNameAriaHiddenSubtree,
			accessibility.PropertyNameInertElement, accessibility.PropertyNameInertSubtree:
			return true
		}
	}
	return false
}

func axValue(v *accessibility.Value) string {
	if v == nil {
		return ""
	}
	return valueString(v.Value)
}

// valueString renders an accessibility value: strings as they are, other
// JSON as its text.
func valueString(raw jsonv2.Value) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func prop(n *accessibility.Node, name string) (string, bool) {
	for _, p := range n.Properties {
		if p != nil && string(p.Name) == name && p.Value != nil {
			return valueString(p.Value.Value), true
		}
	}
	return "", false
}

// roleOK reports whether an accessibility node, of role and named name,
// matches a role step (its name is checked here unless it is a regular
// expression). adopted: the role is the page module's, for a node Chrome
// dropped it from (outOfContext), which may be out of Chrome's tree.
func roleOK(n *accessibility.Node, role, name string, adopted bool, want *locator.Role) bool {
	if n == nil {
		return false
	}
	if n.Ignored && !adopted {
		// Hidden from the tree: Chrome no longer says its role; the page's
		// candidate test stands.
		return want.IncludeHidden
	}
	if canonRole(role) != canonRole(want.Role) {
		return false
	}
	if want.Name != nil && !want.Name.Regex {
		if !nameMatches(name, *want.Name) {
			return false
		}
	}
	state := func(name string, s locator.State, absent string) bool {
		if s == locator.Any {
			return true
		}
		v, ok := prop(n, name)
		if !ok {
			v = absent
		}
		return v == s.String()
	}
	if !state("checked", want.Checked, "false") || !state("pressed", want.Pressed, "false") ||
		!state("selected", want.Selected, "false") || !state("expanded", want.Expanded, "") ||
		!state("disabled", want.Disabled, "false") {
		return false
	}
	if want.Level != 0 {
		v, _ := prop(n, "level")
		if l, err := strconv.Atoi(v); err != nil || l != want.Level {
			return false
		}
	}
	return true
}

// nameMatches is Playwright's role-name test: white space normalised,
// case-insensitive substring, or equality when exact.
func nameMatches(name string, t locator.Text) bool {
	n, w := normalizeSpace(name), normalizeSpace(t.Value)
	if t.Exact {
		return n == w
	}
	return strings.Contains(strings.ToUpper(n), strings.ToUpper(w))
}

func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' }

// normalizeSpace is Playwright's normalizeWhiteSpace: drop zero-width
// spaces and soft hyphens, trim, collapse runs of white space.
func normalizeSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == '\u200b' || r == '\u00ad':
		case isJSSpace(r):
			space = b.Len() > 0
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// checkRegex tests the names of the candidates that passed the role test
// against a JavaScript regular expression, in the page (Go's regexp is not
// JavaScript's).
func (r *Resolver) checkRegex(ctx context.Context, t *locator.Text, docs []doc, fs []found, idx []int) error {
	var names []string
	var which []int
	for _, i := range idx {
		if fs[i].ok && fs[i].role != "none" {
			names = append(names, normalizeSpace(fs[i].name))
			which = append(which, i)
		}
	}
	if len(names) == 0 {
		return nil
	}
	args, err := json.Marshal([]any{t.Value, t.Flags, names})
	if err != nil {
		return err
	}
	d := docs[0]
	cid, err := r.world(ctx, &d, false)
	if err != nil {
		return err
	}
	yes := true
	res, err := cdp.Call(ctx, d.s, runtime.Evaluate, runtime.EvaluateParams{
		Expression:    "((a) => { const re = new RegExp(a[0], a[1]); return a[2].map((n) => { re.lastIndex = 0; return re.test(n); }); })(" + string(args) + ")",
		ContextID:     cid,
		ReturnByValue: &yes,
		Silent:        &yes,
	})
	if err != nil {
		return fmt.Errorf("regular expression: %w", err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("regular expression: %s", cdperr.ExceptionText(res.ExceptionDetails))
	}
	var ok []bool
	if err := jsonv2.Unmarshal(res.Result.Value, &ok); err != nil || len(ok) != len(which) {
		return fmt.Errorf("regular expression: bad result")
	}
	for k, i := range which {
		fs[i].ok = ok[k]
	}
	return nil
}
