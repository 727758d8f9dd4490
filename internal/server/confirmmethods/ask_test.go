package confirmmethods

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
)

var (
	allow = &asks.Answer{Allow: true, Who: "person"}
	deny  = &asks.Answer{Who: "person"}
)

// An act of a kind the call may ask about waits for the person when its
// agent's policy names it on the act's origin: the ask is listed, the
// browser told (its badge), the agent notified, and both the ask and its
// answer are audited; the answer, the clock or the call's end decides.
func TestConfirm(t *testing.T) {
	const act = "set cookie 'sid' on shop.example"
	tests := []struct {
		name     string
		kinds    []confirm.Kind
		url      string
		answer   *asks.Answer
		wait     time.Duration
		ended    bool // the call ended while it waited
		wantCode protocol.Code
		wantErr  error
		// wantAudit: the audit lines; none when nothing asks.
		wantAudit []string
	}{
		{name: "the call's method cannot be the kind", kinds: []confirm.Kind{confirm.Download}, url: "https://shop.example/"},
		{name: "the policy does not name the origin", kinds: []confirm.Kind{confirm.CookieWrite}, url: "https://blog.example/"},
		{
			name: "the person allows", kinds: []confirm.Kind{confirm.CookieWrite}, url: "https://shop.example/cart", answer: allow,
			wantAudit: []string{"bot confirm.ask waiting: " + act, "person confirm.answer allowed: bot: " + act},
		},
		{
			name: "the person denies", kinds: []confirm.Kind{confirm.Download, confirm.CookieWrite}, url: "https://shop.example/cart", answer: deny,
			wantCode:  protocol.CodeDeniedByPerson,
			wantAudit: []string{"bot confirm.ask waiting: " + act, "person confirm.answer denied: bot: " + act},
		},
		{
			name: "nobody answers", kinds: []confirm.Kind{confirm.CookieWrite}, url: "https://shop.example/cart", wait: time.Millisecond,
			wantCode:  protocol.CodeConfirmTimeout,
			wantAudit: []string{"bot confirm.ask waiting: " + act, "nobody confirm.answer confirm_timeout: bot: " + act},
		},
		{
			name: "the call ends first", kinds: []confirm.Kind{confirm.CookieWrite}, url: "https://shop.example/cart", ended: true,
			wantCode: protocol.CodeInternal, wantErr: context.Canceled,
			wantAudit: []string{"bot confirm.ask waiting: " + act, "nobody confirm.answer cancelled: bot: " + act},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, s := newMethods(t)
			s.policy = confirm.Policy{Agents: map[string][]confirm.Rule{"bot": {{Origins: []string{"https://shop.example"}, Actions: []confirm.Kind{confirm.CookieWrite, confirm.Download}}}}}
			s.answer, s.wait = tt.answer, tt.wait
			ctx, cancel := context.WithCancel(context.Background())
			if tt.ended {
				cancel()
			}
			defer cancel()
			c := &fakeCall{kinds: tt.kinds}
			err := m.Confirm(ctx, c, confirm.CookieWrite, tt.url, protocol.Confirm{Action: act, Browser: "B1", Tab: 7})
			if got := codeOf(err); got != tt.wantCode || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("got error %v (code %v), want code %v", err, got, tt.wantCode)
			}
			if diff := cmp.Diff(tt.wantAudit, s.said()); diff != "" {
				t.Errorf("audit lines (-want +got):\n%s", diff)
			}
			if tt.wantAudit == nil {
				if len(s.badges) != 0 || len(c.waited) != 0 {
					t.Errorf("got notices %q and notifications %v, want none: nothing asked", s.badges, c.waited)
				}
				return
			}
			// The browser's badge counts the ask while it waits, and is
			// cleared when it ends; the agent hears what it waits on.
			if want := []string{"B1 ?1", "B1 "}; !cmp.Equal(s.badges, want) {
				t.Errorf("got notices %q, want %q", s.badges, want)
			}
			if len(c.waited) != 1 || c.waited[0].Message != "waiting for the person to confirm: "+act || c.waited[0].Kind != "cookie_write" || c.waited[0].Origin != "https://shop.example" {
				t.Errorf("got notifications %+v, want one waiting for %q", c.waited, act)
			}
			if n := len(s.store.List("", false)); n != 0 {
				t.Errorf("%d asks still listed, want none", n)
			}
		})
	}
}

