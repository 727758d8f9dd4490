package confirm

import (
	"slices"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name  string
		f     Facts
		click bool
		want  []Kind
	}{
		{"submit button", Facts{Tag: "button", Role: "button", Name: "Save", Submits: true, InForm: true}, true, []Kind{Submit}},
		{"submit button named Place order", Facts{Tag: "button", Role: "button", Name: "Place order", Submits: true, InForm: true}, true, []Kind{Submit, Purchase}},
		{"button in a form that does not submit", Facts{Tag: "button", Role: "button", Name: "Show more", InForm: true}, true, nil},
		{"link named Buy", Facts{Tag: "a", Role: "link", Name: "Buy now"}, true, []Kind{Purchase}},
		{"plain button", Facts{Tag: "button", Role: "button", Name: "Next"}, true, nil},
		{"a word inside another is not the word", Facts{Tag: "button", Role: "button", Name: "Orderly payload"}, true, nil},
		{"any case", Facts{Tag: "div", Role: "button", Name: "DELETE account"}, true, []Kind{Purchase}},
		{"enter in a form's field", Facts{Tag: "input", Role: "textbox", Name: "Send to", Submits: true, InForm: true}, false, []Kind{Submit}},
		{"enter elsewhere", Facts{Tag: "input", Role: "textbox", Name: "Pay"}, false, nil},
		{"link to another origin", Facts{Tag: "a", Role: "link", Name: "Bank", Href: "https://bank.example/"}, true, nil},
		{"link named Pay to another origin", Facts{Tag: "a", Role: "link", Name: "Pay", Href: "https://pay.example/"}, true, []Kind{Purchase}},
		{"enter on a link to another origin", Facts{Tag: "a", Role: "link", Name: "Bank", Href: "https://bank.example/"}, false, nil},
		{"link on the same origin", Facts{Tag: "a", Role: "link", Name: "Cart", Href: "https://shop.example/cart#top"}, true, nil},
		{"javascript: link", Facts{Tag: "a", Role: "link", Name: "Open", Href: "javascript:location='https://bank.example'"}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.f, DefaultWords, tt.click)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAsks(t *testing.T) {
	bank := func(p []string) bool { return slices.Contains(p, "*.bank.example") || slices.Contains(p, "*") }
	shop := func(p []string) bool { return slices.Contains(p, "*") }
	rules := []Rule{{Origins: []string{"*.bank.example"}, Actions: []Kind{Upload, Submit}}}
	tests := []struct {
		name  string
		rules []Rule
		kinds []Kind
		match func([]string) bool
		want  Kind
		ok    bool
	}{
		{"no kinds", Default(), nil, shop, "", false},
		{"default asks a submit anywhere", Default(), []Kind{Submit}, shop, Submit, true},
		{"default asks a purchase", Default(), []Kind{Purchase}, shop, Purchase, true},
		{"default does not ask an upload", Default(), []Kind{Upload}, shop, "", false},
		{"rule on its origin", rules, []Kind{Upload}, bank, Upload, true},
		{"rule off its origin", rules, []Kind{Submit}, shop, "", false},
		{"empty rules ask nothing", []Rule{}, []Kind{Submit, Purchase}, shop, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Asks(tt.rules, tt.kinds, tt.match)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %q %v, want %q %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestRulesFor(t *testing.T) {
	own := []Rule{{Origins: []string{"*"}, Actions: []Kind{Upload}}}
	def := []Rule{}
	p := Policy{Agents: map[string][]Rule{"claude": own, DefaultAgent: def}}
	if got := p.RulesFor("claude"); !slices.EqualFunc(got, own, func(a, b Rule) bool { return slices.Equal(a.Actions, b.Actions) }) {
		t.Errorf("claude: got %v, want %v", got, own)
	}
	if got := p.RulesFor("codex"); len(got) != 0 {
		t.Errorf("codex: got %v, want the empty default entry", got)
	}
	if got := (Policy{}).RulesFor("codex"); len(got) != 1 || !slices.Equal(got[0].Actions, []Kind{Submit, Purchase}) {
		t.Errorf("no entries: got %v, want Default()", got)
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range Kinds {
		if got, err := ParseKind(string(k)); err != nil || got != k {
			t.Errorf("ParseKind(%q): got %q, %v", k, got, err)
		}
	}
	if _, err := ParseKind("buy"); err == nil {
		t.Error("ParseKind(buy): got no error, want one")
	}
}

func TestDescribe(t *testing.T) {
	got := Describe("click", Facts{Tag: "button", Role: "button", Name: "Place\n  order"}, "shop.example")
	if want := "click button 'Place order' on shop.example"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The name is the page's: what the person reads (in a terminal with
// `egohost confirm list`, in the popup) carries no terminal escapes and no
// bidi controls that would show them another word.
func TestDescribeKeepsThePagesNameInert(t *testing.T) {
	tests := []struct{ name, want string }{
		{"\x1b]0;owned\x07Buy\x1b[2J", "click button '�]0;owned�Buy�[2J' on shop.example"},
		{"Cancel\u202e redro ecalP", "click button 'Cancel� redro ecalP' on shop.example"},
		{"Pay\u200b now\u0000", "click button 'Pay� now�' on shop.example"},
		{"Café ✓ 注文", "click button 'Café ✓ 注文' on shop.example"},
	}
	for _, tt := range tests {
		if got := Describe("click", Facts{Tag: "button", Role: "button", Name: tt.name}, "shop.example"); got != tt.want {
			t.Errorf("name %q: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDescribeNavigation(t *testing.T) {
	tests := []struct{ verb, to, from, want string }{
		{"go to", "bank.example", "shop.example", "go to bank.example from shop.example"},
		{"go back to", "bank.example", "shop.example", "go back to bank.example from shop.example"},
		{"go to", "bank.example", "", "open bank.example in a new tab"},
		{"go to", "bank.example\u202e", "shop.example", "go to bank.example� from shop.example"},
	}
	for _, tt := range tests {
		if got := DescribeNavigation(tt.verb, tt.to, tt.from); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestDescribeDownload(t *testing.T) {
	if got, want := DescribeDownload("statement.pdf", "bank.example"), "download 'statement.pdf' from bank.example"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := DescribeDownload("", "bank.example"), "download from bank.example"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDescribeCookies(t *testing.T) {
	tests := []struct {
		verb   string
		names  []string
		domain string
		want   string
	}{
		{"set", []string{"sid"}, "shop.example", "set cookie 'sid' on shop.example"},
		{"clear", []string{"a", "b"}, ".shop.example", "clear cookies 'a', 'b' on .shop.example"},
		{"clear", []string{"1", "2", "3", "4", "5", "6", "7"}, "shop.example", "clear cookies '1', '2', '3', '4', '5' and 2 more on shop.example"},
		{"set", []string{"x\x1b[2Jy"}, "shop.example", "set cookie 'x�[2Jy' on shop.example"},
	}
	for _, tt := range tests {
		if got := DescribeCookies(tt.verb, tt.names, tt.domain); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

// An Enter submits its element's form and a Space clicks a button,
// alone or as a combo's last key; other keys ask nothing.
func TestKeyVerb(t *testing.T) {
	tests := []struct {
		key   string
		verb  string
		enter bool
		ok    bool
	}{
		{"Enter", "press Enter in", true, true},
		{"Control+Enter", "press Enter in", true, true},
		{"enter", "press Enter in", true, true},
		{"Space", "press Space on", false, true},
		{" ", "press Space on", false, true},
		{"Shift+ ", "press Space on", false, true},
		{"Tab", "", false, false},
		{"+", "", false, false},
		{"a", "", false, false},
	}
	for _, tt := range tests {
		verb, enter, ok := KeyVerb(tt.key)
		if verb != tt.verb || enter != tt.enter || ok != tt.ok {
			t.Errorf("KeyVerb(%q): got %q %v %v, want %q %v %v", tt.key, verb, enter, ok, tt.verb, tt.enter, tt.ok)
		}
	}
}

func TestUploadVerb(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{1, "upload 1 file to"},
		{2, "upload 2 files to"},
		{0, "upload 0 files to"},
	} {
		if got := UploadVerb(tt.n); got != tt.want {
			t.Errorf("UploadVerb(%d): got %q, want %q", tt.n, got, tt.want)
		}
	}
}

// An agent's kinds are those of the method's that its rules name (its
// own, else the default entry's, else Default), each once.
func TestKindsOf(t *testing.T) {
	p := Policy{Agents: map[string][]Rule{
		"careful": {{Origins: []string{"*"}, Actions: []Kind{Submit, NavigateNewOrigin}}, {Origins: []string{"https://bank.example"}, Actions: []Kind{Submit, Purchase}}},
		"quiet":   {},
	}}
	click := []Kind{Submit, Purchase, NavigateNewOrigin}
	tests := []struct {
		agent string
		kinds []Kind
		want  []Kind
	}{
		{"careful", click, []Kind{Submit, NavigateNewOrigin, Purchase}},
		{"careful", []Kind{Download}, nil},
		{"careful", nil, nil},
		{"quiet", click, nil},
		{"bot", click, []Kind{Submit, Purchase}}, // Default
	}
	for _, tt := range tests {
		if got := p.KindsOf(tt.agent, tt.kinds); !slices.Equal(got, tt.want) {
			t.Errorf("KindsOf(%s, %v): got %v, want %v", tt.agent, tt.kinds, got, tt.want)
		}
	}
}

func TestPurchaseWords(t *testing.T) {
	if got := (Policy{}).PurchaseWords(); !slices.Equal(got, DefaultWords) {
		t.Errorf("no list: got %v, want the default", got)
	}
	if got := (Policy{Words: []string{}}).PurchaseWords(); len(got) != 0 {
		t.Errorf("an empty list: got %v, want it empty", got)
	}
}
