package confirmmethods

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
)

func TestVerb(t *testing.T) {
	tests := []struct {
		name  string
		p     any
		verb  string
		enter bool
		ok    bool
	}{
		{"click", protocol.ClickParams{Element: "#b"}, "click", false, true},
		{"press Enter", protocol.PressParams{Key: "Enter"}, "press Enter in", true, true},
		{"press Space", protocol.PressParams{Key: "Space"}, "press Space on", false, true},
		{"press Tab", protocol.PressParams{Key: "Tab"}, "", false, false},
		{"type a line", protocol.TypeParams{Text: "hello\n"}, "type Enter in", true, true},
		{"type text", protocol.TypeParams{Text: "hello"}, "", false, false},
		{"fill", protocol.FillParams{Text: "x\n"}, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verb, enter, ok := Verb(tt.p)
			if verb != tt.verb || enter != tt.enter || ok != tt.ok {
				t.Errorf("got %q %v %v, want %q %v %v", verb, enter, ok, tt.verb, tt.enter, tt.ok)
			}
		})
	}
}

// Without a target, the keys' element is the focused one, so the ask is
// bound to where they go.
func TestTarget(t *testing.T) {
	if got := Target(protocol.PressParams{Key: "Enter"}); got.Element != focusedTarget {
		t.Errorf("press: got target %q, want %q", got.Element, focusedTarget)
	}
	if got := Target(protocol.TypeParams{Text: "a\n", Element: "#q"}); got.Element != "#q" {
		t.Errorf("type with a target: got %q, want #q", got.Element)
	}
	if got := Target(protocol.ClickParams{Element: "#b"}); got.Element != "#b" {
		t.Errorf("click: got %q, want #b", got.Element)
	}
}

// An element action asks about every kind it is that the call may ask
// about and its agent's policy names (one ask, named for the first), and
// acts only on the element the person confirmed, still reading the same.
func TestHook(t *testing.T) {
	placeOrder := confirm.Facts{Tag: "button", Role: "button", Name: "Place order", Submits: true, InForm: true}
	logIn := confirm.Facts{Tag: "a", Role: "link", Name: "Log in", Href: "https://bank.example/login"}
	on := func(url string, f confirm.Facts) *actions.Facts { return &actions.Facts{Facts: f, URL: url} }
	every := []confirm.Kind{confirm.Submit, confirm.Purchase, confirm.NavigateNewOrigin, confirm.Upload}
	tests := []struct {
		name    string
		kinds   []confirm.Kind // the call's; the policy names every kind on every origin
		verb    string
		enter   bool
		always  []confirm.Kind
		r       *fakeRunner
		top     string // the tab's URL
		saidYes []asks.Always
		answer  *asks.Answer
		// wantAsked is the ask ("kind origin: action"), "" for none;
		// wantActed whether the hook judged the act, wantErr its error.
		wantAsked string
		wantActed bool
		wantCode  protocol.Code
		wantErr   string
		noPicture bool
	}{
		{name: "a plain button", kinds: every, verb: "click", r: &fakeRunner{facts: on("https://shop.example/cart", confirm.Facts{Tag: "button", Role: "button", Name: "Next"})}},
		{name: "a submit button to buy", kinds: every, verb: "click", r: &fakeRunner{facts: on("https://shop.example/cart", placeOrder)}, answer: allow,
			wantAsked: "submit https://shop.example: click button 'Place order' on shop.example", wantActed: true},
		{name: "a call that may ask about purchases only", kinds: []confirm.Kind{confirm.Purchase}, verb: "click", r: &fakeRunner{facts: on("https://shop.example/cart", placeOrder)}, answer: allow,
			wantAsked: "purchase https://shop.example: click button 'Place order' on shop.example", wantActed: true},
		{name: "submits said always: the purchase still asks", kinds: every, verb: "click", r: &fakeRunner{facts: on("https://shop.example/cart", placeOrder)}, answer: allow,
			saidYes:   []asks.Always{{Agent: "bot", Origin: "https://shop.example", Kind: "submit"}},
			wantAsked: "purchase https://shop.example: click button 'Place order' on shop.example", wantActed: true},
		{name: "an Enter in a field named Buy submits nothing", kinds: every, verb: "press Enter in", enter: true, r: &fakeRunner{facts: on("https://shop.example/cart", confirm.Facts{Tag: "input", Role: "textbox", Name: "Buy"})}},
		{name: "a link to another origin", kinds: every, verb: "click", top: "https://shop.example/cart", r: &fakeRunner{facts: on("https://shop.example/cart", logIn)}, answer: allow,
			wantAsked: "navigate_new_origin https://bank.example: click link 'Log in' on shop.example to bank.example", wantActed: true},
		{name: "a frame's link that loads the tab", kinds: every, verb: "click", top: "https://shop.example/cart", r: &fakeRunner{facts: on("https://bank.example/frame", logIn)}, answer: allow,
			wantAsked: "navigate_new_origin https://bank.example: click link 'Log in' on shop.example to bank.example", wantActed: true},
		{name: "a link on its own origin", kinds: every, verb: "click", top: "https://bank.example/", r: &fakeRunner{facts: on("https://bank.example/", logIn)}},
		{name: "the tab's URL does not read", kinds: every, verb: "click", r: &fakeRunner{facts: on("https://shop.example/cart", logIn)},
			wantCode: protocol.CodeInternal, wantErr: "the tab's URL: Page.getNavigationHistory"},
		{name: "an upload is one whatever its element", kinds: []confirm.Kind{confirm.Upload}, verb: "upload 1 file to", always: []confirm.Kind{confirm.Upload},
			r: &fakeRunner{facts: on("https://jobs.example/apply", confirm.Facts{Tag: "input", Name: "CV"})}, answer: allow,
			wantAsked: "upload https://jobs.example: upload 1 file to input 'CV' on jobs.example", wantActed: true},
		{name: "no picture of the element", kinds: every, verb: "click", r: &fakeRunner{facts: on("https://shop.example/cart", placeOrder), noPicture: true}, answer: allow,
			wantAsked: "submit https://shop.example: click button 'Place order' on shop.example", wantActed: true, noPicture: true},
		{name: "the person denies", kinds: every, verb: "click", r: &fakeRunner{facts: on("https://shop.example/cart", placeOrder)}, answer: deny,
			wantAsked: "submit https://shop.example: click button 'Place order' on shop.example", wantActed: true,
			wantCode: protocol.CodeDeniedByPerson, wantErr: "the person denied: click button 'Place order' on shop.example"},
		{name: "the element reads otherwise after the yes", kinds: every, verb: "click", answer: allow,
			r:         &fakeRunner{facts: on("https://shop.example/cart", placeOrder), after: on("https://shop.example/cart", confirm.Facts{Tag: "button", Role: "button", Name: "Place 10 orders", Submits: true})},
			wantAsked: "submit https://shop.example: click button 'Place order' on shop.example", wantActed: true,
			wantCode: protocol.CodeInternal, wantErr: `click click button 'Place order' on shop.example: the element the person confirmed changed while they were asked (it now reads "click button 'Place 10 orders' on shop.example")`},
		{name: "the link goes elsewhere after the yes", kinds: every, verb: "click", top: "https://shop.example/cart", answer: allow,
			r:         &fakeRunner{facts: on("https://shop.example/cart", logIn), after: on("https://shop.example/cart", confirm.Facts{Tag: "a", Role: "link", Name: "Log in", Href: "http://bank.example/login"})},
			wantAsked: "navigate_new_origin https://bank.example: click link 'Log in' on shop.example to bank.example", wantActed: true,
			wantCode: protocol.CodeInternal, wantErr: "(its link now goes to http://bank.example, not https://bank.example)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, s := newMethods(t)
			s.policy = confirm.Policy{Agents: map[string][]confirm.Rule{"bot": {{Origins: []string{"*"}, Actions: confirm.Kinds}}}}
			for _, rule := range tt.saidYes {
				a := s.store.Add(protocol.Confirm{Agent: rule.Agent, Origin: rule.Origin, Kind: rule.Kind}, time.Minute, nil)
				if _, err := s.store.Answer(a.ID, asks.Answer{Allow: true, Always: true}); err != nil {
					t.Fatal(err)
				}
			}
			s.answer = tt.answer
			tab := &fakeTab{page: cdpfake.New()}
			if tt.top != "" {
				tab = newTab(0, tt.top)
			}
			hook := m.Hook(&fakeCall{kinds: tt.kinds}, tab, tt.r, tt.verb, tt.enter, tt.always...)
			acted, err := hook(context.Background(), actions.Element{})
			checkErr(t, err, tt.wantCode, tt.wantErr)
			if acted != tt.wantActed {
				t.Errorf("got judged %v, want %v", acted, tt.wantActed)
			}
			var asked []string
			for _, q := range s.asked {
				asked = append(asked, q.Kind+" "+q.Origin+": "+q.Action)
				if q.Agent != "bot" || q.Method != protocol.MethodClick || q.Browser != "B1" || q.Tab != 7 || (q.Picture == nil) != tt.noPicture {
					t.Errorf("got ask %+v, want bot's click on B1's tab 7 (a picture: %v)", q, !tt.noPicture)
				}
			}
			var want []string
			if tt.wantAsked != "" {
				want = []string{tt.wantAsked}
			}
			if diff := cmp.Diff(want, asked); diff != "" {
				t.Errorf("asks (-want +got):\n%s", diff)
			}
		})
	}
}

