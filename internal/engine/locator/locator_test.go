package locator

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func css(sel string) Step   { return Step{Op: OpQuery, Kind: KindCSS, Selector: sel} }
func xpath(sel string) Step { return Step{Op: OpQuery, Kind: KindXPath, Selector: sel} }
func query(k Kind, t Text) Step {
	return Step{Op: OpQuery, Kind: k, Text: t}
}
func role(r Role) Step { return Step{Op: OpQuery, Kind: KindRole, Role: r} }
func name(t Text) *Text {
	return &t
}
func nth(n int) Step { return Step{Op: OpNth, Nth: n} }
func loc(steps ...Step) Locator {
	return Locator{Steps: steps}
}

var parseTests = []struct {
	name, in string
	want     Locator
}{
	// CSS: bare, Playwright's css=, the seed's css:.
	{"bare css", "#submit", loc(css("#submit"))},
	{"bare css with spaces", "  form  button.primary ", loc(css("form  button.primary"))},
	{"css=", "css=#submit", loc(css("#submit"))},
	{"css:", "css:#submit", loc(css("#submit"))},
	{"loc= prefix", "loc=css:#submit", loc(css("#submit"))},
	{"css with quoted >>", `a[title=">>"] >> span`, loc(css(`a[title=">>"]`), css("span"))},
	{"css pseudo", "input:checked", loc(css("input:checked"))},
	{"label: as css pseudo", "label:has(input)", loc(css("label:has(input)"))},
	{"an element named internal is css", "internal:hover", loc(css("internal:hover"))},
	{"label: as css pseudo at end", "label:first-child", loc(css("label:first-child"))},
	{"title: as css pseudo chained", "title:empty >> nth=0", loc(css("title:empty"), nth(0))},
	{"has-text suffix", `button:has-text("Skip to Checkout")`, loc(css("button"), Step{Op: OpHasText, Text: Text{Value: "Skip to Checkout"}})},
	{"has-text suffix alone", `:has-text('Buy')`, loc(css("*"), Step{Op: OpHasText, Text: Text{Value: "Buy"}})},
	{"two has-text suffixes", `li:has-text("a"):has-text("b")`, loc(css("li"), Step{Op: OpHasText, Text: Text{Value: "a"}}, Step{Op: OpHasText, Text: Text{Value: "b"}})},
	{"has-text unquoted stays css", `li:has-text(a)`, loc(css("li:has-text(a)"))},
	// XPath.
	{"bare xpath", "//button[@id='x']", loc(xpath("//button[@id='x']"))},
	{"bare xpath in parens", "(//li)[2]", loc(xpath("(//li)[2]"))},
	{"bare xpath parent", "..", loc(xpath(".."))},
	{"xpath=", "xpath=//input[@id=\"text-input\"]", loc(xpath(`//input[@id="text-input"]`))},
	{"xpath:", "xpath://a", loc(xpath("//a"))},
	{"xpath quote has no escapes", `//a[@x='a\'] >> css=b`, loc(xpath(`//a[@x='a\']`), css("b"))},
	// Text.
	{"text= substring", "text=Allow access", loc(query(KindText, Text{Value: "Allow access"}))},
	{"text= exact quoted", `text="Allow access"`, loc(query(KindText, Text{Value: "Allow access", Exact: true}))},
	{"text= single quoted", `text='it\'s'`, loc(query(KindText, Text{Value: "it's", Exact: true}))},
	{"text= quoted i", `text="allow"i`, loc(query(KindText, Text{Value: "allow"}))},
	{"text= quoted s", `text="allow"s`, loc(query(KindText, Text{Value: "allow", Exact: true}))},
	{"text= regex", `text=/sign\s+in/i`, loc(query(KindText, Text{Value: `sign\s+in`, Regex: true, Flags: "i"}))},
	{"text= regex with slash in class", `text=/a[/]b/`, loc(query(KindText, Text{Value: `a[/]b`, Regex: true}))},
	{"text= apostrophe unquoted", `text=don't >> css=b`, loc(query(KindText, Text{Value: "don't"}), css("b"))},
	{"bare quoted text", `"Sign in"`, loc(query(KindText, Text{Value: "Sign in", Exact: true}))},
	{"text: substring", "text:Download sample", loc(query(KindText, Text{Value: "Download sample"}))},
	{"text: quoted is not exact", `text:"Download"`, loc(query(KindText, Text{Value: "Download"}))},
	{"text: exact", `text:exact:"Download"`, loc(query(KindText, Text{Value: "Download", Exact: true}))},
	{"text: exact unquoted", `text:exact:Download`, loc(query(KindText, Text{Value: "Download", Exact: true}))},
	{"text json escapes", `text="a\"b\\c\u00e9\n"`, loc(query(KindText, Text{Value: "a\"b\\c\u00e9\n", Exact: true}))},
	{"text surrogate pair", `text="\ud83d\ude00"`, loc(query(KindText, Text{Value: "\U0001F600", Exact: true}))},
	// Other text kinds.
	{"label:", `label:"Email"`, loc(query(KindLabel, Text{Value: "Email"}))},
	{"label: bare", `label:Email address`, loc(query(KindLabel, Text{Value: "Email address"}))},
	{"label= exact", `label="Email"`, loc(query(KindLabel, Text{Value: "Email", Exact: true}))},
	{"label: pseudo-ish word is a label", `label:Required field`, loc(query(KindLabel, Text{Value: "Required field"}))},
	{"placeholder", `placeholder=Your email`, loc(query(KindPlaceholder, Text{Value: "Your email"}))},
	{"alt", `alt:exact:"A cat"`, loc(query(KindAlt, Text{Value: "A cat", Exact: true}))},
	{"title", `title=Phone`, loc(query(KindTitle, Text{Value: "Phone"}))},
	{"testid exact by default", `testid=submit`, loc(query(KindTestID, Text{Value: "submit", Exact: true}))},
	{"testid: exact by default", `testid:"submit"`, loc(query(KindTestID, Text{Value: "submit", Exact: true}))},
	{"testid seed exact", `loc=testid:exact:"submit"`, loc(query(KindTestID, Text{Value: "submit", Exact: true}))},
	{"testid substring on request", `testid="sub"i`, loc(query(KindTestID, Text{Value: "sub"}))},
	// Roles.
	{"role:", "role:button", loc(role(Role{Role: "button"}))},
	{"role= with name", `role=button[name="Next"]`, loc(role(Role{Role: "button", Name: name(Text{Value: "Next"})}))},
	{"role: with name", `role:button[name="Next"]`, loc(role(Role{Role: "button", Name: name(Text{Value: "Next"})}))},
	{"role name i", `role=button[name="next" i]`, loc(role(Role{Role: "button", Name: name(Text{Value: "next"})}))},
	{"role name s", `role=button[name="Next"s]`, loc(role(Role{Role: "button", Name: name(Text{Value: "Next", Exact: true})}))},
	{"role exact attribute", `role=button[name="Next"][exact]`, loc(role(Role{Role: "button", Name: name(Text{Value: "Next", Exact: true})}))},
	{"role exact first", `role=button[exact][name='Next']`, loc(role(Role{Role: "button", Name: name(Text{Value: "Next", Exact: true})}))},
	{"role single-quoted name", `loc=role:button[name='Increment counter']`, loc(role(Role{Role: "button", Name: name(Text{Value: "Increment counter"})}))},
	{"role bare name", `role:button[name=7]`, loc(role(Role{Role: "button", Name: name(Text{Value: "7"})}))},
	{"role bare name with space", `role:option[name=House boat ]`, loc(role(Role{Role: "option", Name: name(Text{Value: "House boat"})}))},
	{"role regex name", `role=button[name=/check(out)?/i]`, loc(role(Role{Role: "button", Name: name(Text{Value: "check(out)?", Regex: true, Flags: "i"})}))},
	{"role json regex name", `role:button[name={"regex":"a/b","flags":"i"}]`, loc(role(Role{Role: "button", Name: name(Text{Value: `a\/b`, Regex: true, Flags: "i"})}))},
	{"role json text name", `role:button[name={"text":"Save","exact":true}]`, loc(role(Role{Role: "button", Name: name(Text{Value: "Save", Exact: true})}))},
	{"role states", `role=checkbox[checked=mixed][disabled=false][include-hidden]`, loc(role(Role{Role: "checkbox", Checked: Mixed, Disabled: False, IncludeHidden: true}))},
	{"role truthy states", `role=tab[selected] [expanded=true][pressed]`, loc(role(Role{Role: "tab", Selected: True, Expanded: True, Pressed: True}))},
	{"role level", `role=heading[level=2]`, loc(role(Role{Role: "heading", Level: 2}))},
	{"role upper case", `role=Heading`, loc(role(Role{Role: "heading"}))},
	{"role name with ]", `role=link[name="a]b"]`, loc(role(Role{Role: "link", Name: name(Text{Value: "a]b"})}))},
	// Chaining, nth, last, filters.
	{"chain", `css=form >> role=button[name="Save"]`, loc(css("form"), role(Role{Role: "button", Name: name(Text{Value: "Save"})}))},
	{"nth", `css=li >> nth=2`, loc(css("li"), nth(2))},
	{"nth -1", `li >> nth=-1`, loc(css("li"), nth(-1))},
	{"nth last", `li >> nth=last`, loc(css("li"), nth(-1))},
	{"last", `li >> last`, loc(css("li"), nth(-1))},
	{"first", `li >> first`, loc(css("li"), nth(0))},
	{"last-child is css", `li:last-child`, loc(css("li:last-child"))},
	{"has-text", `css=.row >> has-text="Ready"i`, loc(css(".row"), Step{Op: OpHasText, Text: Text{Value: "Ready"}})},
	{"has-not-text regex", `css=.row >> has-not-text=/archived/i`, loc(css(".row"), Step{Op: OpHasNotText, Text: Text{Value: "archived", Regex: true, Flags: "i"}})},
	{"has unquoted", `css=li >> has=role=button >> nth=0`, loc(css("li"), Step{Op: OpHas, Sub: &Locator{Steps: []Step{role(Role{Role: "button"})}}}, nth(0))},
	{"has quoted chain", `css=li >> has="css=.a >> text=x"`, loc(css("li"), Step{Op: OpHas, Sub: &Locator{Steps: []Step{css(".a"), query(KindText, Text{Value: "x"})}}})},
	{"has-not", `css=li >> has-not=.disabled`, loc(css("li"), Step{Op: OpHasNot, Sub: &Locator{Steps: []Step{css(".disabled")}}})},
	{"visible", `button >> visible=true`, loc(css("button"), Step{Op: OpVisible, Visible: true})},
	{"visible false", `button >> visible=false`, loc(css("button"), Step{Op: OpVisible})},
	{"seed facade", `loc=testid:exact:"action" >> nth=1`, loc(query(KindTestID, Text{Value: "action", Exact: true}), nth(1))},
	// Playwright's attribute engines: exact, as CSS finds them.
	{"id=", `id=wikiedit-content-editor`, loc(css(`[id="wikiedit-content-editor"]`))},
	{"id= quoted, chained", `id="a b\"c" >> nth=0`, loc(css(`[id="a b\"c"]`), nth(0))},
	{"data-testid=", `data-testid=submit`, loc(css(`[data-testid="submit"]`))},
	{"data-test-id=", `form >> data-test-id=directions`, loc(css("form"), css(`[data-test-id="directions"]`))},
	{"data-test= with a backslash and a newline", `data-test="a\\b\nc"`, loc(css(`[data-test="a\\b\a c"]`))},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			// Print → parse gives an equal value.
			s := got.String()
			again, err := Parse(s)
			if err != nil {
				t.Fatalf("Parse(String() = %q): %v", s, err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("round trip through %q (-first +second):\n%s", s, diff)
			}
		})
	}
}