// The ask says whose act it is, of what kind, on what origin, where.
func TestConfirmAsks(t *testing.T) {
	m, s := newMethods(t)
	s.answer = allow
	err := m.Confirm(context.Background(), &fakeCall{kinds: []confirm.Kind{confirm.Submit}}, confirm.Submit, "https://shop.example/cart", protocol.Confirm{Action: "click button 'Pay' on shop.example", Browser: "B1", Tab: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.asked) != 1 {
		t.Fatalf("got %d asks, want 1", len(s.asked))
	}
	q := s.asked[0]
	q.ID, q.Since, q.ExpiresMs = "", "", 0
	want := protocol.Confirm{Agent: "bot", Method: protocol.MethodClick, Kind: "submit", Origin: "https://shop.example", Action: "click button 'Pay' on shop.example", Browser: "B1", Tab: 7}
	if diff := cmp.Diff(want, q); diff != "" {
		t.Errorf("the ask (-want +got):\n%s", diff)
	}
}

// "Always" lets the agent's later acts of the kind on the origin through
// unasked; on another origin they still ask.
func TestConfirmAlways(t *testing.T) {
	m, s := newMethods(t)
	s.policy = confirm.Policy{Agents: map[string][]confirm.Rule{"bot": {{Origins: []string{"*"}, Actions: []confirm.Kind{confirm.Download}}}}}
	c := &fakeCall{kinds: []confirm.Kind{confirm.Download}}
	ask := func(url string, answer *asks.Answer) error {
		s.answer = answer
		return m.Confirm(context.Background(), c, confirm.Download, url, protocol.Confirm{Action: "download 'a.pdf'", Browser: "B1"})
	}
	if err := ask("https://bank.example/statements", &asks.Answer{Allow: true, Always: true, Who: "person"}); err != nil {
		t.Fatalf("the first download: %v", err)
	}
	if err := ask("https://bank.example/other", deny); err != nil {
		t.Errorf("the next download on the origin: got %v, want it unasked", err)
	}
	if err := ask("https://shop.example/", deny); codeOf(err) != protocol.CodeDeniedByPerson {
		t.Errorf("a download on another origin: got %v, want it asked (and denied)", err)
	}
	if got := len(s.asked); got != 2 {
		t.Errorf("got %d asks, want 2", got)
	}
}

// Before a tab loads a page of another origin than the one it shows, the
// person is asked (the policy names navigate_new_origin everywhere); the
// origin judged is what the navigation must still reach.
func TestNavigation(t *testing.T) {
	history := []string{"https://shop.example/cart", "https://bank.example/login", "https://shop.example/done"}
	tests := []struct {
		name       string
		tab        *fakeTab
		verb       string
		delta      int64
		to         string
		answer     *asks.Answer
		wantJudged string
		wantAsked  string // the ask's action; "": none
		wantCode   protocol.Code
		wantErr    string
	}{
		{name: "goto on the same origin", tab: newTab(1, history...), verb: "go to", to: "https://bank.example/accounts", wantJudged: "https://bank.example"},
		{name: "goto another origin", tab: newTab(1, history...), verb: "go to", to: "https://pay.example/", answer: allow,
			wantJudged: "https://pay.example", wantAsked: "go to pay.example from bank.example"},
		{name: "back to another origin", tab: newTab(1, history...), verb: "go back to", delta: -1, answer: allow,
			wantJudged: "https://shop.example", wantAsked: "go back to shop.example from bank.example"},
		{name: "forward to another origin, denied", tab: newTab(1, history...), verb: "go forward to", delta: 1, answer: deny,
			wantJudged: "https://shop.example", wantAsked: "go forward to shop.example from bank.example", wantCode: protocol.CodeDeniedByPerson},
		{name: "back from the first entry", tab: newTab(0, history...), verb: "go back to", delta: -1},
		{name: "goto from a tab that shows nothing yet", tab: newTab(0), verb: "go to", to: "https://pay.example/", answer: allow,
			wantJudged: "https://pay.example", wantAsked: "go to pay.example from about:blank"},
		{name: "the tab's history does not read", tab: &fakeTab{page: cdpfake.New()}, verb: "go to", to: "https://pay.example/",
			wantCode: protocol.CodeInternal, wantErr: "go to: the tab's history: Page.getNavigationHistory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, s := newMethods(t)
			s.policy = confirm.Policy{Agents: map[string][]confirm.Rule{"bot": {{Origins: []string{"*"}, Actions: []confirm.Kind{confirm.NavigateNewOrigin}}}}}
			s.answer = tt.answer
			judged, err := m.Navigation(context.Background(), &fakeCall{kinds: []confirm.Kind{confirm.NavigateNewOrigin}}, tt.tab, tt.verb, tt.delta, tt.to)
			checkErr(t, err, tt.wantCode, tt.wantErr)
			if judged != tt.wantJudged {
				t.Errorf("judged %q, want %q", judged, tt.wantJudged)
			}
			var asked []string
			for _, q := range s.asked {
				asked = append(asked, q.Kind+": "+q.Action)
			}
			var want []string
			if tt.wantAsked != "" {
				want = []string{"navigate_new_origin: " + tt.wantAsked}
			}
			if diff := cmp.Diff(want, asked); diff != "" {
				t.Errorf("asks (-want +got):\n%s", diff)
			}
		})
	}
}
