package snapshot

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/refmap"
)

func parseTree(t *testing.T, records string) []*Node {
	t.Helper()
	d := &frameDoc{}
	tree, err := d.parse("1\t0\t0\thttp://x\thttp://x/\tT\n" + records)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestRender(t *testing.T) {
	tests := []struct {
		name        string
		records     string
		interactive bool
		want        string
	}{
		{"text and heading", "0\theading\tTitle\t\tlevel=1\n1\t\tTitle\n0\t\tHello", false,
			"heading \"Title\" [level=1]\nHello\n"},
		{"list items as bullets", "0\tlist\n1\tlistitem\n2\t\tone\n1\tlistitem\n2\tlink\tGo\t7\t\t/go\n2\t\tafter", false,
			"- one\n- link \"Go\" [url=/go] @7\n after\n"},
		{"a nested list's items under their item", "0\tmain\n1\tlist\n2\tlistitem\n3\tlink\tLinks\t4\n3\tlist\n4\tlistitem\n5\tlink\tExternal\t5\n2\tlistitem\n3\t\tlast", false,
			"main\n - link \"Links\" @4\n  - link \"External\" @5\n - last\n"},
		{"a named list, or one with other items, keeps its line", "0\tlist\tTags\n1\tlistitem\n2\t\tone\n0\tlist\n1\tlistitem\tPinned\n2\t\ttwo\n1\tlistitem\n2\t\tthree", false,
			"list \"Tags\"\n - one\nlist\n listitem \"Pinned\": two\n - three\n"},
		{"text that says an image's name again is not repeated", "0\tlist\n1\tlistitem\n2\timg\t8-)\n2\t\t 8-) \n1\tlistitem\n2\timg\tLOL\n2\t\tLOL means laughing\n0\t\tLOL", false,
			"- img \"8-)\"\n- img \"LOL\"\n LOL means laughing\nLOL\n"},
		{"a form around one control is not written", "0\tform\n1\tbutton\tEdit\t4\n2\t\tEdit\n0\tform\n1\ttextbox\tQ\t5\n1\tbutton\tGo\t6\n0\tform\tLogin\n1\tbutton\tSign in\t7", false,
			"button \"Edit\" @4\nform\n textbox \"Q\" @5\n button \"Go\" @6\nform \"Login\"\n button \"Sign in\" @7\n"},
		{"a row of plain cells is one line", "0\ttable\tScores\n1\trow\tName Score\n2\tcolumnheader\tName\n3\t\tName\n2\tcolumnheader\tScore\n3\t\tScore\n1\trow\tAnn 10\n2\tcell\tAnn\n3\t\tAnn\n2\tcell\t10\n3\t\t10\n1\trow\tx\n2\tcell\n2\tcell\tx\n3\t\tx\n1\trow\tBob edit\n2\tcell\tBob\n3\t\tBob\n2\tcell\tedit\n3\tlink\tedit\t7\n1\trow\tCy\t\tselected\n2\tcell\tCy\n3\t\tCy", false,
			"table \"Scores\"\n row: columnheader \"Name\" | columnheader \"Score\"\n row: \"Ann\" | \"10\"\n row: \"\" | \"x\"\n row\n  cell \"Bob\"\n  cell\n   link \"edit\" @7\n row [selected]\n  cell \"Cy\"\n"},
		{"value and states", "0\ttextbox\tEmail\t3\tdisabled,required\t\ta@b.c", false,
			"textbox \"Email\" [disabled required] @3: a@b.c\n"},
		{"interactive keeps context", "0\tmain\n1\theading\tH\t\tlevel=2\n1\tlist\n2\tbutton\tB\t4\n0\tnavigation\n1\t\ttext", true,
			"main\n heading \"H\" [level=2]\n button \"B\" @4\n"},
		{"interactive names a row by the start of its content", "0\ttable\n1\trow\tUsername\n2\ttextbox\t\t3\n1\trow\tedit 7 Customer 7 " + strings.Repeat("x", 81) + "\u00e9xxxxxxxxx\n2\tlink\tedit\t4\n1\trow\tNothing to act on", true,
			"table\n row \"Username\"\n  textbox @3\n row \"edit 7 Customer 7 " + strings.Repeat("x", 81) + "…\"\n  link \"edit\" @4\n"},
		{"interactive leaves out a layout table's lines its buttons say", "0\ttable\n1\trow\tAdd Remove Help\n2\tcell\tAdd Remove\n3\ttable\n4\trow\tAdd Remove\n5\tcell\tAdd\n6\ttable\n7\trow\tAdd\n8\tcell\tAdd\n9\tbutton\tAdd\t3\n5\tcell\tRemove\n6\ttable\t\t4\n7\trow\tRemove\n8\tbutton\tRemove\t5\n2\tcell\tHelp\n3\tgeneric\t\t6\n4\t\tHelp", true,
			"button \"Add\" @3\ntable @4\n button \"Remove\" @5\ngeneric @6: Help\n"},
		{"interactive keeps a row of several controls", "0\ttable\n1\trow\t1 debian-test 0.0 KiB\n2\tcell\t1\t3\n3\t\t1\n2\tcell\tdebian-test\t4\n3\t\tdebian-test\n2\tcell\t0.0 KiB\t5\n3\t\t0.0 KiB\n1\trow\tAdd\n2\tbutton\tAdd\t6", true,
			"table\n row \"1 debian-test 0.0 KiB\"\n  cell \"1\" @3\n  cell \"debian-test\" @4\n  cell \"0.0 KiB\" @5\n button \"Add\" @6\n"},
		{"interactive keeps a row with text of its own, and its table", "0\ttable\n1\trow\tMilk Buy\n2\tcell\tMilk\n3\t\tMilk\n2\tcell\tBuy\n3\tbutton\tBuy\t3\n1\trow\tEdit\n2\tcell\tEdit\n3\tbutton\tEdit\t4\n0\ttable\tPrices\n1\trow\tBuy\n2\tbutton\tBuy\t5\n0\ttable\n1\trow\tPick\t\tselected\n2\tbutton\tPick\t6", true,
			"table\n row \"Milk Buy\"\n  button \"Buy\" @3\n button \"Edit\" @4\ntable \"Prices\"\n button \"Buy\" @5\ntable\n row \"Pick\" [selected]\n  button \"Pick\" @6\n"},
		{"interactive leaves out a row over a group of its name", "0\ttable\n1\trow\tMembership\n2\tcell\tMembership\n3\t\tMembership\n2\tcell\n3\tgroup\tMembership\n4\tcheckbox\tAnyone can register\t3\n1\trow\tDate Format\n2\tgroup\tTime Format\n3\tradio\tH:i\t4", true,
			"table\n group \"Membership\"\n  checkbox \"Anyone can register\" @3\n row \"Date Format\"\n  group \"Time Format\"\n   radio \"H:i\" @4\n"},
		{"interactive keeps a named group, not an unnamed one", "0\tform\n1\tgroup\tShipping\n2\ttextbox\tStreet\t3\n1\tgroup\tBilling\n2\ttextbox\tStreet\t4\n1\tgroup\n2\tbutton\tSend\t5", true,
			"form\n group \"Shipping\"\n  textbox \"Street\" @3\n group \"Billing\"\n  textbox \"Street\" @4\n button \"Send\" @5\n"},
		{"interactive shows a control inside a heading", "0\theading\tGetting started[edit]\t\tlevel=2\n1\t\tGetting started[\n1\tlink\tedit\t5\n1\t\t]", true,
			"heading \"Getting started[edit]\" [level=2]\n link \"edit\" @5\n"},
		{"interactive leaves out unnamed rows and the tables they leave empty", "0\ttable\n1\trow\n2\tcell\n3\ttable\n4\trow\n5\tgeneric\t\t\t\t\t\t\t1\n6\t\tNot Connected\n0\ttable\n1\trow\n2\ttextbox\t\t3", true,
			"Not Connected\ntextbox @3\n"},
		{"interactive leaves out a row its field's beside text and value say", "0\ttable\n1\trow\tSystem MySQL\n2\tcell\tSystem\n3\t\tSystem\n2\tcell\n3\tcombobox\t\t3\t\t\tMySQL\t\t\tSystem\n1\trow\tUsername\n2\tcell\tUsername\n2\tcell\n3\ttextbox\t\t4\t\t\t\t\t\tUsername\n1\trow\tServer\n2\tcell\tServer\n2\tcell\n3\ttextbox\thostname\t5", true,
			"table\n combobox [beside=\"System\"] @3: MySQL\n textbox [beside=\"Username\"] @4\n row \"Server\"\n  textbox \"hostname\" @5\n"},
		{"interactive leaves out a row a named field and its value say", "0\ttable\n1\trow\tCompose HTML messages never\n2\tcell\tCompose HTML messages\n2\tcell\n3\tcombobox\tCompose HTML messages\t3\t\t\tnever\n1\trow\tFont Verdana 10pt\n2\tcombobox\tFont\t4\t\t\tVerdana\n2\tcombobox\t\t5\t\t\t10pt\n1\trow\tTheme Elastic\n2\tcell\tTheme\n2\tcell\n3\ttextbox\tName\t6\t\t\tElastic", true,
			"table\n combobox \"Compose HTML messages\" @3: never\n combobox \"Font\" @4: Verdana\n combobox @5: 10pt\n row \"Theme Elastic\"\n  textbox \"Name\" @6: Elastic\n"},
		{"generic clickable shows its text", "0\tgeneric\t\t5\n1\t\tClick me", true,
			"generic @5: Click me\n"},
		{"interactive shows the text beside an unnamed field, its column, a title", "0\ttextbox\t\t3\t\t\t\t\t\tName of new wiki page:\n0\tcombobox\t\t4\t\t\tMarkdown\t\t\tMarkup \"style\":\n0\ttextbox\t\t5\trequired\t\tx\t\t\t\tValue\n0\tgeneric\t\t6\t\t\t\t\t\t\t\tOpen Torrent", true,
			"textbox [beside=\"Name of new wiki page:\"] @3\ncombobox [beside=\"Markup \\\"style\\\":\"] @4: Markdown\ntextbox [required column=\"Value\"] @5: x\ngeneric [title=\"Open Torrent\"] @6\n"},
		{"interactive shows a message's text, under its role when it has one", "0\tform\n1\ttextbox\tPassword\t3\n1\tgeneric\t\t\t\t\t\t\t1\n2\t\tThe passwords do not match\n1\talert\t\t\t\t\t\t\t1\n2\t\tCould not save. Retry\n2\tbutton\tRetry\t4\n1\tstatus\t\t\t\t\t\t\t1\n2\t\tsaved @2", true,
			"form\n textbox \"Password\" @3\n The passwords do not match\n alert: Could not save. Retry\n  button \"Retry\" @4\n status: \"saved @2\"\n"},
		{"interactive shows a notice of a list or an item as its text alone", "0\tparagraph\t\t\t\t\t\t\t1\n1\t\tPlease correct the errors below.\n0\tlist\t\t\t\t\t\t\t1\n1\t\tThis field is required.\n0\tlistitem\t\t\t\t\t\t\t1\n1\t\tThe product was added.\n0\ttextbox\tName\t3", true,
			"Please correct the errors below.\nThis field is required.\nThe product was added.\ntextbox \"Name\" @3\n"},
		{"text that reads as a ref is quoted", "0\t\tPrice @5\n0\t\tReply @12: ok\n0\t\tmail ada@5 or @6.50\n0\tlist\n1\tlistitem\n2\t\tItem @3\n0\tbutton\tSave @4\t9\n0\tstatus\n1\t\tsaved @2", false,
			"\"Price @5\"\n\"Reply @12: ok\"\nmail ada@5 or @6.50\n- \"Item @3\"\nbutton \"Save @4\" @9\nstatus: saved @2\n"},
		{"an image its link names is not repeated", "0\tlink\tRidge Jacket in navy\t7\n1\timg\tRidge Jacket in navy\n0\tbutton\tAdd\t8\n1\timg\tcart icon", false,
			"link \"Ridge Jacket in navy\" @7\nbutton \"Add\" @8\n img \"cart icon\"\n"},
		{"a heading its lines say has no name", "0\theading\tRidge Jacket\t\tlevel=3\n1\tlink\tRidge Jacket\t8\n0\theading\tAbout\t\tlevel=2\n1\tlink\tRidge\t9\n0\theading\tIntro more\t\tlevel=2\n1\t\tIntro\n1\tlink\tmore\t10", false,
			"heading [level=3]\n link \"Ridge Jacket\" @8\nheading \"About\" [level=2]\n link \"Ridge\" @9\nheading [level=2]\n Intro\n link \"more\" @10\n"},
		{"a heading whose lines are left out keeps its name", "0\theading\tAcme\t\tlevel=1\n1\timg\tAcme\n0\theading\tRidge Jacket\t\tlevel=2\n1\t\tRidge \n1\timg\tJacket", false,
			"heading \"Acme\" [level=1]\nheading \"Ridge Jacket\" [level=2]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := parseTree(t, tt.records)
			for _, n := range walkNodes(tree) {
				if n.local != 0 {
					n.Ref = itoa(n.local)
				}
			}
			s := &Snapshot{}
			render(s, tree, Options{Interactive: tt.interactive}, 0)
			if diff := cmp.Diff(tt.want, s.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}

func walkNodes(ns []*Node) []*Node {
	var out []*Node
	for _, n := range ns {
		out = append(out, n)
		out = append(out, walkNodes(n.Kids)...)
	}
	return out
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

func lines(texts ...string) []line {
	var out []line
	for _, s := range texts {
		d := (len(s) - len(strings.TrimLeft(s, " "))) / 2
		out = append(out, line{depth: d, text: strings.TrimLeft(s, " ")})
	}
	return out
}

func TestDiff(t *testing.T) {
	prev := lines("main", "  list", "    a", "    b", "    c", "    d", "  footer")
	cur := lines("main", "  list", "    a", "    b", "    c2", "    d", "  footer")
	got := diffLines(prev, cur)
	var texts []string
	for _, l := range got {
		texts = append(texts, l.text)
	}
	want := []string{
		"[diff against the previous snapshot: 1 added, 1 removed, 6 unchanged; \"+ \" added, \"- \" removed]",
		"  main",
		"   list",
		"    … 2 unchanged lines",
		"- " + "  c",
		"+ " + "  c2",
		"    … 2 unchanged lines",
	}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
	if got := diffLines(cur, cur); len(got) != 1 || !strings.HasPrefix(got[0].text, "[no changes") {
		t.Errorf("no change: got %v", got)
	}
}

func TestCut(t *testing.T) {
	var out []outLine
	for i := range 100 {
		out = append(out, outLine{text: strings.Repeat("x", 49), ref: itoa(int64(i % 10))})
	}
	text, tr := cut(out, 0, 1000)
	if len(text) > 1000 || !tr.Cut || tr.Next == 0 || tr.ShownLines+tr.FirstLine != tr.Next {
		t.Fatalf("cut: %d chars, %+v", len(text), tr)
	}
	if !strings.Contains(text, "start=") {
		t.Errorf("marker lacks how to get the rest:\n%s", text)
	}
	// Paging with Next shows the next lines.
	text2, tr2 := cut(out, tr.Next, 1000)
	if tr2.FirstLine != tr.Next || !strings.HasPrefix(text2, "[lines 1-") {
		t.Errorf("next page: %+v\n%s", tr2, text2)
	}
	if text, tr := cut(out, 0, 0); tr.Cut || strings.Count(text, "\n") != 100 {
		t.Errorf("no cap: %+v", tr)
	}
}

func TestWriteQuotedIsStrconvQuote(t *testing.T) {
	for _, s := range []string{"", "Save", `say "hi"`, `back\slash`, "tab\there", "naïve café", "日本語", "emoji 😀", "del\x7f", "bad \xff byte", "\u2028"} {
		var b strings.Builder
		writeQuoted(&b, s)
		if got, want := b.String(), strconv.Quote(s); got != want {
			t.Errorf("writeQuoted(%q): got %s, want %s", s, got, want)
		}
	}
}

func TestRenderWholeTextIsWhatCutWrites(t *testing.T) {
	tree := parseTree(t, "0\tmain\n1\tlist\n2\tlistitem\n3\tlink\tA\t4\t\t/a\n2\tlistitem\n3\t\tb\n1\tbutton\tGo\t5")
	for _, o := range []Options{{}, {MaxChars: 1000}, {Interactive: true}} {
		s := &Snapshot{}
		render(s, tree, o, 0)
		text, tr := cut(outLines(s.lines), 0, o.MaxChars)
		if s.Text != text || s.Truncated != tr {
			t.Errorf("%+v: got %q %+v, want %q %+v", o, s.Text, s.Truncated, text, tr)
		}
		if s.Stats.Chars != len(text) {
			t.Errorf("%+v: got %d chars, want %d", o, s.Stats.Chars, len(text))
		}
	}
}

func outLines(ls []line) []outLine {
	out := make([]outLine, len(ls))
	for i, l := range ls {
		out[i] = outLine{l.String(), l.ref}
	}
	return out
}

// listRecords is what snapshot.js writes of the benchmark's list page
// (internal/testkit/snapshotbench): n items of a link, a button and a span.
func listRecords(n int, interactive bool) string {
	var b strings.Builder
	b.WriteString("1\t0\t0\thttp://x\thttp://x/\tlist\n")
	if !interactive {
		b.WriteString("0\tlist\n")
	}
	for i := range n {
		id := strconv.Itoa(2*i + 1)
		if interactive {
			fmt.Fprintf(&b, "0\tlink\tLink %d\t%s\n0\tbutton\tButton %d\t%d\n", i, id, i, 2*i+2)
			continue
		}
		fmt.Fprintf(&b, "1\tlistitem\n2\tlink\tLink %d\t%s\n3\t\tLink %d\n2\tbutton\tButton %d\t%d\n3\t\tButton %d\n2\t\tSpan %d\n", i, id, i, i, 2*i+2, i, i)
	}
	return b.String()
}

// BenchmarkParseNumberRender measures the service's side of a snapshot of
// the 5,000-item list once the page's walk is back: reading its records,
// numbering the refs and writing the text (no browser).
func BenchmarkParseNumberRender(b *testing.B) {
	frame := &cdp.Frame{ID: "0123456789ABCDEF0123456789ABCDEF", LoaderID: "FEDCBA9876543210FEDCBA9876543210"}
	for _, interactive := range []bool{false, true} {
		text := listRecords(5000, interactive)
		num := refmap.NewNumbering()
		b.Run(fmt.Sprintf("interactive=%v", interactive), func(b *testing.B) {
			for b.Loop() {
				d := &frameDoc{frame: frame}
				tree, err := d.parse(text)
				if err != nil {
					b.Fatal(err)
				}
				s := &Snapshot{Entries: number(tree, num)}
				render(s, tree, Options{Interactive: interactive}, d.nodes)
			}
		})
	}
}

// TestFromContentIsTheWalksSet: snapshot.js leaves out the text children of
// a named element of these roles (FROM_CONTENT), which the rendering
// leaves out anyway (fromContent): the two lists must be one.
func TestFromContentIsTheWalksSet(t *testing.T) {
	_, rest, ok := strings.Cut(script, "const FROM_CONTENT = new Set([")
	list, _, ok2 := strings.Cut(rest, "]);")
	if !ok || !ok2 {
		t.Fatal("snapshot.js has no FROM_CONTENT set")
	}
	js := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		if f = strings.Trim(strings.TrimSpace(f), "'"); f != "" {
			js[f] = true
		}
	}
	if diff := cmp.Diff(fromContent, js); diff != "" {
		t.Errorf("FROM_CONTENT (snapshot.js) and fromContent (render.go) differ (-Go +JS):\n%s", diff)
	}
}
