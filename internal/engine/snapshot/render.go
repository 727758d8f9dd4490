package snapshot

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// line is one line of a rendering.
type line struct {
	depth  int
	bullet bool // an unnamed list item's first line: "- " before the text
	text   string
	ref    string
}

// indent is one level of the tree: one space (two cost 7-14 % of a
// full snapshot's characters, and one reads as well).
const indent = " "

func (l line) String() string {
	var b strings.Builder
	b.Grow(l.size())
	l.write(&b)
	return b.String()
}

// size is room for the line's text: its indent, bullet and text.
func (l line) size() int { return len(indent)*l.depth + 2 + len(l.text) }

// write writes the line's text (no newline) to b.
func (l line) write(b *strings.Builder) {
	for range l.depth {
		b.WriteString(indent)
	}
	if l.bullet {
		b.WriteString("- ")
	}
	b.WriteString(l.text)
}

// fromContent lists the roles whose name is their text: their text
// children repeat the name and are not written again.
var fromContent = map[string]bool{
	"button": true, "link": true, "tab": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "option": true, "heading": true, "cell": true, "gridcell": true,
	"columnheader": true, "rowheader": true, "checkbox": true, "radio": true, "switch": true,
	"treeitem": true, "tooltip": true, "DisclosureTriangle": true, "doc-backlink": true,
	"doc-biblioref": true, "doc-glossref": true, "doc-noteref": true, "doc-subtitle": true,
	"graphics-object": true,
}

// contextRoles are kept in interactive-only snapshots when something
// inside them is kept; headings are kept always.
var contextRoles = map[string]bool{
	"banner": true, "main": true, "navigation": true, "contentinfo": true, "complementary": true,
	"region": true, "form": true, "search": true, "dialog": true, "alertdialog": true,
	"menu": true, "menubar": true, "tablist": true, "tabpanel": true, "tree": true, "grid": true,
	"treegrid": true, "toolbar": true, "radiogroup": true, "iframe": true, "table": true,
	"row": true, "listbox": true, "group": true,
}

// plainRole are the roles that say nothing of their element: a message
// with one of them shows as its text alone.
var plainRole = map[string]bool{"generic": true, "paragraph": true, "none": true, "presentation": true, "list": true, "listitem": true}