// A call whose agent's policy names none of its method's kinds gets no
// hook: its element action reads nothing more of the page.
func TestHookNone(t *testing.T) {
	m, _ := newMethods(t)
	if hook := m.Hook(&fakeCall{}, newTab(0), &fakeRunner{}, "click", false); hook != nil {
		t.Error("got a hook, want none")
	}
}

// One ask covers every kind the act is, and its "always" answer all of
// them, each on its own origin.
func TestHookAlways(t *testing.T) {
	m, s := newMethods(t)
	s.policy = confirm.Policy{Agents: map[string][]confirm.Rule{"bot": {{Origins: []string{"*"}, Actions: confirm.Kinds}}}}
	s.answer = &asks.Answer{Allow: true, Always: true, Who: "person"}
	buyThere := confirm.Facts{Tag: "a", Role: "link", Name: "Buy now", Href: "https://pay.example/checkout"}
	r := &fakeRunner{facts: &actions.Facts{Facts: buyThere, URL: "https://shop.example/"}}
	hook := m.Hook(&fakeCall{kinds: confirm.Kinds}, newTab(0, "https://shop.example/"), r, "click", false)
	for i := range 2 {
		if _, err := hook(context.Background(), actions.Element{}); err != nil {
			t.Fatalf("click %d: %v", i+1, err)
		}
	}
	if len(s.asked) != 1 {
		t.Errorf("got %d asks, want 1 (the second click went through)", len(s.asked))
	}
	for _, k := range []struct {
		origin string
		kind   confirm.Kind
	}{{"https://shop.example", confirm.Purchase}, {"https://pay.example", confirm.NavigateNewOrigin}} {
		if !s.store.AllowedAlways("bot", k.origin, k.kind) {
			t.Errorf("%s on %s: not allowed always, want it", k.kind, k.origin)
		}
	}
}