func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"#submit", "css=#submit"},
		{"//a", "xpath=//a"},
		{"text=Allow", `text="Allow"i`},
		{`text:exact:Allow`, `text="Allow"`},
		{`role:button[name="Next"]`, `role=button[name="Next"i]`},
		{`role=button[name="Next"][exact]`, `role=button[name="Next"s]`},
		{`role=heading[level=1][name=/x/]`, `role=heading[name=/x/][level=1]`},
		{`testid:submit`, `testid="submit"`},
		{`testid="s"i`, `testid="s"i`},
		{`li >> nth=-1`, `css=li >> last`},
		{`li >> has=button`, `css=li >> has=css=button`},
		{`li >> has="a >> b"`, `css=li >> has="css=a >> css=b"`},
		{`li >> has="text=\"x\""`, `css=li >> has=text="x"`},
		{`a:has-text("b")`, `css=a >> has-text="b"i`},
		{"text=\"tab\tand\u2028\"", `text="tab\tand\u2028"`},
	}
	for _, tt := range tests {
		l, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if got := l.String(); got != tt.want {
			t.Errorf("Parse(%q).String(): got %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		msg    string // a substring of the message
	}{
		{"", 0, "empty locator"},
		{"   ", 3, "empty locator"},
		{"a >> ", 5, "empty step"},
		{">> a", 0, "empty step"},
		{"a >>  >> b", 6, "empty step"},
		{`a[title="x]`, 8, "unterminated string"},
		{`text="abc`, 5, "unterminated string"},
		{`text=`, 5, "empty text"},
		{`text="a" b`, 9, "after the value"},
		{`text=/abc`, 5, "unterminated regular expression"},
		{`text=/a/gg`, 8, "repeated"},
		{`role=`, 5, "missing role"},
		{`role=button[name]`, 12, "name wants a value"},
		{`role=button[name="x"`, 11, "unclosed ["},
		{`role=button[foo=1]`, 12, "unknown role attribute"},
		{`role=button[name*="x"]`, 16, "unsupported operator"},
		{`role=button[checked=maybe]`, 20, "true, false or mixed"},
		{`role=button[level=0]`, 18, "level wants"},
		{`role=button[exact]`, 5, "exact needs a name"},
		{`role=button[name="a"][name="b"]`, 22, "repeated attribute"},
		{`role=button junk`, 12, "after the value"},
		{`role:button[name={"regex":"[a"}]`, 17, "bad regular expression"},
		{`role:button[name={"x":1}]`, 17, "want {"},
		{`id=`, 0, "empty selector"},
		{`id="a" b`, 0, "id= wants one value"},
		{`nth=x`, 4, "nth= wants"},
		{`nth=-2`, 4, "nth= wants"},
		{`nth=1 2`, 6, "after the value"},
		{`visible=maybe`, 8, "visible= wants"},
		{`has=`, 4, "has= wants"},
		{`has="css=a >> "`, 4, "in the quoted locator: empty step"},
		{"text=\xff", 5, "invalid UTF-8"},
		{`css= >> a`, 0, "empty selector"},
		{`internal:nth=1;loc=role:button[name="Download"]`, 0, "end the locator with >> nth=N"},
		{`internal:last;css:li`, 0, ">> last"},
		{`internal:scope:%7B%22base%22%3A%22form%22%7D`, 0, "chain the steps with >>"},
		{`css=form >> internal:filter:%7B%7D`, 12, "internal:filter: encoding is not accepted"},
		{`internal:role=button[name="Save"i]`, 0, "engine-internal selector internal:role"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q): got %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if se.Offset != tt.offset || !strings.Contains(se.Msg, tt.msg) || se.Input != tt.in {
			t.Errorf("Parse(%q): got offset %d %q, want offset %d containing %q", tt.in, se.Offset, se.Msg, tt.offset, tt.msg)
		}
		if !strings.Contains(err.Error(), "offset") {
			t.Errorf("Parse(%q): error %q does not name the offset", tt.in, err)
		}
	}
}

func TestNestedTooDeep(t *testing.T) {
	in := strings.Repeat("has=", 100) + "a"
	_, err := Parse(in)
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "nested too deeply") {
		t.Fatalf("Parse(deep has=): got %v, want a nesting error", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	for _, s := range []string{`role:button[name={"regex":"a\\","flags":"i"}]`, `text="\ud800"`, `has='has="a"'`, `"a"i`, `label::before`, `css=a\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		l, err := Parse(in)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q): error %T is not a *SyntaxError", in, err)
			}
			if se.Offset < 0 || se.Offset > len(in) {
				t.Fatalf("Parse(%q): offset %d out of range", in, se.Offset)
			}
			return
		}
		s := l.String()
		again, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse: %v", in, s, err)
		}
		if diff := cmp.Diff(l, again); diff != "" {
			t.Fatalf("Parse(%q) → %q → different value (-first +second):\n%s", in, s, diff)
		}
	})
}