func header(n *Node, interactive bool) string {
	name := n.Name
	if (n.Role == "row" || n.Role == "cell" || n.Role == "gridcell") && !interactive && !allText(n.Kids) {
		name = "" // the cells and their content say it
	}
	if n.Role == "row" && interactive {
		// Its name from content stands for its text, which an
		// interactive-only snapshot has none of: the start of it says
		// which row it is (and still matches role=row[name="…"], a
		// substring).
		name = clip(name, rowNameMax)
	}
	if n.Role == "heading" && n.Ref == "" && !interactive && !allText(n.Kids) && !kidsLeftOut(n) && saidBy(n.Kids, false) == squeeze(name) {
		name = "" // its lines say it: heading [level=3] over link "Ridge" @4
	}
	url := n.URL // an interactive-only snapshot has one for an empty link alone
	if interactive && n.Name != "" {
		url = ""
	}
	size := len(n.Role) + len(name) + 3 + len(n.Ref) + 2 + len(url) + 5 + len(n.Withheld) + 19 + len(n.Beside) + len(n.Column) + len(n.Title) + len(n.Class) + 38
	for _, st := range n.States {
		size += len(st) + 1
	}
	for _, o := range n.Options {
		size += len(o) + 4
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(n.Role)
	if name != "" {
		b.WriteByte(' ')
		writeQuoted(&b, name)
	}
	if len(n.States) > 0 || url != "" || n.Withheld != "" || n.Beside != "" || n.Column != "" || n.Title != "" || n.Class != "" || len(n.Options) > 0 || n.OptionCount > 0 {
		b.WriteString(" [")
		sep := ""
		for _, st := range n.States {
			b.WriteString(sep)
			b.WriteString(st)
			sep = " "
		}
		for _, kv := range [...][2]string{{"column=", n.Column}, {"beside=", n.Beside}, {"title=", n.Title}, {"class=", n.Class}} {
			if kv[1] != "" {
				b.WriteString(sep)
				b.WriteString(kv[0])
				writeQuoted(&b, kv[1])
				sep = " "
			}
		}
		switch {
		case len(n.Options) > 0:
			b.WriteString(sep)
			b.WriteString("options:")
			for i, o := range n.Options {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteByte(' ')
				writeQuoted(&b, o)
			}
			sep = " "
		case n.OptionCount > 0:
			b.WriteString(sep)
			b.WriteString(strconv.Itoa(n.OptionCount))
			b.WriteString(" option")
			if n.OptionCount != 1 {
				b.WriteByte('s')
			}
			sep = " "
		}
		if url != "" {
			b.WriteString(sep)
			b.WriteString("url=")
			b.WriteString(url)
			sep = " "
		}
		if n.Withheld != "" {
			b.WriteString(sep)
			b.WriteString("content withheld: ")
			b.WriteString(n.Withheld)
		}
		b.WriteByte(']')
	}
	if n.Ref != "" {
		// The ref ends the header, before any ": value": written as the
		// agent passes it back.
		b.WriteString(" @")
		b.WriteString(n.Ref)
	}
	return b.String()
}

// writeQuoted writes s as strconv.Quote does, without its allocation when
// s is printable ASCII with no quote or backslash (most names).
func writeQuoted(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= 0x7f || c == '"' || c == '\\' {
			b.WriteString(strconv.Quote(s))
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

// plainText returns a text line as written: quoted when it has what
// reads as a ref (an "@N" at the end or before ": "), so that only
// element lines carry refs.
func plainText(s string) string {
	for i := strings.IndexByte(s, '@'); i >= 0; {
		if i == 0 || s[i-1] == ' ' {
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j > i+1 && (j == len(s) || strings.HasPrefix(s[j:], ": ")) {
				return strconv.Quote(s)
			}
		}
		k := strings.IndexByte(s[i+1:], '@')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return s
}

// kidsLeftOut reports whether n's lines are left out: its name says them
// (then its name must stay).
func kidsLeftOut(n *Node) bool {
	return n.Name != "" && fromContent[n.Role] && namedByKids(n)
}

// namedByKids says whether n's children add nothing to its name: runs of
// text (the name comes from them), and images with no ref whose
// alternative text is in the name (link "Ridge Jacket" over img "Ridge
// Jacket").
func namedByKids(n *Node) bool {
	for _, k := range n.Kids {
		switch {
		case k.Text != "":
		case (k.Role == "img" || k.Role == "image") && k.Ref == "" && len(k.Kids) == 0 && len(k.States) == 0 && strings.Contains(n.Name, k.Name):
		default:
			return false
		}
	}
	return true
}

// saysNothingMore reports whether an interactive-only snapshot's context
// line for n says nothing the lines built under it (kids, the first at
// depth) do not: a row named from its content when that content is the
// names of the controls shown under it (Deluge's and every ExtJS
// toolbar's layout tables: row "Add" over button "Add" @3), or an
// unnamed table left with no row line (its rows said nothing more). A
// row whose content holds text of its own (row "Username" over an
// unlabelled textbox, row "Milk Buy" over button "Buy") says which row a
// control is in, and a row over cells with refs groups them (a grid's
// row): they stay. A row over one context line of its name (row
// "Membership" over group "Membership") says nothing more either, nor
// does an unnamed row.
func saysNothingMore(n *Node, kids []line, depth int) bool {
	if n.Ref != "" || n.Withheld != "" || len(n.States) > 0 {
		return false
	}
	switch n.Role {
	case "row":
		// A row of cells with refs groups them (a grid's row), and stays.
		var direct []line
		for _, l := range kids {
			if l.depth == depth {
				if isCellLine(l.text) {
					return false
				}
				direct = append(direct, l)
			}
		}
		if n.Name == "" {
			// Named by its content when it has a control: one with no
			// text places nothing (Deluge's status bar, a message in
			// nested layout tables, showed as table, row, table, row).
			return true
		}
		// One context line under it with its name (a form table's row
		// "Membership" over the fieldset's group "Membership", as
		// WordPress's settings lay them out).
		if len(direct) == 1 && direct[0].ref == "" {
			var b strings.Builder
			b.WriteByte(' ')
			writeQuoted(&b, n.Name)
			if strings.HasSuffix(direct[0].text, b.String()) {
				return true
			}
		}
		return saidBy(n.Kids, true) == squeeze(n.Name)
	case "table":
		if n.Name != "" {
			return false
		}
		for _, l := range kids {
			if l.depth == depth && (l.text == "row" || strings.HasPrefix(l.text, "row ")) {
				return false
			}
		}
		return true
	}
	return false
}

// isCellLine reports whether a line is a cell's (its role first).
func isCellLine(text string) bool {
	role, _, _ := strings.Cut(text, " ")
	switch role {
	case "cell", "gridcell", "columnheader", "rowheader":
		return true
	}
	return false
}

// saidBy is what the lines of ns say, without white space (to compare
// with a name): in a full snapshot their text and names; in an
// interactive-only one the names and values of the controls (the nodes
// with a ref; an unnamed one by its text, or the text beside it and its
// value) and the headings' names.
func saidBy(ns []*Node, interactive bool) string {
	var b strings.Builder
	var walk func([]*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			switch {
			case !interactive && n.Text != "":
				b.WriteString(n.Text)
			case !interactive && n.Name != "":
				b.WriteString(n.Name)
			case interactive && (n.Ref != "" || n.Role == "heading") && n.Name != "":
				// A named control by its name and its value, as a row's
				// name from its content reads a field (Roundcube's row
				// "Compose HTML messages never" over combobox "Compose
				// HTML messages" @3: never).
				b.WriteString(n.Name)
				b.WriteString(n.Value)
			case interactive && n.Ref != "":
				// An unnamed control by its text; a field by the text
				// beside it and its value, as a row's name from its
				// content reads it (Adminer's row "System MySQL" over
				// combobox [beside="System"] @3: MySQL).
				b.WriteString(n.Beside)
				b.WriteString(n.Value)
				b.WriteString(textOf(n.Kids, 1<<20))
				walk(n.Kids) // its controls have lines of their own
			default:
				walk(n.Kids)
			}
		}
	}
	walk(ns)
	return squeeze(b.String())
}

// squeeze drops a string's white space.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func allText(ns []*Node) bool {
	for _, n := range ns {
		if n.Text == "" {
			return false
		}
	}
	return true
}

// unwritten reports whether n's own line says nothing its lines do not
// (a full snapshot writes its lines one level up instead): an unnamed list
// of plain items, whose dashes say they are a list's items, and an unnamed
// form around one control (a button in a form of its own, as a wiki's
// section edit buttons are), which groups nothing.
func unwritten(n *Node) bool {
	if n.Name != "" || n.Ref != "" || len(n.States) > 0 || n.Value != "" || len(n.Kids) == 0 {
		return false
	}
	switch n.Role {
	case "list":
		for _, k := range n.Kids {
			if k.Role != "listitem" || k.Name != "" || k.Ref != "" || len(k.States) > 0 {
				return false
			}
		}
		return true
	case "form":
		k := n.Kids[0]
		return len(n.Kids) == 1 && k.Ref != "" && (len(k.Kids) == 0 || kidsLeftOut(k)) // one line
	}
	return false
}

// plainRow returns a table row's cells written on its own line, "Name" |
// "Ada" (a header cell keeps its role: columnheader "Name" | "Ada"), when
// every cell is plain: no ref, state, value or link, and no lines beyond
// its name. Such a row took a line per cell, each saying "cell" again
// (a wiki's tables: 5-7 characters a cell). A row with anything to act on
// or read beyond text keeps its cells' lines.
func plainRow(n *Node) (string, bool) {
	if n.Role != "row" || n.Ref != "" || len(n.States) > 0 || n.Value != "" || len(n.Kids) == 0 {
		return "", false
	}
	cells := make([]string, 0, len(n.Kids))
	for _, k := range n.Kids {
		switch k.Role {
		case "cell", "gridcell", "columnheader", "rowheader":
		default:
			return "", false
		}
		if k.Ref != "" || len(k.States) > 0 || k.Value != "" || k.URL != "" || k.Withheld != "" || (len(k.Kids) > 0 && !kidsLeftOut(k)) {
			return "", false
		}
		c := strconv.Quote(k.Name)
		if k.Role == "columnheader" || k.Role == "rowheader" {
			c = k.Role + " " + c
		}
		cells = append(cells, c)
	}
	return strings.Join(cells, " | "), true
}

// saysImage reports whether text, right after img, only says its
// alternative text again (a wiki's smiley "8-)" followed by the text
// "8-)"): the image's line says it already.
func saysImage(img *Node, text string) bool {
	return (img.Role == "img" || img.Role == "image") && img.Name != "" && img.Ref == "" &&
		len(img.Kids) == 0 && len(img.States) == 0 && squeeze(img.Name) == squeeze(text)
}

// build renders a tree as lines.
func build(ns []*Node, depth int, interactive bool, out []line) []line {
	for i, n := range ns {
		if n.Text != "" {
			if !interactive && (i == 0 || !saysImage(ns[i-1], n.Text)) {
				out = append(out, line{depth: depth, text: plainText(n.Text)})
			}
			continue
		}
		if interactive {
			out = buildInteractive(n, depth, out)
			continue
		}
		kids := n.Kids
		inline := n.Value
		if kidsLeftOut(n) {
			kids = nil // the text is the name, or an image it names
		}
		if inline == "" && len(kids) == 1 && kids[0].Text != "" {
			inline, kids = kids[0].Text, nil
		}
		if unwritten(n) {
			out = build(kids, depth, false, out)
			continue
		}
		if cells, ok := plainRow(n); ok {
			out = append(out, line{depth: depth, text: "row: " + cells})
			continue
		}
		if n.Role == "listitem" && n.Name == "" && n.Ref == "" && len(n.States) == 0 {
			if inline != "" {
				out = append(out, line{depth: depth, bullet: true, text: plainText(inline)})
				continue
			}
			if len(kids) > 0 {
				first := len(out)
				out = build(kids, depth+1, false, out)
				if len(out) > first {
					out[first].depth, out[first].bullet = depth, true
					continue
				}
			}
		}
		text := header(n, false)
		if inline != "" {
			text += ": " + inline
		}
		out = append(out, line{depth: depth, text: text, ref: n.Ref})
		out = build(kids, depth+1, false, out)
	}
	return out
}

func buildInteractive(n *Node, depth int, out []line) []line {
	switch {
	case n.Ref != "":
		text := header(n, true)
		if n.Value != "" {
			text += ": " + n.Value
		} else if n.Name == "" {
			if t := textOf(n.Kids, 80); t != "" {
				text += ": " + t
			}
		}
		out = append(out, line{depth: depth, text: text, ref: n.Ref})
		return build(n.Kids, depth+1, true, out)
	case n.Message && len(n.Kids) > 0 && n.Kids[0].Text != "":
		// Kept always, with its text: what the page announced (an
		// alert, a form's "The passwords do not match"). A region with
		// no role of its own (a div with aria-live) is its text alone.
		text := plainText(n.Kids[0].Text)
		if !plainRole[n.Role] || n.Name != "" {
			text = header(n, true) + ": " + text
		}
		out = append(out, line{depth: depth, text: text})
		return build(n.Kids[1:], depth+1, true, out)
	case n.Role == "heading":
		// Kept always; a control inside it (MediaWiki's [edit] link)
		// under it.
		out = append(out, line{depth: depth, text: header(n, true)})
		return build(n.Kids, depth+1, true, out)
	case n.Role == "group" && n.Name == "":
		return build(n.Kids, depth, true, out) // a fieldset without a legend places nothing
	case contextRoles[n.Role]:
		at := len(out)
		out = append(out, line{depth: depth, text: header(n, true)})
		out = build(n.Kids, depth+1, true, out)
		switch {
		case len(out) == at+1 && n.Withheld == "":
			out = out[:at] // nothing inside to act on
		case saysNothingMore(n, out[at+1:], depth+1):
			// Its lines say all it would (a layout table's row named
			// by its one button: row "Add" over button "Add" @3): they
			// take its place.
			out = append(out[:at], out[at+1:]...)
			for i := at; i < len(out); i++ {
				out[i].depth--
			}
		}
		return out
	default:
		return build(n.Kids, depth, true, out)
	}
}

// render fills s.Text, s.lines, s.Truncated and the line stats; about is
// how many nodes tree holds (room for its lines).
func render(s *Snapshot, tree []*Node, opts Options, about int) {
	s.lines = build(tree, 0, opts.Interactive, make([]line, 0, about))
	s.Stats.Lines = len(s.lines)
	all, out := join(s.lines)
	s.Stats.Chars = len(all)
	switch {
	case opts.Diff != nil:
		out = diffLines(opts.Diff.lines, s.lines)
	case opts.noDiff != "":
		out = append([]outLine{{text: opts.noDiff}}, out...)
	case opts.Start <= 0 && (opts.MaxChars <= 0 || len(all) <= opts.MaxChars-markerReserve):
		// Every line shown: the text is all of them (what cut would write).
		s.Text, s.Truncated = all, Truncation{TotalLines: len(out), ShownLines: len(out)}
		return
	}
	s.Text, s.Truncated = cut(out, opts.Start, opts.MaxChars)
}

// join writes the lines, each ended by a newline, into one string, and
// returns each line's text (a part of it, without the newline).
func join(ls []line) (string, []outLine) {
	size := 0
	for _, l := range ls {
		size += l.size() + 1
	}
	var b strings.Builder
	b.Grow(size)
	ends := make([]int, len(ls))
	for i, l := range ls {
		l.write(&b)
		ends[i] = b.Len()
		b.WriteByte('\n')
	}
	all := b.String()
	out := make([]outLine, len(ls))
	from := 0
	for i, l := range ls {
		out[i] = outLine{all[from:ends[i]], l.ref}
		from = ends[i] + 1
	}
	return all, out
}

// outLine is a line of the text an agent reads.
type outLine struct {
	text string
	ref  string
}

// markerReserve is room kept under MaxChars for the cut marker.
const markerReserve = 220

// cut applies Start and MaxChars and writes the markers.
func cut(out []outLine, start, maxChars int) (string, Truncation) {
	tr := Truncation{TotalLines: len(out)}
	if start < 0 {
		start = 0
	}
	if start > len(out) {
		start = len(out)
	}
	tr.FirstLine = start
	var b strings.Builder
	if start > 0 {
		fmt.Fprintf(&b, "[lines 1-%d not shown: this is from line %d of %d]\n", start, start+1, len(out))
		tr.Cut = true
		tr.HiddenRefs += countRefs(out[:start])
	}
	budget := maxChars
	if budget > 0 {
		budget -= markerReserve
		if budget < 0 {
			budget = 0
		}
	}
	end := len(out)
	used := 0
	for i := start; i < len(out); i++ {
		n := len(out[i].text) + 1
		if maxChars > 0 && used+n > budget && (i > start || budget == 0) {
			end = i
			break
		}
		used += n
	}
	for _, l := range out[start:end] {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	tr.ShownLines = end - start
	if end < len(out) {
		tr.Cut = true
		tr.Next = end
		rest := out[end:]
		chars := 0
		for _, l := range rest {
			chars += len(l.text) + 1
		}
		refs := countRefs(rest)
		tr.HiddenRefs += refs
		fmt.Fprintf(&b, "[cut: lines %d-%d of %d not shown (%d chars, %d refs%s). Get them with start=%d (same options), or narrow with scope (a ref or locator), viewport or interactive-only]\n",
			end+1, len(out), len(out), chars, refs, refRange(rest), end)
	}
	return b.String(), tr
}

func countRefs(ls []outLine) int {
	n := 0
	for _, l := range ls {
		if l.ref != "" {
			n++
		}
	}
	return n
}

func refRange(ls []outLine) string {
	first, last := "", ""
	for _, l := range ls {
		if l.ref != "" {
			if first == "" {
				first = l.ref
			}
			last = l.ref
		}
	}
	switch {
	case first == "":
		return ""
	case first == last:
		return ": @" + first
	default:
		return ": @" + first + " … @" + last
	}
}

// textOf joins the text under ns, cut to about max bytes.
func textOf(ns []*Node, max int) string {
	var b strings.Builder
	var walk func([]*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			if b.Len() >= max {
				return
			}
			if n.Text != "" {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(n.Text)
			}
			walk(n.Kids)
		}
	}
	walk(ns)
	return clip(b.String(), max)
}

// rowNameMax is how much of a row's name an interactive-only snapshot
// shows, in bytes.
const rowNameMax = 100

// clip cuts s to at most max bytes (on a character's start) and marks the
// cut with "…".
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
